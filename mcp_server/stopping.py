"""Stop signals: the first SIGTERM, SIGINT or SIGHUP stops the server (status 128 + the signal)."""

from __future__ import annotations

import signal
import threading
from typing import Any

__all__ = ["StopSignals", "Stopped"]

_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name))


class Stopped(BaseException):
    """A stop signal arrived (a ``BaseException``, like ``KeyboardInterrupt``: no ``except Exception`` eats it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class StopSignals:
    """While active, the first SIGTERM, SIGINT or SIGHUP raises :class:`Stopped` in the main thread; later
    ones (and any after :meth:`disarm`) are ignored, so stopping is never interrupted. Only the main thread
    can handle signals: elsewhere (a server embedded in a thread) this does nothing."""

    def __init__(self) -> None:
        self.armed = True
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in _STOP_SIGNALS:
                self._previous[signum] = signal.signal(signum, self._raise)
        return self

    def _raise(self, signum: int, frame: Any) -> None:
        if self.armed:
            self.armed = False
            raise Stopped(signum)

    def disarm(self) -> None:
        """Ignore stop signals from now on."""
        self.armed = False

    def __exit__(self, *exc_info: Any) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)

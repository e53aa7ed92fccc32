"""A time limit per file: one input that takes too long gets an ``error`` entry and the batch goes on."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ..core.catalogue import render_text
from ..core.text import Text

__all__ = ["FileTimeLimit", "time_limit", "time_limit_error"]


class FileTimeLimit(BaseException):
    """A file's work went over its time limit (a ``BaseException``, so no ``except Exception`` on the way, which
    turns a failing stage into an issue, mistakes it for a verdict). ``seconds``: the limit it went over."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`FileTimeLimit` in the block after ``seconds`` (a real-time timer). Only in a process's main
    thread, where pool workers run their tasks; elsewhere (a Dask worker thread) the block runs unbounded.

    The timer keeps firing after it expires (every :func:`_repeat_interval`): an exception raised where Python
    cannot pass it on (inside a garbage-collector callback or a ``__del__``) is only printed and dropped, and
    the next one stops the block."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(_signum, _frame) -> None:
        raise FileTimeLimit(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds, _repeat_interval(seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _repeat_interval(seconds: float) -> float:
    """How often the limit is raised again once expired: a tenth of it, between 50 ms and 1 s."""
    return max(0.05, min(1.0, seconds / 10))


def time_limit_error(seconds: float, lang: str) -> str:
    """``el archivo superó el límite de tiempo por archivo (120 s); no se procesó``."""
    return render_text(Text.of("batch.time_limit", seconds=f"{seconds:g}"), lang)

"""Moments a time limit's alarm waits out: a file descriptor being opened or closed while no ``try`` holds it yet
(or any longer). An exception raised there by an alarm would leak the descriptor, or close one twice, and leave a
temporary file behind. Such a moment is written ``with HANDOVER:``. A time limit's alarm handler (the real-time
timer's ``SIGALRM``, :mod:`fel_rules.batch.time_limit`) asks :func:`defer` first: in a handover, the alarm is put
off, and as the outermost handover ends the timer is set to fire again at once, so the handler runs again right
after it, where the descriptor is held by a ``try`` that closes it. An alarm is so late by one handover at most: a
few system calls.

Alarms are handled in the main thread only, so each thread keeps its own count: another thread's file work never
holds the main thread's alarms back.
"""

from __future__ import annotations

import signal
import threading

__all__ = ["HANDOVER", "defer", "forget_deferred"]

#: How soon a deferred alarm fires again once the handover ends (seconds; the least the timer takes).
_AT_ONCE = 1e-6


class _Handover(threading.local):
    """A context manager counting, per thread, the handovers under way (they nest), and whether an alarm was put
    off until they end."""

    depth = 0
    deferred = False

    def __enter__(self) -> None:
        self.depth += 1

    def __exit__(self, *_exc: object) -> None:
        self.depth -= 1
        if self.depth == 0 and self.deferred:
            self.deferred = False
            _, interval = signal.getitimer(signal.ITIMER_REAL)
            signal.setitimer(signal.ITIMER_REAL, _AT_ONCE, interval)  # (its repeats as they were)


HANDOVER = _Handover()


def defer() -> bool:
    """For an alarm handler: True when this thread is in a handover (the alarm is then put off until it ends, see the
    module docstring: the handler returns without raising); False outside one (the handler raises now)."""
    if HANDOVER.depth > 0:
        HANDOVER.deferred = True
        return True
    return False


def forget_deferred() -> None:
    """Forget an alarm put off (a time limit that ends: the timer of its alarms must not be set again)."""
    HANDOVER.deferred = False

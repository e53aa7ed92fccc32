"""Moments a time limit's alarm waits out: a file descriptor being opened or closed while no ``try`` holds it yet
(or any longer). An exception raised there by an alarm would leak the descriptor, or close one twice, and leave a
temporary file behind. Such a moment is written ``with HANDOVER:``; the time limits' alarm handlers ask
:func:`handing_over` and, while it is true, let that alarm pass: their timers fire again shortly
(:mod:`fel_rules.batch.time_limit`), once the descriptor is where a ``finally`` closes it.

Alarms are handled in the main thread only, so each thread keeps its own count: another thread's file work never
holds the main thread's alarms back.
"""

from __future__ import annotations

import threading

__all__ = ["HANDOVER", "handing_over"]


class _Handover(threading.local):
    """A context manager counting, per thread, the handovers under way (they nest)."""

    depth = 0

    def __enter__(self) -> None:
        self.depth += 1

    def __exit__(self, *_exc: object) -> None:
        self.depth -= 1


HANDOVER = _Handover()


def handing_over() -> bool:
    """True while this thread opens or closes a descriptor that no ``try`` holds (see the module docstring)."""
    return HANDOVER.depth > 0

"""Moments a time limit's alarm waits out: a file descriptor being opened or closed while no ``try`` holds it yet
(or any longer). An exception raised there by an alarm would leak the descriptor, or close one twice, and leave a
temporary file behind. Such a moment is written ``with HANDOVER:``. A time limit's alarm handler (the real-time
timer's ``SIGALRM``, :mod:`fel_rules.batch.time_limit`) asks :func:`defer` first: in a handover, the alarm is put
off, and as the outermost handover ends the timer is set to fire again at once, so the handler runs again right
after it, where the descriptor is held by a ``try`` that closes it. An alarm is so late by one handover at most: a
few system calls (or, landing in code that lets descriptors go after a failure, :func:`alarms_wait_in`, by one
repeat of the timer).

Alarms are handled in the main thread only, so each thread keeps its own count: another thread's file work never
holds the main thread's alarms back.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import CodeType
from typing import TypeVar

__all__ = ["HANDOVER", "alarms_wait_in", "defer", "forget_deferred"]

_Function = TypeVar("_Function", bound=Callable)
#: The code of the functions an alarm never interrupts (:func:`alarms_wait_in`).
_WAITING: set[CodeType] = set()

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


def alarms_wait_in(function: _Function) -> _Function:
    """Mark ``function`` as one an alarm never interrupts (a decorator): code that lets descriptors go after a
    failure, or a time limit's own entry and exit, whose first step an alarm could otherwise stop. An alarm that
    lands in its own code (not in what it calls) is let pass; the time limit's timer fires again at its next
    repeat. Keep such a function short, its work done by system calls."""
    _WAITING.add(function.__code__)
    return function


def defer(frame: object = None) -> bool:
    """For an alarm handler, given the frame the alarm landed in: True when the alarm is to be put off (the handler
    then returns without raising) — in a handover, until it ends (see the module docstring), or in a function
    marked with :func:`alarms_wait_in`; False elsewhere (the handler raises now)."""
    if HANDOVER.depth > 0:
        HANDOVER.deferred = True
        return True
    return getattr(frame, "f_code", None) in _WAITING


def forget_deferred() -> None:
    """Forget an alarm put off (a time limit that ends: the timer of its alarms must not be set again)."""
    HANDOVER.deferred = False

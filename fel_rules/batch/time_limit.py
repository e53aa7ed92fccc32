"""A time limit per file: one input that takes too long gets an ``error`` entry and the batch goes on."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from ..core.catalogue import render_text
from ..core.handover import defer, forget_deferred
from ..core.text import Text
from ..engine import Stopped

__all__ = ["FileTimeLimit", "own_time_limits", "time_limit", "time_limit_error"]


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
    the next one stops the block. An alarm during a descriptor's handover fires again as soon as the handover ends
    (:mod:`fel_rules.core.handover`)."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(_signum, _frame) -> None:
        if not defer():  # (in a descriptor's handover: once it ends)
            raise FileTimeLimit(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds, _repeat_interval(seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        forget_deferred()


@contextmanager
def own_time_limits(seconds: float | None, *, over: Callable[[], BaseException] = Stopped,
                    ) -> Iterator[Callable[[float], AbstractContextManager[None]] | None]:
    """For a group of documents validated together (:meth:`~fel_rules.engine.Validator.inspect_many`), or written up
    together: the guard that keeps each document within ``seconds`` of its own stages' time, or ``None`` (no limit,
    or not in the main thread: see :func:`time_limit`). Within the block, a stage of a document runs with a timer
    set to what is left of its limit; a document that goes over it is stopped (``over()`` is raised: by default
    :class:`~fel_rules.engine.Stopped`, its outcome ``None``) and the others go on."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield None
        return
    limit = seconds

    def expire(_signum, _frame) -> None:  # wherever it lands within a guarded stage, its document is stopped
        if not defer():  # (in a descriptor's handover: once it ends)
            raise over()

    # A generator, not a class: an alarm that lands as the stage is left, before the timer is stopped, still stops
    # it (the generator, dropped, is closed and runs its ``finally``); a class's ``__exit__`` would leave it set.
    @contextmanager
    def within(spent: float) -> Iterator[None]:
        left = limit - spent
        if left <= 0:
            raise over()
        try:  # armed inside: an alarm between arming and the stage, or after it, still stops this document
            signal.setitimer(signal.ITIMER_REAL, left, _repeat_interval(limit))
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            forget_deferred()  # (an alarm of this document put off never sets the timer for the next)

    previous = signal.signal(signal.SIGALRM, expire)
    try:
        yield within
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        forget_deferred()


def _repeat_interval(seconds: float) -> float:
    """How often the limit is raised again once expired: a tenth of it, between 50 ms and 1 s."""
    return max(0.05, min(1.0, seconds / 10))


def time_limit_error(seconds: float, lang: str) -> str:
    """``el archivo superó el límite de tiempo por archivo (120 s); no se procesó``."""
    return render_text(Text.of("batch.time_limit", seconds=f"{seconds:g}"), lang)

"""A time limit per file: one input that takes too long gets an ``error`` entry and the batch goes on."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

from ..core.catalogue import render_text
from ..core.handover import alarms_wait_in, defer, forget_deferred
from ..core.text import Text
from ..engine import Stopped

__all__ = ["FileTimeLimit", "own_time_limits", "time_limit", "time_limit_error"]


class FileTimeLimit(BaseException):
    """A file's work went over its time limit (a ``BaseException``, so no ``except Exception`` on the way, which
    turns a failing stage into an issue, mistakes it for a verdict). ``seconds``: the limit it went over."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def time_limit(seconds: float | None) -> AbstractContextManager[None]:
    """Raise :class:`FileTimeLimit` in the block after ``seconds`` (a real-time timer). Only in a process's main
    thread, where pool workers run their tasks; elsewhere (a Dask worker thread) the block runs unbounded.

    The timer keeps firing after it expires (every :func:`_repeat_interval`): an exception raised where Python
    cannot pass it on (inside a garbage-collector callback or a ``__del__``) is only printed and dropped, and
    the next one stops the block. An alarm during a descriptor's handover fires again as soon as the handover ends
    (:mod:`fel_rules.core.handover`); one that lands in the guard's own entry or exit is let pass (see
    :class:`_Guard`)."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        return nullcontext()
    return _TimeLimit(seconds)


class _Guard:
    """A guard's entry and exit, which its alarms never interrupt: the handler (:meth:`_expire`) lets an alarm pass
    that lands in them (:func:`~fel_rules.core.handover.alarms_wait_in`). One landing as the guard is entered fires
    again at the timer's next repeat; one landing as it is left comes after the block (its work is done). So the
    timer is always stopped and the handler always restored as the block is left, whatever point an alarm lands
    at; a guard written as a generator leaves that to the generator's ``finally``, which an alarm landing in
    ``contextlib``'s ``__exit__`` puts off until the generator is dropped (its repeats meanwhile land in the
    caller's code), and a class whose exit an alarm may interrupt leaves the timer set."""

    __slots__ = ()

    def stop(self) -> BaseException:
        """What an alarm raises in the block."""
        raise NotImplementedError

    def _expire(self, _signum: int, frame: object) -> None:
        if not defer(frame):  # (in a descriptor's handover: once it ends; in the guard's own entry or exit: passed)
            raise self.stop()


class _TimeLimit(_Guard):
    """:func:`time_limit` of ``seconds``: installs its handler and sets the timer as the block is entered, stops
    the timer and puts the handler back as the block is left."""

    __slots__ = ("seconds", "previous")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.previous: object = None

    def stop(self) -> BaseException:
        return FileTimeLimit(self.seconds)

    @alarms_wait_in
    def __enter__(self) -> None:
        self.previous = signal.signal(signal.SIGALRM, self._expire)
        signal.setitimer(signal.ITIMER_REAL, self.seconds, _repeat_interval(self.seconds))

    @alarms_wait_in
    def __exit__(self, *_exc: object) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous)  # type: ignore[arg-type]
        forget_deferred()


class _Stage(_Guard):
    """A stage of a document within :func:`own_time_limits`: the timer set to what is left of its limit as the stage
    begins (``over()`` at once when nothing is), stopped as it ends. The handler is the group's (installed once)."""

    __slots__ = ("left", "interval", "over")

    def __init__(self, left: float, interval: float, over: Callable[[], BaseException]) -> None:
        self.left, self.interval, self.over = left, interval, over

    def stop(self) -> BaseException:
        return self.over()

    @alarms_wait_in
    def __enter__(self) -> None:
        if self.left <= 0:
            raise self.over()
        signal.setitimer(signal.ITIMER_REAL, self.left, self.interval)

    @alarms_wait_in
    def __exit__(self, *_exc: object) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        forget_deferred()  # (an alarm of this document put off never sets the timer for the next)


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
    limit, interval = seconds, _repeat_interval(seconds)
    stages = _Stage(0.0, interval, over)  # (its handler serves every stage: they run one at a time)

    def within(spent: float) -> AbstractContextManager[None]:
        return _Stage(limit - spent, interval, over)

    previous = signal.signal(signal.SIGALRM, stages._expire)
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

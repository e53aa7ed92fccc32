"""A time limit per file: one input that takes too long gets an ``error`` entry and the batch goes on."""

from __future__ import annotations

import math
import signal
import threading
import time
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


class _Stages:
    """The time limits of a group's documents (:func:`own_time_limits`): one timer, and its handler, serve every
    stage. Setting the timer is a system call, and each document goes through some ten stages, so a stage sets it
    only when its own deadline comes before the one it is set for (the group's first stage; a document with less time
    left); an alarm for a deadline that is not the running stage's sets the timer again to the stage's, and one
    between stages stops it: a stage is stopped as its own time runs out, and nothing else ever is. An alarm that
    lands in a stage's own entry or exit, or in a descriptor's handover, waits as for :class:`_Guard`. (Setting and
    stopping the timer at each stage cost a worker 25 µs of CPU a signed invoice: 1,494 → 1,469 µs, 1.7 %, a batch's
    write-up included, medians of 9 side by side.)"""

    __slots__ = ("limit", "interval", "over", "fires_at", "deadline")

    def __init__(self, limit: float, interval: float, over: Callable[[], BaseException]) -> None:
        self.limit, self.interval, self.over = limit, interval, over
        self.fires_at = math.inf  # when the timer fires next at the latest (time.monotonic); inf: stopped
        self.deadline: float | None = None  # the running stage's (time.monotonic), or None between stages

    def stage(self, spent: float) -> _Stage:
        """The guard of a stage of a document that has used ``spent`` seconds of its limit so far."""
        return _Stage(self, self.limit - spent)

    def _expire(self, _signum: int, frame: object) -> None:
        now = time.monotonic()
        if defer(frame):  # (in a descriptor's handover: once it ends; in a guard's own entry or exit: passed)
            self.fires_at = now + self.interval  # (at its next repeat, or sooner as a handover ends)
            return
        deadline = self.deadline
        if deadline is None:  # between stages: nothing runs on a limit
            signal.setitimer(signal.ITIMER_REAL, 0)
            self.fires_at = math.inf
        elif now < deadline:  # set for an earlier stage's deadline: this one has time left
            self.fires_at = deadline  # (before the timer: an alarm landing as it is set keeps its own figure)
            signal.setitimer(signal.ITIMER_REAL, max(deadline - now, _LEAST), self.interval)
        else:
            self.fires_at = now + self.interval
            raise self.over()


#: The least time a timer is set to (seconds): a shorter one would be taken for zero, which stops it.
_LEAST = 1e-6


class _Stage:
    """A stage of a document within :func:`own_time_limits`, with ``left`` seconds of its limit: ``over()`` at once
    when nothing is left; otherwise the stage's deadline is the group's until the stage ends (see :class:`_Stages`)."""

    __slots__ = ("group", "left")

    def __init__(self, group: _Stages, left: float) -> None:
        self.group, self.left = group, left

    @alarms_wait_in
    def __enter__(self) -> None:
        group = self.group
        if self.left <= 0:
            raise group.over()
        deadline = group.deadline = time.monotonic() + self.left
        if deadline < group.fires_at:
            # (the figure first: an alarm landing as the timer is set, with a few microseconds left, is put off
            # and says the timer fires again a repeat later, which must not be overwritten by a past deadline)
            group.fires_at = deadline
            signal.setitimer(signal.ITIMER_REAL, self.left, group.interval)

    @alarms_wait_in
    def __exit__(self, *_exc: object) -> None:
        self.group.deadline = None
        forget_deferred()  # (an alarm of this document put off never sets the timer for the next)


@contextmanager
def own_time_limits(seconds: float | None, *, over: Callable[[], BaseException] = Stopped,
                    ) -> Iterator[Callable[[float], AbstractContextManager[None]] | None]:
    """For a group of documents validated together (:meth:`~fel_rules.engine.Validator.inspect_many`), or written up
    together: the guard that keeps each document within ``seconds`` of its own stages' time, or ``None`` (no limit,
    or not in the main thread: see :func:`time_limit`). Within the block, a stage of a document runs until what is
    left of its limit runs out; a document that goes over it is stopped (``over()`` is raised: by default
    :class:`~fel_rules.engine.Stopped`, its outcome ``None``) and the others go on. The timer is stopped, and the
    earlier handler back, as the block is left."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield None
        return
    stages = _Stages(seconds, _repeat_interval(seconds), over)
    previous = signal.signal(signal.SIGALRM, stages._expire)
    try:
        yield stages.stage
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

"""The per-file time limit of a batch holds even when its first alarm is dropped on the way."""

from __future__ import annotations

import signal
import time

import pytest

from fel_rules.batch.time_limit import FileTimeLimit, time_limit


def test_the_limit_stops_a_block_that_runs_too_long():
    started = time.monotonic()
    with pytest.raises(FileTimeLimit), time_limit(0.1):
        time.sleep(5)
    assert time.monotonic() - started < 4


def test_a_dropped_alarm_is_raised_again():
    """Python only prints an exception raised inside a garbage-collector callback or a ``__del__``: the limit
    must not be lost with it."""
    dropped = []
    started = time.monotonic()
    with pytest.raises(FileTimeLimit), time_limit(0.1):
        try:
            time.sleep(5)
        except FileTimeLimit as exc:  # as if raised where it cannot propagate
            dropped.append(exc)
        time.sleep(5)
    assert len(dropped) == 1 and time.monotonic() - started < 4


def test_the_timer_and_handler_are_restored():
    before = signal.getsignal(signal.SIGALRM)
    with time_limit(5):
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before

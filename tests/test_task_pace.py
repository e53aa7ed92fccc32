"""How many items a local pool's task carries (:class:`fel_rules.batch.executors._Pace`)."""

from __future__ import annotations

import pytest

from fel_rules.batch.executors import _MAX_GROUP, GROUP_S, _Pace

#: A signed invoice's CPU in a worker, validated in a group and written up (seconds).
_STEADY = 0.0016


def _sizes(pace: _Pace, tasks: int, per_item: float) -> list[int]:
    """The sizes of ``tasks`` tasks sent and finished one after the other, each item taking ``per_item``."""
    sizes = []
    for _ in range(tasks):
        size = pace.size()
        pace.sent(size)
        pace.record(size * per_item, size)
        sizes.append(size)
    return sizes


def test_one_item_goes_first_while_no_task_has_finished():
    assert _Pace(2).size() == 1
    assert _Pace(2, 1200).size() == 1


def test_a_new_workers_slow_first_items_are_soon_forgotten():
    """A forked worker's first item takes several times the steady pace, and an item alone in its task more than
    one in a group (as measured: the first eight tasks of a batch of 1,200 signed invoices on 2 workers); five tasks
    later the size is within 10 % of what the steady pace asks for (an average over every item done so far would
    still be held back: 27)."""
    pace = _Pace(2)
    for milliseconds in (9.8, 9.4, 2.9, 2.7, 2.3, 2.6, 2.2, 2.4):
        pace.record(milliseconds / 1000, 1)
    sizes = _sizes(pace, 6, _STEADY)
    assert sizes[0] < sizes[-1]
    assert sizes[-1] == pytest.approx(GROUP_S / _STEADY, rel=0.1)


def _workers_cpu(items: list[float], workers: int) -> list[float]:
    """The CPU each of ``workers`` workers spends on ``items`` (seconds each, in order), sent in the tasks the pace
    makes: four tasks in flight per worker, each worker taking the next task as it finishes one (as a pool does)."""
    pace = _Pace(workers, len(items))
    busy = [0.0] * workers  # when each worker is free again
    spent = [0.0] * workers
    sent = 0
    queue: list[list[float]] = []
    while sent < len(items) or queue:
        while sent < len(items) and len(queue) < 4 * workers:
            size = pace.size()
            queue.append(items[sent:sent + size])
            pace.sent(len(queue[-1]))
            sent += len(queue[-1])
        task = queue.pop(0)
        worker = busy.index(min(busy))
        seconds = sum(task)
        busy[worker] += seconds
        spent[worker] += seconds
        pace.record(seconds, len(task))
    return spent


def test_the_last_tasks_go_one_item_each_so_long_items_at_the_end_are_shared():
    """The largest invoices sorted last: after 400 small ones of 1 ms, 8 of 150 ms each; the last tasks carry one
    item, so both workers get about the same work (a floor of 10 ms on the last tasks' size, from the small items'
    pace, once gave one worker 1.1 s of it and the other 0.5 s)."""
    spent = _workers_cpu([0.001] * 400 + [0.15] * 8, 2)
    assert max(spent) - min(spent) <= 0.15 + 0.01


def test_a_pace_too_small_to_divide_by_still_gives_the_most():
    """Tasks measured at no CPU time at all (a coarse clock) halve the pace each time, down to numbers whose
    quotient is infinite: the size is then the most, never an error."""
    pace = _Pace(2)
    pace.record(0.001, 1)
    for _ in range(1_200):
        pace.record(0.0, 3)
        assert 1 <= pace.size() <= _MAX_GROUP
    assert pace.size() == _MAX_GROUP


def test_without_a_known_count_the_size_follows_the_pace_alone():
    pace = _Pace(2)
    pace.record(_STEADY * 10, 10)
    assert _sizes(pace, 3, _STEADY) == [int(GROUP_S / _STEADY)] * 3


def test_long_items_go_one_a_task_and_instant_ones_the_most():
    slow = _Pace(2, 100)
    slow.record(0.5, 1)
    assert slow.size() == 1
    instant = _Pace(2, 10_000)
    instant.record(0.0, 5)
    assert instant.size() == _MAX_GROUP

"""How many items a local pool's task carries (:class:`fel_rules.batch.executors._Pace`)."""

from __future__ import annotations

import pytest

from fel_rules.batch.executors import _MAX_GROUP, GROUP_S, TAIL_S, _Pace

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


def test_the_last_tasks_are_shorter_but_never_below_the_tail_s_worth():
    pace = _Pace(2, 400)
    pace.record(_STEADY * 10, 10)
    sizes = _sizes(pace, 40, _STEADY)
    least = int(TAIL_S / _STEADY)
    assert max(sizes) <= int(GROUP_S / _STEADY)
    assert sizes[-1] < sizes[0]
    assert min(sizes) == least  # what is left shared among 8 tasks is less than that by now
    assert sizes.count(1) == 0


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

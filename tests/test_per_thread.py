"""One object per thread: made once in each thread that asks, never shared between two."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from fel_rules.core.per_thread import PerThread


def test_each_thread_gets_its_own_object_made_once():
    made = []
    each = PerThread(lambda: made.append(object()) or made[-1])
    here = each.get()
    assert each.get() is here
    with ThreadPoolExecutor(1) as other:
        there = other.submit(lambda: (each.get(), each.get())).result()
    assert there[0] is there[1] and there[0] is not here
    assert len(made) == 2

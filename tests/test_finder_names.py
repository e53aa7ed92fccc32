"""The generated code of the path finders shares one namespace: the names it makes must stay unique, and a name must
always reach its own value, when several threads build finders at once (the MCP server runs tool calls in threads)."""

from __future__ import annotations

import sys
import threading

import pytest

from fel_rules.checks import _finders


@pytest.fixture
def frequent_switches():
    """Threads switched as often as the interpreter allows, so that a race shows in a short test."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _in_threads(work, count: int = 8) -> list:
    results: list = [None] * count
    start = threading.Barrier(count)

    def run(index: int) -> None:
        start.wait()
        results[index] = work(index)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_each_constant_name_reaches_its_own_value_across_threads(frequent_switches):
    def work(index: int) -> list[tuple[str, str]]:
        values = [f"finder-names-{index}-{n}" for n in range(5_000)]
        return [(value, _finders._constant(value)) for value in values]

    for pairs in _in_threads(work):
        for value, name in pairs:
            assert _finders._NAMESPACE[name] == value


def test_the_same_constant_has_one_name_across_threads(frequent_switches):
    shared = [f"finder-shared-{n}" for n in range(2_000)]
    made = _in_threads(lambda _: [_finders._constant(value) for value in shared])
    assert all(names == made[0] for names in made)

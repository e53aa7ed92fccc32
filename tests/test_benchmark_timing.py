"""The benchmarks' interleaved timing: every measure runs in turn, round after round (no timing is asserted)."""

from __future__ import annotations

from benchmarks.timing import interleaved_cpu_ms, interleaved_ms


def test_each_round_runs_every_action_in_turn_an_untimed_run_first():
    calls: list[str] = []
    times = interleaved_ms({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 4, block=2)
    assert list(times) == ["a", "b"]
    assert all(value >= 0 for value in times.values())
    assert calls == ["a"] * 3 + ["b"] * 3 + ["a"] * 3 + ["b"] * 3  # 2 rounds: 1 untimed + 2 timed each


def test_a_repeat_that_is_no_multiple_of_the_block_is_rounded_up():
    calls: list[str] = []
    interleaved_cpu_ms({"only": lambda: calls.append("x")}, 5, block=2)
    assert len(calls) == 3 * 3  # 3 rounds, each 1 untimed + 2 timed: at least 5 timed runs

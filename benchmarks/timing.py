"""Shared timing helper of the benchmark scripts."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping

__all__ = ["interleaved_cpu_ms", "interleaved_ms", "median_cpu_ms", "median_ms"]


def median_ms(action: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``action`` over ``repeat`` runs, in milliseconds."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def median_cpu_ms(action: Callable[[], object], repeat: int) -> float:
    """Median CPU time of this process running ``action`` over ``repeat`` runs, in milliseconds (what one core
    spends, whatever else the machine runs meanwhile)."""
    samples = []
    for _ in range(repeat):
        start = time.process_time()
        action()
        samples.append(time.process_time() - start)
    return statistics.median(samples) * 1000



def interleaved_ms(actions: Mapping[str, Callable[[], object]], repeat: int, *, block: int = 1) -> dict[str, float]:
    """Median wall time of one run of each of ``actions`` (by name), in milliseconds, measured interleaved: round
    after round, each action in turn runs once untimed (its code and data back in the processor's caches) and then
    ``block`` times timed, until each has run ``repeat`` timed times. A slow or fast moment of the machine touches
    every action alike, so their ratios compare like with like; medians taken one action after the other can each
    land in another phase of a noisy machine."""
    return _interleaved(actions, repeat, block, time.perf_counter)


def interleaved_cpu_ms(actions: Mapping[str, Callable[[], object]], repeat: int, *,
                       block: int = 1) -> dict[str, float]:
    """:func:`interleaved_ms` in CPU time of this process (see :func:`median_cpu_ms`)."""
    return _interleaved(actions, repeat, block, time.process_time)


def _interleaved(actions: Mapping[str, Callable[[], object]], repeat: int, block: int,
                 clock: Callable[[], float]) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(max(1, -(-repeat // block))):
        for name, action in actions.items():
            action()
            start = clock()
            for _ in range(block):
                action()
            samples[name].append((clock() - start) / block)
    return {name: statistics.median(taken) * 1000 for name, taken in samples.items()}

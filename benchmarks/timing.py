"""Shared timing helper of the benchmark scripts."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

__all__ = ["median_cpu_ms", "median_ms"]


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

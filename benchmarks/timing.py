"""Shared timing helper of the benchmark scripts."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

__all__ = ["median_ms"]


def median_ms(action: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``action`` over ``repeat`` runs, in milliseconds."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000

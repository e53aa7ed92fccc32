"""Where per-file work runs: a local process pool, or an existing Dask distributed cluster."""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, as_completed, wait
from typing import Any

from ..errors import FelRulesError

__all__ = ["DaskExecutor", "LocalExecutor", "default_workers"]


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class LocalExecutor:
    """A process pool; forked workers inherit the warmed-up validator (rules and schema compiled once)."""

    name = "process"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        # fork only from a single-threaded process: forking while another thread holds a lock (a
        # server answering requests, say) can leave the child waiting on it forever
        single = threading.active_count() == 1
        method = "fork" if single and "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method))

    def run(self, function: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Results of ``function`` over ``items``, in completion order; at most a few tasks per worker
        are in flight, so memory does not grow with the number of files."""
        pending: set = set()
        limit = 4 * self.workers
        for item in items:
            pending.add(self._pool.submit(function, item))
            if len(pending) >= limit:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        for future in as_completed(pending):
            yield future.result()

    def close(self) -> None:
        """Stop the workers."""
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """Runs the same per-file function on a Dask distributed cluster (inputs and outputs on a shared filesystem)."""

    name = "dask"

    def __init__(self, scheduler: str) -> None:
        try:
            from distributed import Client
        except ImportError as exc:
            raise FelRulesError(
                "El ejecutor dask necesita el extra fel-rules[dask] (pip install 'fel-rules[dask]')",
                message_en="The dask executor needs the fel-rules[dask] extra (pip install 'fel-rules[dask]')",
            ) from exc
        try:
            self._client = Client(scheduler, timeout="20s")
        except Exception as exc:  # noqa: BLE001 - connection errors come in many types
            raise FelRulesError(f"No se pudo conectar al planificador Dask {scheduler}: {exc}",
                                message_en=f"Could not connect to the Dask scheduler {scheduler}: {exc}") from exc
        self.workers = sum(self._client.nthreads().values()) or 1

    def run(self, function: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Results of ``function`` over ``items``, in completion order."""
        from distributed import as_completed as dask_completed

        futures = self._client.map(function, list(items), pure=False)
        for future in dask_completed(futures):
            yield future.result()
            future.release()

    def close(self) -> None:
        """Disconnect (the cluster keeps running)."""
        self._client.close()

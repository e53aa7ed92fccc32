"""Where per-file work runs: a local process pool, or an existing Dask distributed cluster."""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sized
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from itertools import islice
from typing import Any

from ..core.catalogue import error_texts
from ..core.errors import FelRulesError, InputError
from ..core.text import Text

__all__ = ["DaskExecutor", "LocalExecutor", "WorkerCrashed", "default_workers", "frozen_heap", "local_workers",
           "open_executor"]


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def local_workers(requested: int | None) -> int:
    """The worker processes a local batch uses: as many as asked, at most :func:`default_workers` (more
    processes than cores only compete for them, each with its own memory)."""
    cores = default_workers()
    return min(requested, cores) if requested else cores


def open_executor(kind: str, scheduler: str | None, workers: int | None) -> LocalExecutor | DaskExecutor:
    """The executor a batch asked for: ``"dask"`` (on the cluster at ``scheduler``) or local processes."""
    if kind == "dask":
        if not scheduler:
            raise InputError("--executor dask necesita --scheduler DIRECCIÓN",
                             message_en="--executor dask needs --scheduler ADDRESS")
        return DaskExecutor(scheduler)
    return LocalExecutor(local_workers(workers))


class LocalExecutor:
    """A process pool; forked workers inherit the warmed-up validator (rules and schema compiled once).

    A worker that dies (killed by a signal, the kernel's out-of-memory killer, a crash in a C library)
    breaks the whole pool: every unfinished task fails with ``BrokenProcessPool``. The pool is then
    replaced and the unfinished tasks run again one at a time, so a task that kills its worker a second
    time is known for sure: ``crashed(item)`` gives its result, and the others go on.
    """

    name = "process"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.crashes = 0  # how many times a worker died (its temporary files may be left behind)
        # fork only from a single-threaded process: forking while another thread holds a lock (a
        # server answering requests, say) can leave the child waiting on it forever
        single = threading.active_count() == 1
        method = "fork" if single and "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self._context = multiprocessing.get_context(method)
        self._pool = self._new_pool()

    @property
    def forks(self) -> bool:
        """True when the workers are forked from this process (they inherit what it has made so far)."""
        return self._context.get_start_method() == "fork"

    def _new_pool(self) -> ProcessPoolExecutor:
        self._forked = False
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=self._context, initializer=_worker_started,
                                   initargs=(os.getpid(),))

    def _replace_pool(self) -> None:
        self.crashes += 1
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = self._new_pool()

    def run(self, function: Callable[[Any], Any], items: Iterable[Any],
            crashed: Callable[[Any], Any] | None = None, stop: Callable[[], bool] | None = None) -> Iterator[Any]:
        """Results of ``function`` over ``items``, in completion order; at most a few tasks per worker
        are in flight, so memory does not grow with the number of files. ``crashed(item)`` is the result
        of an item whose worker died twice (without it, :class:`WorkerCrashed` is raised). The results end
        early once ``stop()`` is true (asked at least every :data:`STOP_POLL_S` seconds, even while a long
        task runs).

        Short items travel in groups: each task sent to a worker carries as many items as take about
        :data:`GROUP_S` seconds there (judged from the latest tasks; one at first), so sending the tasks and
        collecting the results costs little beside the items' own work; when ``items`` says how many there are
        (``len``), the last tasks carry fewer, so that the workers finish together. A ``function`` with a ``many``
        attribute gets a task's items at once (``many(items)``, their results in order). When a worker dies, every
        item of its task is done again alone."""
        pace = _Pace(self.workers, len(items) if isinstance(items, Sized) else None)
        items = iter(items)
        pending: dict = {}  # future -> the items of its task
        while stop is None or not stop():
            lost = self._submit(function, items, pending, pace)  # items a broken pool did not finish
            if not pending and not lost:
                return
            for future in self._finished(pending, broken=bool(lost), poll=stop is not None):
                group = pending.pop(future)
                if _broke(future):
                    lost.extend(group)
                else:
                    seconds, results = future.result()
                    pace.record(seconds, len(results))
                    yield from results
            if lost:
                self._replace_pool()
                for item in lost:  # one at a time: a second death names the culprit
                    yield self._alone(function, item, crashed)

    def _submit(self, function: Callable[[Any], Any], items: Iterator[Any], pending: dict, pace: _Pace) -> list:
        """Submit tasks of the size ``pace`` gives until a few per worker are in flight or no item is left; the
        items a broken pool refused, if any."""
        while len(pending) < 4 * self.workers:
            group = list(islice(items, pace.size()))
            if not group:
                break
            pace.sent(len(group))
            try:
                pending[self._send(_each, function, group)] = group
            except BrokenProcessPool:
                return group
        return []

    @staticmethod
    def _finished(pending: dict, *, broken: bool, poll: bool) -> set:
        """The futures that finished: at least one (within :data:`STOP_POLL_S` when ``poll``), or every one
        once the pool broke — a broken pool fails every unfinished future: wait for all, keep what did finish."""
        if not broken:
            done, _ = wait(pending, timeout=STOP_POLL_S if poll else None, return_when=FIRST_COMPLETED)
            broken = any(_broke(future) for future in done)
        if broken:
            wait(pending)
            done = set(pending)
        return done

    def _send(self, function: Callable[..., Any], *args: Any):
        """Submit a task to the pool. The first one sent to a pool that forks its workers forks them, with every
        object this process holds frozen for the garbage collector (:func:`gc.freeze`): a worker's collections
        then never walk the objects it inherited, so they are not copied into its own memory page by page (some
        tens of milliseconds of CPU per worker, and memory shared for as long as it is only read). This process
        then puts every frozen object back, those it froze itself before included: they are only walked by its
        collections again (leaving the ones frozen since would keep any garbage among them for good)."""
        if self._forked or not self.forks:
            return self._pool.submit(function, *args)
        gc.freeze()
        try:
            return self._pool.submit(function, *args)
        finally:
            self._forked = True
            gc.unfreeze()  # (only here: each worker keeps them frozen)

    def _alone(self, function: Callable[[Any], Any], item: Any, crashed: Callable[[Any], Any] | None) -> Any:
        future = self._send(function, item)
        try:
            return future.result()
        except BrokenProcessPool:
            self._replace_pool()
            if crashed is None:
                raise WorkerCrashed(
                    "un proceso de trabajo terminó inesperadamente dos veces con la misma tarea",
                    message_en="a worker process ended unexpectedly twice on the same task",
                ) from None
            return crashed(item)

    def close(self, *, abort: bool = False) -> None:
        """Stop the workers: once their tasks are done, or at once with ``abort`` (cancelled or interrupted
        run: the unfinished files are simply done again by ``--resume``)."""
        if abort:
            for process in list((getattr(self._pool, "_processes", None) or {}).values()):
                process.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Every object this process holds now left out of the garbage collector's walks within the block
    (:func:`gc.freeze`), and put back as it ends: a block that makes many objects (a warm-up) then never walks the
    whole heap, some 15 ms a full collection in a batch's process once rules and schema are loaded. When objects are
    frozen already (a server froze what it loaded), nothing is done: they are not this block's to put back."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _each(function: Callable[[Any], Any], items: list) -> tuple[float, list]:
    """In a worker: ``function`` over ``items`` in turn, with the CPU time they took. A function with a ``many``
    attribute (items → their results, in order) takes them all at once instead."""
    start = time.process_time()
    together = getattr(function, "many", None) if len(items) > 1 else None
    results = together(items) if together is not None else [function(item) for item in items]
    return time.process_time() - start, results


#: About how long (seconds of a worker's CPU) the items of one task take: long enough that sending the task and
#: its results is little beside them (each task costs the coordinator a few tenths of a millisecond of CPU, taken
#: from the workers when they have every core: pickling, the pool's threads waking up), short enough that the
#: workers still finish together (the last tasks are shorter, see :class:`_Pace`). Measured on 2 workers, from 50 ms:
#: a batch of 1,200 signed invoices 1,362 → 1,345 ms; 400 with PDFs, the coordinator's CPU 346 → 313 ms and the
#: speed-up from 1 to 2 workers 1.83 → 1.86 (medians, side by side).
GROUP_S = 0.1
_MAX_GROUP = 64


class _Pace:
    """How many items a task carries: about :data:`GROUP_S` of a worker's CPU at the pace of the latest tasks, one
    while none has finished. Each finished task's time per item weighs half of the pace, so a new worker's first
    items (some six times slower than the next ones in a batch of signed invoices) are soon forgotten. When how
    many items are left to send is known: at most what is left shared among four tasks per worker, so the last
    tasks are short, down to one item each: long items at the end of a run (the largest invoices sorted last) go
    to the workers one by one, never several of them to one worker while another waits."""

    def __init__(self, workers: int, items: int | None = None) -> None:
        self.per_item: float | None = None  # seconds an item takes, at the latest tasks' pace
        self.workers, self.left = workers, items

    def sent(self, count: int) -> None:
        if self.left is not None:
            self.left -= count

    def record(self, seconds: float, count: int) -> None:
        if count:
            latest = seconds / count
            self.per_item = latest if self.per_item is None else (self.per_item + latest) / 2

    def size(self) -> int:
        per_item = self.per_item
        if per_item is None:
            return 1
        # (the least before int: a pace so small that the quotient is infinite still gives the most)
        size = max(1, int(min(_MAX_GROUP, GROUP_S / per_item))) if per_item > 0 else _MAX_GROUP
        return size if self.left is None else max(1, min(size, self.left // (4 * self.workers)))


#: How often a running batch checks whether it was asked to stop while no task finishes.
STOP_POLL_S = 0.25
_PARENT_POLL_S = 1.0
_PR_SET_PDEATHSIG = 1


#: The garbage collector's thresholds in a worker (:func:`gc.set_threshold`). A document's validation makes tens of
#: thousands of short-lived objects, nearly all freed by their reference counts; at Python's default (the youngest
#: objects collected every 700 new ones) the collector took some 2–3 % of a worker's time for little. Every 10,000:
#: about 3 % less wall time for a batch of certified invoices (measured side by side), a few megabytes more at most.
WORKER_GC_THRESHOLDS = (10_000, 10, 10)


def _worker_started(parent: int) -> None:
    """In each worker process: Ctrl-C is the parent's to handle (no traceback per worker), SIGTERM ends the
    worker (a handler inherited from the parent does not run here), its garbage collector runs less often
    (:data:`WORKER_GC_THRESHOLDS`), and the worker ends with its parent — a batch killed with SIGKILL leaves no
    worker behind."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    gc.set_threshold(*WORKER_GC_THRESHOLDS)
    if not _kill_me_with_parent():  # not Linux: watch the parent instead
        threading.Thread(target=_watch_parent, args=(parent,), name="fel-parent-watch", daemon=True).start()
    if os.getppid() != parent:  # the parent died before the watch began
        os._exit(1)


def _kill_me_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies (``prctl(PR_SET_PDEATHSIG)``); False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    """End this worker once its parent is gone (it is then adopted: another parent id)."""
    while os.getppid() == parent:
        time.sleep(_PARENT_POLL_S)
    os._exit(1)


def _broke(future) -> bool:
    return not future.cancelled() and isinstance(future.exception(), BrokenProcessPool)


class WorkerCrashed(FelRulesError):
    """A worker process died twice on the same task and no ``crashed`` fallback was given."""


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
            raise FelRulesError(**error_texts(Text.of("batch.dask_unreachable", scheduler=scheduler)),
                                detail=f"{type(exc).__name__}: {exc}") from exc
        self.workers = sum(self._client.nthreads().values()) or 1

    def run(self, function: Callable[[Any], Any], items: Iterable[Any],
            crashed: Callable[[Any], Any] | None = None, stop: Callable[[], bool] | None = None) -> Iterator[Any]:
        """Results of ``function`` over ``items``, in completion order. Dask itself retries a task whose
        worker died; when it gives up (``KilledWorker``), ``crashed(item)`` is the item's result. The results
        end early once ``stop()`` is true (asked after each result)."""
        from distributed import as_completed as dask_completed

        items = list(items)
        futures = self._client.map(function, items, pure=False)
        item_of = {future.key: item for future, item in zip(futures, items, strict=True)}
        for future in dask_completed(futures):
            try:
                result = future.result()
            except Exception as exc:
                if crashed is None or type(exc).__name__ != "KilledWorker":
                    raise
                result = crashed(item_of[future.key])
            yield result
            future.release()
            if stop is not None and stop():
                return

    def close(self, *, abort: bool = False) -> None:
        """Disconnect (the cluster keeps running; tasks of this client that did not finish are forgotten)."""
        self._client.close()

"""Tool calls in flight: each runs on a worker thread, is cancelled by request id, and is answered exactly
once when it ends (a cancelled call gets no answer). Stopping cancels them all and stops the worker
processes of the batches among them."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from functools import partial
from typing import Any, NamedTuple

from .log import log_failure
from .protocol import INTERNAL_ERROR, INVALID_REQUEST, RpcError, error_response

__all__ = ["Calls"]

Deliver = Callable[[Any], None]  # takes the response to a message (``None``: nothing to send)


class _Call(NamedTuple):
    """A tool call in flight."""

    tool: str
    future: Future
    cancel_event: threading.Event

    def cancel(self) -> None:
        """A running call stops at its next checkpoint and its response is dropped; a queued one never starts."""
        self.cancel_event.set()
        self.future.cancel()


class Calls:
    """The tool calls running or queued, by request id; at most ``limit`` at once."""

    def __init__(self, workers: int, limit: int) -> None:
        self.limit = limit
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fel-tool")
        self._inflight: dict[Any, _Call] = {}
        self._lock = threading.Lock()
        self._unanswered = 0  # calls whose response (or its suppression) is not delivered yet
        self._all_answered = threading.Condition(self._lock)

    def start(self, request_id: Any, tool: str, work: Callable[[threading.Event], dict], deliver: Deliver) -> bool:
        """Run ``work(cancel)`` on a worker thread; ``deliver`` gets the response it returns once it ends.
        False (nothing started) when ``limit`` calls are already in flight."""
        cancel = threading.Event()
        with self._lock:
            if request_id in self._inflight:
                raise RpcError(INVALID_REQUEST, "Invalid Request: this id is already in flight")
            if len(self._inflight) >= self.limit:
                return False
            future = self._pool.submit(work, cancel)
            self._inflight[request_id] = _Call(tool, future, cancel)
            self._unanswered += 1
        future.add_done_callback(partial(self._ended, request_id, tool, cancel, deliver))
        return True

    def _ended(self, request_id: Any, tool: str, cancel: threading.Event, deliver: Deliver, future: Future) -> None:
        """A call ended (or was cancelled before it started): deliver its response unless it was cancelled."""
        with self._lock:
            self._inflight.pop(request_id, None)
        try:
            if cancel.is_set() or future.cancelled():  # a cancelled request gets no response
                deliver(None)
            elif future.exception() is not None:  # not an Exception (those are answered): say so, stay up
                log_failure("tools/call", tool, None, future.exception())
                deliver(error_response(request_id, INTERNAL_ERROR, f"Internal error in {tool}"))
            else:
                deliver(future.result())
        finally:
            with self._lock:
                self._unanswered -= 1
                self._all_answered.notify_all()

    def cancel(self, request_id: Any) -> None:
        """Cancel the call ``request_id``, if it is in flight."""
        with self._lock:
            call = self._inflight.get(request_id)
        if call is not None:
            call.cancel()

    def cancel_all(self) -> list[_Call]:
        """Cancel every call in flight; those calls."""
        with self._lock:
            calls = list(self._inflight.values())
        for call in calls:
            call.cancel()
        return calls

    def wait_answered(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until every call has been answered."""
        with self._all_answered:
            self._all_answered.wait_for(lambda: not self._unanswered, timeout)

    def stop(self, grace: float) -> bool:
        """Cancel the calls still in flight (their responses are dropped) and stop the worker processes of
        the batches among them; True when there was something to stop. Cancelled batches get ``grace``
        seconds to end while their worker processes are terminated; what is left then is killed."""
        calls = self.cancel_all()
        batches = [call.future for call in calls if call.tool == "fel_batch"]
        if batches:
            _stop_worker_processes(batches, grace)
        self._pool.shutdown(wait=False, cancel_futures=True)
        return bool(calls)


def _stop_worker_processes(batches: list[Future], grace: float) -> None:
    """Terminate this process's child processes — the workers of running batches — until ``batches`` have
    ended (a cancelled batch may start a replacement worker meanwhile); after ``grace`` seconds, kill them."""
    deadline = time.monotonic() + grace
    while True:
        for child in _child_processes():
            child.terminate()
        _, running = wait(batches, timeout=0.1)
        if not running or time.monotonic() > deadline:
            break
    for child in _child_processes():
        child.kill()
        child.join(1.0)


def _child_processes() -> list:
    import multiprocessing  # only a server stopping batches needs it

    try:
        return multiprocessing.active_children()
    except RuntimeError:  # another thread started a process meanwhile: the next round sees it
        return []

"""Tool calls in flight: each runs on a worker thread, is cancelled by request id, and is answered exactly
once when it ends (a cancelled call gets no answer). Stopping cancels them all and stops the worker
processes of the batches among them.

The worker threads are this module's own (a queue and a condition): :mod:`concurrent.futures` would load
:mod:`logging`, some 10 ms of the server's start before its first answer (see :mod:`.log`)."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from .log import log_event, log_failure
from .protocol import INTERNAL_ERROR, INVALID_REQUEST, RpcError, error_response

__all__ = ["Calls"]

Deliver = Callable[[Any], None]  # takes the response to a message (``None``: nothing to send)
Work = Callable[[threading.Event], dict]  # a call's work, given its cancel event; returns its response

class _Call:
    """A tool call in flight: ``queued`` until a worker thread takes it (or it is dropped), then running until its
    work returns; ``ended`` is set once its response (or the lack of one) is delivered."""

    __slots__ = ("request_id", "tool", "work", "deliver", "cancel_event", "queued", "ended")

    def __init__(self, request_id: Any, tool: str, work: Work, deliver: Deliver) -> None:
        self.request_id, self.tool, self.work, self.deliver = request_id, tool, work, deliver
        self.cancel_event = threading.Event()
        self.queued = True
        self.ended = threading.Event()


class Calls:
    """The tool calls running or queued, by request id; at most ``limit`` at once, run on at most ``workers``
    threads (started as calls need them)."""

    def __init__(self, workers: int, limit: int) -> None:
        self.limit = limit
        self._workers = workers
        self._threads = 0  # worker threads started
        self._idle = 0  # of them, waiting for a call and not yet woken for one
        self._queue: deque[_Call] = deque()
        self._inflight: dict[Any, _Call] = {}
        self._lock = threading.Lock()
        self._queued = threading.Condition(self._lock)  # a call was queued, or the calls stop
        self._stopping = False
        self._unanswered = 0  # calls whose response (or its suppression) is not delivered yet
        self._all_answered = threading.Condition(self._lock)

    def start(self, request_id: Any, tool: str, work: Work, deliver: Deliver) -> bool:
        """Run ``work(cancel)`` on a worker thread; ``deliver`` gets the response it returns once it ends.
        False (nothing started) when ``limit`` calls are already in flight."""
        with self._lock:
            if self._stopping:
                raise RuntimeError("the tool calls are stopping: no new call starts")
            if request_id in self._inflight:
                raise RpcError(INVALID_REQUEST, "Invalid Request: this id is already in flight")
            if len(self._inflight) >= self.limit:
                return False
            if self._idle:
                self._idle -= 1  # (woken for this call: the next one counts on another thread)
                self._queued.notify()
            elif self._threads < self._workers:  # (a thread that cannot start raises here: nothing is queued)
                threading.Thread(target=self._serve, name=f"fel-tool_{self._threads}", daemon=True).start()
                self._threads += 1
            call = self._inflight[request_id] = _Call(request_id, tool, work, deliver)
            self._unanswered += 1
            self._queue.append(call)
        return True

    def _serve(self) -> None:
        """A worker thread: runs the queued calls one after another, waits while there are none, ends once the
        calls stop."""
        while True:
            with self._lock:
                while not self._queue:
                    if self._stopping:
                        return
                    self._idle += 1
                    self._queued.wait()
                call = self._queue.popleft()
                call.queued = False
            self._run(call)

    def _run(self, call: _Call) -> None:
        """Run a call and deliver its response: none when it was cancelled; an internal error when its work
        raised what is not an :class:`Exception` (those it answers itself), said on stderr; the server stays up."""
        response = None
        try:
            if not call.cancel_event.is_set():
                response = call.work(call.cancel_event)
        except BaseException as exc:  # noqa: BLE001 - a worker thread's failure never ends the server
            if not call.cancel_event.is_set():
                response = error_response(call.request_id, INTERNAL_ERROR, f"Internal error in {call.tool}")
                _say_failure(call.tool, exc)
        self._end(call, None if call.cancel_event.is_set() else response)

    def _end(self, call: _Call, response: Any) -> None:
        """A call ended (or was dropped before it started): deliver ``response``, count it answered."""
        with self._lock:
            if self._inflight.get(call.request_id) is call:
                del self._inflight[call.request_id]
        try:
            call.deliver(response)
        except BaseException as exc:  # noqa: BLE001 - the response is lost (said on stderr), the thread serves on
            if _stops_the_server(exc):
                raise
            _say_failure(call.tool, exc)
        finally:
            with self._lock:
                self._unanswered -= 1
                self._all_answered.notify_all()
            call.ended.set()

    def cancel(self, request_id: Any) -> None:
        """Cancel the call ``request_id``, if it is in flight."""
        with self._lock:
            call = self._inflight.get(request_id)
        if call is not None:
            self._cancel(call)

    def _cancel(self, call: _Call) -> None:
        """A running call stops at its next checkpoint and its response is dropped; a queued one never starts
        (it is answered with nothing at once)."""
        call.cancel_event.set()
        with self._lock:
            queued = call.queued
            if queued:
                call.queued = False
                if call in self._queue:  # (not yet when a signal interrupted its start)
                    self._queue.remove(call)
        if queued:
            self._end(call, None)

    def cancel_all(self) -> list[_Call]:
        """Cancel every call in flight; those calls."""
        with self._lock:
            calls = list(self._inflight.values())
        for call in calls:
            self._cancel(call)
        return calls

    def wait_answered(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until every call has been answered."""
        with self._all_answered:
            self._all_answered.wait_for(lambda: not self._unanswered, timeout)

    def stop(self, grace: float) -> bool:
        """Cancel the calls still in flight (their responses are dropped) and stop the worker processes of
        the batches among them; True when there was something to stop. Cancelled batches get ``grace``
        seconds to end while their worker processes are terminated; what is left then is killed. The worker
        threads end once their calls have."""
        calls = self.cancel_all()
        batches = [call for call in calls if call.tool == "fel_batch"]
        if batches:
            _stop_worker_processes(batches, grace)
        with self._lock:
            self._stopping = True
            self._queued.notify_all()
        return bool(calls)


def _stops_the_server(exc: BaseException) -> bool:
    """Whether ``exc`` is a signal's stop (Ctrl-C, SIGTERM: raised in the main thread, which also delivers the
    responses of the calls it drops) rather than a call's own failure."""
    return not isinstance(exc, Exception) and threading.current_thread() is threading.main_thread()


def _say_failure(tool: str, exc: BaseException) -> None:
    """Say an unexpected failure of a call on stderr; one that cannot be described (its ``repr`` fails) by its
    type alone."""
    try:
        log_failure("tools/call", tool, None, exc)
    except BaseException as failure:  # noqa: BLE001 - never let the account of a failure fail the thread
        if _stops_the_server(failure):
            raise
        log_event("call_failure", f"{type(exc).__name__} (sin descripción)", tool=tool)


def _stop_worker_processes(batches: list[_Call], grace: float) -> None:
    """Terminate this process's child processes — the workers of running batches — until ``batches`` have
    ended (a cancelled batch may start a replacement worker meanwhile); after ``grace`` seconds, kill them."""
    deadline = time.monotonic() + grace
    while True:
        for child in _child_processes():
            child.terminate()
        if _ended_within(batches, 0.1) or time.monotonic() > deadline:
            break
    for child in _child_processes():
        child.kill()
        child.join(1.0)


def _ended_within(calls: list[_Call], timeout: float) -> bool:
    """Whether every one of ``calls`` has ended, waiting at most ``timeout`` seconds in all."""
    deadline = time.monotonic() + timeout
    return all(call.ended.wait(max(0.0, deadline - time.monotonic())) for call in calls)


def _child_processes() -> list:
    import multiprocessing  # only a server stopping batches needs it

    try:
        return multiprocessing.active_children()
    except RuntimeError:  # another thread started a process meanwhile: the next round sees it
        return []

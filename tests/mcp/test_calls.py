"""The server's own worker threads for tool calls: at most ``workers`` calls run at once and the rest wait their
turn, each call is answered exactly once (a cancelled one with nothing), a failing call never takes a thread with it,
and the threads end once the calls stop."""

from __future__ import annotations

import threading
import time

import pytest

from mcp_server.calls import Calls


class Answers:
    """What the calls delivered, by request id; ``wait(n)`` until n answers came."""

    def __init__(self) -> None:
        self.by_id: dict[int, list] = {}
        self._came = threading.Condition()

    def deliver_for(self, request_id: int):
        def deliver(response) -> None:
            with self._came:
                self.by_id.setdefault(request_id, []).append(response)
                self._came.notify_all()

        return deliver

    def wait(self, count: int) -> None:
        with self._came:
            assert self._came.wait_for(lambda: sum(map(len, self.by_id.values())) >= count, timeout=30)


def test_no_more_calls_run_at_once_than_workers_and_every_one_is_answered_once():
    calls, answers = Calls(workers=2, limit=32), Answers()
    running, most = [0], [0]
    counting = threading.Lock()
    release = threading.Event()

    def work(request_id: int):
        def run(cancel: threading.Event) -> dict:
            with counting:
                running[0] += 1
                most[0] = max(most[0], running[0])
            release.wait(timeout=30)
            with counting:
                running[0] -= 1
            return {"id": request_id}

        return run

    for request_id in range(10):
        assert calls.start(request_id, "fel_validate", work(request_id), answers.deliver_for(request_id))
    deadline = time.monotonic() + 10
    while most[0] < 2 and time.monotonic() < deadline:  # (both workers busy before any call may end)
        time.sleep(0.01)
    time.sleep(0.05)  # (a third call would have started by now, were it let)
    release.set()
    answers.wait(10)
    calls.wait_answered(30)
    assert most[0] == 2
    assert answers.by_id == {request_id: [{"id": request_id}] for request_id in range(10)}
    calls.stop(1.0)


def test_a_call_that_raises_past_exception_is_an_internal_error_and_the_thread_serves_on():
    calls, answers = Calls(workers=1, limit=4), Answers()

    def fails(cancel: threading.Event) -> dict:
        raise SystemExit(3)

    calls.start(1, "fel_rules", fails, answers.deliver_for(1))
    calls.start(2, "fel_rules", lambda cancel: {"ok": True}, answers.deliver_for(2))
    answers.wait(2)
    assert answers.by_id[1][0]["error"] == {"code": -32603, "message": "Internal error in fel_rules"}
    assert answers.by_id[2] == [{"ok": True}]
    calls.stop(1.0)


def test_stopping_cancels_what_runs_drops_what_waits_and_ends_the_threads():
    calls, answers = Calls(workers=1, limit=4), Answers()
    entered, started = threading.Event(), []
    before = set(threading.enumerate())

    def held(cancel: threading.Event) -> dict:
        started.append(1)
        entered.set()
        cancel.wait(timeout=30)
        return {"late": True}

    calls.start(1, "fel_validate", held, answers.deliver_for(1))
    assert entered.wait(timeout=30)
    calls.start(2, "fel_validate", held, answers.deliver_for(2))  # (waits: one worker)
    workers = [thread for thread in set(threading.enumerate()) - before if thread.name.startswith("fel-tool")]
    assert len(workers) == 1
    assert calls.stop(1.0) is True
    calls.wait_answered(30)
    assert answers.by_id == {1: [None], 2: [None]} and started == [1]
    for thread in workers:
        thread.join(timeout=30)
        assert not thread.is_alive()


class _Unsayable(BaseException):
    def __repr__(self) -> str:
        raise ValueError("no repr")


def test_a_failure_that_cannot_be_said_nor_delivered_costs_no_thread(capsys):
    """A call whose work raises what cannot even be described, and one whose response cannot be delivered: each is
    said on stderr, counted answered, and the one worker thread goes on to the next call."""
    calls, answers = Calls(workers=1, limit=4), Answers()

    def unsayable(cancel: threading.Event) -> dict:
        raise _Unsayable

    def refused(response) -> None:
        raise OSError("stdout gone")

    calls.start(1, "fel_rules", unsayable, answers.deliver_for(1))
    calls.start(2, "fel_validate", lambda cancel: {"lost": True}, refused)
    calls.start(3, "fel_validate", lambda cancel: {"ok": True}, answers.deliver_for(3))
    answers.wait(2)
    calls.wait_answered(30)
    assert answers.by_id[1][0]["error"]["code"] == -32603 and answers.by_id[3] == [{"ok": True}]
    said = capsys.readouterr().err
    assert "_Unsayable" in said and "stdout gone" in said
    calls.start(1, "fel_validate", lambda cancel: {"again": True}, answers.deliver_for(1))  # (ids free again)
    answers.wait(3)
    calls.stop(1.0)


def test_a_thread_that_cannot_start_leaves_nothing_queued(monkeypatch):
    """No thread to run it: the call is refused by an exception and never answered later; the next call starts a
    thread as usual."""
    calls, answers = Calls(workers=1, limit=4), Answers()
    real_start = threading.Thread.start

    def cannot(thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", cannot)
    with pytest.raises(RuntimeError):
        calls.start(1, "fel_validate", lambda cancel: {"first": True}, answers.deliver_for(1))
    monkeypatch.setattr(threading.Thread, "start", real_start)
    calls.start(2, "fel_validate", lambda cancel: {"second": True}, answers.deliver_for(2))
    answers.wait(1)
    calls.wait_answered(30)
    assert answers.by_id == {2: [{"second": True}]}
    calls.stop(1.0)


def test_a_signal_stopping_the_server_is_not_taken_for_a_failed_delivery():
    """Dropping a queued call delivers its (empty) response on the main thread, which is where Ctrl-C or SIGTERM
    stop the server: that stop goes on up, never said as the call's failure and swallowed."""
    calls, answers = Calls(workers=1, limit=4), Answers()
    entered, release = threading.Event(), threading.Event()

    def held(cancel: threading.Event) -> dict:
        entered.set()
        release.wait(timeout=30)
        return {"held": True}

    def interrupted(response) -> None:
        raise KeyboardInterrupt

    calls.start(1, "fel_validate", held, answers.deliver_for(1))
    assert entered.wait(timeout=30)
    calls.start(2, "fel_validate", held, interrupted)  # (waits: one worker)
    with pytest.raises(KeyboardInterrupt):
        calls.cancel(2)
    release.set()
    answers.wait(1)
    calls.stop(1.0)

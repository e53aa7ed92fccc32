"""The reader thread only reads, decodes and dispatches: document work runs on worker threads, so protocol
methods and cancellation are answered at once while a slow tool call runs (singles and JSON-RPC batches)."""

from __future__ import annotations

import json
import threading

import pytest

from fel_rules import Validator

from ..conftest import EXAMPLES, ROOT
from .harness import Session

FACT_TEXT = (EXAMPLES / "factura-fact.xml").read_text(encoding="utf-8")
FACT_PATH = "examples/factura-fact.xml"
PING = {"jsonrpc": "2.0", "id": 90, "method": "ping"}


class SlowValidation:
    """Validator.validate_bytes and validate_path made slow: it records its thread and waits until released. On the
    reader thread it does not wait (the server would hang there instead of the test failing)."""

    def __init__(self, reader: threading.Thread) -> None:
        self.reader = reader
        self.threads: list[threading.Thread] = []
        self.entered = threading.Semaphore(0)
        self.release = threading.Event()

    def install(self, monkeypatch) -> None:
        for name in ("validate_bytes", "validate_path"):  # xml_text and xml_path enter the engine here
            monkeypatch.setattr(Validator, name, self._slowed(getattr(Validator, name)))

    def _slowed(self, original):
        def slow(validator, source, *args, **kwargs):
            self.threads.append(threading.current_thread())
            self.entered.release()
            if threading.current_thread() is not self.reader:
                self.release.wait(timeout=120)
            return original(validator, source, *args, **kwargs)

        return slow

    def wait_entered(self) -> threading.Thread:
        assert self.entered.acquire(timeout=60), "the tool call never started"
        return self.threads[-1]


@pytest.fixture
def session():
    current = Session([str(ROOT)])
    yield current
    current.close()


@pytest.fixture
def slow(session, monkeypatch):
    current = SlowValidation(session.thread)
    current.install(monkeypatch)
    yield current
    current.release.set()


def validate(request_id: int, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "fel_validate", "arguments": arguments}}


def answered_meanwhile(session: Session, slow: SlowValidation, busy_id) -> None:
    """While the call ``busy_id`` is held inside the validator: ping and tools/list are answered, and the
    held call has not answered yet."""
    assert session.call(91, "ping")["result"] == {}
    assert len(session.call(92, "tools/list", {})["result"]["tools"]) == 4
    assert not slow.release.is_set()
    assert all(message.get("id") != busy_id for message in session.others if isinstance(message, dict))


@pytest.mark.parametrize("arguments", [{"xml_text": FACT_TEXT}, {"xml_path": FACT_PATH}], ids=["xml_text", "xml_path"])
def test_reader_thread_never_does_document_work(session, slow, arguments):
    session.initialize()
    session.send(validate(1, arguments))
    assert slow.wait_entered() is not session.thread
    answered_meanwhile(session, slow, 1)
    slow.release.set()
    assert session.response(1)["result"]["structuredContent"]["valid"] is True


def test_reader_thread_never_does_document_work_in_a_batch(session, slow):
    session.initialize("2025-03-26")
    session.send([PING, validate(1, {"xml_text": FACT_TEXT}), {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}])
    assert slow.wait_entered() is not session.thread
    answered_meanwhile(session, slow, 1)
    slow.release.set()
    batch = session.receive()
    assert [reply["id"] for reply in batch] == [90, 1, 2]
    assert json.loads(batch[1]["result"]["content"][0]["text"])["valid"] is True


def test_cancelled_call_gets_no_response_and_the_server_keeps_answering(session, slow):
    session.initialize("2025-03-26")
    session.send(validate(1, {"xml_text": FACT_TEXT}))
    assert slow.wait_entered() is not session.thread
    session.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
    session.send([validate(2, {"xml_path": FACT_PATH}), PING])
    slow.wait_entered()
    session.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "x"}})
    answered_meanwhile(session, slow, 1)
    slow.release.set()
    assert session.receive() == [{"jsonrpc": "2.0", "id": 90, "result": {}}]  # the batch without the cancelled call
    assert session.close() == 0  # every call has ended: everything the server sent is in the queue
    left = [session.writer.lines.get_nowait() for _ in range(session.writer.lines.qsize())]
    assert all(message.get("id") not in (1, 2) for message in session.others if isinstance(message, dict))
    assert left == []


def test_a_queued_call_cancelled_before_it_starts_never_runs(monkeypatch):
    session = Session([str(ROOT)])
    slow = SlowValidation(session.thread)
    slow.install(monkeypatch)
    try:
        session.initialize()
        for request_id in range(1, 5):  # as many calls as worker threads: the next one waits in the queue
            session.send(validate(request_id, {"xml_text": FACT_TEXT}))
        for _ in range(4):
            assert slow.wait_entered() is not session.thread
        session.send(validate(5, {"xml_text": FACT_TEXT}))
        session.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}})
        assert session.call(6, "ping")["result"] == {}
        slow.release.set()
        assert {session.receive()["id"] for _ in range(4)} == {1, 2, 3, 4}  # in the order they end
        assert session.close() == 0
        assert len(slow.threads) == 4 and session.writer.lines.empty()
    finally:
        slow.release.set()
        session.close()


def test_calls_beyond_the_limit_are_refused_at_once(monkeypatch):
    """Tool calls wait on worker threads, not on the reader: their number is capped (``--max-calls``)."""
    session = Session([str(ROOT)], max_calls=2)
    slow = SlowValidation(session.thread)
    slow.install(monkeypatch)
    try:
        session.initialize()
        for request_id in (1, 2):
            session.send(validate(request_id, {"xml_text": FACT_TEXT}))
            slow.wait_entered()
        refused = session.call(3, "tools/call", {"name": "fel_rules", "arguments": {}})["result"]
        assert refused["isError"] is True and "--max-calls" in refused["content"][0]["text"]
        slow.release.set()
        assert {session.receive()["id"] for _ in range(2)} == {1, 2}
        assert session.call(4, "tools/call", {"name": "fel_rules", "arguments": {}})["result"]["isError"] is False
    finally:
        slow.release.set()
        session.close()

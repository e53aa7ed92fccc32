"""Each protocol message and each log record is one line for every line splitter, whatever text it carries."""

from __future__ import annotations

import io
import json
import sys

import pytest

from mcp_server import log
from mcp_server.channel import dumps

TEXTS = ["factura\u2028línea", "párrafo\u2029otro", "a\nb\rc\x85d", "\u2028\u2029" * 3, "sin separadores"]


@pytest.mark.parametrize("text", TEXTS)
def test_a_message_is_one_line_for_splitlines(text):
    line = dumps({"jsonrpc": "2.0", "id": text, "result": {"text": text}})
    assert line.splitlines() == [line]  # (str.splitlines breaks at U+2028, U+2029, \x85… too)
    assert json.loads(line)["result"]["text"] == text


@pytest.mark.parametrize("text", TEXTS)
def test_a_log_record_is_one_line_for_splitlines(text, capsys):
    log.log_event("probe", text, path=text)
    said = capsys.readouterr().err
    assert said.endswith("\n") and len(said[:-1].splitlines()) == 1
    record = json.loads(said)
    assert record["message"] == text and record["path"] == text


def test_a_log_record_is_json_on_a_stderr_that_is_not_unicode(monkeypatch):
    """On a stderr of another encoding (``PYTHONIOENCODING=ascii``) a record's characters are JSON escapes, never
    the stream's own (``\\xe9`` is no JSON)."""
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="backslashreplace", write_through=True)
    monkeypatch.setattr(sys, "stderr", stream)
    log.log_event("probe", "é😀\u2028")
    record = json.loads(raw.getvalue().decode("ascii"))
    assert record["message"] == "é😀\u2028"

"""In-process transcripts of every protocol revision, and every error row of the server."""

from __future__ import annotations

import json

import pytest

from mcp_server import registry as tool_module

from ..conftest import EXAMPLES, ROOT
from .harness import MODERN_META, Session, normalized

FACT = "examples/factura-fact.xml"


@pytest.fixture
def session():
    current = Session([str(ROOT)])
    yield current
    current.close()


def transcript(session: Session, steps: list[tuple]) -> list:
    """Send each step (id, method, params) and collect its normalized response, in order."""
    out = []
    for request_id, method, params in steps:
        if request_id is None:
            session.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})})
            continue
        out.append(normalized(session.call(request_id, method, params), str(ROOT)))
    return out


LEGACY_STEPS = [
    (1, "ping", None),
    (None, "notifications/initialized", None),
    (2, "tools/list", {}),
    (3, "tools/call", {"name": "fel_validate", "arguments": {"xml_path": FACT}}),
    (4, "tools/call", {"name": "fel_rules", "arguments": {}}),
]


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25"])
def test_legacy_transcript(session, snapshot_json, version):
    init = session.call(0, "initialize", {"protocolVersion": version, "capabilities": {},
                                          "clientInfo": {"name": "pytest", "version": "1"}})
    assert init["result"]["protocolVersion"] == version
    replies = transcript(session, LEGACY_STEPS)
    tools = replies[1]["result"]["tools"]
    assert [t["name"] for t in tools] == ["fel_validate", "fel_render", "fel_batch", "fel_rules"]
    has_title = version >= "2025-06-18"
    assert all(("outputSchema" in t) == has_title and ("title" in t) == has_title for t in tools)
    assert all(("annotations" in t) == (version >= "2025-03-26") for t in tools)
    assert ("structuredContent" in replies[2]["result"]) == has_title
    assert [normalized(init, str(ROOT)), *replies] == snapshot_json


def test_counter_offer_for_unknown_versions(session):
    reply = session.call(0, "initialize", {"protocolVersion": "1999-01-01", "capabilities": {},
                                           "clientInfo": {"name": "x", "version": "1"}})
    assert reply["result"]["protocolVersion"] == "2025-11-25"


def test_batches_only_at_2025_03_26(session, snapshot_json):
    session.initialize("2025-03-26")
    session.send([{"jsonrpc": "2.0", "id": 10, "method": "ping"},
                  {"jsonrpc": "2.0", "method": "notifications/initialized"},
                  {"jsonrpc": "2.0", "id": 11, "method": "tools/call",
                   "params": {"name": "fel_validate", "arguments": {"xml_path": FACT}}},
                  {"jsonrpc": "2.0", "id": 12, "method": "initialize", "params": {}}])
    batch = normalized(session.receive(), str(ROOT))
    assert [m["id"] for m in batch] == [10, 11, 12]
    session.send([])
    empty = session.receive()
    assert empty["error"]["code"] == -32600 and empty["id"] is None
    assert batch == snapshot_json


def test_batch_refused_outside_2025_03_26(session):
    session.initialize("2025-11-25")
    session.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    reply = session.receive()
    assert reply["error"]["code"] == -32600 and reply["id"] is None


def modern(method: str, **params) -> dict:
    return {"_meta": MODERN_META, **params}


def test_modern_transcript(session, snapshot_json):
    replies = transcript(session, [
        (1, "server/discover", modern("server/discover")),
        (2, "tools/list", modern("tools/list")),
        (3, "tools/call", modern("tools/call", name="fel_validate", arguments={"xml_path": FACT})),
        (4, "ping", modern("ping")),
        (5, "initialize",
         {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}),
    ])
    discover, tools, call, ping, init = replies
    assert discover["result"]["supportedVersions"] == ["2026-07-28"] and discover["result"]["resultType"] == "complete"
    assert tools["result"]["ttlMs"] >= 0 and tools["result"]["cacheScope"] == "public"
    assert call["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "fel-rules"
    assert ping["error"]["code"] == -32601
    assert init["error"]["code"] == -32022 and init["error"]["data"]["supported"] == ["2026-07-28"]
    assert replies == snapshot_json


def test_modern_errors(session):
    wrong = session.call(1, "tools/list",
                         {"_meta": {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "2030-01-01"}})
    assert wrong["error"]["code"] == -32022
    assert wrong["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2030-01-01"}
    no_caps = {k: v for k, v in MODERN_META.items() if not k.endswith("clientCapabilities")}
    assert session.call(2, "tools/list", {"_meta": no_caps})["error"]["code"] == -32602


def test_discover_without_envelope_is_method_not_found(session):
    """A legacy client's stray server/discover (or an auto-mode probe without _meta) gets an error at once."""
    assert session.call(1, "server/discover", {})["error"]["code"] == -32601


# --- error rows ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "code"), [
    (b"{not json", -32700),
    (b'"just a string"', -32600),
    (b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}', -32600),
    (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600),
    (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600),
    (b'{"jsonrpc": "2.0", "id": 1, "method": 7}', -32600),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]}', -32600),
    (b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}', -32700),  # (Python's reader takes NaN; JSON has none)
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": -Infinity}}', -32700),
])
def test_invalid_messages(session, line, code):
    session.initialize()
    session.send(line)
    reply = session.receive()
    assert reply["error"]["code"] == code
    if code == -32700 or b"null" in line or b"true" in line or b"1.0" not in line and b"string" in line:
        assert reply["id"] is None
    assert session.call(99, "ping")["result"] == {}  # still serving


def test_requests_before_initialize(session):
    assert session.call(1, "ping")["result"] == {}
    assert session.call(2, "tools/list", {})["error"]["code"] == -32600
    assert session.call(3, "foo/bar", {})["error"]["code"] == -32601  # unknown whatever the state
    session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})  # too early: ignored
    assert session.initialize()["result"]["protocolVersion"] == "2025-11-25"


def test_served_before_the_initialized_notification(session):
    session.call(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "bridge", "version": "1"}})
    assert len(session.call(1, "tools/list", {})["result"]["tools"]) == 4


def test_a_response_from_the_client_gets_no_answer(session):
    session.initialize()
    session.send({"jsonrpc": "2.0", "id": 7, "result": {}})
    session.send({"jsonrpc": "2.0", "id": 8, "error": {"code": -32603, "message": "x"}})
    assert session.call(9, "ping")["result"] == {}
    assert session.others == []  # nothing was said about 7 or 8


@pytest.mark.parametrize("token", [1.5, True, [1], {"a": 1}])
def test_a_progress_token_is_a_string_or_an_integer(session, token):
    session.initialize()
    reply = session.call(1, "tools/call", {"name": "fel_rules", "arguments": {}, "_meta": {"progressToken": token}})
    assert reply["error"]["code"] == -32602 and "progressToken" in reply["error"]["message"]


def test_unknown_method_tool_and_malformed_call(session):
    session.initialize()
    assert session.call(1, "resources/list", {})["error"]["code"] == -32601
    unknown = session.call(2, "tools/call", {"name": "fel_nada", "arguments": {}})
    assert unknown["error"]["code"] == -32602 and "fel_validate" in unknown["error"]["message"]
    assert session.call(3, "tools/call", {"arguments": {}})["error"]["code"] == -32602
    assert session.call(4, "tools/call", {"name": "fel_validate", "arguments": [1]})["error"]["code"] == -32602
    assert session.call(5, "tools/list", {"cursor": "page-2"})["error"]["code"] == -32602


@pytest.mark.parametrize("arguments", [
    {}, {"xml_path": FACT, "xml_text": "<x/>"}, {"xml_path": 7}, {"xml_path": FACT, "color": "rojo"},
    {"xml_path": FACT, "lang": "fr"},
])
def test_arguments_failing_the_schema_are_tool_errors(session, arguments):
    session.initialize()
    reply = session.call(1, "tools/call", {"name": "fel_validate", "arguments": arguments})
    result = reply["result"]
    assert result["isError"] is True and "structuredContent" not in result
    assert result["content"][0]["text"].startswith("Argumentos inválidos para fel_validate")


def test_unexpected_failure_is_internal_error(session, monkeypatch, capfd):
    def boom(args, ctx):
        raise RuntimeError("secret detail")

    broken = tool_module.TOOLS["fel_rules"]
    monkeypatch.setitem(tool_module.TOOLS, "fel_rules", type(broken)(**{**broken.__dict__, "handler": boom}))
    session.initialize()
    reply = session.call(1, "tools/call", {"name": "fel_rules", "arguments": {}})
    assert reply["error"] == {"code": -32603, "message": "Internal error in fel_rules"}
    assert "secret detail" in capfd.readouterr().err  # the traceback goes to stderr only


def test_line_over_the_limit_and_serving_goes_on():
    session = Session([str(ROOT)], line_limit=1000)
    try:
        session.initialize()
        session.send(b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "' + b"x" * 5000 + b'"}}')
        reply = session.receive()
        assert reply["error"]["code"] == -32700 and "1000 bytes" in reply["error"]["message"]
        assert session.call(2, "ping")["result"] == {}
    finally:
        session.close()


def test_inline_xml_text_and_its_limit(session):
    session.initialize()
    text = (EXAMPLES / "factura-fact.xml").read_text(encoding="utf-8")
    ok = session.call(1, "tools/call", {"name": "fel_validate", "arguments": {"xml_text": text}})
    assert ok["result"]["structuredContent"]["valid"] is True
    big = session.call(2, "tools/call",
                       {"name": "fel_validate", "arguments": {"xml_text": "x" * (2 * 1024 * 1024 + 1)}})
    assert big["result"]["isError"] and "xml_text" in big["result"]["content"][0]["text"]


def test_invalid_invoice_is_a_successful_call(session):
    session.initialize()
    reply = session.call(1, "tools/call", {"name": "fel_validate", "arguments": {
        "xml_text": (EXAMPLES / "factura-fact.xml").read_text(encoding="utf-8").replace("1911.50", "1900.00")}})
    result = reply["result"]
    assert result["isError"] is False and result["structuredContent"]["valid"] is False
    assert json.loads(result["content"][0]["text"])["counts"]["error"] >= 1


def test_unicode_round_trip(session):
    session.initialize()
    text = (EXAMPLES / "factura-fact.xml").read_text(encoding="utf-8").replace(
        "CARLOS ENRIQUE MÉNDEZ RUIZ", "Société Générale — 1 250,00 € ñandú")
    reply = session.call(1, "tools/call", {"name": "fel_validate", "arguments": {"xml_text": text}})
    assert reply["result"]["structuredContent"]["valid"] is True


def test_eof_right_after_a_request_still_answers():
    session = Session([str(ROOT)])
    session.initialize()
    session.request(1, "tools/call", {"name": "fel_validate", "arguments": {"xml_path": FACT}})
    assert session.close() == 0
    reply = session.response(1, timeout=5)
    assert reply["result"]["structuredContent"]["valid"] is True


def test_output_schemas_hold(session):
    jsonschema = pytest.importorskip("jsonschema")
    session.initialize()
    tools = {t["name"]: t for t in session.call(1, "tools/list", {})["result"]["tools"]}
    for tool in tools.values():
        text = json.dumps(tool)
        assert "$ref" not in text and "$defs" not in text
        assert tool["inputSchema"]["type"] == "object" and tool["outputSchema"]["type"] == "object"
    result = session.call(2, "tools/call", {"name": "fel_validate", "arguments": {"xml_path": FACT}})["result"]
    jsonschema.validate(result["structuredContent"], tools["fel_validate"]["outputSchema"])
    result = session.call(3, "tools/call", {"name": "fel_rules", "arguments": {}})["result"]
    jsonschema.validate(result["structuredContent"], tools["fel_rules"]["outputSchema"])

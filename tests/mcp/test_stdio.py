"""The real process: only protocol on stdout, prompt exit on EOF, the official SDK client in every era."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading

import pytest

from ..conftest import ROOT

pytestmark = pytest.mark.slow  # the server and the SDK client in real processes

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
NOISY = r"""
import os, sys
from mcp_server import registry as tools
original = tools.TOOLS["fel_rules"].handler
def noisy(args, ctx):
    print("stray print from a tool")
    os.write(1, b"raw bytes on fd 1\n")
    sys.stdout.write("sys.stdout write\n")
    return original(args, ctx)
tools.TOOLS["fel_rules"] = type(tools.TOOLS["fel_rules"])(**{**tools.TOOLS["fel_rules"].__dict__, "handler": noisy})
from mcp_server.cli import main
sys.exit(main(["--root", sys.argv[1]]))
"""


def lines(*messages) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def test_stdout_carries_only_protocol():
    requests = lines(INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                     {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "fel_rules", "arguments": {}}})
    result = subprocess.run([sys.executable, "-c", NOISY, str(ROOT)], input=requests, capture_output=True,
                            timeout=60, cwd=ROOT)
    assert result.returncode == 0
    out = result.stdout.decode().splitlines()
    assert len(out) == 2
    for line in out:
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0" and "id" in message
    assert b"stray print from a tool" in result.stderr and b"raw bytes on fd 1" in result.stderr


@pytest.mark.parametrize("command",
                         [[sys.executable, "-m", "mcp_server"], [sys.executable, "-m", "fel_rules", "serve"]])
def test_exit_promptly_on_eof_after_answering(command):
    process = subprocess.Popen([*command, "--root", str(ROOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=ROOT)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "fel_validate", "arguments": {"xml_path": "examples/factura-fact.xml"}}}
    process.stdin.write(lines(INIT, call))
    process.stdin.close()  # EOF right after the request
    out = process.stdout.read()
    process.wait(timeout=60)  # a hang guard, not a timing: the process ends by itself at EOF
    assert process.returncode == 0
    replies = {json.loads(line)["id"]: json.loads(line) for line in out.splitlines()}
    assert replies[1]["result"]["structuredContent"]["valid"] is True
    logs = [json.loads(line) for line in process.stderr.read().splitlines() if line.startswith(b"{")]
    assert {"ts", "method", "tool", "status", "latency_ms", "error"} <= set(logs[-1])


def test_crlf_and_blank_lines_are_tolerated():
    data = json.dumps(INIT).encode() + b"\r\n\r\n" + b'{"jsonrpc":"2.0","id":2,"method":"ping"}\r\n'
    result = subprocess.run([sys.executable, "-m", "mcp_server", "--root", str(ROOT)], input=data,
                            capture_output=True, timeout=60, cwd=ROOT)
    assert [json.loads(line)["id"] for line in result.stdout.splitlines()] == [0, 2]


# --- the official Python SDK client -------------------------------------------------------------


async def _drive(mode: str) -> dict:
    from mcp import StdioServerParameters
    from mcp.client import Client

    # the SDK starts the server with a few variables of its own choosing: the cache folder of the test run too
    cache = {name: os.environ[name] for name in ("FEL_RULES_CACHE_DIR", "FEL_RULES_NO_CACHE") if name in os.environ}
    server = StdioServerParameters(command=sys.executable, args=["-m", "mcp_server", "--root", str(ROOT)],
                                   cwd=str(ROOT), env=cache)
    async with Client(server, mode=mode) as client:
        tools = await client.list_tools()
        validate = await client.call_tool("fel_validate", {"xml_path": "examples/factura-fact.xml"})
        invalid = await client.call_tool("fel_validate", {"xml_text": "<no-es-fel/>"})
        bad_args = await client.call_tool("fel_validate", {"nope": 1})
        render = await client.call_tool("fel_render", {"xml_path": "examples/factura-certificada.xml",
                                                       "out_path": "out/mcp-sdk/factura.pdf"})
        batch = await client.call_tool("fel_batch", {"dir_xml": "examples", "out_dir": "out/mcp-sdk/lote",
                                                     "render": False, "workers": 1})
        rules = await client.call_tool("fel_rules", {})
        return {
            "version": getattr(client, "protocol_version", None),
            "tools": [tool.name for tool in tools.tools],
            "validate": validate.structured_content["valid"],
            "invalid": (invalid.is_error, invalid.structured_content["valid"]),
            "bad_args": bad_args.is_error,
            "render": (render.is_error, render.structured_content["valid"]),
            "batch": batch.structured_content["summary"]["files"],
            "rules": len(rules.structured_content["rules"]),
        }


@pytest.mark.parametrize(("mode", "expected"), [("legacy", "2025-11-25"), ("auto", "2026-07-28"),
                                                ("2026-07-28", "2026-07-28")])
def test_official_sdk_client(mode, expected):
    pytest.importorskip("mcp", reason="the official MCP SDK (test dependency) is not installed")
    outcome = asyncio.run(asyncio.wait_for(_drive(mode), timeout=120))
    assert outcome["tools"] == ["fel_validate", "fel_render", "fel_batch", "fel_rules"]
    assert outcome["validate"] is True and outcome["invalid"] == (False, False) and outcome["bad_args"] is True
    assert outcome["render"] == (False, True) and outcome["rules"] >= 20
    assert outcome["batch"] == len(list((ROOT / "examples").glob("*.xml")))
    if outcome["version"] is not None:
        assert outcome["version"] == expected


@pytest.mark.parametrize("value", ["abc", "-5", "0", "1e6"])
def test_a_bad_xml_text_limit_stops_the_server_before_it_serves(value):
    """A wrong ``FEL_MCP_MAX_XML_TEXT`` is said at start (exit 2), not met as an internal error by every call."""
    done = subprocess.run([sys.executable, "-m", "mcp_server"], input=b"", capture_output=True, timeout=60,
                          env={**os.environ, "FEL_MCP_MAX_XML_TEXT": value})
    assert done.returncode == 2 and done.stdout == b""
    assert b"FEL_MCP_MAX_XML_TEXT" in done.stderr and b"Traceback" not in done.stderr


def test_the_longest_xml_text_fits_in_a_line_however_it_is_escaped():
    from mcp_server.accept import XML_TEXT_LIMIT, line_limit_for, xml_text_limit

    assert xml_text_limit(None) == (XML_TEXT_LIMIT, None) and xml_text_limit(" 4096 ") == (4096, None)
    text = "\U0001F600" * 1_000_000  # each escaped as \ud83d\ude00 by a client writing ASCII JSON: 12 MB
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "fel_validate", "arguments": {"xml_text": text}}}).encode()
    assert len(line) <= line_limit_for(len(text))


def test_a_client_that_never_reads_stderr_still_gets_every_answer():
    """One log record a request, and a pipe nobody empties: the records wait (or are dropped), the answers do not."""
    server = subprocess.Popen([sys.executable, "-m", "mcp_server", "--root", str(ROOT)], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        pings = b"".join(json.dumps({"jsonrpc": "2.0", "id": n, "method": "ping"}).encode() + b"\n"
                         for n in range(1, 3001))
        answered: set = set()

        def read() -> None:
            for _ in range(3001):
                answered.add(json.loads(server.stdout.readline())["id"])

        def write() -> None:
            try:
                server.stdin.write(json.dumps(INIT).encode() + b"\n" + pings)
                server.stdin.flush()
            except OSError:  # (the server killed while this waited on a full pipe)
                pass

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        threading.Thread(target=write, daemon=True).start()
        reader.join(60)
        assert len(answered) == 3001, f"{len(answered)} answers, then the server stalled"
    finally:
        server.kill()
        server.wait(timeout=30)

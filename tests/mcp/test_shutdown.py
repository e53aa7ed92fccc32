"""The real server process when it stops: no batch worker left behind, stderr made of JSON lines only."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from fel_rules.testing.builder import Invoice, Item

from ..conftest import ROOT

pytestmark = pytest.mark.slow  # real server processes stopped by signals

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
BROKEN = r"""
import sys, threading, warnings
from mcp_server import registry as tools
def broken(args, ctx):
    warnings.warn("a library warning\nspread over two lines")
    import logging  # (the server never loads it: a library that does gets its records routed all the same)
    logging.getLogger("some.library").warning("a library's record\non two lines", exc_info=ValueError("logged detail"))
    stray = threading.Thread(target=lambda: 1 / 0, name="stray")
    stray.start()
    stray.join()
    raise RuntimeError("secret detail")
tools.TOOLS["fel_rules"] = type(tools.TOOLS["fel_rules"])(**{**tools.TOOLS["fel_rules"].__dict__, "handler": broken})
from mcp_server.cli import main
sys.exit(main(["--root", sys.argv[1]]))
"""


def line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


def stderr_records(stderr: bytes) -> list[dict]:
    """Every stderr line as a JSON object (fails on any other line)."""
    records = [json.loads(text) for text in stderr.decode().splitlines()]
    assert all(isinstance(record, dict) for record in records)
    return records


def marked_processes(mark: str) -> list[int]:
    """Live processes whose environment carries ``mark`` (the server and everything it started)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if mark.encode() in environ.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


def children_of(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                children.append(int(entry.name))
        except OSError:
            continue
    return children


@pytest.fixture
def big_folder(tmp_path):
    folder = tmp_path / "grande"
    folder.mkdir()
    for n in range(300):
        invoice = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)],
                          items=[Item.goods(f"Producto {n}-{k}", "1", "10.00") for k in range(1, 30)])
        (folder / f"f{n:03d}.xml").write_bytes(invoice.to_xml())
    return tmp_path


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGINT", "stdin EOF"])
def test_serve_leaves_no_workers_behind_on_sigterm(big_folder, stop):
    """A stopped server stops the worker processes of the batch it was running (and says so in JSON)."""
    mark = f"FEL_TEST_MARK={uuid.uuid4()}"
    env = {**os.environ, mark.split("=")[0]: mark.split("=")[1]}
    grace = ["--eof-grace", "0"] if stop == "stdin EOF" else []  # EOF: in-flight calls get no time at all
    process = subprocess.Popen([sys.executable, "-m", "mcp_server", "--root", str(big_folder), *grace],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    try:
        process.stdin.write(line(INIT) + line({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "fel_batch", "arguments": {"dir_xml": "grande", "workers": 2}, "_meta": {"progressToken": 1}}}))
        process.stdin.flush()
        for raw in process.stdout:  # the first progress notification: the workers are running
            if json.loads(raw).get("method") == "notifications/progress":
                break
        workers = children_of(process.pid)
        assert workers, "the batch finished before the server was stopped"
        if stop == "stdin EOF":
            process.stdin.close()
        else:
            process.send_signal(getattr(signal, stop))
        process.wait(timeout=60)
        deadline = time.monotonic() + 10
        while marked_processes(mark) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marked_processes(mark) == []
        assert process.returncode == {"SIGTERM": 143, "SIGINT": 130, "stdin EOF": 0}[stop]
        records = stderr_records(process.stderr.read())
        assert any(record.get("event") in ("signal", "stdin_closed") for record in records)
    finally:
        for pid in marked_processes(mark):  # never leave a process behind, even when the test fails
            os.kill(pid, signal.SIGKILL)
        process.kill()
        process.wait()


def test_internal_errors_keep_stderr_json_lines():
    """A tool that fails unexpectedly (with a warning and a failing thread on the way) is a short -32603 for
    the client and one-line JSON records on stderr: no traceback text, nothing spread over lines."""
    requests = line(INIT) + line({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                  "params": {"name": "fel_rules", "arguments": {}}})
    result = subprocess.run([sys.executable, "-c", BROKEN, str(ROOT)], input=requests, capture_output=True,
                            timeout=60, cwd=ROOT)
    assert result.returncode == 0
    reply = json.loads(result.stdout.splitlines()[1])
    assert reply["error"] == {"code": -32603, "message": "Internal error in fel_rules"}
    records = stderr_records(result.stderr)
    failure = next(record for record in records if record.get("tool") == "fel_rules")
    assert failure["status"] == "error" and "secret detail" in failure["error"]
    assert any("broken" in frame for frame in failure["trace"])
    assert any(record.get("event") == "warning" and "two lines" in record["message"] for record in records)
    assert any(record.get("event") == "uncaught_exception" and "ZeroDivisionError" in record["message"]
               for record in records)
    logged = next(record for record in records if record.get("event") == "library_log")
    assert logged["logger"] == "some.library" and "logged detail" in logged["error"] and logged["trace"] == []


def _diagnosed(*lines: str, first: str = "") -> list[dict]:
    """The stderr records of a Python process that runs ``first``, sets the server's diagnostics up, then runs
    ``lines`` (each a line of code); the process must succeed."""
    code = "\n".join([first, "from mcp_server.log import capture_diagnostics", "capture_diagnostics()", *lines])
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return stderr_records(result.stderr)


def test_a_library_that_loaded_logging_first_is_routed_too():
    """The records of ``logging`` loaded before the server set its diagnostics up are JSON lines as well, and
    the module's loader still gives its source (for tracebacks)."""
    records = _diagnosed("logging.getLogger('early').error('said\\nearly')",
                         "assert 'def basicConfig' in inspect.getsource(logging)", first="import logging, inspect")
    assert [(record["logger"], record["message"]) for record in records] == [("early", "said\nearly")]


def test_a_look_for_logging_before_it_loads_leaves_its_records_routed():
    """Looking the module up (``find_spec``, a copy loaded aside) is not loading it: the records of the real import
    are JSON lines all the same, a malformed one included."""
    records = _diagnosed("spec = importlib.util.find_spec('logging')",
                         "spec.loader.exec_module(importlib.util.module_from_spec(spec))",
                         "import logging",
                         "logging.getLogger('late').warning('said\\nlate')",
                         "logging.getLogger('late').warning('%d items', 'not a number')",
                         "class Unsayable(Exception):",
                         "    def __repr__(self): raise ValueError('no repr')",
                         "logging.getLogger('late').error('odd failure', exc_info=Unsayable())",
                         first="import importlib.util")
    assert [record["message"] for record in records] == ["said\nlate", "%d items ('not a number',)", "odd failure"]
    assert records[-1]["error"] == "Unsayable"


def test_logging_loaded_after_the_diagnostics_keeps_its_source():
    """Routed when it loads, ``logging`` is the module as if nothing had come between (its loader, source, spec);
    a record with a malformed ``exc_info`` is said all the same."""
    records = _diagnosed("import copy, inspect, pickle, sys, importlib.machinery",
                         "assert 'logging' not in sys.modules",
                         "import logging",
                         "assert 'def basicConfig' in inspect.getsource(logging)",
                         "assert logging.__spec__.name == 'logging' and logging.getLogger().handlers",
                         "assert isinstance(logging.__loader__, importlib.machinery.SourceFileLoader)",
                         "pickle.dumps(logging.__spec__), copy.copy(logging.__loader__)",
                         "logging.getLogger('odd').error('odd exc_info', exc_info=(ValueError, 'no exception', None))",
                         "logging.getLogger('odd').error('short exc_info', exc_info=(1,))")
    assert [(record["message"], "error" in record) for record in records] == [
        ("odd exc_info", False), ("short exc_info", True)]

"""Start-up: what a command imports (only what it needs), how a one-shot command ends, and the garbage collector
during start-up (the time to a first answer is mostly loading)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SIGNED = ROOT / "examples" / "factura-certificada.xml"

#: Modules a validation of a valid document never needs: PDF layout, QR, images, the explaining schema engine,
#: batches, rule authoring, test tools, the Dask executor and the MCP server.
NOT_FOR_VALIDATE = ("reportlab", "qrcode", "PIL", "xmlschema", "fel_rules.batch.runner", "fel_rules.authoring",
                    "fel_rules.outputs.render.api", "hypothesis", "dask", "distributed", "mcp_server")


def _loaded_after(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; the JSON it prints last."""
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(result.stdout.splitlines()[-1])


def _present(names: tuple[str, ...]) -> str:
    return (f"import json, sys; print(json.dumps(sorted(n for n in {list(names)!r} "
            f"if any(m == n or m.startswith(n + '.') for m in sys.modules))))")


def test_a_one_shot_validation_imports_only_what_it_needs():
    code = ("import contextlib, io, sys\n"
            "from fel_rules.cli.app import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    code = main(['validate', {str(SIGNED)!r}])\n"
            "assert code == 0, code\n"
            f"{_present(NOT_FOR_VALIDATE)}\n")
    assert _loaded_after(code) == []


def test_cryptography_and_yaml_load_only_when_a_run_needs_them(tmp_path):
    """An unsigned document is validated without the cryptography library, and rules read back from the cache need
    no YAML parser (the first run, which fills the cache, does); a signed document brings cryptography in."""
    unsigned = ROOT / "examples" / "factura-fact.xml"
    code = ("import contextlib, io, json, sys\n"
            "from fel_rules.cli.app import main\n"
            "seen = []\n"
            "for path in sys.argv[1:]:\n"
            "    with contextlib.redirect_stdout(io.StringIO()):\n"
            "        assert main(['validate', path]) == 0\n"
            "    seen.append(sorted(n for n in ('cryptography', 'yaml') if n in sys.modules))\n"
            "print(json.dumps(seen))\n")
    env = {**os.environ, "FEL_RULES_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("FEL_RULES_NO_CACHE", None)
    subprocess.run([sys.executable, "-c", code, str(unsigned)], cwd=ROOT, env=env, check=True, capture_output=True)
    result = subprocess.run([sys.executable, "-c", code, str(unsigned), str(SIGNED)], cwd=ROOT, env=env,
                            capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == [[], ["cryptography"]]


def test_a_built_in_command_does_not_look_for_plug_in_commands(monkeypatch):
    from fel_rules.cli import app

    def refuse(*args, **kwargs):
        raise AssertionError("plug-in commands looked up")

    monkeypatch.setattr("importlib.metadata.entry_points", refuse)
    assert app.main(["rules", "list", "--id-prefix", "FEL-IVA-01"]) == 0


#: What only a document with schema errors, an official schema folder or another command needs, cryptography's
#: key-serialisation formats (a signature's certificate is digested from the bytes it embeds) and its X.509 parser
#: (a certificate an earlier run read is rebuilt from its kept facts): a one-shot validation of a valid signed
#: document with the rules in the cache leaves them unimported.
NOT_FOR_A_VALID_DOCUMENT = ("fel_rules.document.schema_messages", "fel_rules.document.schema_lexical",
                            "fel_rules.document.schema_patterns", "xml.etree", "importlib.resources",
                            "importlib.metadata", "tempfile", "shutil", "zipfile",
                            "cryptography.hazmat.primitives.serialization", "cryptography.x509")


def test_a_one_shot_validation_of_a_valid_document_leaves_the_error_path_and_archive_modules_out(tmp_path):
    code = ("import contextlib, io\n"
            "from fel_rules.cli.app import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    code = main(['validate', {str(SIGNED)!r}])\n"
            "assert code == 0, code\n"
            f"{_present(NOT_FOR_A_VALID_DOCUMENT)}\n")
    env = {**os.environ, "FEL_RULES_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                           check=True) for _ in range(2)]  # the first fills the cache (its rules load pydantic)
    assert json.loads(runs[1].stdout.splitlines()[-1]) == []


def test_the_serve_command_is_loaded_alone_without_looking_for_plug_in_commands(monkeypatch):
    """``fel-rules serve`` makes the parser of its own command only: neither the other commands' parsers nor the
    installed packages' metadata (some 15 ms of the MCP server's start, before it answers ``initialize``)."""
    from fel_rules.cli import app

    def refuse(*args, **kwargs):
        raise AssertionError("plug-in commands looked up")

    monkeypatch.setattr("importlib.metadata.entry_points", refuse)
    parser = app.build_parser(command="serve")
    assert list(parser.plugin_commands) == ["serve"]
    assert parser.parse_args(["serve", "--root", "x"]).command == "serve"
    with pytest.raises(SystemExit):
        parser.parse_args(["validate", "x.xml"])  # (only the command about to run is there)


@pytest.mark.parametrize("command", ["batch", "render", "rules", "validate"])
def test_a_built_in_command_is_parsed_by_its_own_parser_alone(command):
    """A command's run makes the parser of that command only; the help and an unknown command still see them
    all."""
    from fel_rules.cli import app

    parser = app.build_parser(plugins=False, command=command)
    (commands,) = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    assert list(commands.choices) == [command]
    for words in (["--help", command], ["-h", command], ["--", command], ["-V", command]):
        assert app._command_of(words) is None  # (the top level's options first: the whole parser reads them)
    everything = app.build_parser(plugins=False, command="no-such-command")
    (all_commands,) = [action for action in everything._actions if isinstance(action, argparse._SubParsersAction)]
    assert set(all_commands.choices) == app.BUILT_IN_COMMANDS


def test_the_own_plug_in_commands_are_those_the_distribution_declares():
    """What the CLI loads by name for its own commands is what pyproject.toml declares in the entry points."""
    import tomllib

    from fel_rules.cli import app

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"][app.COMMANDS_GROUP] == app.OWN_PLUGIN_COMMANDS


def test_help_is_as_wide_as_argparse_makes_it(monkeypatch):
    """The parser reads the terminal's width itself (argparse would import shutil for it): the same width."""
    import argparse

    from fel_rules.cli import app

    parser = app.build_parser(plugins=False)
    for columns in ("120", "0", "x", None):
        if columns is None:
            monkeypatch.delenv("COLUMNS", raising=False)
        else:
            monkeypatch.setenv("COLUMNS", columns)
        assert parser._get_formatter()._width == argparse.HelpFormatter("fel-rules")._width


def test_plug_in_commands_are_found_for_any_other_command(capsys):
    from fel_rules.cli import app

    assert "serve" in app.build_parser().format_help()
    assert app._command_of(["--version"]) is None and app._command_of(["serve", "--root", "x"]) == "serve"
    result = subprocess.run([sys.executable, "-m", "fel_rules", "serve", "--help"], cwd=ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 0 and "--root" in result.stdout


def test_loading_the_rules_does_not_look_for_plug_in_kinds(monkeypatch):
    from fel_rules.checks import registry
    from fel_rules.core.resources import BUILTIN_RULES_DIR
    from fel_rules.ruleset.loader import _load_catalog

    monkeypatch.setattr(registry, "_plugins_loaded", False)
    monkeypatch.setattr(registry, "entry_points", lambda group: (_ for _ in ()).throw(AssertionError(group)))
    assert _load_catalog(BUILTIN_RULES_DIR, None).rules


def test_the_mcp_tools_load_without_the_pdf_layout_or_the_batch_runner():
    for module in ("mcp_server.registry", "mcp_server.tools"):
        code = f"import {module}\n{_present(('reportlab', 'qrcode', 'PIL', 'fel_rules.batch.runner'))}\n"
        assert _loaded_after(code) == []


def test_a_batch_without_pdfs_never_loads_the_pdf_layout(tmp_path):
    """``batch --no-render``: the run is planned, its files validated and its manifest, page and ledger written
    without reportlab, qrcode or Pillow (the PDF machinery loads only for a run that renders)."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name in ("factura-fact.xml", "factura-certificada.xml"):
        (inputs / name).write_bytes((ROOT / "examples" / name).read_bytes())
    code = ("import contextlib, io, sys\n"
            "from fel_rules.cli.app import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    code = main(['batch', {str(inputs)!r}, '--out', {str(tmp_path / 'out')!r}, '--no-render',"
            " '--workers', '1'])\n"
            "assert code == 0, code\n"
            f"{_present(('reportlab', 'qrcode', 'PIL', 'fel_rules.outputs.render.api'))}\n")
    assert _loaded_after(code) == []
    assert (tmp_path / "out" / "manifest.json").is_file()


#: What a first fel_validate with plain arguments leaves to other calls: the tools' pydantic models and schemas,
#: pydantic itself, batches and rendering; and what the server's own threads do without (concurrent.futures loads
#: logging: some 10 ms).
NOT_FOR_A_FIRST_VALIDATE = ("mcp_server.tools", "mcp_server.schemas", "mcp_server.arguments", "pydantic",
                            "fel_rules.batch", "fel_rules.outputs.render", "reportlab", "multiprocessing",
                            "concurrent.futures", "logging")
_FIRST_VALIDATE = """
import json, os, threading
from mcp_server.sandbox import Roots
from mcp_server.server import serve
to_server, from_client = os.pipe()
to_client, from_server = os.pipe()
with os.fdopen(from_client, "wb") as client:
    server = threading.Thread(target=serve, args=(os.fdopen(to_server, "rb"), os.fdopen(from_server, "wb")),
                              kwargs={{"roots": Roots([{root!r}])}})
    server.start()
    for message in ({{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {{"protocolVersion": "2025-11-25"}}}},
                    {{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {{"name": "fel_validate", "arguments": {{"xml_path": {path!r}}}}}}}):
        client.write(json.dumps(message).encode() + b"\\n")
    client.flush()
    replies = os.fdopen(to_client, "rb")
    replies.readline()
    assert json.loads(replies.readline())["result"]["structuredContent"]["valid"]
    {present}
server.join()
"""
_ENGINE_VALIDATE = """
from fel_rules import Config, Text, Validator, render_text
report = Validator(Config()).validate_path({path!r})
assert report.valid
data = report.to_dict()
render_text(Text("mcp.summary", {{"verdict": Text("report.verdict.valid"), **data["counts"]}}))
{present}
"""


def test_a_first_mcp_validation_loads_no_more_than_the_engine_needs():
    """The server's first fel_validate (spawn, initialize, call with plain arguments) imports none of the tools'
    pydantic models or schemas, and of pydantic, batches and rendering no more than the engine's own validation
    of the same document does."""
    present = _present(NOT_FOR_A_FIRST_VALIDATE)
    engine = set(_loaded_after(_ENGINE_VALIDATE.format(path=str(SIGNED), present=present)))
    served = set(_loaded_after(_FIRST_VALIDATE.format(root=str(ROOT), path=str(SIGNED), present=present)))
    assert not {"mcp_server.tools", "mcp_server.schemas", "mcp_server.arguments"} & served
    assert served <= engine, served - engine


def test_the_render_and_batch_packages_name_their_exports_lazily():
    from fel_rules import batch
    from fel_rules.outputs import render

    for package in (batch, render):
        assert set(package.__all__) == set(package._HOMES)
        assert set(package.__all__) <= set(dir(package))
        for name in package.__all__:
            assert getattr(package, name) is getattr(import_module(package._HOMES[name], package.__name__), name)
        with pytest.raises(AttributeError, match="Nothing"):
            package.Nothing  # noqa: B018


def test_the_serve_command_answers_initialize_before_the_engine_loads():
    """``fel-rules serve`` reaches its server loop with neither pydantic, YAML nor the message catalogue: the
    engine loads on the warm-up thread started by ``initialize``."""
    code = ("from fel_rules.cli.app import build_parser\n"
            "import mcp_server.server\n"
            "build_parser().parse_args(['serve'])\n"
            f"{_present(('pydantic', 'yaml', 'fel_rules.core.catalogue', 'fel_rules.engine', 'lxml'))}\n")
    assert _loaded_after(code) == []


def _run_console(*arguments: str, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    """The console script's entry point in a child that registered an exit handler (it says whether the
    interpreter was torn down)."""
    code = ("import atexit, sys\n"
            "atexit.register(lambda: sys.stderr.write('torn down'))\n"
            f"sys.argv = ['fel-rules', *{list(arguments)!r}]\n"
            "from fel_rules.cli import run\n"
            "run()\n")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, stdout=stdout, stderr=subprocess.PIPE, timeout=120)


def test_a_one_shot_command_flushes_its_output_and_leaves_without_tearing_down(capsys, tmp_path):
    from fel_rules.cli.app import main

    assert main(["validate", str(SIGNED), "--format", "json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    result = _run_console("validate", str(SIGNED), "--format", "json")
    assert result.returncode == 0 and result.stderr == b""
    report = json.loads(result.stdout)
    for volatile in ("started_at", "duration_ms"):
        report["run"].pop(volatile), expected["run"].pop(volatile)
    assert report == expected
    broken = tmp_path / "roto.xml"
    broken.write_bytes(b"<dte:GTDocumento")
    invalid = _run_console("validate", str(broken))
    assert invalid.returncode == 1 and b"FEL-XML" in invalid.stdout and invalid.stderr == b""


def test_a_one_shot_command_whose_reader_is_gone_ends_with_141_quietly():
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = _run_console("validate", str(SIGNED), stdout=write_end)
    finally:
        os.close(write_end)
    assert result.returncode == 141 and result.stderr == b""


def test_a_batch_ends_the_usual_way(tmp_path):
    folder = tmp_path / "xml"
    folder.mkdir()
    (folder / "a.xml").write_bytes(SIGNED.read_bytes())
    result = _run_console("batch", str(folder), "--out", str(tmp_path / "out"), "--no-render", "--workers", "1")
    assert result.returncode == 0 and result.stderr.endswith(b"torn down")


_GC_STATE = "import gc, sys; sys.stderr.write(f'gc {gc.isenabled()} {gc.get_freeze_count() > 0}')"


def test_a_validation_loads_without_collections_and_collects_afterwards():
    """The console script pauses the garbage collector while the engine loads; validating documents runs with it
    on again, the loaded engine left out of collections."""
    code = ("import os, sys\n"
            "real_exit = os._exit\n"
            f"def leave(code):\n    {_GC_STATE}\n    real_exit(code)\n"
            "os._exit = leave\n"
            f"sys.argv = ['fel-rules', 'validate', {str(SIGNED)!r}]\n"
            "from fel_rules.cli import run\n"
            "run()\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stderr == "gc True True"


def test_main_called_in_process_leaves_the_garbage_collector_alone(capsys):
    import gc

    from fel_rules.cli.app import main

    frozen = gc.get_freeze_count()
    assert main(["validate", str(SIGNED)]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def _warmed(own_process: bool) -> str:
    code = ("from mcp_server.sandbox import Roots\n"
            "from mcp_server.toolbox import Toolbox\n"
            f"toolbox = Toolbox(None, Roots([{str(ROOT)!r}]), lambda result: result, own_process={own_process})\n"
            "toolbox.warm_up()\n"
            "toolbox._warming.join()\n"
            f"{_GC_STATE}\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stderr.splitlines()[-1]


def test_the_mcp_warm_up_freezes_what_it_loaded_only_in_a_process_of_its_own():
    assert _warmed(own_process=True) == "gc True True"
    assert _warmed(own_process=False) == "gc True False"


def test_the_real_server_pauses_the_collector_while_it_warms_up():
    """``serve()`` on the process's own stdin and stdout is the whole process: its warm-up loads with the collector
    paused and freezes what it loaded."""
    code = ("import threading\n"
            "from mcp_server.sandbox import Roots\n"
            "from mcp_server.server import serve\n"
            f"serve(roots=Roots([{str(ROOT)!r}]))\n"
            "for thread in threading.enumerate():\n"
            "    if thread.name == 'warm-up':\n"
            "        thread.join()\n"
            f"{_GC_STATE}\n")
    requests = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "fel_validate", "arguments": {"xml_path": str(SIGNED)}}}]
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            input="".join(json.dumps(request) + "\n" for request in requests))
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 2
    assert result.stderr.splitlines()[-1].endswith("gc True True")

"""Faults: a full disk or read-only output, a worker killed mid-batch, the output folder deleted mid-run,
and a client that closes stdout (EPIPE). Each test says what the user sees.

The tests run as root, where ``chmod 0o555`` stops nothing: unwritable folders are simulated under
:mod:`fel_rules.core.atomic` (see tests/fault_injection.py, also imported by batch workers).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fel_rules.core.atomic as atomic
from fel_rules import Config, Report
from fel_rules.batch import BatchError, BatchOptions, Manifest, run_batch, runner
from fel_rules.cli.app import main
from fel_rules.outputs.render import RenderSettings
from fel_rules.testing.builder import Invoice, Item

from . import fault_injection
from .batch_folder import fill
from .conftest import EXAMPLES, ROOT

LOGO = EXAMPLES / "logo.png"
SETTINGS = RenderSettings.from_env({}, logo=LOGO)
FACTURA = EXAMPLES / "factura-fact.xml"
WRITE_FAULTS = [
    ("ENOSPC", "no queda espacio en el disco", "no space left on device"),
    ("EROFS", "el sistema de archivos es de solo lectura", "read-only file system"),
    ("EACCES", "permiso denegado", "permission denied"),
]


def batch(folder: Path, out: Path, **options):
    options.setdefault("workers", 2)
    return run_batch(BatchOptions(input_dir=folder, out_dir=out, render_settings=SETTINGS, progress=False, **options))


def invoice(n: int) -> bytes:
    """A valid, certified invoice (its own authorization number)."""
    items = [Item.goods(f"Producto {n}", "2", f"{10 + n}.25")]
    return (Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items)
            .certify(f"{n:08X}-0000-4000-8000-00000000FA17", "2026-03-02T09:15:27-06:00").to_xml())


def valid_folder(folder: Path, names: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n, name in enumerate(names):
        (folder / name).write_bytes(invoice(n))
    return folder


def leftovers(out: Path) -> list[str]:
    """Temporary (half-written) files."""
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.name.endswith(".tmp"))


def assert_honest(out: Path, manifest: Manifest) -> None:
    """The manifest names only whole files that exist; the summary adds up; nothing half-written is left."""
    for entry in manifest.entries:
        if entry.report is not None:
            Report.from_json((out / entry.report).read_text(encoding="utf-8"))
        if entry.pdf is not None:
            data = (out / entry.pdf).read_bytes()
            assert data.startswith(b"%PDF") and data.rstrip().endswith(b"%%EOF"), entry.pdf
        else:
            assert entry.pdf_note, entry.path
    assert leftovers(out) == []
    s = manifest.summary
    assert s.files == len(manifest.entries) == s.valid + s.invalid + s.errors
    assert s.errors == sum(1 for e in manifest.entries if e.error)
    assert s.rendered == sum(1 for e in manifest.entries if e.pdf)


def by_path(manifest: Manifest) -> dict:
    return {entry.path: entry for entry in manifest.entries}


def verdicts(manifest: Manifest) -> dict:
    return {e.path: (e.valid, e.counts.to_dict()) for e in manifest.entries}


@pytest.fixture
def fault(monkeypatch):
    """``fault(kind, match)``: writes through fel_rules.core.atomic in this process fail (see fault_injection)."""

    def install(kind: str, match=lambda target: True) -> None:
        monkeypatch.setattr(atomic, "os", fault_injection.faulty_io(kind, match))

    return install


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    return fill(tmp_path_factory.mktemp("faults") / "entrada")


@pytest.fixture(scope="module")
def clean_run(mixed, tmp_path_factory):
    """The mixed folder processed without any fault: what the verdicts must stay."""
    out = tmp_path_factory.mktemp("limpia")
    return batch(mixed, out), out


# --- 1. full disk, read-only output ----------------------------------------------------------------------


@pytest.mark.parametrize("kind, reason, reason_en", WRITE_FAULTS)
def test_render_to_an_unwritable_folder_is_a_clear_error(kind, reason, reason_en, fault, tmp_path, capsys):
    out = tmp_path / "salida"
    out.mkdir()
    previous = out / "factura.pdf"
    assert main(["render", str(FACTURA), "--out", str(previous)]) == 0  # the PDF of an earlier run
    earlier = previous.read_bytes()
    capsys.readouterr()
    fresh = out / "nueva" / "factura.pdf"
    fault(kind)

    code = main(["render", str(FACTURA), "--out", str(previous), "--logo", str(LOGO)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err == f"fel-rules: error: No se pudo escribir {previous}: {reason}\n"
    assert previous.read_bytes() == earlier  # the old file is untouched

    code = main(["render", str(FACTURA), "--out", str(fresh), "--lang", "en"])
    assert code == 2
    assert capsys.readouterr().err == f"fel-rules: error: Could not write {fresh}: {reason_en}\n"
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == ["factura.pdf"]


def test_batch_with_a_full_disk_for_pdfs(mixed, clean_run, fault, monkeypatch, tmp_path, capsys):
    """Reports fit, PDFs do not: every valid document says why it has no PDF; verdicts are unchanged."""
    monkeypatch.setattr(runner, "process_and_record", fault_injection.pdf_disk_full)
    monkeypatch.setattr(runner, "_render_task", fault_injection.pdf_disk_full_render)
    fault("ENOSPC", lambda target: target.name.endswith(".pdf"))
    out = tmp_path / "salida"

    code = main(["batch", str(mixed), "--out", str(out), "--workers", "2", "--logo", str(LOGO)])
    printed = capsys.readouterr().out
    assert code == 2
    assert "a-factura.xml: ERROR no se pudo escribir el PDF a-factura.pdf: no queda espacio en el disco" in printed
    manifest = Manifest.model_validate_json((out / "manifest.json").read_text(encoding="utf-8"))
    assert_honest(out, manifest)
    assert list(out.rglob("*.pdf")) == []
    entries = by_path(manifest)
    for name in ("a-factura.xml", "c-nota-correcta.xml"):
        assert entries[name].valid and entries[name].report and entries[name].pdf is None
        assert entries[name].pdf_note == "PDF no escrito" and "no queda espacio en el disco" in entries[name].error
    # the cross-document verdicts are those of a run without the fault: the twins are still caught
    assert verdicts(manifest) == verdicts(clean_run[0].manifest)
    assert entries["d-gemela-1.xml"].error is None and "entre documentos" in entries["d-gemela-1.xml"].pdf_note
    assert manifest.summary.model_dump() == {"files": 8, "valid": 0, "invalid": 5, "errors": 3, "rendered": 0}


@pytest.mark.parametrize("worker_fault, kind, reason", [
    (fault_injection.disk_full, "ENOSPC", "no queda espacio en el disco"),
    (fault_injection.read_only, "EROFS", "el sistema de archivos es de solo lectura"),
])
def test_batch_on_an_unwritable_output_stops_cleanly(worker_fault, kind, reason, mixed, clean_run, fault, monkeypatch,
                                                     tmp_path, capsys):
    """Nothing can be written: one clear line, exit 2, no manifest, nothing half-written; --resume finishes later."""
    out = tmp_path / "salida"
    out.mkdir()
    (out / "manifest.json").write_bytes((clean_run[1] / "manifest.json").read_bytes())  # from an earlier run
    monkeypatch.setattr(runner, "process_and_record", worker_fault)
    fault(kind)

    code = main(["batch", str(mixed), "--out", str(out), "--workers", "2", "--logo", str(LOGO)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.startswith(f"fel-rules: error: No se pudo completar el lote: {out}")
    assert f": {reason}. " in captured.err and "--resume" in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert not (out / "manifest.json").exists()  # no manifest describing anything but a finished run
    assert leftovers(out) == []
    with pytest.raises(BatchError) as info:
        batch(mixed, out, config=Config(lang="en"))
    assert info.value.localized("en").startswith(f"Could not complete the batch: {out}")

    monkeypatch.undo()
    resumed = batch(mixed, out, resume=True)  # space freed, folder writable again
    assert resumed.manifest.to_json(include_run=False) == clean_run[0].manifest.to_json(include_run=False)
    assert_honest(out, resumed.manifest)


def test_a_batch_stopped_while_a_worker_writes_leaves_no_temporary_file(monkeypatch, tmp_path, capsys):
    """One worker fails (full disk) while the other is half-way through a write: the run stops, the writing
    worker is stopped with it, and its temporary file does not stay behind."""
    folder = valid_folder(tmp_path / "entrada", [f"{fault_injection.STUCK_MARK}.xml", "b-factura.xml"])
    out = tmp_path / "salida"
    monkeypatch.setattr(runner, "process_and_record", fault_injection.stuck_or_disk_full)

    code = main(["batch", str(folder), "--out", str(out), "--workers", "2", "--logo", str(LOGO)])
    assert code == 2 and "no queda espacio en el disco" in capsys.readouterr().err
    assert leftovers(out) == []


def test_mcp_fel_batch_on_a_full_disk_is_a_tool_error(mixed, monkeypatch, tmp_path, fault):
    """Through the MCP server the model reads the same sentence (isError), not an internal error."""
    from .mcp.harness import Session

    monkeypatch.setattr(runner, "process_and_record", fault_injection.disk_full)
    fault("ENOSPC")
    session = Session([str(mixed.parent), str(tmp_path)])
    try:
        session.initialize()
        reply = session.call(1, "tools/call", {"name": "fel_batch", "arguments": {
            "dir_xml": str(mixed), "out_dir": str(tmp_path / "salida"), "workers": 1, "render": False}})
    finally:
        session.close()
    result = reply["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith(f"No se pudo completar el lote: {tmp_path / 'salida'}")
    assert "no queda espacio en el disco" in result["content"][0]["text"]


def test_atomic_write_recreates_a_folder_deleted_under_it(tmp_path, monkeypatch):
    """The folder vanishes between the temporary file and the rename: written again, once, whole."""
    import shutil

    target = tmp_path / "salida" / "sub" / "a.report.json"
    calls = []

    def replace(source, destination, **folders):
        calls.append(destination)
        if len(calls) == 1:
            shutil.rmtree(tmp_path / "salida")  # someone cleans the output folder up right now
        os.replace(source, destination, **folders)

    monkeypatch.setattr(atomic, "os", fault_injection._Module(os, replace=replace))
    atomic.write_atomic(target, b'{"valid": true}\n')
    assert len(calls) == 2 and target.read_bytes() == b'{"valid": true}\n'
    assert leftovers(tmp_path) == []


# --- 2. a worker process killed mid-batch ----------------------------------------------------------------

_KILLING_BATCH = """
import sys, threading
from fel_rules.batch import runner
from tests import fault_injection
runner.process_and_record = fault_injection.kill_worker
if sys.argv[1] == "spawn":  # a second thread makes the pool spawn its workers instead of forking them
    threading.Thread(target=threading.Event().wait, daemon=True).start()
from fel_rules.cli.app import main
sys.exit(main(sys.argv[2:]))
"""


def run_killing_batch(start: str, folder: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", _KILLING_BATCH, start, "batch", str(folder), "--out", str(out),
               "--workers", "2", "--logo", str(LOGO), *extra]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("the batch hung after a worker was killed")
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


@pytest.mark.slow  # a real batch process whose worker is killed
@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_a_file_that_kills_its_worker_gets_an_error_entry(start, mixed, clean_run, tmp_path):
    folder = tmp_path / "entrada"
    fill(folder)
    (folder / f"c-{fault_injection.KILL_MARK}.xml").write_bytes(invoice(1))
    out = tmp_path / "salida"

    result = run_killing_batch(start, folder, out)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert (f"c-{fault_injection.KILL_MARK}.xml: ERROR el proceso que validaba el archivo terminó inesperadamente"
            in result.stdout)
    manifest = Manifest.model_validate_json((out / "manifest.json").read_text(encoding="utf-8"))
    assert_honest(out, manifest)
    entries = by_path(manifest)
    killer = entries.pop(f"c-{fault_injection.KILL_MARK}.xml")
    assert killer.report is None and killer.pdf is None and not killer.valid and killer.sha256
    assert not (out / f"c-{fault_injection.KILL_MARK}.report.json").exists()
    # every other file is processed exactly as in a run without the fault
    assert {path: e.model_dump() for path, e in entries.items()} == {
        e.path: e.model_dump() for e in clean_run[0].manifest.entries}
    assert manifest.summary.errors == clean_run[0].manifest.summary.errors + 1


@pytest.mark.slow
def test_a_worker_killed_once_is_retried(tmp_path):
    names = ["a.xml", f"b-{fault_injection.KILL_ONCE_MARK}.xml", "c.xml", "d.xml", "e.xml"]
    folder = valid_folder(tmp_path / "entrada", names)
    out = tmp_path / "salida"

    result = run_killing_batch("fork", folder, out)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert (folder / f"b-{fault_injection.KILL_ONCE_MARK}.xml.murio").exists()  # it did die once
    manifest = Manifest.model_validate_json((out / "manifest.json").read_text(encoding="utf-8"))
    assert_honest(out, manifest)
    assert [(e.path, e.valid, e.pdf is not None, e.error) for e in manifest.entries] == [
        (name, True, True, None) for name in names]


# --- 3. the output folder deleted mid-run ----------------------------------------------------------------


def test_output_folder_deleted_mid_run_is_rebuilt(tmp_path, monkeypatch):
    """The last file deletes OUT (reports, PDFs, journal of everything before it): all is done again."""
    names = ["a.xml", "b.xml", "c.xml", f"z-{fault_injection.DELETE_OUT_MARK}.xml"]
    folder = valid_folder(tmp_path / "entrada", names)
    clean = batch(folder, tmp_path / "limpia", workers=1)
    monkeypatch.setattr(runner, "process_and_record", fault_injection.delete_output)
    out = tmp_path / "salida"

    result = batch(folder, out, workers=1)  # one worker: files run in order, the deletion comes last
    assert (folder / f"z-{fault_injection.DELETE_OUT_MARK}.xml.borro").exists()
    assert result.exit_code == 0
    assert result.manifest.to_json(include_run=False) == clean.manifest.to_json(include_run=False)
    assert_honest(out, result.manifest)


def test_output_subfolder_deleted_mid_run_is_rebuilt(tmp_path, monkeypatch):
    folder = tmp_path / "entrada"
    fill(folder)
    (folder / f"marzo/z-{fault_injection.DELETE_SUB_MARK}.xml").write_bytes(invoice(2))
    clean = batch(folder, tmp_path / "limpia", workers=1, recursive=True)
    monkeypatch.setattr(runner, "process_and_record", fault_injection.delete_output)
    out = tmp_path / "salida"

    result = batch(folder, out, workers=1, recursive=True)
    assert (folder / f"marzo/z-{fault_injection.DELETE_SUB_MARK}.xml.borro").exists()
    assert result.manifest.to_json(include_run=False) == clean.manifest.to_json(include_run=False)
    assert (out / "marzo" / "h-anidada.report.json").is_file()
    assert_honest(out, result.manifest)


def test_outputs_deleted_at_the_end_are_not_claimed(mixed, clean_run, tmp_path, monkeypatch):
    """Deleted after the PDFs were reconciled, just before the manifest: the entries say what vanished."""
    out = tmp_path / "salida"
    reconcile = runner._reconcile_pdfs

    def reconcile_then_delete(briefs, out_dir, *args):
        reconcile(briefs, out_dir, *args)
        (out_dir / "a-factura.pdf").unlink()
        (out_dir / "e-invalida.report.json").unlink()

    monkeypatch.setattr(runner, "_reconcile_pdfs", reconcile_then_delete)
    result = batch(mixed, out)
    assert result.exit_code == 2
    assert_honest(out, result.manifest)
    entries = by_path(result.manifest)
    assert entries["a-factura.xml"].pdf is None and entries["a-factura.xml"].report == "a-factura.report.json"
    assert entries["a-factura.xml"].error == ("desapareció de la carpeta de salida durante el lote: a-factura.pdf; "
                                              "--resume lo vuelve a procesar")
    assert entries["e-invalida.xml"].report is None and "e-invalida.report.json" in entries["e-invalida.xml"].error
    assert result.manifest.summary.errors == clean_run[0].manifest.summary.errors + 2

    monkeypatch.undo()
    resumed = batch(mixed, out, resume=True)  # as the message says
    assert resumed.manifest.to_json(include_run=False) == clean_run[0].manifest.to_json(include_run=False)


def test_whole_output_deleted_at_the_end(mixed, tmp_path, monkeypatch):
    """Even the journal is gone: every entry is an error naming what vanished, no file is claimed."""
    import shutil

    out = tmp_path / "salida"
    reconcile = runner._reconcile_pdfs

    def reconcile_then_delete(briefs, out_dir, *args):
        reconcile(briefs, out_dir, *args)
        shutil.rmtree(out_dir)

    monkeypatch.setattr(runner, "_reconcile_pdfs", reconcile_then_delete)
    result = batch(mixed, out)
    assert result.exit_code == 2 and (out / "manifest.json").is_file()
    assert_honest(out, result.manifest)
    assert all(e.report is None and e.pdf is None and "registro del lote" in e.error for e in result.manifest.entries)


# --- 4. the client closes stdout (EPIPE) -----------------------------------------------------------------

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


@pytest.mark.slow
def test_mcp_server_exits_cleanly_when_the_client_closes_stdout(tmp_path):
    """stdout closed while a long fel_batch runs: the batch is cancelled, later requests are dropped, and
    at stdin EOF the server exits 0 without finishing the batch, with one log line about it and no
    traceback."""
    folder = valid_folder(tmp_path / "muchas", [f"f{n:03d}.xml" for n in range(150)])
    read_end, write_end = os.pipe()
    process = subprocess.Popen([sys.executable, "-m", "mcp_server", "--root", str(tmp_path)], stdin=subprocess.PIPE,
                               stdout=write_end, stderr=subprocess.PIPE, cwd=ROOT, start_new_session=True)
    os.close(write_end)
    try:
        reader = os.fdopen(read_end, "rb")
        process.stdin.write(line(INIT))
        process.stdin.write(line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        process.stdin.write(line({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "fel_batch", "_meta": {"progressToken": "p"},
            "arguments": {"dir_xml": str(folder), "out_dir": str(tmp_path / "salida"), "workers": 1}}}))
        process.stdin.flush()
        assert json.loads(reader.readline())["id"] == 0
        assert json.loads(reader.readline())["method"] == "notifications/progress"  # the batch is running
        reader.close()  # the host stops reading
        for n in range(2, 12):
            process.stdin.write(line({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "fel_validate", "arguments": {"xml_path": str(folder / "f000.xml")}}}))
            process.stdin.flush()
        time.sleep(0.3)
        process.stdin.close()
        process.wait(timeout=60)  # a hang guard: the cancelled batch is checked below
        stderr = process.stderr.read().decode()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 0
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr
    events = [json.loads(text) for text in stderr.splitlines() if '"event"' in text]
    assert [e["event"] for e in events if e["event"] != "warm_up"] == ["stdout_closed"]  # warm_up: after initialize
    assert not (tmp_path / "salida" / "manifest.json").exists()  # the batch was cancelled, not run to the end
    assert len(list((tmp_path / "salida" / ".fel-rules" / "journal").glob("*.json"))) < 150


@pytest.mark.slow
def test_cli_stops_quietly_when_stdout_is_closed():
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first byte
    result = subprocess.run([sys.executable, "-m", "fel_rules", "validate", str(EXAMPLES)], stdout=write_end,
                            stderr=subprocess.PIPE, cwd=ROOT, timeout=60)
    os.close(write_end)
    assert result.returncode == 141 and result.stderr == b""


@pytest.mark.slow
def test_cli_piped_into_head():
    """``fel-rules validate … | head -1`` with more output than a pipe holds: the first line, no traceback."""
    command = (f"{sys.executable} -m fel_rules validate {' '.join([str(EXAMPLES)] * 12)} --format json | head -1; "
               "echo status=$?")
    result = subprocess.run(["sh", "-c", command], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.stdout == "{\nstatus=0\n" and result.stderr == ""


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (every write to it fails: a full disk)")
@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "unbuffered"])  # (PYTHONUNBUFFERED, python -u)
@pytest.mark.parametrize("arguments", [
    ["validate", str(EXAMPLES / "factura-fact.xml")],  # a few lines: they fail when the command flushes them
    ["validate", *[str(EXAMPLES)] * 12, "--format", "json"],  # more than a buffer: a write fails mid-command
    ["validate", str(EXAMPLES / "factura-fact.xml"), "--lang", "en"],
    ["rules", "list"],
    ["--help"], ["--version"], ["validate", "--help"],  # (written by argparse, before any command runs)
])
def test_cli_output_to_a_full_disk_is_one_error_line(arguments, unbuffered):
    """What a command writes is lost when stdout cannot take it: one error line says so, exit 2."""
    with open("/dev/full", "wb") as full:
        result = subprocess.run([sys.executable, "-m", "fel_rules", *arguments], stdout=full, stderr=subprocess.PIPE,
                                cwd=ROOT, timeout=120, env={**os.environ, "PYTHONUNBUFFERED": unbuffered})
    said = result.stderr.decode()
    expected = ("fel-rules: error: could not write the standard output: no space left on device" if "en" in arguments
                else "fel-rules: error: no se pudo escribir la salida estándar: no queda espacio en el disco")
    assert (result.returncode, said) == (2, expected + "\n")


_SHORT_WRITE = ("trap '' XFSZ; ulimit -f 64; "  # the file system takes 64 KiB and no more, as a disk filling up does
                f"{sys.executable} {{flag}} -m fel_rules validate {' '.join([str(EXAMPLES)] * 12)} --format json > out")


@pytest.mark.slow
@pytest.mark.parametrize("flag", ["", "-u"], ids=["buffered", "unbuffered"])
def test_cli_output_cut_short_by_the_disk_is_an_error(flag, tmp_path):
    """A write the disk takes only part of is an error, also unbuffered (Python's own unbuffered stdout drops what
    a short write leaves): one line, exit 2, never a report cut off in silence."""
    result = subprocess.run(["sh", "-c", _SHORT_WRITE.format(flag=flag)], capture_output=True, cwd=tmp_path,
                            timeout=120, env={**os.environ, "PYTHONUNBUFFERED": ""})
    assert result.returncode == 2
    assert result.stderr.decode().startswith("fel-rules: error: no se pudo escribir la salida estándar: ")
    assert result.stderr.count(b"\n") == 1


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (every write to it fails: a full disk)")
@pytest.mark.parametrize("arguments", [["validate", "examples/factura-fact.xml"], ["validate", "no-existe.xml"]])
def test_cli_with_stdout_and_stderr_on_a_full_disk_still_gives_its_exit_code(arguments):
    """``> log 2>&1`` on a full disk: nothing can be said, the exit code still says it (2: the output is lost, or
    the file is missing)."""
    with open("/dev/full", "wb") as full:
        result = subprocess.run([sys.executable, "-m", "fel_rules", *arguments], stdout=full, stderr=full, cwd=ROOT,
                                timeout=60)
    assert result.returncode == 2


@pytest.mark.slow
@pytest.mark.parametrize("arguments", [["--version"], ["--help"]])
def test_cli_help_to_a_reader_gone_ends_with_141_quietly(arguments):
    read_end, write_end = os.pipe()
    os.close(read_end)
    result = subprocess.run([sys.executable, "-m", "fel_rules", *arguments], stdout=write_end,
                            stderr=subprocess.PIPE, cwd=ROOT, timeout=60)
    os.close(write_end)
    assert (result.returncode, result.stderr) == (141, b"")


@pytest.mark.slow
def test_cli_on_a_stdout_that_is_not_unicode():
    """A character the output's encoding cannot write (``PYTHONIOENCODING=ascii``) is written as its escape."""
    result = subprocess.run([sys.executable, "-m", "fel_rules", "rules", "list"], capture_output=True, cwd=ROOT,
                            timeout=60, env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert (result.returncode, result.stderr) == (0, b"")
    assert b"anulaci\\xf3n" in result.stdout


CLOSED_AT_START = [
    (f"{sys.executable} -m fel_rules validate no-existe.xml 2>&-", 2),
    (f"{sys.executable} -m fel_rules validate examples/factura-fact.xml <&- 2>&-", 0),
    (f"{sys.executable} -m fel_rules validate examples/factura-fact.xml >&-", 0),  # (what it says goes nowhere)
    (f"{sys.executable} -m fel_rules serve <&-", 0),  # no client: the server ends at once
    (f"{sys.executable} -m mcp_server <&-", 0),
]


@pytest.mark.slow
@pytest.mark.parametrize("command, status", CLOSED_AT_START)
def test_a_standard_descriptor_closed_at_start(command, status):
    """A process started with stdin, stdout or stderr closed runs as with the null device there: no traceback,
    its usual exit code, and nothing meant for stderr ends up on stdout."""
    result = subprocess.run(["sh", "-c", command], capture_output=True, cwd=ROOT, timeout=60)
    assert result.returncode == status, result.stderr
    assert b"Traceback" not in result.stderr + result.stdout and b"fel-rules: error" not in result.stdout
    if "2>&-" in command:
        assert b"no-existe" not in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("server", ["-m fel_rules serve", "-m mcp_server"])
def test_server_without_stderr_keeps_stdout_for_the_protocol(server):
    """``2>&-``: the server's log lines (one per call) go nowhere; its protocol stream holds only responses."""
    initialize = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    call = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "fel_validate", "arguments": {"xml_path": "examples/factura-fact.xml"}}})
    result = subprocess.run(["sh", "-c", f"{sys.executable} {server} 2>&-"], input=f"{initialize}\n{call}\n".encode(),
                            capture_output=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0
    responses = [json.loads(line) for line in result.stdout.splitlines()]
    assert [response["id"] for response in responses] == [0, 1]
    assert responses[1]["result"]["structuredContent"]["valid"] is True


_REFUSED_DISK = r"""
import os, resource, signal, sys
from fel_rules.core.atomic import atomic_writer, write_atomic
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a file over the limit: EFBIG, as a full disk refuses data
resource.setrlimit(resource.RLIMIT_FSIZE, (1000, resource.RLIM_INFINITY))
folder, seen = sys.argv[1], []
for durable in (True, False):
    try:
        write_atomic(os.path.join(folder, "out.json"), b"x" * 4000, durable=durable)
    except OSError as exc:
        seen.append(exc.errno)
try:
    with atomic_writer(os.path.join(folder, "page.html"), durable=False) as stream:
        stream.write(b"y" * 4000)  # (held in the stream's buffer)
        raise ValueError("the caller fails after writing")
except ValueError:
    seen.append("ValueError")
print(seen, sorted(os.listdir(folder)))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE and EFBIG as on Linux")
def test_a_write_the_disk_refuses_leaves_no_temporary_file(tmp_path):
    """The disk refuses the data (here: over a file-size limit, as a full disk does) when the temporary file is
    flushed, and again as it is closed after the failure: the temporary file is removed all the same, and the error
    said is the first one (the disk's, or the caller's own)."""
    result = subprocess.run([sys.executable, "-c", _REFUSED_DISK, str(tmp_path)], capture_output=True, text=True,
                            check=True, cwd=ROOT)
    assert result.stdout.strip() == "[27, 27, 'ValueError'] []"

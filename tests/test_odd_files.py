"""Odd entries among the inputs — FIFOs, devices, links to devices, names that are not UTF-8 — never hang,
never exhaust memory and never crash a batch, ``validate`` or ``render``: only regular files are read,
always with a byte cap, and every other entry gets its own error.

Commands run in a child process with a deadline and a memory ceiling, so that a regression fails the test
instead of hanging it or growing until the out-of-memory killer steps in."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from fel_rules import Config, RenderError, Validator
from fel_rules.core import inputs
from fel_rules.core.inputs import (
    InputTooLarge,
    NotRegularFile,
    read_input,
    readable_name,
)
from fel_rules.outputs.render.api import load_logo
from fel_rules.outputs.render.settings import RenderSettings

from .conftest import EXAMPLES, ROOT
from .fault_injection import stale_fstat

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(),
                                reason="needs FIFOs and /dev/zero (POSIX)")

DEADLINE_S = 120  # far above the few seconds these commands take; only a hang reaches it
MEMORY_CEILING = 3 * 1024**3  # address space of the child: reading /dev/zero whole fails here, not in the OOM killer
LATIN1_NAME = b"factura-a\xf1o.xml"  # as a Windows zip stores "factura-año.xml"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """``fel-rules ARGS`` in a child process group; a hang past the deadline fails the test (group killed)."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}  # a UTF-8 terminal: no lenient escaping of stdout
    process = subprocess.Popen([sys.executable, "-m", "fel_rules", *args], cwd=ROOT, env=env, start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_memory_ceiling)
    try:
        stdout, stderr = process.communicate(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"fel-rules {' '.join(args)} did not finish in {DEADLINE_S} s")
    finally:
        _kill_leftovers(process.pid)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout.decode(), stderr.decode())


def _memory_ceiling() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CEILING, MEMORY_CEILING))


def _kill_leftovers(group: int) -> None:
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        pass


def odd_folder(folder: Path) -> Path:
    """A valid invoice, a FIFO, a link to /dev/zero, a link to a FIFO and a Latin-1 name, all named *.xml."""
    folder.mkdir()
    (folder / "buena.xml").write_bytes((EXAMPLES / "factura-fact.xml").read_bytes())
    os.mkfifo(folder / "tuberia.xml")
    os.symlink("/dev/zero", folder / "ceros.xml")
    os.symlink(folder / "tuberia.xml", folder / "enlace-a-tuberia.xml")
    (folder / os.fsdecode(LATIN1_NAME)).write_bytes((EXAMPLES / "factura-exenta.xml").read_bytes())
    return folder


@pytest.mark.slow
def test_odd_files_never_hang_or_crash_a_batch(tmp_path):
    folder, out = odd_folder(tmp_path / "entrada"), tmp_path / "salida"
    done = run_cli("batch", str(folder), "--out", str(out), "--workers", "2", "--logo", str(EXAMPLES / "logo.png"))
    assert done.returncode == 2, done.stderr  # some entries could not be processed…
    assert "Traceback" not in done.stderr
    manifest = json.loads((out / "manifest.json").read_bytes().decode("utf-8"))  # …and the manifest is written
    entries = {entry["path"]: entry for entry in manifest["entries"]}
    latin1 = "factura-a\\xf1o.xml"  # the byte shown readably
    assert set(entries) == {"buena.xml", "tuberia.xml", "ceros.xml", "enlace-a-tuberia.xml", latin1}
    assert entries["buena.xml"]["valid"] and entries["buena.xml"]["pdf"] == "buena.pdf"
    assert entries[latin1]["valid"] and entries[latin1]["error"] is None
    assert (out / entries[latin1]["report"]).is_file() and (out / entries[latin1]["pdf"]).is_file()
    assert json.loads((out / entries[latin1]["report"]).read_text(encoding="utf-8"))["document"]["path"] == latin1
    for name, kind in (("tuberia.xml", "FIFO"), ("enlace-a-tuberia.xml", "FIFO"), ("ceros.xml", "dispositivo")):
        assert entries[name]["error"].startswith("FEL-XML-07") and kind in entries[name]["error"], entries[name]
        assert entries[name]["sha256"] is None and not entries[name]["valid"]
    assert f"{latin1}: VÁLIDO" in done.stdout and "tuberia.xml: ERROR FEL-XML-07" in done.stdout


@pytest.mark.slow
def test_odd_files_never_hang_or_crash_a_resumed_batch(tmp_path):
    folder, out = odd_folder(tmp_path / "entrada"), tmp_path / "salida"
    first = run_cli("batch", str(folder), "--out", str(out), "--workers", "1", "--no-render")
    again = run_cli("batch", str(folder), "--out", str(out), "--workers", "1", "--no-render", "--resume",
                    "--format", "json")
    assert first.returncode == again.returncode == 2 and "Traceback" not in again.stderr
    assert json.loads(again.stdout)["run"]["reused"] == 2  # the two regular files; the odd ones are tried again


@pytest.mark.slow
def test_odd_files_never_hang_or_crash_validate(tmp_path):
    folder = odd_folder(tmp_path / "entrada")
    done = run_cli("validate", str(folder), "--format", "json")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    reports = {Path(report["document"]["path"]).name: report for report in json.loads(done.stdout)["reports"]}
    assert set(reports) == {"buena.xml", "tuberia.xml", "ceros.xml", "enlace-a-tuberia.xml", "factura-a\\xf1o.xml"}
    assert reports["factura-a\\xf1o.xml"]["valid"]
    for name in ("tuberia.xml", "ceros.xml", "enlace-a-tuberia.xml"):
        assert [issue["rule_id"] for issue in reports[name]["issues"]] == ["FEL-XML-07"]
        assert not reports[name]["valid"] and not reports[name]["complete"]
    text = run_cli("validate", str(folder))
    assert text.returncode == 2 and "factura-a\\xf1o.xml: VÁLIDO" in text.stdout


def test_a_fifo_named_as_a_profile_or_a_rule_file_is_said_never_read(tmp_path):
    """A profile or a rule file is read as an input is: a FIFO (or a device) with a rule file's name is refused
    with what it is, instead of blocking the command until something writes to it."""
    os.mkfifo(tmp_path / "perfil.yaml")
    rules = tmp_path / "reglas"
    rules.mkdir()
    (rules / "documento.yaml").write_bytes((ROOT / "rules" / "documento.yaml").read_bytes())
    os.mkfifo(rules / "tuberia.yaml")
    source = str(EXAMPLES / "factura-fact.xml")
    for option, value in (("--profile", tmp_path / "perfil.yaml"), ("--rules-dir", rules)):
        done = run_cli("validate", source, option, str(value))
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert "no es un archivo regular: es una tubería con nombre (FIFO)" in done.stderr


def test_a_fifo_in_place_of_a_file_the_batch_reads_back_is_said_never_read(tmp_path):
    """What a batch wrote and reads back (here a journal entry, read on the next run) is read as an input is: a FIFO
    put in its place stops the run with a message naming it, instead of blocking it."""
    folder, out = tmp_path / "entrada", tmp_path / "salida"
    folder.mkdir()
    for name in ("factura-fact.xml", "anulacion.xml"):
        (folder / name).write_bytes((EXAMPLES / name).read_bytes())
    assert run_cli("batch", str(folder), "--out", str(out)).returncode == 0
    entry = sorted((out / ".fel-rules" / "journal").glob("*.json"))[0]
    entry.unlink()
    os.mkfifo(entry)
    done = run_cli("batch", str(folder), "--out", str(out))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{entry}: no es un archivo regular" in done.stderr and "--resume" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("odd", ["tuberia.xml", "ceros.xml"])
def test_odd_files_never_hang_render(tmp_path, odd):
    folder = odd_folder(tmp_path / "entrada")
    done = run_cli("render", str(folder / odd), "--out", str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "no es un archivo regular" in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.parametrize("logo", ["tuberia.xml", "ceros.xml"])
def test_odd_logos_never_hang_or_exhaust_memory(tmp_path, logo):
    folder = odd_folder(tmp_path / "entrada")
    for command in (["render", str(folder / "buena.xml"), "--out", str(tmp_path)],
                    ["batch", str(folder), "--out", str(tmp_path / "salida")]):
        done = run_cli(*command, "--logo", str(folder / logo))
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "logo" in done.stderr and "no es un archivo regular" in done.stderr
    assert not (tmp_path / "salida").exists()  # the batch stopped before any work


@pytest.mark.slow
def test_render_names_its_pdf_readably(tmp_path):
    source = tmp_path / os.fsdecode(LATIN1_NAME)
    source.write_bytes((EXAMPLES / "factura-fact.xml").read_bytes())
    done = run_cli("render", str(source), "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    printed = Path(done.stdout.strip())
    assert printed.name == "factura-a\\xf1o.pdf" and printed.read_bytes().startswith(b"%PDF")


def test_safe_read_reserves_memory_for_the_file_not_for_the_cap(tmp_path):
    small = tmp_path / "a.xml"
    small.write_bytes(b"<a/>" * 256)
    tracemalloc.start()
    try:
        assert read_input(small, 100 * 1024 * 1024) == b"<a/>" * 256
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024  # a read of "cap + 1" bytes reserved 100 MB for a 1 KB file


def test_safe_read_reads_on_when_the_file_holds_more_than_its_size_said(tmp_path, monkeypatch):
    status = Path("/proc/self/status")  # a regular file whose stated size is 0
    if status.is_file() and status.stat().st_size == 0:
        assert read_input(status, 1024 * 1024).startswith(b"Name:")
        with pytest.raises(InputTooLarge):
            read_input(status, 10)
    grown = tmp_path / "a.xml"
    grown.write_bytes(b"x" * 100)
    monkeypatch.setattr(inputs.os, "fstat", stale_fstat(40))
    assert read_input(grown, 100) == b"x" * 100
    with pytest.raises(InputTooLarge) as info:
        read_input(grown, 99)
    assert (info.value.size, info.value.limit) == (100, 99)


def test_safe_read_refuses_what_is_not_a_regular_file_and_caps_the_rest(tmp_path):
    os.mkfifo(tmp_path / "tuberia")
    for odd in (tmp_path / "tuberia", Path("/dev/zero"), tmp_path):
        with pytest.raises(NotRegularFile):
            read_input(odd, 10)
    big = tmp_path / "grande.xml"
    big.write_bytes(b"x" * 11)
    with pytest.raises(InputTooLarge) as info:
        read_input(big, 10)
    assert (info.value.size, info.value.limit) == (11, 10)
    assert read_input(big, 11) == b"x" * 11
    logo = tmp_path / "logo.png"
    logo.write_bytes((EXAMPLES / "logo.png").read_bytes())
    with pytest.raises(RenderError, match="límite"):
        load_logo(logo, RenderSettings(logo_max_bytes=logo.stat().st_size - 1))
    assert load_logo(logo) == logo.read_bytes()


def test_readable_names():
    assert readable_name("factura-año.xml") == "factura-año.xml"
    assert readable_name(os.fsdecode(LATIN1_NAME)) == "factura-a\\xf1o.xml"
    assert readable_name(LATIN1_NAME) == "factura-a\\xf1o.xml"
    assert readable_name("a\ud800b") == "a\\ud800b"  # a lone surrogate that is no escaped byte
    report = Validator(Config()).validate_bytes(b"<x/>", path=os.fsdecode(LATIN1_NAME))
    assert report.document.path == "factura-a\\xf1o.xml" and report.to_json().encode("utf-8")

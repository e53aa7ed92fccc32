"""Outputs: render and batch never write over an input, a non-regular file or a file fel-rules did not create;
a batch removes only its own temporaries, gives every input its own outputs and holds its output folder alone;
outputs are ordinary files (the umask's permissions)."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from fel_rules import Report
from fel_rules.batch import BatchError, BatchOptions, Manifest, run_batch
from fel_rules.cli.app import main
from fel_rules.outputs.render import RenderSettings
from fel_rules.testing.builder import Invoice, Item

from .conftest import EXAMPLES, ROOT

SETTINGS = RenderSettings.from_env({}, logo=EXAMPLES / "logo.png")
FACTURA = EXAMPLES / "factura-fact.xml"
CERTIFIER_PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj <</Producer (El certificador)>> endobj\n%%EOF\n"


def invoice(n: int, *, gran_total: str | None = None) -> bytes:
    """A certified invoice with its own authorization number (invalid when ``gran_total`` is given)."""
    items = [Item.goods(f"Producto {n}", "2", f"{10 + n}.25")]
    document = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items, gran_total=gran_total)
    return document.certify(f"{n:08X}-0000-4000-8000-0000000000A1", "2026-03-02T09:15:27-06:00").to_xml()


def files(folder: Path) -> dict[str, bytes]:
    """Every regular file under ``folder`` but the batch's own state, by relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.is_symlink() and ".fel-rules" not in p.parts}


def test_outputs_never_destroy_inputs_or_foreign_files(tmp_path, capsys):
    """render: the input, a FIFO, a symlink and another program's PDF are refused, each left as it was."""
    source = tmp_path / "factura.xml"
    source.write_bytes(FACTURA.read_bytes())
    fifo = tmp_path / "tuberia.pdf"
    os.mkfifo(fifo)
    elsewhere = tmp_path / "otro.pdf"
    elsewhere.write_bytes(CERTIFIER_PDF)
    (tmp_path / "enlace.pdf").symlink_to(elsewhere)
    foreign = tmp_path / "certificador.pdf"
    foreign.write_bytes(CERTIFIER_PDF)
    before = files(tmp_path)

    refusals = {
        source: "es el documento de entrada; no se reemplaza",
        fifo: "no es un archivo regular (carpeta, dispositivo, enlace…); no se reemplaza",
        tmp_path / "enlace.pdf": "no es un archivo regular (carpeta, dispositivo, enlace…); no se reemplaza",
        foreign: "ya existe un archivo que fel-rules no creó; no se reemplaza",
    }
    for target, reason in refusals.items():
        code = main(["render", str(source), "--out", str(target)])
        captured = capsys.readouterr()
        assert code == 2 and captured.out == ""
        assert captured.err == f"fel-rules: error: No se pudo escribir {target}: {reason}\n"
    assert main(["render", str(source), "--out", str(foreign), "--lang", "en"]) == 2
    assert capsys.readouterr().err.endswith(": a file fel-rules did not create is already there; not replaced\n")

    assert files(tmp_path) == before  # nothing replaced, no temporary file left
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and (tmp_path / "enlace.pdf").is_symlink()
    if os.geteuid() == 0:  # as root, --out /dev/null used to replace the device with a regular file
        assert main(["render", str(source), "--out", os.devnull]) == 2
        assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
        assert "no es un archivo regular" in capsys.readouterr().err

    rendered = tmp_path / "propio.pdf"
    assert main(["render", str(source), "--out", str(rendered)]) == 0
    assert main(["render", str(EXAMPLES / "factura-certificada.xml"), "--out", str(rendered)]) == 0  # its own: replaced
    assert rendered.read_bytes().startswith(b"%PDF")


def test_outputs_never_destroy_inputs_or_foreign_files_in_a_batch(tmp_path, capsys):
    """batch: another program's manifest stops the run before any work; hidden .tmp files and PDFs that are
    not fel-rules' stay; an entry whose output place is taken says so."""
    folder = tmp_path / "entrada"
    folder.mkdir()
    (folder / "a.xml").write_bytes(invoice(1))
    (folder / "b.xml").write_bytes(invoice(2, gran_total="999.00"))  # invalid: fel-rules would remove its PDF
    out = tmp_path / "salida"
    (out / "sub").mkdir(parents=True)
    (out / ".notas.tmp").write_text("apuntes", encoding="utf-8")
    (out / "sub" / ".borrador.tmp").write_text("borrador", encoding="utf-8")
    (out / "a.pdf").write_bytes(CERTIFIER_PDF)
    (out / "b.pdf").write_bytes(CERTIFIER_PDF)
    (out / "manifest.json").write_text('{"mi": "inventario"}', encoding="utf-8")
    before = files(out)

    code = main(["batch", str(folder), "--out", str(out), "--workers", "1"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err == (f"fel-rules: error: {out / 'manifest.json'} no es un manifiesto de fel-rules y no se "
                            "reemplaza; use otra carpeta de salida.\n")
    assert files(out) == before

    (out / "manifest.json").unlink()  # the user moves their file away
    code = main(["batch", str(folder), "--out", str(out), "--workers", "1"])
    printed = capsys.readouterr().out
    assert code == 2
    assert ("a.xml: ERROR no se pudo escribir el PDF a.pdf: ya existe un archivo que fel-rules no creó; "
            "no se reemplaza") in printed
    kept = files(out)
    for name in (".notas.tmp", "sub/.borrador.tmp", "a.pdf", "b.pdf"):
        assert kept[name] == before[name], name
    manifest = Manifest.model_validate_json(kept["manifest.json"])
    entries = {entry.path: entry for entry in manifest.entries}
    assert entries["a.xml"].pdf is None and entries["a.xml"].valid
    assert entries["b.xml"].pdf is None and not entries["b.xml"].valid
    again = main(["batch", str(folder), "--out", str(out), "--workers", "1", "--no-render"])
    assert again == 1 and files(out)["b.pdf"] == CERTIFIER_PDF  # its own manifest is replaced; the PDFs stay


def test_outputs_of_inputs_differing_only_by_case_are_their_own(tmp_path):
    folder = tmp_path / "entrada"
    folder.mkdir()
    names = {"factura.xml": invoice(1), "factura.XML": invoice(2), "factura.XML.xml": invoice(3)}
    for name, data in names.items():
        (folder / name).write_bytes(data)
    out = tmp_path / "salida"
    result = run_batch(BatchOptions(input_dir=folder, out_dir=out, workers=1, render_settings=SETTINGS,
                                    progress=False))
    assert result.exit_code == 0
    entries = {entry.path: entry for entry in result.manifest.entries}
    reports = {entry.report for entry in entries.values()}
    pdfs = {entry.pdf for entry in entries.values()}
    assert len(reports) == len(pdfs) == 3
    assert entries["factura.xml"].report == "factura.report.json" and entries["factura.xml"].pdf == "factura.pdf"
    assert entries["factura.XML"].pdf == "factura.XML.pdf"
    for name, entry in entries.items():
        report = Report.from_json((out / entry.report).read_text(encoding="utf-8"))
        assert report.document.path == name and report.document.sha256 == entry.sha256
        assert (out / entry.pdf).is_file()


_HOLDER = """
import sys, time
from pathlib import Path
from fel_rules.batch import BatchOptions, run_batch

def stall(done, total):
    print("trabajando", flush=True)
    time.sleep(600)

run_batch(BatchOptions(input_dir=Path(sys.argv[1]), out_dir=Path(sys.argv[2]), workers=1, render=False,
                       progress=False, on_progress=stall))
"""


@pytest.mark.slow
def test_output_folder_is_held_by_one_batch_at_a_time(tmp_path, capsys):
    """A second batch into a folder another batch is writing fails at once (exit 2, one line); once the first
    is gone (even killed), the folder is free again."""
    folder = tmp_path / "entrada"
    folder.mkdir()
    for n in range(3):
        (folder / f"f{n}.xml").write_bytes(invoice(n))
    out = tmp_path / "salida"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(folder), str(out)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT, start_new_session=True)
    try:
        assert holder.stdout.readline() == "trabajando\n", holder.stderr.read()
        code = main(["batch", str(folder), "--out", str(out), "--workers", "1", "--no-render"])
        captured = capsys.readouterr()
        assert code == 2 and captured.out == ""
        assert captured.err == (f"fel-rules: error: La carpeta de salida {out} está en uso por otro lote; espere a "
                                "que termine o use otra carpeta.\n")
        assert not (out / "manifest.json").exists()

        from .mcp.harness import Session

        session = Session([str(tmp_path)])
        try:
            session.initialize()
            reply = session.call(1, "tools/call", {"name": "fel_batch", "arguments": {
                "dir_xml": "entrada", "out_dir": "salida", "workers": 1, "render": False}})
        finally:
            session.close()
        assert reply["result"]["isError"] is True
        assert reply["result"]["content"][0]["text"].startswith(f"La carpeta de salida {out} está en uso")
    finally:
        os.killpg(holder.pid, signal.SIGKILL)
        holder.communicate()
    assert main(["batch", str(folder), "--out", str(out), "--workers", "1", "--no-render"]) == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["summary"]["files"] == len(manifest["entries"]) == 3


_TRY_LOCK = """
import sys
from pathlib import Path
from fel_rules.batch import BatchError
from fel_rules.batch.lock import exclusive
try:
    with exclusive(Path(sys.argv[1]), ()):
        pass
except BatchError:
    sys.exit(3)
"""


def _other_process_may_hold(out: Path) -> bool:
    """Whether another process could take the batch lock of ``out`` now (it takes it and lets it go)."""
    done = subprocess.run([sys.executable, "-c", _TRY_LOCK, str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode in (0, 3), done.stderr
    return done.returncode == 0


def test_reading_the_lock_file_does_not_release_the_lock(tmp_path):
    """A tool of the process that runs a batch may be asked to read ``OUT/.fel-rules/lock`` (an MCP call naming
    it): opening and closing that file must not let another batch into the folder."""
    from fel_rules.batch.lock import exclusive
    from fel_rules.core.inputs import read_input

    out = tmp_path / "salida"
    with exclusive(out, ()):
        assert read_input(out / ".fel-rules" / "lock", 1024) == b""
        os.close(os.open(out / ".fel-rules" / "lock", os.O_RDONLY))
        assert not _other_process_may_hold(out)
    assert _other_process_may_hold(out)


def test_a_forked_child_does_not_keep_the_lock(tmp_path):
    """A process forked while a batch holds its folder (a worker, or a pool the MCP server keeps) does not hold the
    folder once the batch is over."""
    from fel_rules.batch.lock import exclusive

    out = tmp_path / "salida"
    with exclusive(out, ()):
        child = os.fork()
        if child == 0:  # pragma: no cover - the child only waits to be killed
            signal.pause()
            os._exit(0)
    try:
        assert _other_process_may_hold(out)
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


def test_outputs_behave_like_normal_files(tmp_path):
    """The umask's permissions (0644 under 022), still written atomically; ``--out carpeta/`` is a folder."""
    previous = os.umask(0o022)
    try:
        assert main(["render", str(FACTURA), "--out", str(tmp_path / "carpeta") + "/"]) == 0
        pdf = tmp_path / "carpeta" / "factura-fact.pdf"
        assert pdf.read_bytes().startswith(b"%PDF") and stat.S_IMODE(pdf.stat().st_mode) == 0o644
        out = tmp_path / "salida"
        run_batch(BatchOptions(input_dir=EXAMPLES, out_dir=out, workers=1, render_settings=SETTINGS, progress=False))
    finally:
        os.umask(previous)
    written = [p for p in out.rglob("*") if p.is_file() and ".fel-rules" not in p.parts]
    assert {p.suffix for p in written} == {".json", ".pdf", ".html", ".csv"} and (out / "manifest.json") in written
    assert {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in written} == {p.name: "0o644" for p in written}
    assert [p.name for p in out.rglob("*.tmp")] == []


@pytest.mark.parametrize("mask, mode", [(0o077, 0o600), (0o002, 0o664)])
def test_outputs_follow_the_umask(tmp_path, mask, mode):
    previous = os.umask(mask)
    try:
        assert main(["render", str(FACTURA), "--out", str(tmp_path / "f.pdf")]) == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "f.pdf").stat().st_mode) == mode


def test_output_folder_is_held_by_one_batch_at_a_time_within_a_process(tmp_path):
    """The MCP server runs batches on threads of one process: they exclude each other as well."""
    import threading

    folder = tmp_path / "entrada"
    folder.mkdir()
    for n in range(2):
        (folder / f"f{n}.xml").write_bytes(invoice(n))
    out = tmp_path / "salida"
    working, finish = threading.Event(), threading.Event()

    def stall(done: int, total: int) -> None:
        working.set()
        finish.wait(60)

    def first_batch() -> None:
        run_batch(BatchOptions(input_dir=folder, out_dir=out, workers=1, render=False, progress=False,
                               on_progress=stall))

    thread = threading.Thread(target=first_batch)
    thread.start()
    try:
        assert working.wait(60)
        with pytest.raises(BatchError) as info:
            run_batch(BatchOptions(input_dir=folder, out_dir=out, workers=1, render=False, progress=False))
        assert info.value.localized("en") == (f"The output folder {out} is in use by another batch; wait for it to "
                                              "finish or use another folder.")
    finally:
        finish.set()
        thread.join(60)
    manifest = Manifest.model_validate_json((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest.summary.files == 2 and [e.path for e in manifest.entries] == ["f0.xml", "f1.xml"]


def test_report_file_text_is_indented_json_of_its_data():
    """The text a batch writes per file is exactly ``json.dumps(report.to_dict(), indent=2)`` — also for values
    with quotes, backslashes, control characters, line separators and characters beyond the BMP."""
    from fel_rules.core.report import Counts, DocumentSummary, Issue, Location, Refs, Report, Stage, Totals

    odd = "".join(map(chr, range(0x30))) + '"\\/ñ€😀\u2028\u2029\x7f\x85\x9f\ufeffab'
    issue = Issue(rule_id="X", severity="error", stage="rules", title=odd, message=odd, hint=odd, expected=odd,
                  difference="1.00", detail=odd, location=Location(xpath=odd, line=3, item=2, field=odd),
                  refs=Refs(sat_code=odd))
    report = Report(valid=False, complete=True, document=DocumentSummary(path=odd, certified=True),
                    stages=[Stage(name="xml", status="passed")], counts=Counts(error=2),
                    issues=[issue, replace(issue, detail=None)], totals=Totals(subtotal="1.00"))
    expected = json.dumps(report.to_dict(include_run=False), ensure_ascii=False, indent=2)
    assert report.to_json(include_run=False) == expected
    assert "detail" not in json.loads(expected)["issues"][1]

"""Batch: a mixed folder → reports, PDFs, cross-document issues and a deterministic manifest."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fel_rules import Config, InputError, Report
from fel_rules.batch import BatchOptions, manifest_json_schema, run_batch
from fel_rules.cli.app import main
from fel_rules.outputs.render import RenderSettings
from fel_rules.testing.builder import Invoice, Item

from .batch_folder import TWIN_UUID, fill
from .conftest import EXAMPLES, ROOT

SETTINGS = RenderSettings.from_env({}, logo=EXAMPLES / "logo.png")


def batch(folder: Path, out: Path, **options) -> object:
    options.setdefault("workers", 2)
    return run_batch(BatchOptions(input_dir=folder, out_dir=out, render_settings=SETTINGS, progress=False, **options))


def tree(folder: Path) -> dict[str, bytes]:
    """Every output file (manifest without its volatile run section) by relative path."""
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and ".fel-rules" not in path.parts:
            data = path.read_bytes()
            if path.name == "manifest.json":
                manifest = json.loads(data)
                manifest.pop("run")
                data = json.dumps(manifest, sort_keys=True).encode()
            files[path.relative_to(folder).as_posix()] = data
    return files


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    return fill(tmp_path_factory.mktemp("lote") / "entrada")


@pytest.fixture(scope="module")
def mixed_run(mixed, tmp_path_factory):
    out = tmp_path_factory.mktemp("salida")
    return batch(mixed, out), out


def test_manifest_snapshot(mixed_run, snapshot_json):
    result, _ = mixed_run
    data = json.loads(result.manifest.to_json(include_run=False))
    assert data == snapshot_json
    assert result.exit_code == 2  # the dangling link could not be read


def test_entries_are_sorted_and_every_input_is_accounted_for(mixed_run):
    result, out = mixed_run
    paths = [entry.path for entry in result.manifest.entries]
    assert paths == sorted(paths) == ["a-factura.xml", "b-nota-credito.xml", "c-nota-correcta.xml", "d-gemela-1.xml",
                                      "d-gemela-2.xml", "e-invalida.xml", "f-no-es-xml.xml", "g-roto.xml"]
    by_path = {entry.path: entry for entry in result.manifest.entries}
    assert by_path["a-factura.xml"].valid and by_path["a-factura.xml"].pdf == "a-factura.pdf"
    assert (out / "a-factura.pdf").read_bytes().startswith(b"%PDF")
    assert not by_path["e-invalida.xml"].valid and by_path["e-invalida.xml"].pdf is None
    assert by_path["f-no-es-xml.xml"].counts.error == 1 and by_path["f-no-es-xml.xml"].error is None
    assert by_path["g-roto.xml"].error.startswith("FEL-XML-07") and by_path["g-roto.xml"].sha256 is None
    assert json.loads((out / "manifest.json").read_text())["summary"] == result.manifest.summary.model_dump()


def test_cross_document_issues_are_in_the_reports(mixed_run):
    result, out = mixed_run
    note = Report.from_json((out / "b-nota-credito.report.json").read_text())
    lot = {issue.rule_id: issue for issue in note.issues if issue.rule_id.startswith("FEL-LOT-")}
    assert set(lot) == {"FEL-LOT-03", "FEL-LOT-06", "FEL-LOT-07"}
    assert "USD" in lot["FEL-LOT-03"].message and "a-factura.xml" in lot["FEL-LOT-03"].message
    assert lot["FEL-LOT-06"].refs.sat_code == "FEL_RCP350" and "US$ 1,020.00" in lot["FEL-LOT-06"].message
    assert not note.valid and note.counts.error == 3
    correct = Report.from_json((out / "c-nota-correcta.report.json").read_text())
    assert correct.valid and not [i for i in correct.issues if i.rule_id.startswith("FEL-LOT-")]
    for twin in ("d-gemela-1", "d-gemela-2"):
        report = Report.from_json((out / f"{twin}.report.json").read_text())
        (issue,) = [i for i in report.issues if i.rule_id == "FEL-LOT-01"]
        assert TWIN_UUID in issue.message and not report.valid
        assert not (out / f"{twin}.pdf").exists()  # rendered in phase 1, removed once the duplicate was seen
    entry = next(e for e in result.manifest.entries if e.path == "d-gemela-1.xml")
    assert entry.pdf is None and "entre documentos" in entry.pdf_note


def test_recursive(mixed, tmp_path):
    result = batch(mixed, tmp_path / "out", recursive=True, render=False)
    assert "marzo/h-anidada.xml" in [e.path for e in result.manifest.entries]
    assert (tmp_path / "out" / "marzo" / "h-anidada.report.json").is_file()
    assert result.manifest.summary.rendered == 0


def test_a_recursive_batch_never_leaves_out_a_folder_it_cannot_list(mixed, tmp_path, monkeypatch):
    """A subfolder the system will not list stops the run, named (exit 2 on the command line), instead of its
    invoices being silently missing from the manifest."""
    listing = os.scandir

    def refusing(path=".", *args):
        if os.fspath(path).endswith("marzo"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return listing(path, *args)

    monkeypatch.setattr(os, "scandir", refusing)
    with pytest.raises(PermissionError) as refused:
        batch(mixed, tmp_path / "out", recursive=True, render=False)
    assert refused.value.filename.endswith("marzo")
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_resume_reuses_unchanged_files(mixed, tmp_path):
    out = tmp_path / "out"
    first = batch(mixed, out)
    again = batch(mixed, out, resume=True)
    assert again.manifest.run.reused == 7  # everything but the unreadable link
    assert tree(out) and again.manifest.entries == first.manifest.entries


@pytest.mark.slow
def test_resume_after_sigkill_matches_a_clean_run(tmp_path):
    folder = tmp_path / "entrada"
    folder.mkdir()
    for n in range(40):
        items = [Item.goods(f"Producto {n}-{k}", str(1 + k), f"{10 + n}.50") for k in range(1, 12)]
        (folder / f"f{n:03d}.xml").write_bytes(Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items)
                                               .certify(f"{n:08X}-0000-4000-8000-000000000000",
                                                        "2026-03-02T09:15:27-06:00").to_xml())
    clean = tmp_path / "limpia"
    batch(folder, clean)
    killed = tmp_path / "matada"
    command = [sys.executable, "-m", "fel_rules", "batch", str(folder), "--out", str(killed), "--workers", "2",
               "--logo", str(EXAMPLES / "logo.png")]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                               start_new_session=True)
    journal = killed / ".fel-rules" / "journal"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not journal.is_dir() or len(list(journal.glob("*.json"))) < 8):
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)  # the batch and its workers, mid-run
    process.wait()
    done = len(list(journal.glob("*.json")))
    assert 8 <= done < 40, "the kill must land mid-run"
    assert not (killed / "manifest.json").exists()
    resumed = batch(folder, killed, resume=True)
    assert resumed.manifest.run.reused >= done - 2  # the last journal entries may race the kill
    assert tree(killed) == tree(clean)


def test_cli_batch(mixed, tmp_path, capsys):
    code = main(["batch", str(mixed), "--out", str(tmp_path / "o"), "--no-render", "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 2 and "e-invalida.xml: INVÁLIDO" in out and "g-roto.xml: ERROR FEL-XML-07" in out
    assert out.strip().splitlines()[-1].startswith("Archivos: 8 (válidos: 2, inválidos: 5, con error: 1, PDFs: 0)")
    code = main(["batch", str(EXAMPLES), "--out", str(tmp_path / "e"), "--no-render", "--format", "json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["summary"]["valid"] == len(list(EXAMPLES.glob("*.xml")))


_SPANISH = re.compile(r"[áéíóúñ¿¡]|\b(el|la|los|las|del|una|que|se|por|documento|archivos?|lote|procesado)\b", re.I)


def test_batch_notes_follow_the_language(tmp_path, capsys):
    """Under --lang en the manifest's notes and errors and the terminal lines are English (file names aside)."""
    folder = fill(tmp_path / "in")
    (folder / "i-anulacion.xml").write_bytes((EXAMPLES / "anulacion.xml").read_bytes())
    result = batch(folder, tmp_path / "out", config=Config(lang="en"))
    notes = [(entry.path, entry.pdf_note, entry.error) for entry in result.manifest.entries]
    said = {note for _, note, _ in notes}
    assert {"document not valid", "an annulment has no printed form"} <= said
    for path, *texts in notes:
        for text in filter(None, texts):
            assert not _SPANISH.search(text.replace(path, "")), (path, text)
    capsys.readouterr()
    main(["batch", str(folder), "--out", str(tmp_path / "text"), "--no-render", "--lang", "en", "--workers", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("Files: 9 (valid: 3, invalid: 5, errors: 1, PDFs: 0)")
    for line in lines:  # file names are the user's: left out
        assert not _SPANISH.search(re.sub(r"\S+\.xml|\S*/\S*", "", line)), line


def test_missing_and_empty_folders(tmp_path):
    with pytest.raises(InputError):
        batch(tmp_path / "nada", tmp_path / "out")
    (tmp_path / "vacia").mkdir()
    with pytest.raises(InputError) as info:
        batch(tmp_path / "vacia", tmp_path / "out")
    assert "no contiene archivos .xml" in info.value.message


def test_bad_logo_stops_before_any_work(mixed, tmp_path):
    from fel_rules import RenderError

    settings = RenderSettings.from_env({}, logo=tmp_path / "no-hay.png")
    with pytest.raises(RenderError):
        run_batch(BatchOptions(input_dir=mixed, out_dir=tmp_path / "out", render_settings=settings, progress=False))
    assert not (tmp_path / "out").exists()


def test_manifest_json_schema_is_published():
    published = json.loads((ROOT / "docs" / "manifest.schema.json").read_text(encoding="utf-8"))
    assert published == manifest_json_schema(), "run: python -c 'from fel_rules.batch import ...' (see docs/README)"


_DASK_BATCH = """
import sys
from distributed import LocalCluster
from fel_rules.cli import main
with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
    code = main(["batch", sys.argv[1], "--out", sys.argv[2], "--logo", sys.argv[3], "--executor", "dask",
                 "--scheduler", cluster.scheduler_address])
sys.exit(code)
"""


@pytest.mark.slow
def test_dask_cluster_gives_the_same_manifest(mixed, mixed_run, tmp_path):
    """In a child process: a Dask client leaves threads behind, and a process with threads starts its local
    batch workers the slow way (spawn, not fork) for the rest of its life."""
    pytest.importorskip("distributed", reason="the dask extra (fel-rules[dask]) is not installed")
    out = tmp_path / "dask"
    done = subprocess.run([sys.executable, "-c", _DASK_BATCH, str(mixed), str(out), str(EXAMPLES / "logo.png")],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    local, local_out = mixed_run
    assert done.returncode == local.exit_code, done.stderr
    run = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["run"]
    assert run["executor"] == "dask" and run["workers"] == 2
    assert tree(out) == tree(local_out)


def test_manifest_is_json_whatever_the_file_names(tmp_path):
    """Names with characters that end a line for Python but not for JSON (U+2028, NEL): the manifest and each
    report stay valid JSON, each naming its file as it is."""
    folder = tmp_path / "entrada"
    folder.mkdir()
    names = ["fac\u2028tura.xml", "nota\x85de\u2029credito.xml", "año\u00a0fiscal.xml"]
    for name in names:
        invoice = Invoice(tipo="FACT", receptor_id="CF", items=[Item.goods("Cemento", "1", "10.00")])
        (folder / name).write_bytes(invoice.to_xml())
    out = tmp_path / "salida"
    result = batch(folder, out, render=False, workers=1)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert sorted(entry["path"] for entry in manifest["entries"]) == sorted(names)
    assert manifest["entries"] == [entry.model_dump(mode="json") for entry in result.manifest.entries]
    for entry in manifest["entries"]:
        assert json.loads((out / entry["report"]).read_text(encoding="utf-8"))["document"]["path"] == entry["path"]

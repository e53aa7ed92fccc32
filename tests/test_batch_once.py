"""A batch does each document's work once: one validation, and a PDF only once its verdict is final (after
the cross-document rules) — never a PDF rendered and then deleted, never a second validation to render it.

The per-file functions run in this process (an executor that runs them in turn), so the calls can be counted.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

from fel_rules.batch import BatchOptions, run_batch, runner
from fel_rules.batch.pending import view_file
from fel_rules.engine import Validator
from fel_rules.outputs.render import pdf as pdf_layout

from .batch_folder import fill


class InProcessExecutor:
    """Runs the per-file functions one after another in this process (same interface as the local pool)."""

    name, workers, crashes = "process", 1, 0

    def run(self, function, items, crashed=None, stop=None):
        for item in items:
            yield function(item)

    def close(self, *, abort: bool = False) -> None:
        pass


class Calls:
    """Counts validations and layouts per input, and the PDFs written and removed."""

    def __init__(self, monkeypatch) -> None:
        self.validated: Counter[str] = Counter()
        self.rendered: Counter[str] = Counter()
        self.pdfs_written: list[Path] = []
        self.pdfs_removed: list[Path] = []
        inspect, layout = Validator.inspect_path, pdf_layout.render_view
        write_output = runner.process_and_record.__globals__["write_output"]
        remove_own = runner._reconcile_pdfs.__globals__["remove_own"]

        def counted_inspect(validator, path, *, name=None, **kwargs):
            self.validated[name] += 1
            return inspect(validator, path, name=name, **kwargs)

        def counted_layout(view, **kwargs):
            self.rendered[view.uuid or view.title] += 1
            return layout(view, **kwargs)

        def recorded_write(path, data, roots, owned, **kwargs):
            if Path(path).suffix == ".pdf":
                self.pdfs_written.append(Path(path))
            return write_output(path, data, roots, owned, **kwargs)

        def recorded_remove(path, owned, roots=()):
            if path.is_file():
                self.pdfs_removed.append(path)
            return remove_own(path, owned, roots)

        monkeypatch.setattr(Validator, "inspect_path", counted_inspect)
        monkeypatch.setattr(pdf_layout, "render_view", counted_layout)
        monkeypatch.setitem(runner.process_and_record.__globals__, "write_output", recorded_write)
        monkeypatch.setitem(runner._reconcile_pdfs.__globals__, "remove_own", recorded_remove)
        monkeypatch.setattr(runner, "open_executor", lambda *args: InProcessExecutor())


def _run(tmp_path: Path, **options):
    return run_batch(BatchOptions(tmp_path / "in", tmp_path / "out", recursive=True, render=True, progress=False,
                                  **options))


def test_each_document_is_validated_once_and_rendered_once_its_verdict_is_final(monkeypatch, tmp_path):
    fill(tmp_path / "in")
    calls = Calls(monkeypatch)
    result = _run(tmp_path)
    manifest = json.loads(result.path.read_text())
    entries = {entry["path"]: entry for entry in manifest["entries"]}
    readable = [path for path, entry in entries.items() if entry["report"]]
    assert calls.validated == Counter({path: 1 for path in readable})  # unreadable inputs never reach it

    twins = [entries["d-gemela-1.xml"], entries["d-gemela-2.xml"]]  # valid alone, invalid beside each other
    assert [(e["valid"], e["pdf"], e["pdf_note"]) for e in twins] == [(False, None, twins[0]["pdf_note"])] * 2
    assert twins[0]["pdf_note"] is not None
    with_pdf = [entry["pdf"] for entry in entries.values() if entry["pdf"]]
    assert sorted(with_pdf) == ["a-factura.pdf", "c-nota-correcta.pdf", "marzo/h-anidada.pdf"]
    assert sorted(calls.pdfs_written) == sorted(tmp_path / "out" / pdf for pdf in with_pdf)  # each once
    assert sum(calls.rendered.values()) == len(with_pdf)
    assert calls.pdfs_removed == []
    assert not view_file(tmp_path / "out" / ".fel-rules" / "journal", "a-factura.xml").exists()


def test_resume_after_the_first_pass_renders_from_the_kept_view(monkeypatch, tmp_path):
    """A run stopped before its PDFs (killed after phase 1) leaves views; --resume renders from them without
    validating anything again."""
    fill(tmp_path / "in")
    monkeypatch.setattr(runner, "_reconcile_pdfs", _stop)
    try:
        _run(tmp_path)
    except _Stopped:
        pass
    monkeypatch.undo()
    assert view_file(tmp_path / "out" / ".fel-rules" / "journal", "a-factura.xml").is_file()
    calls = Calls(monkeypatch)
    result = _run(tmp_path, resume=True)
    assert set(calls.validated) == {"g-roto.xml"}  # an input that could not be read is tried again
    assert result.summary.rendered == 3
    assert sum(calls.rendered.values()) == 2  # a-factura and c-nota-correcta (h-anidada was final in phase 1)
    assert calls.pdfs_removed == []


def _changed_before_its_pdf(monkeypatch, tmp_path, change) -> tuple[Calls, dict]:
    """A batch whose input ``a-factura.xml`` (valid, its PDF waiting for the cross-document rules) is changed by
    ``change(path)`` after the first pass, before its PDF: the calls and its manifest entry."""
    fill(tmp_path / "in")
    source = tmp_path / "in" / "a-factura.xml"
    judged = hashlib.sha256(source.read_bytes()).hexdigest()

    def change_input_then_reconcile(briefs, out_dir, journal, render):
        change(source)
        return reconcile(briefs, out_dir, journal, render)

    reconcile = runner._reconcile_pdfs
    calls = Calls(monkeypatch)
    monkeypatch.setattr(runner, "_reconcile_pdfs", change_input_then_reconcile)
    result = _run(tmp_path)
    entry = next(e for e in json.loads(result.path.read_text())["entries"] if e["path"] == "a-factura.xml")
    assert result.exit_code == 2 and entry["sha256"] == judged  # the verdict stays that of the bytes it judged
    return calls, entry


def test_a_changed_input_gets_no_pdf_of_content_that_was_not_judged(monkeypatch, tmp_path):
    """An input changed between the first pass and its PDF: the kept view is stale, the input is validated again,
    and since its bytes are not those its verdict judged, no PDF is printed; the entry says why."""
    calls, entry = _changed_before_its_pdf(
        monkeypatch, tmp_path, lambda source: source.write_bytes(source.read_bytes().replace(b"Cemento gris",
                                                                                             b"Cemento blanco")))
    assert calls.validated["a-factura.xml"] == 2 and calls.validated["c-nota-correcta.xml"] == 1
    assert entry["pdf"] is None and "a-factura.xml" not in {path.name for path in calls.pdfs_written}
    assert not (tmp_path / "out" / "a-factura.pdf").exists()
    assert "cambió después de validarse" in entry["error"]


def test_an_input_swapped_for_another_valid_invoice_gets_no_pdf(monkeypatch, tmp_path):
    """Swapped for another document that is valid on its own: still not the content the verdict is about."""
    other = (tmp_path / "other.xml")
    other.write_bytes(Path(__file__).resolve().parent.parent.joinpath("examples", "factura-certificada.xml")
                      .read_bytes())
    calls, entry = _changed_before_its_pdf(monkeypatch, tmp_path, lambda source: source.write_bytes(
        other.read_bytes()))
    assert Validator().validate_path(other).valid  # (the swapped-in document is valid on its own)
    assert entry["pdf"] is None and not (tmp_path / "out" / "a-factura.pdf").exists()
    assert sum(calls.rendered.values()) == 2  # h-anidada (in the first pass) and c-nota-correcta: nothing else


class _Stopped(Exception):
    pass


def _stop(*args):
    raise _Stopped


def test_outputs_are_flushed_to_disk_once_before_the_manifest(monkeypatch, tmp_path):
    """Reports, PDFs and the journal are written atomically without a flush each; the whole output folder's
    file system is flushed once, before the manifest (itself flushed) says the run is finished."""
    import os

    fill(tmp_path / "in")
    Calls(monkeypatch)
    fsyncs, flushes = [], []
    fsync, flush = os.fsync, runner.flush_to_disk

    def counted_fsync(handle):
        fsyncs.append(handle)
        fsync(handle)

    def recorded_flush(folder, roots=(), **kwargs):
        flushes.append((folder / "manifest.json").exists())
        flush(folder, roots, **kwargs)

    monkeypatch.setattr(os, "fsync", counted_fsync)
    monkeypatch.setattr(runner, "flush_to_disk", recorded_flush)
    result = _run(tmp_path)
    assert result.summary.rendered == 3
    assert flushes == [False]  # once, and no manifest yet
    assert len(fsyncs) == 1  # the manifest's


def test_a_kept_view_of_other_bytes_than_the_verdict_is_never_printed(tmp_path):
    """A view kept by an earlier run for bytes the input holds again, while the journal's verdict is about other
    bytes (a later run judged those): printing it would show one document under another's sha256 and verdict."""
    from fel_rules.batch.pending import save_view
    from fel_rules.batch.worker import FileResult, FileTask, InputChanged, _view, record, render_pdf
    from fel_rules.outputs.render import RenderSettings

    examples = Path(__file__).resolve().parent.parent / "examples"
    certified, plain = (examples / "factura-certificada.xml").read_bytes(), (examples / "factura-fact.xml").read_bytes()
    source, journal = tmp_path / "a.xml", tmp_path / "out" / ".fel-rules" / "journal"
    journal.mkdir(parents=True)
    source.write_bytes(certified)
    task = FileTask(str(source), "a.xml", str(tmp_path / "out"), True, {"lang": "es"},
                    RenderSettings().model_dump(mode="json"), journal=str(journal), fingerprint="f")
    outcome = Validator().inspect_bytes(certified, path="a.xml")
    report, facts = outcome.report, outcome.facts
    save_view(journal, "a.xml", "f", hashlib.sha256(certified).hexdigest(), _view(task, facts, report).model_dump(
        mode="json"))
    record(journal, "f", FileResult(rel="a.xml", sha256=hashlib.sha256(plain).hexdigest(), tipo="FACT",
                                    numero_autorizacion=None, valid=True, complete=True,
                                    counts={"error": 0, "warning": 0, "info": 1}, report="a.report.json", pdf=None,
                                    pdf_note=None, error=None))
    try:
        render_pdf(task)
    except InputChanged:
        pass
    else:
        raise AssertionError("a PDF was printed of bytes the verdict is not about")
    assert not (tmp_path / "out" / "a.pdf").exists() and not view_file(journal, "a.xml").exists()

"""The phases of a batch after planning: (1) per-file work in the workers, each finished file recorded in the
journal (files ``--resume`` may reuse are skipped; a file whose outputs vanished meanwhile is done again; one
that kills its worker twice gets an ``error`` entry); (2) cross-document rules, patched into the affected
reports; (3) PDFs reconciled with the final verdicts."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path

from ..core.atomic import remove_own
from ..core.confine import confine
from ..core.owned import own_pdf, own_report
from .cross import cross_issues, with_cross_issues
from .errors import BatchCancelled
from .journal import Journal
from .output_check import OnDisk, missing_outputs
from .pending import drop_folder, drop_view
from .plan import BatchRun
from .progress import Progress
from .worker import (
    Brief,
    FileTask,
    PdfNote,
    crashed_result,
    output_paths,
    record_pdf,
    remove_stale_outputs,
    validator_for,
    write_output,
)
from .written_report import read_report

__all__ = ["RenderPdfs", "apply_cross_rules", "process_files", "reconcile_pdfs", "reusable_briefs", "unrendered"]

#: Renders the PDFs of the given inputs in the workers, each outcome recorded in the input's journal entry
#: (:func:`~.worker.record_pdf`): ``(rel, sha256 of the PDF, None)`` per PDF written, ``(rel, None, why not)``
#: per PDF that could not be.
RenderPdfs = Callable[[list[str]], Iterable[tuple[str, str | None, str | None]]]


def reusable_briefs(batch: BatchRun) -> dict[str, Brief]:
    """With ``--resume``, the briefs of the inputs whose recorded results still hold (none otherwise)."""
    briefs: dict[str, Brief] = {}
    if not batch.options.resume:
        return briefs
    for rel in batch.files:
        reused = batch.journal.reusable(batch.task(rel))
        if reused is not None:
            briefs[rel] = Brief.of(reused)
    return briefs


def process_files(batch: BatchRun, executor, process: Callable[[FileTask], Brief], briefs: dict[str, Brief],
                  progress: Progress) -> None:
    """Phase 1: ``process`` every input without a brief yet, in the workers; :class:`BatchCancelled` when the
    run is cancelled meanwhile. Then the inputs whose outputs vanished during the run are done again."""
    pending = [rel for rel in batch.files if rel not in briefs]
    crashed = partial(_crashed, batch.journal)
    tasks = _Tasks(batch, pending, batch.journal.entries())
    for brief in executor.run(process, tasks, crashed, stop=batch.cancelled):
        briefs[brief.rel] = brief
        progress.advance()
        if batch.options.on_progress is not None:
            batch.options.on_progress(len(briefs), len(batch.files))
    if batch.cancelled():
        raise BatchCancelled(f"lote cancelado tras {len(briefs)} de {len(batch.files)} archivos; "
                             "--resume continúa donde quedó")
    disk = OnDisk()
    lost = [rel for rel, brief in briefs.items() if missing_outputs(rel, brief, batch.out_dir, batch.journal, disk)]
    for brief in executor.run(process, map(batch.task, lost), crashed):
        briefs[brief.rel] = brief  # its outputs vanished during the run (output folder deleted…): done again


class _Tasks:
    """The tasks of ``rels``, each made when it is sent (how many there are is known beforehand); ``entries``: the
    journal's entries listed before the first (an input's entry appears only once its task is made)."""

    def __init__(self, batch: BatchRun, rels: list[str], entries: frozenset[str] | None) -> None:
        self._batch, self._rels, self._entries = batch, rels, entries

    def __len__(self) -> int:
        return len(self._rels)

    def __iter__(self) -> Iterator[FileTask]:
        return (self._batch.task(rel, self._entries) for rel in self._rels)


def _crashed(journal: Journal, task: FileTask) -> Brief:
    """A file that killed its worker twice: an ``error`` entry, and no outputs (any there are stale)."""
    result = crashed_result(task)
    remove_stale_outputs(task)
    journal.record(result)
    return Brief.of(result)


def apply_cross_rules(briefs: dict[str, Brief], out_dir: Path, journal: Journal, config: dict, limit: int) -> None:
    """Phase 2: patch the batch rules' issues into reports; drop stale ones from earlier runs."""
    validator = validator_for(config)
    catalog, lang, as_of = validator.catalog, validator.config.lang, validator.config.as_of
    found = cross_issues(((rel, b.cross) for rel, b in sorted(briefs.items()) if b.cross is not None), catalog,
                         lang=lang, limit=limit, as_of=as_of)  # by path: the workers' order is not the run's
    batch_rules = {rule.id for rule in catalog.batch_rules}
    for rel, brief in briefs.items():
        new = found.get(rel, [])
        if brief.failed or (not new and not brief.cross_applied):
            continue
        result = journal.load(rel)
        if result.report is None:  # only an entry with an error has no report; one edited by hand may, too
            continue
        path = out_dir / result.report
        report = read_report(confine(path, journal.roots))
        patched = with_cross_issues(report, new, batch_rules)
        result.report_sha256 = write_output(path, (patched.to_json(include_run=False) + "\n").encode(), journal.roots,
                                            own_report, durable=False)  # flushed with the rest before the manifest
        result.valid, result.counts, result.cross_applied = patched.valid, patched.counts.to_dict(), bool(new)
        journal.record(result)
        brief.valid, brief.cross_applied = result.valid, result.cross_applied


def reconcile_pdfs(briefs: dict[str, Brief], out_dir: Path, journal: Journal, render: RenderPdfs) -> None:
    """Phase 3, after cross-document rules: valid documents have a PDF, invalid ones none. A PDF that could not
    be written (in phase 1, or here) is an ``error`` of its entry."""
    missing = [rel for rel, brief in briefs.items() if _settle_pdf(rel, brief, out_dir, journal)]
    for rel, _, error in render(missing):  # each recorded in its journal entry by its worker
        briefs[rel].failed = briefs[rel].failed or error is not None
        briefs[rel].has_pdf, briefs[rel].pdf_pending = error is None, False
    drop_folder(journal.folder, journal.roots)


def _settle_pdf(rel: str, brief: Brief, out_dir: Path, journal: Journal) -> bool:
    """Match the PDF of ``rel`` with its verdict: the PDF of a document that is not valid (any longer) is
    removed; True when the document is valid and its PDF is missing, to be rendered."""
    pdf = out_dir / output_paths(rel)[1]
    if brief.valid and brief.renderable and not brief.failed:
        return not brief.has_pdf or not pdf.is_file()
    meant = brief.has_pdf or brief.pdf_failed or brief.pdf_pending  # valid in phase 1, then made invalid by a
    if meant or pdf.is_file():  # cross-document rule (or a PDF an earlier run left)
        remove_own(pdf, own_pdf, journal.roots)  # a PDF fel-rules did not write (another program's) stays
        if meant:
            _drop_pdf(rel, brief, journal)
    return False


def _drop_pdf(rel: str, brief: Brief, journal: Journal) -> None:
    """Record that ``rel`` has no PDF: a cross-document rule made it invalid."""
    result = journal.load(rel)
    result.pdf, result.pdf_sha256 = None, None
    result.pdf_note = PdfNote.INVALID_CROSS
    journal.record(result)
    drop_view(journal.folder, rel, journal.roots)
    brief.has_pdf = brief.pdf_failed = brief.pdf_pending = False


def unrendered(task: FileTask) -> tuple[str, None, str | None]:
    """The render result of a file that killed its worker twice, recorded in its journal entry."""
    error = crashed_result(task).error
    record_pdf(task.journal, task.fingerprint, task.rel, None, error, task.allowed)
    return task.rel, None, error

"""The batch's two views over every document, written once at the end beside the manifest: ``reporte.html`` (the
page to open and look at) and ``libro.csv`` (the purchase/sales ledger). Both come from one pass over the
journal's results (the manifest's entries are written in the same pass) and the reports the batch wrote, before the
file system is flushed and the manifest put in place:
a manifest on disk names a run whose page and ledger are on disk too. Like the manifest, each describes a finished
run only: an earlier run's are removed when a run starts, and another program's file of that name stops the run
before any work.

The pass runs in the batch's workers, on consecutive runs of inputs (:func:`overview_part`: each reads its inputs'
journal entries and reports and writes up their manifest entries, page rows and ledger rows); the batch puts the
parts in place in path order (:func:`write_overview`)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from ..core.atomic import atomic_writer, remove_own
from ..core.catalogue import render_text
from ..core.confine import confine
from ..core.inputs import readable_name
from ..core.owned import own_html_page, own_ledger
from ..core.report import Report, RulesetRef
from ..core.text import Text
from ..document.ledger import LedgerFacts
from ..outputs.formats.html import HtmlPage, PageContext, PageRows
from ..outputs.formats.ledger import Ledger
from ..outputs.formats.listing import Listed
from .errors import BatchError
from .journal import Journal
from .manifest import Summary
from .manifest_writer import ManifestEntries, entry_json
from .options import HTML_NAME, LEDGER_NAME
from .plan import BatchRun
from .worker import Brief, FileResult, PdfNote
from .written_report import read_report

__all__ = ["OverviewPart", "OverviewTask", "annulled_numbers", "clear_overview", "overview_part", "overview_parts",
           "page_context", "write_overview"]

_OWNED = ((HTML_NAME, own_html_page), (LEDGER_NAME, own_ledger))


def clear_overview(batch: BatchRun) -> None:
    """Remove the page and ledger of an earlier run; :class:`BatchError` when one of those names holds a file
    fel-rules did not write."""
    for name, owned in _OWNED:
        path = batch.out_dir / name
        if not remove_own(path, owned, batch.roots):
            raise BatchError(render_text(Text.of("batch.foreign_output", path=str(path)), "es"),
                             message_en=render_text(Text.of("batch.foreign_output", path=str(path)), "en"))


def annulled_numbers(briefs: Iterable[Brief]) -> set[str]:
    """The authorization numbers (upper case) that a valid annulment of the batch annuls."""
    return {brief.cross.origin_uuid.upper() for brief in briefs
            if brief.valid and not brief.failed and brief.cross is not None and brief.cross.anulacion
            and brief.cross.origin_uuid}


def page_context(batch: BatchRun, summary: Summary, annulled: set[str]) -> PageContext:
    """What the batch's page says about the run."""
    return PageContext(rulesets=[RulesetRef(**ruleset) for ruleset in batch.rulesets], schema=batch.schema,
                       pdfs=summary.rendered, annulled=frozenset(annulled))


@dataclass(frozen=True)
class OverviewTask:
    """Consecutive inputs of a batch (``rels``, in path order), the first of them document number ``first`` of the
    page, to be written up for the manifest, page and ledger from their journal entries — or from ``fixes``, the
    results that replace an entry (:func:`~.output_check.check_outputs`) — and the reports in ``out_dir``."""

    rels: tuple[str, ...]
    first: int
    fixes: dict[str, FileResult]
    journal: Journal
    out_dir: Path
    roots: tuple[Path, ...]
    lang: str
    context: PageContext


@dataclass(frozen=True)
class OverviewPart:
    """What :func:`overview_part` made of a task: the inputs' manifest entries (:func:`entry_json`), page rows and
    ledger rows, in order."""

    entries: list[str]
    page: PageRows
    ledger: list


def overview_part(task: OverviewTask) -> OverviewPart:
    """In a worker (or the batch's own process): the manifest entries, page rows and ledger rows of the task's
    inputs."""
    page = HtmlPage(lang=task.lang, context=task.context)
    ledger = Ledger(lang=task.lang, annulled=task.context.annulled)
    # each step for every input in turn, not each input through every step: the step's code stays warm in the
    # processor (some 10 % less time a part)
    results = [task.fixes.get(rel) or task.journal.load(rel) for rel in task.rels]
    entries = [entry_json(result, task.lang) for result in results]
    documents = [_listed(result, task.out_dir, task.roots, task.lang) for result in results]
    return OverviewPart(entries, page.rows_of(documents, task.first), ledger.rows_of(documents))


#: Inputs per :class:`OverviewTask`, and tasks per worker handed out at a time (a window): a part is kept in memory
#: until every part before it is written, and no task of the next window starts before the window's last part is
#: written, so memory stays bounded whatever the number of files. Measured on 2 workers, the pass over 1,200 signed
#: invoices (medians of 9, side by side): 32 inputs a task and 8 tasks a worker, 112 ms; 64 and 16, 98–102 ms
#: (fewer tasks to send; one window where there were three); 16 and 32, 118 ms.
PART_FILES = 64
_WINDOW_TASKS = 16


def overview_parts(batch: BatchRun, rels: Sequence[str], fixes: dict[str, FileResult], context: PageContext,
                   executor) -> Iterator[OverviewPart]:
    """The parts of ``rels`` (sorted) in order, made by the workers of ``executor`` a window of tasks at a time,
    each given as soon as those before it are (the batch writes it while the workers make the next ones); a task
    whose worker died twice is made here, and so is a batch small enough for one task (no worker is asked to load
    what a part needs for so little)."""
    left = iter(rels)
    first = 1
    window = _WINDOW_TASKS * max(1, getattr(executor, "workers", 1))
    while True:
        tasks = []
        for _ in range(window):
            chunk = tuple(islice(left, PART_FILES))
            if not chunk:
                break
            tasks.append(OverviewTask(chunk, first, {rel: fixes[rel] for rel in chunk if rel in fixes},
                                      batch.journal, batch.out_dir, batch.roots, batch.lang, context))
            first += len(chunk)
        if not tasks:
            return
        if len(tasks[0].rels) == len(rels):  # the whole batch in one task
            yield overview_part(tasks[0])
            return
        firsts = iter([task.first for task in tasks])
        awaited = next(firsts)
        ready: dict[int, OverviewPart] = {}
        for number, part in executor.run(_numbered, tasks, _numbered):  # (a task whose worker died twice: made here)
            ready[number] = part
            while awaited in ready:
                yield ready.pop(awaited)
                awaited = next(firsts, 0)
        if awaited:  # (never: the executor gives every task's result; a part missing would drop rows unsaid)
            raise RuntimeError(f"overview part of document {awaited} missing")


def _numbered(task: OverviewTask) -> tuple[int, OverviewPart]:
    """The part of ``task`` with the number of its first document (the workers' order is not the page's)."""
    return task.first, overview_part(task)


def write_overview(batch: BatchRun, context: PageContext, manifest: ManifestEntries,
                   parts: Iterable[OverviewPart]) -> None:
    """Write the manifest entries of ``parts`` (in path order), and ``reporte.html`` and ``libro.csv`` atomically;
    the page and ledger are flushed to disk with the rest of the outputs, before the manifest."""
    lang = batch.lang
    page, ledger = HtmlPage(lang=lang, context=context), Ledger(lang=lang, annulled=context.annulled)
    for part in parts:
        manifest.write(part.entries)
        page.add_rows(part.page)
        ledger.add_rows(part.ledger)
    with atomic_writer(batch.out_dir / HTML_NAME, durable=False, roots=batch.roots, owned=own_html_page) as stream:
        page.write(stream)
    with atomic_writer(batch.out_dir / LEDGER_NAME, durable=False, roots=batch.roots, owned=own_ledger) as stream:
        ledger.write(stream)


def _listed(result: FileResult, out_dir: Path, roots: tuple[Path, ...], lang: str) -> Listed:
    """The document of ``result`` with the report the batch wrote for it."""
    return Listed(path=readable_name(result.rel), report=_report(out_dir, result.report, roots),
                  facts=LedgerFacts.from_dict(result.ledger), error=result.error, report_link=result.report,
                  pdf_link=result.pdf, pdf_note=PdfNote.say(result.pdf_note, lang),
                  pdf_warnings=tuple(result.pdf_warnings(lang)))


def _report(out_dir: Path, name: str | None, roots: tuple[Path, ...]) -> Report | None:
    """The report at ``name`` in the output folder (``None`` when there is none, or it can no longer be read)."""
    if name is None:
        return None
    try:
        return read_report(confine(out_dir / name, roots) if roots else os.path.join(out_dir, name))
    except (OSError, ValueError):
        return None

"""The batch's two views over every document, written once at the end beside the manifest: ``reporte.html`` (the
page to open and look at) and ``libro.csv`` (the purchase/sales ledger). Both come from one pass over the
journal's results (the manifest's entries are written in the same pass) and the reports the batch wrote, before the
file system is flushed and the manifest put in place:
a manifest on disk names a run whose page and ledger are on disk too. Like the manifest, each describes a finished
run only: an earlier run's are removed when a run starts, and another program's file of that name stops the run
before any work."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..core.atomic import atomic_writer, remove_own
from ..core.catalogue import render_text
from ..core.confine import confine
from ..core.inputs import readable_name
from ..core.owned import own_html_page, own_ledger
from ..core.report import Report, RulesetRef
from ..core.text import Text
from ..document.ledger import LedgerFacts
from ..outputs.formats.html import HtmlPage, PageContext
from ..outputs.formats.ledger import Ledger
from ..outputs.formats.listing import Listed
from .errors import BatchError
from .manifest import Summary
from .options import HTML_NAME, LEDGER_NAME
from .plan import BatchRun
from .worker import Brief, FileResult, PdfNote
from .written_report import read_report

__all__ = ["annulled_numbers", "clear_overview", "write_overview"]

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


def write_overview(batch: BatchRun, summary: Summary, results: Iterable[FileResult], annulled: set[str]) -> None:
    """Write ``reporte.html`` and ``libro.csv`` of ``results`` (sorted by path) atomically; flushed to disk with
    the rest of the outputs, before the manifest."""
    lang = batch.lang
    context = PageContext(rulesets=[RulesetRef(**ruleset) for ruleset in batch.rulesets], schema=batch.schema,
                          pdfs=summary.rendered, annulled=frozenset(annulled))
    page, ledger = HtmlPage(lang=lang, context=context), Ledger(lang=lang, annulled=annulled)
    for result in results:
        document = _listed(result, batch, lang)
        page.add(document)
        ledger.add(document)
    with atomic_writer(batch.out_dir / HTML_NAME, durable=False, roots=batch.roots, owned=own_html_page) as stream:
        page.write(stream)
    with atomic_writer(batch.out_dir / LEDGER_NAME, durable=False, roots=batch.roots, owned=own_ledger) as stream:
        ledger.write(stream)


def _listed(result: FileResult, batch: BatchRun, lang: str) -> Listed:
    """The document of ``result`` with the report the batch wrote for it."""
    return Listed(path=readable_name(result.rel), report=_report(batch.out_dir, result.report, batch.roots),
                  facts=LedgerFacts.from_dict(result.ledger), error=result.error, report_link=result.report,
                  pdf_link=result.pdf, pdf_note=PdfNote.say(result.pdf_note, lang),
                  pdf_warnings=tuple(result.pdf_warnings(lang)))


def _report(out_dir: Path, name: str | None, roots: tuple[Path, ...]) -> Report | None:
    """The report at ``name`` in the output folder (``None`` when there is none, or it can no longer be read)."""
    if name is None:
        return None
    try:
        path = confine(out_dir / name, roots) if roots else out_dir / name
        return read_report(path)
    except (OSError, ValueError):
        return None


"""``manifest.json`` written at the end of a run: the header, then the entries streamed one by one from the
journal (memory stays flat), atomically."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..core.atomic import atomic_writer
from ..core.inputs import readable_name
from ..core.owned import own_manifest
from ..core.report import Counts, RulesetRef
from ..core.version import __version__
from .manifest import Entry, Manifest, RunStats, Summary
from .plan import BatchRun
from .worker import Brief, FileResult, PdfNote

__all__ = ["summarize", "write_manifest"]


def summarize(briefs: Iterable[Brief]) -> Summary:
    """The totals over every file."""
    briefs = list(briefs)
    return Summary(
        files=len(briefs),
        valid=sum(1 for b in briefs if b.valid and not b.failed),
        invalid=sum(1 for b in briefs if not b.valid and not b.failed),
        errors=sum(1 for b in briefs if b.failed),
        rendered=sum(1 for b in briefs if b.has_pdf),
    )


def write_manifest(batch: BatchRun, summary: Summary, results: Iterator[FileResult], executor, reused: int) -> None:
    """The manifest of ``batch``, whose entries are ``results`` (sorted by path)."""
    header = Manifest(
        render=batch.options.render, recursive=batch.options.recursive,
        rulesets=[RulesetRef(**ruleset) for ruleset in batch.rulesets],
        schema=batch.schema, renderer_version=__version__, summary=summary, entries=[],
        run=RunStats(started_at=batch.started.isoformat(timespec="seconds"),
                     duration_ms=round((time.perf_counter() - batch.clock) * 1000, 1), executor=executor.name,
                     workers=executor.workers, reused=reused, engine_version=__version__),
    )
    _write(batch.manifest_path, header, results, batch.roots, batch.lang)


def _write(path: Path, header: Manifest, results: Iterator[FileResult], roots: tuple[Path, ...], lang: str) -> None:
    """The manifest JSON, entries streamed one by one (indented as ``json.dumps(indent=2)`` would)."""
    data = json.loads(header.to_json())
    run = data.pop("run")
    data.pop("entries")
    head = json.dumps(data, ensure_ascii=False, indent=2)[:-2]  # without the closing "\n}"
    tail = json.dumps(run, ensure_ascii=False, indent=2).replace("\n", "\n  ")
    with atomic_writer(path, roots=roots, owned=own_manifest) as stream:
        stream.write((head + ',\n  "entries": [').encode())
        for index, result in enumerate(results):
            entry = _entry(result, lang).model_dump_json(indent=2)  # the text json.dumps(indent=2) writes, faster
            indented = "    " + entry.replace("\n", "\n    ")
            stream.write((("\n" if index == 0 else ",\n") + indented).encode())
        stream.write(f'\n  ],\n  "run": {tail}\n}}\n'.encode())


def _entry(result: FileResult, lang: str) -> Entry:
    return Entry(
        path=readable_name(result.rel), sha256=result.sha256, tipo=result.tipo,
        numero_autorizacion=result.numero_autorizacion, valid=result.valid, complete=result.complete,
        counts=Counts(**result.counts), report=result.report, pdf=result.pdf,
        pdf_note=PdfNote.say(result.pdf_note, lang), error=result.error, pdf_warnings=result.pdf_warnings(lang),
    )


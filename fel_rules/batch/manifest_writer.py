"""``manifest.json`` written at the end of a run: the header, then the entries streamed one by one from the
journal (memory stays flat) as the page and ledger read them, then the run's figures; atomically."""

from __future__ import annotations

import json
import json.encoder as json_encoder
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import BinaryIO

from ..core.atomic import atomic_writer
from ..core.inputs import readable_name
from ..core.owned import own_manifest
from ..core.report import Counts, RulesetRef
from ..core.version import __version__
from .manifest import Manifest, RunStats, Summary
from .plan import BatchRun
from .worker import Brief, FileResult, PdfNote

__all__ = ["ManifestEntries", "entry_json", "manifest_writer", "summarize"]


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


@contextmanager
def manifest_writer(batch: BatchRun, summary: Summary, executor, reused: int) -> Iterator[ManifestEntries]:
    """The manifest of ``batch``, written atomically (and flushed) as the block ends without error: the header
    first, then the entries given to :meth:`ManifestEntries.write` (sorted by path), then the run's
    figures, its duration measured as the block ends."""
    header = Manifest(render=batch.options.render, recursive=batch.options.recursive,
                      rulesets=[RulesetRef(**ruleset) for ruleset in batch.rulesets], schema=batch.schema,
                      renderer_version=__version__, summary=summary, entries=[])
    data = json.loads(header.to_json(include_run=False))
    data.pop("entries")
    head = json.dumps(data, ensure_ascii=False, indent=2)[:-2]  # without the closing "\n}"
    with atomic_writer(batch.manifest_path, roots=batch.roots, owned=own_manifest) as stream:
        stream.write((head + ',\n  "entries": [').encode())
        yield ManifestEntries(stream, batch.lang)
        run = RunStats(started_at=batch.started.isoformat(timespec="seconds"),
                       duration_ms=round((time.perf_counter() - batch.clock) * 1000, 1), executor=executor.name,
                       workers=executor.workers, reused=reused, engine_version=__version__)
        tail = json.dumps(run.model_dump(mode="json"), ensure_ascii=False, indent=2).replace("\n", "\n  ")
        stream.write(f'\n  ],\n  "run": {tail}\n}}\n'.encode())


class ManifestEntries:
    """The entries of a manifest being written (indented as ``json.dumps(indent=2)`` would)."""

    def __init__(self, stream: BinaryIO, lang: str) -> None:
        self._stream, self._lang, self._count = stream, lang, 0

    def write(self, entries: Iterable[str]) -> None:
        """Write ``entries``, each made by :func:`entry_json` (in any process), after those written so far."""
        for entry in entries:
            self._stream.write((("\n" if self._count == 0 else ",\n") + entry).encode())
            self._count += 1


def entry_json(result: FileResult, lang: str) -> str:
    """The entry of ``result`` as the manifest holds it: as :class:`Entry` writes it (``json.dumps(indent=2)``)
    without building one, indented to its place in the list of entries."""
    return "    " + _entry_json(result, lang).replace("\n", "\n    ")


def _entry_json(result: FileResult, lang: str) -> str:
    """The entry of ``result`` as :class:`Entry` writes it (``json.dumps(indent=2)``), without building one: its
    fields are known, so each is written in its place (the manifest of a batch holds one entry per file)."""
    counts = Counts(**result.counts)
    plain = _plain
    text = (f'{{\n  "path": {plain(readable_name(result.rel))},\n  "sha256": {plain(result.sha256)},\n'
            f'  "tipo": {plain(result.tipo)},\n  "numero_autorizacion": {plain(result.numero_autorizacion)},\n'
            f'  "valid": {plain(result.valid)},\n  "complete": {plain(result.complete)},\n'
            f'  "counts": {{\n    "error": {plain(counts.error)},\n    "warning": {plain(counts.warning)},\n'
            f'    "info": {plain(counts.info)}\n  }},\n  "report": {plain(result.report)},\n'
            f'  "pdf": {plain(result.pdf)},\n  "pdf_note": {plain(PdfNote.say(result.pdf_note, lang))},\n'
            f'  "error": {plain(result.error)}')
    warnings = result.pdf_warnings(lang)
    if warnings:
        text += ',\n  "pdf_warnings": ' + _indented(warnings, "  ")
    return text + "\n}"


def _indented(value: object, margin: str) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=2)`` (continued lines after ``margin``) of dicts and lists of
    strings, numbers, booleans and ``None``, without the pure-Python encoder ``indent`` turns to."""
    if isinstance(value, dict | list):
        if not value:
            return "{}" if isinstance(value, dict) else "[]"
        inner = margin + "  "
        if isinstance(value, dict):
            lines = [f"{inner}{_plain(key)}: {_indented(item, inner)}" for key, item in value.items()]
            return "{\n" + ",\n".join(lines) + f"\n{margin}}}"
        return "[\n" + ",\n".join(inner + _indented(item, inner) for item in value) + f"\n{margin}]"
    return _plain(value)


def _plain(value: object) -> str:
    """A string, whole number, boolean or ``None`` as ``json.dumps(ensure_ascii=False)`` writes it."""
    if isinstance(value, str):
        return _string(value)
    if value is None or isinstance(value, bool):
        return _WORDS[value]
    return int.__repr__(value) if type(value) is int else json.dumps(value, ensure_ascii=False)


_WORDS = {None: "null", True: "true", False: "false"}
_string = json_encoder.encode_basestring  # what json.dumps(ensure_ascii=False) writes a string with


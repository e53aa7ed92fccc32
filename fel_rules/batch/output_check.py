"""Outputs that vanished while the batch ran (an output folder deleted, a file removed): found after the
per-file phase, to be done again, and once more just before the manifest, which then names no file that is
not on disk."""

from __future__ import annotations

import os
from pathlib import Path

from ..core.catalogue import render_text
from ..core.confine import confine
from ..core.text import Text
from .journal import Journal
from .worker import Brief, FileResult, PdfNote, entry_name, output_paths

__all__ = ["OnDisk", "check_outputs", "missing_outputs"]

_JOURNAL = ""  # stands for the journal entry in missing_outputs


def missing_outputs(rel: str, brief: Brief, out_dir: Path, journal: Journal, disk: OnDisk | None = None) -> list[str]:
    """What the manifest would name for ``rel`` but is not on disk: its journal entry, report or PDF (``disk``:
    the folders listed so far in this pass over the inputs)."""
    disk = disk or OnDisk()
    report, pdf = output_paths(rel)
    missing = [] if disk.has_entry(journal, rel) else [_JOURNAL]
    if brief.has_report and not disk.is_file(out_dir, report):
        missing.append(report)
    if brief.has_pdf and not disk.is_file(out_dir, pdf):
        missing.append(pdf)
    return missing


def check_outputs(briefs: dict[str, Brief], out_dir: Path, journal: Journal, lang: str) -> dict[str, FileResult]:
    """The last check before the manifest: every report and PDF it names exists. An entry whose output
    vanished (deleted while the run was finishing) loses that path and gets an ``error`` saying so."""
    fixes: dict[str, FileResult] = {}
    disk = OnDisk()
    for rel, brief in briefs.items():
        missing = missing_outputs(rel, brief, out_dir, journal, disk)
        if missing:
            fixes[rel] = _without_vanished(rel, brief, missing, out_dir, journal, lang)
    return fixes


class OnDisk:
    """The files of each folder a pass over the inputs asks about, listed once (not one ``stat`` per file); a
    folder that cannot be listed is asked file by file, as a missing one holds no file."""

    def __init__(self) -> None:
        self._listed: dict[str, frozenset[str] | None] = {}

    def is_file(self, out_dir: Path, name: str) -> bool:
        """True when ``name`` (relative to ``out_dir``) is a regular file, or a symlink to one."""
        folder, _, base = os.path.join(out_dir, name).rpartition("/")
        files = self._files(folder)
        return (Path(folder) / base).is_file() if files is None else base in files

    def has_entry(self, journal: Journal, rel: str) -> bool:
        """True when ``rel`` has a journal entry."""
        folder = str(journal.folder)
        if folder not in self._listed:
            try:
                self._listed[folder] = self._list(confine(journal.folder, journal.roots) if journal.roots else folder)
            except OSError:  # outside the roots now: asked file by file (which says so)
                self._listed[folder] = None
        files = self._listed[folder]
        return journal.has(rel) if files is None else entry_name(rel) in files

    def _files(self, folder: str) -> frozenset[str] | None:
        if folder not in self._listed:
            try:
                self._listed[folder] = self._list(folder)
            except OSError:
                self._listed[folder] = None
        return self._listed[folder]

    @staticmethod
    def _list(folder: str | Path) -> frozenset[str]:
        try:
            with os.scandir(folder) as entries:
                return frozenset(entry.name for entry in entries if entry.is_file())
        except FileNotFoundError:
            return frozenset()


def _without_vanished(rel: str, brief: Brief, missing: list[str], out_dir: Path, journal: Journal,
                      lang: str) -> FileResult:
    """The result of ``rel`` without the outputs that vanished, and an ``error`` naming them."""
    result = _recorded(rel, brief, journal)
    if result.report is not None and not (out_dir / result.report).is_file():
        result.report = None
    if result.pdf is not None and not (out_dir / result.pdf).is_file():
        result.pdf, result.pdf_sha256, result.pdf_note = None, None, PdfNote.VANISHED
    names = [name or Text("batch.journal_entry") for name in missing]
    note = render_text(Text.of("batch.outputs_vanished", names=names), lang)
    result.error = f"{result.error}; {note}" if result.error else note
    brief.failed, brief.has_pdf, brief.has_report = True, result.pdf is not None, result.report is not None
    return result


def _recorded(rel: str, brief: Brief, journal: Journal) -> FileResult:
    """The journal's result of ``rel``; an empty one when its entry vanished too."""
    try:
        return journal.load(rel)
    except (OSError, ValueError, KeyError, TypeError):
        return FileResult(rel=rel, sha256=None, tipo=None, numero_autorizacion=None, valid=brief.valid,
                          complete=False, counts={"error": 0, "warning": 0, "info": 0}, report=None, pdf=None,
                          pdf_note=PdfNote.NOT_PROCESSED, error=None)

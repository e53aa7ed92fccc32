"""Recognising the files fel-rules writes, so that only those are ever replaced or removed: a PDF of its
renderer, a report, a batch manifest, a batch's HTML page and ledger (checked from the open file; see
:data:`fel_rules.core.atomic.Owned`)."""

from __future__ import annotations

from typing import BinaryIO

from .catalogue import render_text
from .text import LANGUAGES, Text

__all__ = ["own_html_page", "own_ledger", "own_manifest", "own_pdf", "own_report", "recorded"]

_PDF_HEADER = b"%PDF-"
_PDF_MAKER = b"ReportLab Generated PDF document"  # the comment on the second line of every ReportLab PDF
_PDF_CREATOR = b"/Creator (fel-rules)"  # the document information the renderer sets
_REPORT_START = b'{\n  "report_version": '  # Report.to_json: indented, this key first
_MANIFEST_START = b'{\n  "manifest_version": '
_HTML_START = b'<!DOCTYPE html>\n<html data-generator="fel-rules" '  # the page template's first bytes
_BOM = "\ufeff".encode()
_CHUNK = 1 << 16


def own_pdf(stream: BinaryIO) -> bool:
    """A PDF made by fel-rules' renderer."""
    head = stream.read(256)
    if not head.startswith(_PDF_HEADER) or _PDF_MAKER not in head:
        return False
    return _contains(stream, head, _PDF_CREATOR)


def own_report(stream: BinaryIO) -> bool:
    """A JSON issue report as fel-rules writes it."""
    return stream.read(len(_REPORT_START)) == _REPORT_START


def own_manifest(stream: BinaryIO) -> bool:
    """A batch ``manifest.json`` as fel-rules writes it."""
    return stream.read(len(_MANIFEST_START)) == _MANIFEST_START


def own_html_page(stream: BinaryIO) -> bool:
    """An HTML page as fel-rules writes it (``reporte.html``)."""
    return stream.read(len(_HTML_START)) == _HTML_START


def own_ledger(stream: BinaryIO) -> bool:
    """A ledger as fel-rules writes it (``libro.csv``): a byte-order mark, then its header line in one of the
    catalogue's languages."""
    headers = [_BOM + render_text(Text("ledger.header"), lang).encode() + b"\r\n" for lang in LANGUAGES]
    head = stream.read(max(map(len, headers)))
    return any(head.startswith(header) for header in headers)


def recorded(stream: BinaryIO) -> bool:
    """Any regular file at a path that a batch's journal records as written by fel-rules: a damaged copy of
    its own output (truncated, overwritten with ``{}``) is still its to replace."""
    return True


def _contains(stream: BinaryIO, start: bytes, marker: bytes) -> bool:
    """True when ``marker`` occurs in ``start`` followed by the rest of ``stream`` (read in chunks)."""
    window = start
    while True:
        if marker in window:
            return True
        chunk = stream.read(_CHUNK)
        if not chunk:
            return False
        window = window[-len(marker):] + chunk

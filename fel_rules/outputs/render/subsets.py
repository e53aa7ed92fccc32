"""The font subsets a PDF embeds, kept between PDFs.

reportlab embeds in every PDF a subset of each face it prints with: the characters printed, in the order first
printed. It makes the subset (some 0.6 ms a face) and compresses it (some 0.8 ms) for every PDF, yet invoices repeat
it: the labels come first, and invoices mostly print the same characters (21 subsets for 210 documents of a batch).
:func:`keep_subsets` makes a face keep the last :data:`SUBSETS_KEPT` subsets it made and their compressed streams:
the same characters in the same order are the same font file, so the PDF is the same, byte for byte.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable
from functools import lru_cache
from typing import Any

__all__ = ["SUBSETS_KEPT", "keep_subsets"]

#: How many subsets of each face are kept, with their compressed streams.
SUBSETS_KEPT = 64


def keep_subsets(face: Any) -> None:
    """Make ``face`` (a reportlab ``TTFontFace``) keep the subsets it makes and their compressed streams."""
    face.makeSubset = _keeping_subsets(face.makeSubset)
    face.addSubsetObjects = _keeping_streams(face, face.addSubsetObjects)


def _keeping_subsets(make: Callable[[list[int]], bytes]) -> Callable[[list[int]], bytes]:
    """A face's ``makeSubset``, keeping what it made for the code points given, in their order. One subset is made
    at a time: reportlab reads the font through one file position the face shares, and two PDFs rendered at once
    (the MCP server's calls run on several threads) could otherwise make, and keep, a wrong subset or fail."""
    lock = threading.Lock()

    def made(codes: tuple[int, ...]) -> bytes:
        with lock:
            return make(list(codes))

    kept = lru_cache(maxsize=SUBSETS_KEPT)(made)
    return lambda subset: kept(tuple(subset))


class _KeptFlate:
    """reportlab's Flate filter (``zlib.compress``, as its own does for bytes) keeping what it compressed: a kept
    subset is the same bytes object PDF after PDF, found again at once."""

    pdfname = "FlateDecode"

    def __init__(self) -> None:
        self.encode = lru_cache(maxsize=SUBSETS_KEPT)(zlib.compress)


def _keeping_streams(face: Any, add: Callable[..., Any]) -> Callable[..., Any]:
    """A face's ``addSubsetObjects``, whose font file stream is compressed by a :class:`_KeptFlate`. The stream is
    found where reportlab registers it in the document; if it is not there (another reportlab), nothing changes."""
    from reportlab.pdfbase.pdfdoc import PDFStream, PDFZCompress

    flate = _KeptFlate()

    def add_subset_objects(doc: Any, fontname: str, subset: list[int]) -> Any:
        descriptor = add(doc, fontname, subset)
        stream = doc.idToObject.get(f"fontFile:{face.filename}({fontname})")
        if isinstance(stream, PDFStream) and stream.filters == [PDFZCompress]:
            stream.filters = [flate]
        return descriptor

    return add_subset_objects

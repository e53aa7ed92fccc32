"""The font subsets a PDF embeds, kept between PDFs.

reportlab embeds in every PDF a subset of each face it prints with: the characters printed, in the order first
printed. For every PDF it makes the subset (some 0.6 ms a face) and compresses it (some 0.8 ms), writes the widths of
its characters (some 0.5 ms) and compresses their Unicode map (some 0.1 ms), yet invoices repeat it: the labels come
first, and invoices mostly print the same characters (21 subsets for 210 documents of a batch). :func:`keep_subsets`
makes a font keep the last :data:`SUBSETS_KEPT` of each: the same characters in the same order are the same font
file, widths and map, so the PDF is the same, byte for byte.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable
from functools import lru_cache
from typing import Any

__all__ = ["SUBSETS_KEPT", "deflated", "keep_subsets"]

#: How many subsets of each face are kept, with their compressed streams.
SUBSETS_KEPT = 64


def keep_subsets(font: Any) -> None:
    """Make ``font`` (a reportlab ``TTFont``) keep the subsets its face makes, their compressed streams, and the
    written widths and compressed Unicode map of each."""
    face = font.face
    face.makeSubset = _keeping_subsets(face.makeSubset)
    face.addSubsetObjects = _keeping_streams(face, face.addSubsetObjects)
    font.addObjects = _keeping_font_objects(font.addObjects)


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
    """reportlab's Flate filter (``zlib.compress``, of a text's UTF-8 bytes as its own does) keeping what it
    compressed: a kept subset is the same bytes object PDF after PDF, found again at once."""

    pdfname = "FlateDecode"

    def __init__(self) -> None:
        self.encode = lru_cache(maxsize=SUBSETS_KEPT)(deflated)


def deflated(data: bytes | str, level: int = zlib.Z_DEFAULT_COMPRESSION) -> bytes:
    """What a PDF Flate filter writes for ``data`` (a text as its UTF-8 bytes, as reportlab's does) at ``level``."""
    return zlib.compress(data.encode("utf8") if isinstance(data, str) else data, level)


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


def _keeping_font_objects(add: Callable[[Any], None]) -> Callable[[Any], None]:
    """A font's ``addObjects`` (the PDF objects of each of its subsets in a document), whose subsets' widths are
    written once (:func:`_written_widths`) and whose Unicode maps are compressed by a :class:`_KeptFlate`. The
    objects are found where reportlab registers them in the document; if they are not there (another reportlab),
    nothing changes."""
    from reportlab import rl_config
    from reportlab.pdfbase.pdfdoc import PDFArray, PDFStream, PDFTrueTypeFont, PDFZCompress

    written = lru_cache(maxsize=SUBSETS_KEPT)(_written_widths)
    flate = _KeptFlate()

    def add_objects(doc: Any) -> None:
        fonts = doc.idToObject["BasicFonts"].dict
        before = set(fonts)
        add(doc)
        for name in fonts.keys() - before:
            font = fonts[name]
            if not isinstance(font, PDFTrueTypeFont):
                continue
            widths: Any = getattr(font, "Widths", None)
            if type(widths) is PDFArray and all(type(width) is int for width in widths.sequence):
                font.Widths = written(tuple(widths.sequence), bool(rl_config.pdfMultiLine))
            stream = doc.idToObject.get(f"toUnicodeCMap:{getattr(font, 'BaseFont', '')}")
            if isinstance(stream, PDFStream) and stream.filters == [PDFZCompress]:
                stream.filters = [flate]

    return add_objects


def _written_widths(widths: tuple[int, ...], multiline: bool) -> bytes:
    """A subset's ``Widths`` array (whole numbers) as reportlab writes it with ``rl_config.pdfMultiLine`` set to
    ``multiline``: bytes, which reportlab writes as they are."""
    from reportlab.pdfbase.pdfdoc import PDFArray

    return PDFArray(widths).format(None)

"""Lines of text written straight into a page's contents: the operators reportlab's text object writes, without it.

Every text of the PDF is lines in one embedded TrueType face, size and RGB colour (:class:`~.compose.Lines`).
reportlab's ``PDFTextObject`` makes an object per block, measures each line again as it moves its cursor, and goes
through its general colour and font code: some 25 µs a block. :func:`write_lines` writes the same operators, in
the same order, joined the same way (the PDF is the same, byte for byte), from the face's own subset mapping
(``splitString``, which also records the characters each subset embeds). What it does not cover (a font that is
not a TrueType face, a colour that is not RGB, a canvas drawn top-down or made to enforce a colour space) goes
through reportlab's text object, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from reportlab.lib.colors import Color
from reportlab.lib.rl_accel import escapePDF, fp_str
from reportlab.pdfbase.pdfmetrics import getFont
from reportlab.pdfgen.canvas import Canvas

__all__ = ["write_lines"]


def write_lines(canvas: Canvas, lines: Sequence[str], lefts: Sequence[float], first_baseline: float, font_name: str,
                size: float, color: Color, leading: float) -> None:
    """Draw ``lines`` (each from its left edge in ``lefts``), the first on ``first_baseline`` and each next one
    ``leading`` below, in ``font_name`` at ``size`` points and ``color``: one text block (``BT`` … ``ET``)."""
    font = getFont(font_name)
    if not _direct(canvas, font, color):
        _through_reportlab(canvas, lines, lefts, first_baseline, font_name, size, color, leading)
        return
    doc = canvas._doc
    split, subset_name = font.splitString, font.getSubsetInternalName
    selected = _selected(size)
    code = ["BT", "1 0 0 1 0 0 Tm", _fill(color.red, color.green, color.blue)]
    doc.ensureMinPdfVersion("transparency")  # (what a colour's alpha does, as in reportlab's text object)
    canvas._extgstate.set(_Operators(code), "ca", color.alpha)  # its graphics state, when the alpha changes it
    current = -1  # the subset in use: its font is selected again only when a chunk is in another
    baseline = first_baseline
    for line, left in zip(lines, lefts, strict=True):
        code.append(f"1 0 0 1 {fp_str(left, baseline)} Tm")
        shown = []
        for subset, chunk in split(line, doc):
            if subset != current:
                shown.append(f"{subset_name(subset, doc)} {selected}")
                current = subset
            shown.append(f"({escapePDF(chunk)}) Tj")
        code.append(" ".join(shown))
        baseline -= leading
    code.append("ET")
    canvas._code.append(" ".join(code))


@lru_cache(maxsize=64)
def _selected(size: float) -> str:
    """What follows a subset's name to select it at ``size`` points (with reportlab's leading for a font set
    without one: 1.2 × the size)."""
    return f"{fp_str(size)} Tf {fp_str(size * 1.2)} TL"


@lru_cache(maxsize=64)
def _fill(red: float, green: float, blue: float) -> str:
    """The operator setting the fill colour."""
    return f"{fp_str((red, green, blue))} rg"


class _Operators:
    """Where the canvas's graphics state writes the operator selecting it: the text block's operators."""

    __slots__ = ("_code",)

    def __init__(self, code: list[str]) -> None:
        self._code = code


def _direct(canvas: Canvas, font: object, color: Color) -> bool:
    """Whether :func:`write_lines` writes the block itself (see the module docstring)."""
    return bool(getattr(font, "_dynamicFont", False) and not getattr(font, "shapable", False)
            and type(color) is Color and type(color.alpha) in (int, float) and 0 <= color.alpha <= 1
            and canvas.bottomup and getattr(canvas, "_enforceColorSpace", None) is None)


def _through_reportlab(canvas: Canvas, lines: Sequence[str], lefts: Sequence[float], first_baseline: float,
                       font_name: str, size: float, color: Color, leading: float) -> None:
    text = canvas.beginText()
    text.setFont(font_name, size)
    text.setFillColor(color)
    baseline = first_baseline
    for line, left in zip(lines, lefts, strict=True):
        text.setTextOrigin(left, baseline)
        text.textOut(line)
        baseline -= leading
    canvas.drawText(text)

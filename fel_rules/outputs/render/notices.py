"""What the reader of a PDF should be told about it: the characters its font could not draw, printed as
``[U+XXXX]``. Plain catalogue texts, without the layout: a batch says them long after the PDF was drawn."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.text import Text

__all__ = ["missing_glyphs_warnings"]

_SHOWN_GLYPHS = 12


def missing_glyphs_warnings(missing: Sequence[str]) -> list[Text]:
    """The warning about the characters ``missing`` (each printed as ``[U+XXXX]``); none when nothing is missing."""
    if not missing:
        return []
    chars = ", ".join(f"{char} (U+{ord(char):04X})" for char in missing[:_SHOWN_GLYPHS])
    if len(missing) > _SHOWN_GLYPHS:
        chars += " …"
    return [Text.of("render.missing_glyphs", count=len(missing), chars=chars)]

"""Printed labels of the PDF in one language, from the message catalogue (``pdf.*`` texts)."""

from __future__ import annotations

from functools import cache

from ...core.catalogue import MESSAGES, render_text
from ...core.text import Text

__all__ = ["labels"]

_PREFIX = "pdf."


def labels(lang: str) -> dict[str, str]:
    """All printed labels in ``lang`` by name (the watermarks stay in Spanish: they are legal notices); a label's
    ``{page}``/``{pages}`` are left for the page to fill."""
    return dict(_labels(lang))


@cache
def _labels(lang: str) -> tuple[tuple[str, str], ...]:
    """The labels of ``lang``, read from the catalogue once per process."""
    return tuple((id.removeprefix(_PREFIX), render_text(Text(id), lang)) for id in MESSAGES.texts
                 if id.startswith(_PREFIX))

"""A text to be said to a user, kept language-neutral until a report or a note is rendered.

A :class:`Text` names an entry of the message catalogue (:mod:`fel_rules.core.catalogue`) and the
values that fill its ``{placeholders}``; a value may itself be a :class:`Text` (a kind, a count, a unit)
or a list of values (said one after the other, separated by commas).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

__all__ = ["Text"]


class Text(NamedTuple):
    """Catalogue entry ``id`` with ``values`` for its placeholders."""

    id: str
    values: Mapping[str, object] = {}

    @classmethod
    def of(cls, id: str, **values: object) -> Text:
        """``Text(id, values)`` with the values as keywords."""
        return cls(id, values)

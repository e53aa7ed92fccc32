"""A text to be said to a user, kept language-neutral until a report or a note is rendered.

A :class:`Text` names an entry of the message catalogue (:mod:`fel_rules.core.catalogue`) and the
values that fill its ``{placeholders}``; a value may itself be a :class:`Text` (a kind, a count, a unit)
or a list of values (said one after the other, separated by commas).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

__all__ = ["LANGUAGES", "Text", "Wording", "say"]

#: Languages of the catalogue; the first is the one every text must have and the fallback.
LANGUAGES = ("es", "en")

Wording = Mapping[str, str]
"""One text in each language (``{"es": …, "en": …}``); a rule's English may be missing."""


def say(wording: Wording, lang: str) -> str:
    """``wording`` in ``lang``, falling back to Spanish."""
    return wording.get(lang) or wording[LANGUAGES[0]]


class Text(NamedTuple):
    """Catalogue entry ``id`` with ``values`` for its placeholders."""

    id: str
    values: Mapping[str, object] = {}

    @classmethod
    def of(cls, id: str, **values: object) -> Text:
        """``Text(id, values)`` with the values as keywords."""
        return cls(id, values)

"""What every check and stage yields: a finding — an id, a location and language-neutral values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field as dataclass_field

from ..core.record import Record

__all__ = ["Finding"]


class Finding(Record, kw_only=False):
    """Something found about a document, before it is said in any language.

    ``id`` names the catalogue entry that says it: a rule id or an engine message id (a check kind leaves
    it empty; the engine knows which rule ran). ``values`` fill the entry's ``{placeholders}``: numbers,
    codes, names from the document, or :class:`~fel_rules.core.text.Text` for what must be translated.
    """

    xpath: str | None = None
    line: int | None = None
    item: int | None = None
    field: str | None = None
    values: Mapping[str, object] = dataclass_field(default_factory=dict)
    expected: str | None = None
    actual: str | None = None
    difference: str | None = None
    id: str = ""
    sat_code: str | None = None  # the one SAT code this finding cites instead of the rule's ("": none)
    hint: object | None = None  # a hint of its own (a Text), said instead of the catalogue entry's
    detail: str | None = None  # what a library said in its own words (never the message), for the report

"""What a batch check kind receives: one document of the batch, and the batch's indexes to find the
documents it refers to (by authorization number), the annulments and the constancias of a document.

A document is known by its path in the batch and its cross facts
(:class:`fel_rules.batch.worker.CrossFacts`): the few values cross-document rules compare.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ..batch.worker import CrossFacts

__all__ = ["BatchDocuments", "BatchInput", "Doc", "Reference", "iso_day"]

Doc = tuple[str, "CrossFacts"]

#: Which document a rule compares with: ``origin``, the one a note, a constancia or an annulment refers to;
#: ``provisional``, the provisional invoice (FACP) an export document names.
Reference = Literal["origin", "provisional"]

_CONSTANCIAS = {"CIVA", "CAIS"}
_GT = timezone(timedelta(hours=-6))  # a FEL date-time without an offset is Guatemala's time


class BatchDocuments:
    """The documents of a batch with indexes: by authorization number, annulments and constancias by
    the document they refer to."""

    def __init__(self, documents: Iterable[Doc]) -> None:
        self.documents = list(documents)
        self.by_uuid: dict[str, list[Doc]] = defaultdict(list)
        self.annulments: dict[str, list[Doc]] = defaultdict(list)
        self.constancias: dict[str, list[Doc]] = defaultdict(list)
        for doc in self.documents:
            cross = doc[1]
            if cross.uuid:
                self.by_uuid[cross.uuid.upper()].append(doc)
            if cross.anulacion and cross.origin_uuid:
                self.annulments[cross.origin_uuid.upper()].append(doc)
            if cross.tipo in _CONSTANCIAS and cross.uuid and cross.origin_uuid:
                self.constancias[cross.origin_uuid.upper()].append(doc)
        for annulments in self.annulments.values():  # earliest first (by FechaHoraAnulacion, then path)
            annulments.sort(key=lambda doc: (_moment(doc[1].fecha), doc[0]))

    def copies(self, uuid: str) -> list[Doc]:
        """Every document with this authorization number."""
        return self.by_uuid.get(uuid.upper(), [])

    def find(self, uuid: str) -> Doc | None:
        """The one document with this authorization number (none when absent or repeated)."""
        found = self.copies(uuid)
        return found[0] if len(found) == 1 else None

    def annulments_of(self, uuid: str) -> list[Doc]:
        """The annulments of ``uuid``, earliest first."""
        return self.annulments.get(uuid.upper(), [])

    def annulled_by(self, uuid: str) -> list[str]:
        """Paths of the annulments of ``uuid``, earliest first."""
        return [rel for rel, _ in self.annulments_of(uuid)]

    def active_constancias(self, uuid: str) -> list[Doc]:
        """Certified CIVA/CAIS referring to ``uuid`` that no annulment in the batch annuls."""
        return [(rel, c) for rel, c in self.constancias.get(uuid.upper(), []) if not self.annulled_by(c.uuid)]


@dataclass(frozen=True)
class BatchInput:
    """One document of the batch as a batch check sees it: its path, its cross facts, the batch, the
    report's language and how many other documents one issue may name."""

    rel: str
    facts: CrossFacts
    batch: BatchDocuments
    lang: str = "es"
    limit: int = 20

    def reference(self, which: Reference) -> str | None:
        """The authorization number this document refers to as ``which``."""
        return self.facts.origin_uuid if which == "origin" else self.facts.provisional_uuid

    def referenced(self, which: Reference) -> Doc | None:
        """The document of the batch this one refers to as ``which`` (none when absent or repeated)."""
        uuid = self.reference(which)
        return self.batch.find(uuid) if uuid else None

    def some(self, names: list[str], total: int) -> str:
        """``a.xml, b.xml`` — the first of ``total`` names, and how many more there are."""
        shown = ", ".join(names)
        more = total - len(names)
        if more <= 0:
            return shown
        return f"{shown} and {more} more" if self.lang == "en" else f"{shown} y {more} más"


def iso_day(text: str | None) -> date | None:
    """A ``YYYY-MM-DD`` day of the cross facts (none when absent or unreadable)."""
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def _moment(text: str | None) -> datetime:
    """A FEL date-time to compare (one that cannot be read sorts last)."""
    try:
        moment = datetime.fromisoformat(text or "")
    except ValueError:
        return datetime.max.replace(tzinfo=UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=_GT)

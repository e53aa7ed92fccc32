"""What a batch check kind receives: one document of the batch, and the batch's indexes to find the
documents it refers to (by authorization number), the annulments and the constancias of a document.

A document is known by its path in the batch and its cross facts
(:class:`CrossFacts`, read from its typed facts by :func:`cross_facts`): the few values cross-document rules compare.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Literal

from ..core.money import decimal_str
from ..core.record import Record
from ..core.text import Text
from ..document.facts import Anulacion, Documento
from ..expressions.holidays import HolidayCalendar

__all__ = ["BatchDocuments", "BatchInput", "CrossFacts", "Doc", "Reference", "cross_facts", "iso_day"]



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
        return [doc for doc in self.constancias.get(uuid.upper(), []) if not self._annulled(doc)]

    def _annulled(self, doc: Doc) -> bool:
        """True when an annulment in the batch annuls ``doc`` (a document with an authorization number)."""
        uuid = doc[1].uuid
        assert uuid, "only documents with an authorization number are indexed by what they refer to"
        return bool(self.annulled_by(uuid))


class BatchInput(Record, kw_only=False):
    """One document of the batch as a batch check sees it: its path, its cross facts, the batch, how many other
    documents one issue may name, and the holidays of the rules in force."""

    rel: str
    facts: CrossFacts
    batch: BatchDocuments
    limit: int = 20
    holidays: HolidayCalendar = HolidayCalendar()

    def reference(self, which: Reference) -> str | None:
        """The authorization number this document refers to as ``which``."""
        return self.facts.origin_uuid if which == "origin" else self.facts.provisional_uuid

    def referenced(self, which: Reference) -> Doc | None:
        """The document of the batch this one refers to as ``which`` (none when absent or repeated)."""
        uuid = self.reference(which)
        return self.batch.find(uuid) if uuid else None

    def some(self, names: list[str], total: int) -> list[str] | Text:
        """``a.xml, b.xml`` — the first of ``total`` names, and how many more there are (said in the report's
        language when the issue is)."""
        more = total - len(names)
        return names if more <= 0 else Text.of("list.and_more", shown=names, more=more)


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


@dataclass(slots=True)
class CrossFacts:
    """What cross-document rules need to know about a document (kept in memory for the whole batch).

    ``origin_uuid`` is the document this one refers to: the origin of a note (ReferenciasNota) or of a
    CIVA/CAIS (ReferenciasConstancia), or the document an annulment annuls; ``origin_fecha`` is the
    emission date it states for it. ``fecha`` is FechaHoraEmision (FechaHoraAnulacion for an annulment).
    """

    tipo: str | None = None
    uuid: str | None = None
    moneda: str | None = None
    nit_emisor: str | None = None
    id_receptor: str | None = None
    gran_total: str | None = None
    tax_totals: tuple[tuple[str, str], ...] = ()
    origin_uuid: str | None = None
    regimen_antiguo: bool = False
    anulacion: bool = False
    fecha: str | None = None
    nit_certificador: str | None = None
    origin_fecha: str | None = None
    monto_iva_exento: str | None = None  # ReferenciasConstancia/@MontoIVAExento (CIVA)
    provisional_uuid: str | None = None  # Exportacion/NumeroAutorizacionProvisional (FACP referenced)
    exp: bool = False
    frases: tuple[str, ...] = ()  # "TipoFrase-CodigoEscenario"

    @property
    def relevant(self) -> bool:
        """True when another document could refer to this one, or this one to another."""
        return bool(self.uuid or self.origin_uuid or self.provisional_uuid)

    @property
    def dia(self) -> str | None:
        """The date part of :attr:`fecha`."""
        return self.fecha[:10] if self.fecha else None

    @property
    def origin_dia(self) -> str | None:
        """The date part of :attr:`origin_fecha`."""
        return self.origin_fecha[:10] if self.origin_fecha else None


Doc = tuple[str, CrossFacts]


def cross_facts(facts: Documento | Anulacion | None) -> CrossFacts:
    """The cross facts of a validated document (empty when it could not be read)."""
    value = lambda field: field.value if field is not None else None  # noqa: E731
    if isinstance(facts, Anulacion):
        return CrossFacts(
            anulacion=True, origin_uuid=value(facts.numero_documento_a_anular), nit_emisor=value(facts.nit_emisor),
            id_receptor=value(facts.id_receptor), origin_fecha=value(facts.fecha_emision_documento_anular),
            fecha=value(facts.fecha_hora_anulacion),
            nit_certificador=value(facts.certificacion.nit_certificador) if facts.certificacion else None,
        )
    if not isinstance(facts, Documento):
        return CrossFacts()
    general, cert = facts.datos_generales, facts.certificacion
    content = {(c.content_tag or "").rpartition("}")[2]: c.fields for c in reversed(facts.complementos)}
    origin = content.get("ReferenciasNota") or content.get("ReferenciasConstancia") or {}
    totals = []
    if facts.totales:
        for tax in facts.totales.total_impuestos:
            if tax.nombre_corto and tax.total_monto_impuesto and tax.total_monto_impuesto.value is not None:
                totals.append((tax.nombre_corto.value, decimal_str(tax.total_monto_impuesto.value)))
    gran_total = facts.totales.gran_total if facts.totales else None
    return CrossFacts(
        tipo=value(general.tipo) if general else None,
        uuid=value(cert.numero_autorizacion) if cert else None,
        moneda=value(general.codigo_moneda) if general else None,
        nit_emisor=value(facts.emisor.nit) if facts.emisor else None,
        id_receptor=value(facts.receptor.id) if facts.receptor else None,
        gran_total=decimal_str(gran_total.value) if gran_total is not None and gran_total.value is not None else None,
        tax_totals=tuple(totals),
        origin_uuid=origin.get("NumeroAutorizacionDocumentoOrigen"),
        regimen_antiguo=bool(origin.get("RegimenAntiguo")),
        fecha=value(general.fecha_hora_emision) if general else None,
        nit_certificador=value(cert.nit_certificador) if cert else None,
        origin_fecha=origin.get("FechaEmisionDocumentoOrigen"),
        monto_iva_exento=origin.get("MontoIVAExento"),
        provisional_uuid=content.get("Exportacion", {}).get("NumeroAutorizacionProvisional"),
        exp=bool(general and value(general.exp) == "SI"),
        frases=tuple(f"{value(f.tipo_frase)}-{value(f.codigo_escenario)}" for f in facts.frases),
    )

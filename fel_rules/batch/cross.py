"""Cross-document rules: what only a batch can see (a note against its origin, a repeated UUID, an
annulment against the annulled document, an export against its provisional invoice, constancias).

Each check returns findings per document path; the runner adds them to that document's report
as rule issues (ids ``FEL-LOT-*``), replacing any from an earlier run. :data:`CROSS_RULES` lists the
rules with the SAT codes each implements (:func:`cross_rule_codes`). A rule decides only on what the
batch holds: a referenced document that is not in it is never reported.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal, InvalidOperation
from itertools import islice
from pathlib import Path
from typing import NamedTuple

import yaml

from ..core.catalogue import MESSAGES, Entry
from ..core.report import Issue, Refs, Severity
from ..core.resources import package_file
from ..core.text import Text
from ..findings.model import Finding
from ..findings.render import render_issue
from .business_days import nth_business_day
from .worker import CrossFacts

__all__ = [
    "CROSS_RULES", "CROSS_RULE_PREFIX", "MAX_CROSS_FINDINGS", "CrossRule", "cross_issues", "cross_rule_codes",
]

CROSS_RULE_PREFIX = "FEL-LOT-"
#: Issues one batch rule may add to one report, and documents one issue may name (BatchOptions.max_cross_findings).
MAX_CROSS_FINDINGS = 20
_ORIGIN_TYPES = {"FACT", "FCAM", "FESP"}
_NOTES = {"NCRE", "NDEB"}
_CONSTANCIAS = {"CIVA", "CAIS"}
_FINAL_INVOICE_DAYS = 20  # FEL_RCP443: business days from the provisional invoice (FACP) to the final one
_ONE_DECIMAL = Decimal("0.1")  # FEL_RCP463: SAT's "tolerancia de más o menos un decimal", read leniently
_GT = timezone(timedelta(hours=-6))  # a FEL date-time without an offset is Guatemala's time

_RULES_FILE = package_file(__package__, "cross-rules.yaml")


class CrossRule(NamedTuple):
    """A cross-document rule (texts in ``cross-rules.yaml``): the SAT codes it implements (its issues cite
    the first unless the check names another), titles and messages in both languages (``{…}`` filled
    with the values involved), an optional hint, and the XPath its issues point to."""

    sat_codes: tuple[str, ...]
    title: str
    title_en: str
    message: str
    message_en: str
    xpath: str
    hint: str | None = None
    hint_en: str | None = None
    severity: Severity = Severity.ERROR


def _load_rules(path: Path) -> dict[str, CrossRule]:
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return {rule_id: CrossRule(**{**fields, "sat_codes": tuple(fields["sat_codes"]),
                                  "severity": Severity(fields.get("severity", "error"))})
            for rule_id, fields in data["rules"].items()}


#: Rule id → :class:`CrossRule`.
CROSS_RULES: dict[str, CrossRule] = _load_rules(_RULES_FILE)

#: The message catalogue with the cross-document rules' texts.
_MESSAGES = MESSAGES.with_entries({
    rule_id: Entry(stage="rules", severity=rule.severity, title={"es": rule.title, "en": rule.title_en},
                   message={"es": rule.message, "en": rule.message_en},
                   hint={"es": rule.hint, "en": rule.hint_en} if rule.hint else None,
                   refs=Refs(sat_code=rule.sat_codes[0]))
    for rule_id, rule in CROSS_RULES.items()
})

#: FEL-LOT-07 cites the SAT code of the tax it compares.
_TAX_CODES = {"IVA": "FEL_RCP333", "PETROLEO": "FEL_RCP337", "TURISMO HOSPEDAJE": "FEL_RCP339",
              "TURISMO PASAJES": "FEL_RCP341", "TIMBRE DE PRENSA": "FEL_RCP343", "BOMBEROS": "FEL_RCP345",
              "TASA MUNICIPAL": "FEL_RCP347"}

#: Values a referring document must share with the document it refers to: (rule id, own field, referred field).
_SAME_AS_ORIGIN = {
    "nota": (("FEL-LOT-03", "moneda", "moneda"), ("FEL-LOT-04", "nit_emisor", "nit_emisor"),
             ("FEL-LOT-05", "id_receptor", "id_receptor"), ("FEL-LOT-08", "nit_certificador", "nit_certificador"),
             ("FEL-LOT-09", "origin_dia", "dia")),
    "anulacion": (("FEL-LOT-10", "nit_emisor", "nit_emisor"), ("FEL-LOT-11", "id_receptor", "id_receptor"),
                  ("FEL-LOT-12", "nit_certificador", "nit_certificador"), ("FEL-LOT-13", "origin_dia", "dia")),
    "exportacion": (("FEL-LOT-19", "id_receptor", "id_receptor"), ("FEL-LOT-20", "moneda", "moneda")),
}

Doc = tuple[str, CrossFacts]
Add = Callable[..., None]  # add(rule_id, other=…, sat_code=…, **values)


def cross_rule_codes() -> dict[str, tuple[str, ...]]:
    """Rule id → the SAT codes it implements."""
    return {rule_id: rule.sat_codes for rule_id, rule in CROSS_RULES.items()}


def cross_issues(documents: Iterable[Doc], lang: str = "es",
                 limit: int = MAX_CROSS_FINDINGS) -> dict[str, list[Issue]]:
    """Issues per input path (only paths that have some), from each document's cross facts; at most
    ``limit`` issues per rule and document, each naming at most ``limit`` other documents."""
    batch = _Batch(documents, limit)
    found: dict[str, list[Issue]] = {}
    for rel, cross in batch.documents:
        findings = _Findings(lang, limit)
        _repeated_uuid(batch, rel, cross, findings.add)
        if cross.origin_uuid:
            _against_origin(batch, cross, findings.add)
        if cross.provisional_uuid:
            _against_provisional(batch, cross, findings.add)
        if cross.anulacion and cross.origin_uuid:
            _annulled_before(batch, rel, cross, findings.add)
        if findings.issues:
            found[rel] = findings.all()
    return found


class _Findings:
    """One document's cross issues, at most ``limit`` per rule; an information issue of the same rule
    says how many more were left out (a batch of 3,000 copies would otherwise print 3,000² lines)."""

    def __init__(self, lang: str, limit: int) -> None:
        self.lang, self.limit = lang, limit
        self.issues: list[Issue] = []
        self.counts: dict[str, int] = defaultdict(int)

    def add(self, rule_id: str, **values) -> None:
        self.counts[rule_id] += 1
        if self.counts[rule_id] <= self.limit:
            self.issues.append(_issue(rule_id, self.lang, **values))

    def all(self) -> list[Issue]:
        """The issues kept, then one notice per rule that found more."""
        notices = [render_issue(Finding(id="FEL-ENG-04", xpath=CROSS_RULES[rule_id].xpath,
                                        values={"rule": rule_id, "count": count, "shown": self.limit}),
                                self.lang, _MESSAGES, rule_id=rule_id)
                   for rule_id, count in self.counts.items() if count > self.limit]
        return self.issues + notices


class _Batch:
    """The documents with dict indexes: by authorization number, annulments and constancias by what they refer to."""

    def __init__(self, documents: Iterable[Doc], limit: int) -> None:
        self.documents = list(documents)
        self.limit = limit
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

    def find(self, uuid: str) -> Doc | None:
        """The one document with this authorization number (none when absent or repeated)."""
        found = self.by_uuid.get(uuid.upper(), [])
        return found[0] if len(found) == 1 else None

    def annulled_by(self, uuid: str) -> list[str]:
        """Paths of the annulments of ``uuid``, earliest first."""
        return [rel for rel, _ in self.annulments.get(uuid.upper(), [])]

    def active_constancias(self, uuid: str) -> list[Doc]:
        """Certified CIVA/CAIS referring to ``uuid`` that no annulment in the batch annuls."""
        return [(rel, c) for rel, c in self.constancias.get(uuid.upper(), []) if not self.annulled_by(c.uuid)]


def _repeated_uuid(batch: _Batch, rel: str, cross: CrossFacts, add: Add) -> None:
    copies = batch.by_uuid.get(cross.uuid.upper(), []) if cross.uuid else []
    if len(copies) > 1:
        others = islice((other for other, _ in copies if other != rel), batch.limit)  # linear in the copies
        add("FEL-LOT-01", uuid=cross.uuid.upper(), other=_some(list(others), len(copies) - 1))


def _some(names: list[str], total: int) -> list[str] | Text:
    """``a.xml, b.xml`` — the first of ``total`` names, and how many more there are."""
    more = total - len(names)
    if more <= 0:
        return names
    return Text.of("list.and_more", shown=names, more=more)


def _against_origin(batch: _Batch, cross: CrossFacts, add: Add) -> None:
    """A note, a constancia or an annulment against the document it refers to."""
    uuid = cross.origin_uuid
    kind = "anulacion" if cross.anulacion else "nota" if cross.tipo in _NOTES else cross.tipo
    if kind in ("anulacion", "nota"):
        for rel, constancia in batch.active_constancias(uuid):
            add("FEL-LOT-15" if cross.anulacion else "FEL-LOT-16", other=rel, uuid=uuid, tipo=constancia.tipo)
    origin = batch.find(uuid)
    if origin is None:
        return
    other, oc = origin
    _same_values(kind, cross, origin, add)
    origin_iva = dict(oc.tax_totals).get("IVA", "0")
    if kind == "nota":
        if oc.tipo not in _ORIGIN_TYPES:
            add("FEL-LOT-02", other=other, tipo=oc.tipo or "?")
        if cross.tipo == "NCRE" and not cross.regimen_antiguo:
            _credit_note_amounts(cross, origin, add)
    elif kind == "CAIS" and "4-11" not in oc.frases:
        add("FEL-LOT-22", other=other)
    elif kind == "CIVA" and _above(cross.monto_iva_exento, origin_iva, _ONE_DECIMAL):
        add("FEL-LOT-23", other=other, valor=cross.monto_iva_exento, origen=origin_iva)


def _same_values(kind: str, cross: CrossFacts, origin: Doc, add: Add) -> None:
    other, oc = origin
    for rule, own, referred in _SAME_AS_ORIGIN.get(kind, ()):
        mine, theirs = getattr(cross, own), getattr(oc, referred)
        if mine and theirs and mine.strip().upper() != theirs.strip().upper():
            add(rule, other=other, valor=mine, origen=theirs)


def _credit_note_amounts(cross: CrossFacts, origin: Doc, add: Add) -> None:
    other, oc = origin
    if _above(cross.gran_total, oc.gran_total):
        add("FEL-LOT-06", other=other, nota=cross.gran_total, origen=oc.gran_total)
    origin_taxes = dict(oc.tax_totals)
    for tax, amount in sorted(dict(cross.tax_totals).items()):
        if _above(amount, origin_taxes.get(tax, "0")):
            add("FEL-LOT-07", other=other, sat_code=_TAX_CODES.get(tax), impuesto=tax, nota=amount,
                origen=origin_taxes.get(tax, "0"))


def _against_provisional(batch: _Batch, cross: CrossFacts, add: Add) -> None:
    """An export document against the provisional invoice (FACP) it names."""
    uuid = cross.provisional_uuid
    for annulment in batch.annulled_by(uuid):
        add("FEL-LOT-18", other=annulment, uuid=uuid)
    origin = batch.find(uuid)
    if origin is None:
        return
    other, oc = origin
    _same_values("exportacion", cross, origin, add)
    if oc.tipo != "FACP":
        add("FEL-LOT-17", other=other, tipo=oc.tipo or "?")
        return
    issued, provisional = _day(cross.dia), _day(oc.dia)
    if cross.tipo == "FACT" and cross.exp and issued and provisional:
        deadline = nth_business_day(provisional, _FINAL_INVOICE_DAYS)
        if issued > deadline:
            add("FEL-LOT-21", other=other, valor=cross.dia, origen=oc.dia, vence=deadline.isoformat())


def _annulled_before(batch: _Batch, rel: str, cross: CrossFacts, add: Add) -> None:
    """FEL-LOT-14 on every annulment of a document but the earliest."""
    first_rel, first = batch.annulments[cross.origin_uuid.upper()][0]
    if first_rel != rel:
        add("FEL-LOT-14", other=first_rel, uuid=cross.origin_uuid, fecha=first.fecha or "?")


def _above(amount: str | None, limit: str | None, tolerance: Decimal = Decimal(0)) -> bool:
    try:
        return amount is not None and limit is not None and Decimal(amount) > Decimal(limit) + tolerance
    except InvalidOperation:
        return False


def _day(text: str | None) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def _moment(text: str | None) -> datetime:
    """A FEL date-time to compare (one that cannot be read sorts last)."""
    try:
        moment = datetime.fromisoformat(text or "")
    except ValueError:
        return datetime.max.replace(tzinfo=timezone.utc)
    return moment if moment.tzinfo else moment.replace(tzinfo=_GT)


def _issue(rule_id: str, lang: str, sat_code: str | None = "", **values: object) -> Issue:
    """The issue of ``rule_id`` citing ``sat_code`` ("": the rule's first code; None: none)."""
    refs = None if sat_code == "" else Refs(sat_code=sat_code)
    return render_issue(Finding(id=rule_id, xpath=CROSS_RULES[rule_id].xpath, values=values), lang, _MESSAGES,
                        refs=refs)

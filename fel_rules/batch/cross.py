"""Cross-document rules: what only a batch can see (a note against its origin, a repeated UUID).

Each check returns findings per document path; the runner adds them to that document's report
as rule issues (ids ``FEL-LOT-*``), replacing any from an earlier run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

from ..report import Issue, Location, Refs, Severity
from .worker import CrossFacts

__all__ = ["CROSS_RULE_PREFIX", "cross_issues"]

CROSS_RULE_PREFIX = "FEL-LOT-"
_ORIGIN_TYPES = {"FACT", "FCAM", "FESP"}
_NOTES = {"NCRE", "NDEB"}
_ORIGIN_XPATH = ("/dte:GTDocumento/dte:SAT/dte:DTE/dte:DatosEmision/dte:Complementos/dte:Complemento/"
                 "cno:ReferenciasNota/@NumeroAutorizacionDocumentoOrigen")

# rule id → (sat code, Spanish title, English title, Spanish message, English message)
_RULES = {
    "FEL-LOT-01": ("FEL_GEN106", "Número de autorización repetido en el lote", "Authorization number repeated in the batch",
                   "El número de autorización {uuid} también está en {other}.",
                   "Authorization number {uuid} also appears in {other}."),
    "FEL-LOT-02": ("FEL_RCP442", "El documento origen de la nota es FACT, FCAM o FESP",
                   "The note's origin document is FACT, FCAM or FESP",
                   "La nota hace referencia a {other}, de tipo {tipo}; el origen debe ser FACT, FCAM o FESP.",
                   "The note refers to {other}, of type {tipo}; the origin must be FACT, FCAM or FESP."),
    "FEL-LOT-03": ("FEL_RCP383", "La nota usa la moneda del documento origen", "The note uses the origin's currency",
                   "La nota está en {moneda} y su documento origen {other} en {origen}.",
                   "The note is in {moneda} and its origin document {other} in {origen}."),
    "FEL-LOT-04": (None, "La nota es del mismo emisor que el documento origen", "The note has the origin's issuer",
                   "El NIT emisor de la nota es {nota} y el del documento origen {other} es {origen}.",
                   "The note's issuer NIT is {nota} and the origin {other}'s is {origen}."),
    "FEL-LOT-05": (None, "La nota es para el mismo receptor que el documento origen",
                   "The note has the origin's receiver",
                   "El receptor de la nota es {nota} y el del documento origen {other} es {origen}.",
                   "The note's receiver is {nota} and the origin {other}'s is {origen}."),
    "FEL-LOT-06": ("FEL_RCP350", "El gran total de la nota de crédito no supera el del origen",
                   "The credit note's grand total does not exceed the origin's",
                   "El GranTotal de la nota de crédito es {nota}, mayor que el del documento origen {other} ({origen}).",
                   "The credit note's GranTotal is {nota}, above the origin {other}'s ({origen})."),
    "FEL-LOT-07": ("FEL_RCP333", "Los impuestos de la nota de crédito no superan los del origen",
                   "The credit note's taxes do not exceed the origin's",
                   "El total de {impuesto} de la nota de crédito es {nota}, mayor que el del documento origen {other} ({origen}).",
                   "The credit note's {impuesto} total is {nota}, above the origin {other}'s ({origen})."),
}


def cross_issues(documents: Iterable[tuple[str, CrossFacts]], lang: str = "es") -> dict[str, list[Issue]]:
    """Issues per input path (only paths that have some), from each document's cross facts."""
    documents = list(documents)
    found: dict[str, list[Issue]] = defaultdict(list)
    by_uuid: dict[str, list[tuple[str, CrossFacts]]] = defaultdict(list)
    for rel, cross in documents:
        if cross.uuid:
            by_uuid[cross.uuid.upper()].append((rel, cross))
    for uuid, copies in by_uuid.items():
        if len(copies) > 1:
            for rel, _ in copies:
                others = ", ".join(other for other, _ in copies if other != rel)
                found[rel].append(_issue("FEL-LOT-01", lang, "/dte:GTDocumento/dte:SAT/dte:DTE/dte:Certificacion/"
                                         "dte:NumeroAutorizacion", uuid=uuid, other=others))
    for rel, cross in documents:
        if cross.tipo not in _NOTES or not cross.origin_uuid:
            continue
        origins = by_uuid.get(cross.origin_uuid.upper(), [])
        if len(origins) != 1:
            continue
        origin_rel, oc = origins[0]
        add = lambda rule, **v: found[rel].append(_issue(rule, lang, _ORIGIN_XPATH, other=origin_rel, **v))  # noqa: E731
        if oc.tipo not in _ORIGIN_TYPES:
            add("FEL-LOT-02", tipo=oc.tipo or "?")
        if cross.moneda and oc.moneda and cross.moneda != oc.moneda:
            add("FEL-LOT-03", moneda=cross.moneda, origen=oc.moneda)
        if cross.nit_emisor and oc.nit_emisor and cross.nit_emisor != oc.nit_emisor:
            add("FEL-LOT-04", nota=cross.nit_emisor, origen=oc.nit_emisor)
        if cross.id_receptor and oc.id_receptor and cross.id_receptor.upper() != oc.id_receptor.upper():
            add("FEL-LOT-05", nota=cross.id_receptor, origen=oc.id_receptor)
        if cross.tipo == "NCRE" and not cross.regimen_antiguo:
            if _above(cross.gran_total, oc.gran_total):
                add("FEL-LOT-06", nota=cross.gran_total, origen=oc.gran_total)
            origin_taxes = dict(oc.tax_totals)
            for tax, amount in sorted(dict(cross.tax_totals).items()):
                if _above(amount, origin_taxes.get(tax, "0")):
                    add("FEL-LOT-07", impuesto=tax, nota=amount, origen=origin_taxes.get(tax, "0"))
    return dict(found)


def _above(note: str | None, origin: str | None) -> bool:
    if note is None or origin is None:
        return False
    return Decimal(note) > Decimal(origin)


def _issue(rule_id: str, lang: str, xpath: str, **values: str) -> Issue:
    sat_code, title_es, title_en, message_es, message_en = _RULES[rule_id]
    english = lang == "en"
    return Issue(
        rule_id=rule_id,
        severity=Severity.ERROR,
        stage="rules",
        title=title_en if english else title_es,
        message=(message_en if english else message_es).format(**values),
        refs=Refs(sat_code=sat_code),
        location=Location(xpath=xpath),
    )

"""Verification helpers for tests and the examples generator.

* XSD validation against SAT's patched offline bundle (a path the caller gives: it is reference
  data outside the package), tolerating only the missing emisor ``ds:Signature`` (unsigned
  documents never validate against the official schema).
* Independent arithmetic checks of a DTE read back from its XML (not from the builder).
"""

from __future__ import annotations

import io
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path

import xmlschema
from lxml import etree

from .xmltools import NS_CEX, NS_CFC, NS_CFE, NS_DS, NS_DTE

__all__ = [
    "IVA_TOLERANCE", "NS", "SIGNATURE_TAG", "arithmetic_problems", "is_missing_signature", "load_bundle",
    "xsd_errors", "xsd_errors_except_signature"
]

SIGNATURE_TAG = f"{{{NS_DS}}}Signature"
IVA_TOLERANCE = Decimal("0.01")


@lru_cache(maxsize=4)
def load_bundle(path: Path) -> xmlschema.XMLSchema:
    """Compile SAT's bundle (GT_Documento, GT_AnulacionDocumento and every complement)."""
    return xmlschema.XMLSchema(str(path))


def xsd_errors(schema: xmlschema.XMLSchema, xml: bytes) -> list[xmlschema.XMLSchemaValidationError]:
    """Every XSD validation error of a document."""
    return list(schema.iter_errors(io.BytesIO(xml)))


def is_missing_signature(error: xmlschema.XMLSchemaValidationError) -> bool:
    """True for "content of the root element not complete, ds:Signature expected"."""
    expected = getattr(error, "expected", None) or []
    return (isinstance(error, xmlschema.XMLSchemaChildrenValidationError)
            and error.path is not None and error.path.count("/") == 1
            and getattr(error, "invalid_tag", None) is None
            and any(getattr(e, "name", None) == SIGNATURE_TAG for e in expected))


def xsd_errors_except_signature(schema: xmlschema.XMLSchema, xml: bytes) -> list[str]:
    """Error messages other than the missing emisor signature."""
    return [f"{e.path}: {e.reason}" for e in xsd_errors(schema, xml) if not is_missing_signature(e)]


NS = {"dte": NS_DTE, "cfc": NS_CFC, "cfe": NS_CFE, "cex": NS_CEX}


def _number(text: str | None) -> Decimal | None:
    try:
        return Decimal(text.strip()) if text is not None else None
    except InvalidOperation:
        return None


def _dec(element: etree._Element | None, path: str) -> Decimal | None:
    """Decimal value of the text at ``path`` (None when missing or not a number)."""
    found = element.find(path, NS) if element is not None else None
    return _number(found.text) if found is not None else None


def arithmetic_problems(xml: bytes) -> list[str]:
    """Check a DTE's amounts; returns human-readable problems (empty list: consistent).

    Per line: Precio = Cantidad x PrecioUnitario (within 0.01), Total = Precio - Descuento
    (+ non-IVA taxes), IVA code 1: |MontoImpuesto - MontoGravable x 0.12| <= 0.01 and
    MontoGravable + MontoImpuesto = Total (less non-IVA taxes); code 2: MontoImpuesto = 0.
    Document: GranTotal = sum of Total, TotalMontoImpuesto = sum of MontoImpuesto per tax,
    Cambiaria abonos sum to GranTotal, FESP TotalMenosRetenciones = GranTotal - retentions.
    """
    root = etree.fromstring(xml)
    problems: list[str] = []
    tax_sums: dict[str, Decimal] = {}
    line_total_sum = Decimal(0)
    for item in root.iterfind(".//dte:Items/dte:Item", NS):
        total = _line_problems(item, problems, tax_sums)
        line_total_sum += total or Decimal(0)
    gran_total = _dec(root, ".//dte:Totales/dte:GranTotal")
    if gran_total != line_total_sum:
        problems.append(f"GranTotal {gran_total} != sum of line Total {line_total_sum}")
    declared = {t.get("NombreCorto"): _number(t.get("TotalMontoImpuesto"))
                for t in root.iterfind(".//dte:TotalImpuestos/dte:TotalImpuesto", NS)}
    for nombre in sorted(set(declared) | set(tax_sums)):
        if declared.get(nombre) != tax_sums.get(nombre, Decimal(0)):
            problems.append(f"TotalMontoImpuesto {nombre} {declared.get(nombre)}"
                            f" != sum of MontoImpuesto {tax_sums.get(nombre)}")
    return problems + _complement_problems(root, gran_total)


def _line_problems(item: etree._Element, problems: list[str],
                   tax_sums: dict[str, Decimal]) -> Decimal | None:
    """Check one dte:Item (appending to ``problems``, adding to ``tax_sums``); its Total."""
    line = f"line {item.get('NumeroLinea')}"
    cantidad, unitario = _dec(item, "dte:Cantidad"), _dec(item, "dte:PrecioUnitario")
    precio, total = _dec(item, "dte:Precio"), _dec(item, "dte:Total")
    descuento = _dec(item, "dte:Descuento") or Decimal(0)
    if cantidad is None or unitario is None or precio is None or total is None:
        problems.append(f"{line}: missing or non-numeric Cantidad/PrecioUnitario/Precio/Total")
        return total
    if abs(cantidad * unitario - precio) > IVA_TOLERANCE:
        problems.append(f"{line}: Precio {precio} != Cantidad x PrecioUnitario")
    taxes = [(tax.findtext("dte:NombreCorto", "", NS).strip(),
              tax.findtext("dte:CodigoUnidadGravable", "", NS).strip(),
              _dec(tax, "dte:MontoGravable"), _dec(tax, "dte:MontoImpuesto"))
             for tax in item.iterfind("dte:Impuestos/dte:Impuesto", NS)]
    otros = sum((imp for name, _, _, imp in taxes if name != "IVA" and imp is not None),
                Decimal(0))
    if precio - descuento + otros != total:
        problems.append(f"{line}: Total {total} != Precio - Descuento (+ other taxes)")
    for nombre, codigo, gravable, impuesto in taxes:
        if impuesto is None:
            problems.append(f"{line}: {nombre} without numeric MontoImpuesto")
            continue
        tax_sums[nombre] = tax_sums.get(nombre, Decimal(0)) + impuesto
        if nombre != "IVA":
            continue
        if gravable is None:
            problems.append(f"{line}: IVA without MontoGravable")
        elif codigo == "1":
            if abs(gravable * Decimal("0.12") - impuesto) > IVA_TOLERANCE:
                problems.append(f"{line}: IVA {impuesto} != MontoGravable {gravable} x 0.12")
            if gravable + impuesto != total - otros:
                problems.append(f"{line}: MontoGravable + MontoImpuesto != Total {total}"
                                " (less other taxes)")
        elif codigo == "2" and impuesto != 0:
            problems.append(f"{line}: exempt IVA with MontoImpuesto {impuesto}")
    return total


def _complement_problems(root: etree._Element, gran_total: Decimal | None) -> list[str]:
    problems: list[str] = []
    abonos = [_number(a.text) for a in root.iterfind(".//cfc:Abono/cfc:MontoAbono", NS)]
    if None in abonos:
        problems.append("non-numeric MontoAbono")
    elif abonos and sum(abonos) != gran_total:
        problems.append(f"sum of MontoAbono {sum(abonos)} != GranTotal {gran_total}")
    retenciones = root.find(".//cfe:RetencionesFacturaEspecial", NS)
    if retenciones is not None and gran_total is not None:
        isr = _dec(retenciones, "cfe:RetencionISR") or Decimal(0)
        iva = _dec(retenciones, "cfe:RetencionIVA") or Decimal(0)
        neto = _dec(retenciones, "cfe:TotalMenosRetenciones")
        if neto != gran_total - isr - iva:
            problems.append(f"TotalMenosRetenciones {neto} != GranTotal - ISR - IVA")
    return problems

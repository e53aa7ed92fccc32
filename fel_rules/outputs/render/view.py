"""What the PDF shows, as plain strings: built from the facts and the report, snapshot-tested."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from urllib.parse import urlencode

from pydantic import BaseModel, ConfigDict

from ...core.catalogue import render_text
from ...core.money import format_money, format_number, parse_decimal
from ...core.namespaces import PREFIXES
from ...core.report import Report
from ...core.text import Text as Said
from ...document.facts import Address, Documento, Text
from ...expressions.catalogues import FraseEntry
from .catalogs import frase_text, tax_name, tipo_name
from .labels import labels
from .words import amount_in_words

__all__ = ["VERIFIER_URL", "InvoiceView", "ItemRow", "Party", "Section", "build_view", "verifier_url"]

VERIFIER_URL = "https://felpub.c.sat.gob.gt/verificador-web/publico/vistas/verificacionDte.jsf"


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class Party(_View):
    """Emisor or receptor as printed."""

    name: str
    commercial_name: str | None = None
    id_label: str
    id_value: str
    establishment: str | None = None
    address: str | None = None


class ItemRow(_View):
    """One printed line of the items table."""

    number: str
    quantity: str
    unit: str = ""
    kind: str
    description: str
    unit_price: str
    discount: str
    total: str


class Section(_View):
    """A complement summary: either label/value pairs or a small table."""

    title: str
    pairs: list[tuple[str, str]] = []
    headers: list[str] = []
    rows: list[list[str]] = []


class InvoiceView(_View):
    """Everything the PDF prints, already formatted."""

    lang: str
    labels: dict[str, str]
    title: str
    tipo: str
    serie: str | None
    numero: str | None
    uuid: str | None
    fecha_emision: str | None
    fecha_certificacion: str | None
    certificador: str | None
    emisor: Party
    receptor: Party
    currency: str
    items: list[ItemRow]
    totals: list[tuple[str, str]]
    gran_total: str
    gran_total_words: str
    frases: list[str]
    sections: list[Section]
    adenda: list[tuple[str, str]] = []
    qr_url: str | None
    watermarks: list[str]


def build_view(facts: Documento, report: Report, *, frases: Mapping[tuple[str, str], FraseEntry], lang: str = "es",
               invalid: bool = False) -> InvoiceView:
    """The printed content of ``facts`` (``invalid`` adds the "NO VÁLIDO" watermark); frase texts come from
    ``frases``, the catalogue of the rules in force.

    Only a document the report calls certified (certification data and both signatures) is
    printed as certified; any other shows no authorization, certifier or QR, and is watermarked
    "DOCUMENTO NO CERTIFICADO".
    """
    text = labels(lang)
    general = facts.datos_generales
    cert = facts.certificacion if report.document.certified else None
    currency = _v(general.codigo_moneda if general else None) or "GTQ"
    gran_total = _amount(facts.totales.gran_total if facts.totales else None)
    watermarks = []
    if cert is None or not _v(cert.numero_autorizacion):
        watermarks.append(text["no_certificado"])
    if invalid:
        watermarks.append(text["no_valido"])
    return InvoiceView(
        lang=lang,
        labels=text,
        title=tipo_name(_v(general.tipo if general else None), lang),
        tipo=_v(general.tipo if general else None) or "",
        serie=_v(cert.serie) if cert else None,
        numero=_v(cert.numero) if cert else None,
        uuid=_v(cert.numero_autorizacion) if cert else None,
        fecha_emision=_date(_v(general.fecha_hora_emision if general else None)),
        fecha_certificacion=_date(_v(cert.fecha_hora_certificacion)) if cert else None,
        certificador=_certifier(cert),
        emisor=_emisor(facts, text),
        receptor=_receptor(facts, text),
        currency=currency,
        items=[_item(item, text) for item in facts.items],
        totals=_totals(facts, report, text, currency, lang),
        gran_total=format_money(gran_total, currency) if gran_total is not None else _raw(facts.totales),
        gran_total_words=amount_in_words(gran_total, currency) if gran_total is not None else "",
        frases=[
            frase_text(frases, _v(f.tipo_frase), _v(f.codigo_escenario), _v(f.numero_resolucion),
                       _v(f.fecha_resolucion))
            for f in facts.frases
        ],
        sections=[section for c in facts.complementos if (section := _section(c, text, currency)) is not None],
        adenda=_adenda(facts, lang),
        qr_url=verifier_url(facts) if cert is not None else None,
        watermarks=watermarks,
    )


def verifier_url(facts: Documento) -> str | None:
    """SAT's public verifier link for a certified document (fel-facts §7), else ``None``.

    Without a readable GranTotal there is no link: SAT's verifier needs the amount, and a QR
    ending in ``monto=`` would point at nothing.
    """
    cert = facts.certificacion
    uuid = _v(cert.numero_autorizacion) if cert else None
    gran_total = _amount(facts.totales.gran_total if facts.totales else None)
    if not uuid or gran_total is None:
        return None
    query = {
        "tipo": "autorizacion",
        "numero": uuid,
        "emisor": _v(facts.emisor.nit if facts.emisor else None) or "",
        "receptor": _v(facts.receptor.id if facts.receptor else None) or "",
        "monto": f"{gran_total:.2f}",
    }
    return f"{VERIFIER_URL}?{urlencode(query)}"


def _v(field: Text | None) -> str | None:
    return field.value if field is not None else None


def _raw(totales) -> str:
    """GranTotal as written, when it is not a readable amount (only a forced render prints it)."""
    return totales.gran_total.raw if totales is not None and totales.gran_total is not None else ""


def _amount(field) -> Decimal | None:
    return field.value if field is not None and field.value is not None else None


def _number(field, *, money: bool = True) -> str:
    """An amount for a table cell: thousands separators, at least 2 decimals for money, never fewer than written."""
    value = _amount(field)
    if value is None:
        return "" if field is None else field.raw
    return format_number(value.normalize(), 2 if money else 0)


def _date(text: str | None) -> str | None:
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    return moment.strftime("%d/%m/%Y %H:%M:%S") if "T" in text else moment.strftime("%d/%m/%Y")


def _address(address: Address | None) -> str | None:
    """The address on one line: street, then municipality, department and a foreign country unless the street
    line already names them (``…, Guastatoya, EL PROGRESO`` is not followed by ``Guastatoya, EL PROGRESO``)."""
    if address is None:
        return None
    street = _v(address.direccion) or ""
    parts = [street]
    said = _folded(street)
    for place in (_v(address.municipio), _v(address.departamento)):
        if place and place.strip() and not re.search(rf"(?<!\w){re.escape(_folded(place))}(?!\w)", said):
            parts.append(place.strip())
            said += " | " + _folded(place)
    country = (_v(address.pais) or "").strip()
    if country and country.upper() != "GT":
        parts.append(country)
    postal = _v(address.codigo_postal)
    text = ", ".join(part.strip() for part in parts if part and part.strip())
    return f"{text} (C.P. {postal})" if postal and postal.strip("0") else text


def _folded(text: str) -> str:
    """``text`` compared loosely: no accents, no case, single spaces."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


def _emisor(facts: Documento, text: dict[str, str]) -> Party:
    emisor = facts.emisor
    code = _v(emisor.codigo_establecimiento) if emisor else None
    return Party(
        name=(_v(emisor.nombre) if emisor else None) or "",
        commercial_name=_v(emisor.nombre_comercial) if emisor else None,
        id_label=text["nit"],
        id_value=(_v(emisor.nit) if emisor else None) or "",
        establishment=f"{text['establecimiento']} {code}" if code else None,
        address=_address(emisor.direccion) if emisor else None,
    )


def _receptor(facts: Documento, text: dict[str, str]) -> Party:
    receptor = facts.receptor
    identifier = (_v(receptor.id) if receptor else None) or ""
    special = _v(receptor.tipo_especial) if receptor else None
    if identifier.upper() == "CF":
        label, value = text["nit"], f"CF ({text['cf']})"
    elif special == "CUI":
        label, value = text["cui"], identifier
    elif special == "EXT":
        label, value = text["ext"], identifier
    else:
        label, value = text["nit"], identifier
    return Party(
        name=(_v(receptor.nombre) if receptor else None) or "",
        id_label=label,
        id_value=value,
        address=_address(receptor.direccion) if receptor else None,
    )


def _item(item, text: dict[str, str]) -> ItemRow:
    kind = _v(item.bien_o_servicio)
    return ItemRow(
        number=str(item.numero_linea or ""),
        quantity=_number(item.cantidad, money=False),
        unit=_v(item.unidad_medida) or "",
        kind=text["bien"] if kind == "B" else text["servicio"] if kind == "S" else (kind or ""),
        description=_v(item.descripcion) or "",
        unit_price=_number(item.precio_unitario),
        discount=_number(item.descuento) if item.descuento is not None else "0.00",
        total=_number(item.total),
    )


def _totals(facts: Documento, report: Report, text: dict[str, str], currency: str,
            lang: str) -> list[tuple[str, str]]:
    taxes = facts.totales.total_impuestos if facts.totales else []
    names = [" ".join((_v(tax.nombre_corto) or "").split()).upper() for tax in taxes]
    rows = []
    subtotal = parse_decimal(report.totals.subtotal)
    if subtotal is not None and taxes:  # without taxes the subtotal is the grand total: said once
        label = "subtotal_sin_iva" if set(names) <= {"IVA"} else "subtotal_sin_impuestos"
        rows.append((text[label], format_money(subtotal, currency)))
    for tax in taxes:
        rows.append((tax_name(_v(tax.nombre_corto), lang), format_money(_amount(tax.total_monto_impuesto), currency)))
    return rows


def _adenda(facts: Documento, lang: str) -> list[tuple[str, str]]:
    """What the document's adenda says, labelled by its element names in words (``NumeroOrden`` → ``Numero
    orden``)."""
    rows = [(_words(label), value) for label, value in facts.adenda]
    if facts.adenda_omitted:
        rows.append(("…", render_text(Said.of("pdf.adenda_mas", count=facts.adenda_omitted), lang)))
    return rows


def _words(name: str) -> str:
    spaced = re.sub(r"(?<=[a-záéíóúñ0-9])(?=[A-ZÁÉÍÓÚÑ])", " ", name.replace("_", " "))
    words = spaced.split()
    return " ".join([words[0], *(w.lower() if not w.isupper() else w for w in words[1:])]) if words else name


def _certifier(cert) -> str | None:
    if cert is None:
        return None
    name, nit = _v(cert.nombre_certificador), _v(cert.nit_certificador)
    return f"{name} (NIT {nit})" if nit else name


def _section(complemento, text: dict[str, str], currency: str) -> Section | None:
    tag = complemento.content_tag or ""
    local = tag.rsplit("}", 1)[-1]
    fields = complemento.fields
    money = lambda key: format_money(parse_decimal(fields.get(key)), currency) if fields.get(key) else ""  # noqa: E731
    if local == "AbonosFacturaCambiaria":
        rows = [[row.get("NumeroAbono", ""), _date(row.get("FechaVencimiento")) or "",
                 format_money(parse_decimal(row.get("MontoAbono")), currency)] for row in complemento.rows]
        return Section(title=text["abonos"], headers=[text["abono"], text["vencimiento"], text["monto"]], rows=rows)
    if local == "RetencionesFacturaEspecial":
        pairs = [(text["retencion_isr"], money("RetencionISR")), (text["retencion_iva"], money("RetencionIVA")),
                 (text["total_menos"], money("TotalMenosRetenciones"))]
        return Section(title=text["retenciones"], pairs=[p for p in pairs if p[1]])
    if local == "ReferenciasNota":
        origin = fields.get("NumeroAutorizacionDocumentoOrigen", "")
        serie, numero = fields.get("SerieDocumentoOrigen"), fields.get("NumeroDocumentoOrigen")
        pairs = [(text["autorizacion"], origin)]
        if serie or numero:
            pairs.append((f"{text['serie']} / {text['numero']}", f"{serie or ''} / {numero or ''}"))
        pairs += [(text["fecha_origen"], _date(fields.get("FechaEmisionDocumentoOrigen")) or ""),
                  (text["motivo"], fields.get("MotivoAjuste", ""))]
        return Section(title=text["origen"], pairs=[p for p in pairs if p[1].strip(" /")])
    if local == "Exportacion":
        keys = [("consignatario", "NombreConsignatarioODestinatario"),
                ("direccion", "DireccionConsignatarioODestinatario"), ("comprador", "NombreComprador"),
                ("incoterm", "INCOTERM"), ("exportador", "NombreExportador")]
        pairs = [(text[label], fields[key]) for label, key in keys if fields.get(key)]
        return Section(title=text["exportacion"], pairs=pairs)
    if not fields and not complemento.rows:
        return None
    name = _v(complemento.nombre) or PREFIXES.get(tag[1:].split("}")[0], local)
    return Section(title=f"{text['complemento']}: {name}", pairs=[(k, v) for k, v in fields.items() if k != "Version"])

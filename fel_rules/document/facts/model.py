"""Typed facts of a FEL document: every value with its XPath and line.

The model (frozen stdlib dataclasses, :class:`~fel_rules.core.record.Record`: no validation, cheap to define) is
read-only and tolerant: a value that is present but not a valid number keeps its raw text with ``value=None``
(the schema stage has already reported it), so rules never crash on a malformed amount.
"""

from __future__ import annotations

from dataclasses import field
from decimal import Decimal
from typing import Literal

from ...core.record import Record

__all__ = [
    "Address",
    "Amount",
    "Anulacion",
    "Certificacion",
    "Complemento",
    "DatosGenerales",
    "Documento",
    "Emisor",
    "Frase",
    "Item",
    "Located",
    "Receptor",
    "Tax",
    "Text",
    "TotalImpuesto",
    "Totales",
]




class Located(Record):
    """Where something is in the XML."""

    xpath: str
    line: int | None = None


class Text(Located):
    """A text value (attribute or element content)."""

    value: str


class Amount(Located):
    """A numeric value; ``value`` is ``None`` when ``raw`` is not a decimal number."""

    raw: str
    value: Decimal | None = None


class Address(Located):
    """DireccionEmisor / DireccionReceptor."""

    direccion: Text | None = None
    codigo_postal: Text | None = None
    municipio: Text | None = None
    departamento: Text | None = None
    pais: Text | None = None


class DatosGenerales(Located):
    """dte:DatosGenerales: type, emission date, currency and optional flags."""

    tipo: Text | None = None
    fecha_hora_emision: Text | None = None
    codigo_moneda: Text | None = None
    exp: Text | None = None
    numero_acceso: Text | None = None
    tipo_personeria: Text | None = None


class Emisor(Located):
    """dte:Emisor."""

    nit: Text | None = None
    nombre: Text | None = None
    codigo_establecimiento: Text | None = None
    nombre_comercial: Text | None = None
    afiliacion_iva: Text | None = None
    correo: Text | None = None
    direccion: Address | None = None


class Receptor(Located):
    """dte:Receptor."""

    id: Text | None = None
    nombre: Text | None = None
    tipo_especial: Text | None = None
    correo: Text | None = None
    direccion: Address | None = None


class Frase(Located):
    """dte:Frase."""

    tipo_frase: Text | None = None
    codigo_escenario: Text | None = None
    numero_resolucion: Text | None = None
    fecha_resolucion: Text | None = None


class Tax(Located):
    """dte:Impuesto of an item."""

    nombre_corto: Text | None = None
    codigo_unidad_gravable: Text | None = None
    monto_gravable: Amount | None = None
    cantidad_unidades_gravables: Amount | None = None
    monto_impuesto: Amount | None = None


class Item(Located):
    """dte:Item with every tax it carries."""

    numero_linea: int | None = None
    bien_o_servicio: Text | None = None
    codigo_producto: Text | None = None
    cantidad: Amount | None = None
    unidad_medida: Text | None = None
    descripcion: Text | None = None
    precio_unitario: Amount | None = None
    precio: Amount | None = None
    descuento: Amount | None = None
    otros_descuento: Amount | None = None
    impuestos: list[Tax] = field(default_factory=list)
    total: Amount | None = None


class TotalImpuesto(Located):
    """dte:TotalImpuesto."""

    nombre_corto: Text | None = None
    total_monto_impuesto: Amount | None = None


class Totales(Located):
    """dte:Totales."""

    total_impuestos: list[TotalImpuesto] = field(default_factory=list)
    gran_total: Amount | None = None


class Complemento(Located):
    """dte:Complemento and a flat reading of its content.

    ``fields`` holds the content root's attributes and its leaf children by local name
    (``NumeroAutorizacionDocumentoOrigen``, ``RetencionISR``…); ``rows`` holds one mapping per
    child that has children of its own (each ``Abono`` of a cambiaria).
    """

    nombre: Text | None = None
    uri: Text | None = None
    content_tag: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    rows: list[dict[str, str]] = field(default_factory=list)


class Certificacion(Located):
    """dte:Certificacion, added by the certifier."""

    nit_certificador: Text | None = None
    nombre_certificador: Text | None = None
    numero_autorizacion: Text | None = None
    serie: Text | None = None
    numero: Text | None = None
    fecha_hora_certificacion: Text | None = None


class Documento(Located):
    """A dte:GTDocumento (invoice, note, receipt…).

    ``signed_references`` holds the ds:Reference URIs of the root's signatures (``#DatosEmision``,
    ``#DatosCertificados``…): which roles signed, not whether the signatures verify. ``adenda`` holds what
    the free-form dte:Adenda says, as label/value text for printing (no rule reads it), ``adenda_omitted``
    how many more entries it had.
    """

    kind: Literal["documento"] = "documento"
    datos_generales: DatosGenerales | None = None
    emisor: Emisor | None = None
    receptor: Receptor | None = None
    frases: list[Frase] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    totales: Totales | None = None
    complementos: list[Complemento] = field(default_factory=list)
    certificacion: Certificacion | None = None
    signatures: int = 0
    signed_references: list[str] = field(default_factory=list)
    adenda: list[tuple[str, str]] = field(default_factory=list)
    adenda_omitted: int = 0


class Anulacion(Located):
    """A dte:GTAnulacionDocumento (annulment of an earlier DTE)."""

    kind: Literal["anulacion"] = "anulacion"
    numero_documento_a_anular: Text | None = None
    nit_emisor: Text | None = None
    id_receptor: Text | None = None
    fecha_emision_documento_anular: Text | None = None
    fecha_hora_anulacion: Text | None = None
    motivo_anulacion: Text | None = None
    certificacion: Certificacion | None = None
    signatures: int = 0
    signed_references: list[str] = field(default_factory=list)

"""FEL complements (dte:Complemento content) for the document builder.

Each complement writes its root element (in its own namespace) into a dte:Complemento and
may compute amounts from the document (e.g. Cambiaria abonos, Factura Especial retentions).
Every computed value can be overridden, and ``omit`` removes elements/attributes (same keys
as :func:`tests.support.xmltools.prune`, e.g. ``{"@SerieDocumentoOrigen"}``).
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar

from .amounts import DocumentAmounts, Number, format_decimal, pick, quantize, to_decimal
from .identifiers import uuid_serie_numero
from .xmltools import NS_CEX, NS_CFC, NS_CFE, NS_CNO, Element, etree, sub

if TYPE_CHECKING:
    from .builder import Invoice


@dataclass(kw_only=True)
class Complemento:
    """Base class: attributes of the dte:Complemento wrapper and common options."""

    NAMESPACE: ClassVar[str] = ""
    PREFIX: ClassVar[str] = ""

    id_complemento: str | None = None  # None: position of the complement (1, 2, ...)
    nombre_complemento: str = ""
    uri_complemento: str | None = None  # None: the complement's namespace
    omit: Collection[str] = ()

    def uri(self) -> str:
        """URIComplemento: the explicit value or the complement's namespace."""
        return self.uri_complemento if self.uri_complemento is not None else self.NAMESPACE

    def write(self, parent: Element, amounts: DocumentAmounts, decimals: int) -> None:
        """Append the complement's root element to ``parent`` (a dte:Complemento)."""
        raise NotImplementedError


@dataclass
class Abono:
    """One installment of a Factura Cambiaria; ``monto=None`` takes a share of GranTotal."""

    numero: int | str
    fecha_vencimiento: str
    monto: Number | None = None


@dataclass(kw_only=True)
class Cambiaria(Complemento):
    """cfc:AbonosFacturaCambiaria (FCAM, FCAP, ...).

    Abonos without ``monto`` share what the explicit ones leave of GranTotal: equal parts
    rounded half-up, the last one taking the remainder, so that the sum equals GranTotal.
    """

    NAMESPACE: ClassVar[str] = NS_CFC
    PREFIX: ClassVar[str] = "cfc"

    abonos: Sequence[Abono]
    nombre_complemento: str = "AbonosFacturaCambiaria"
    version: str = "1"

    @classmethod
    def plazos(cls, *fechas_vencimiento: str, **options: object) -> Cambiaria:
        """One abono per due date, amounts split evenly from GranTotal."""
        abonos = [Abono(number, fecha) for number, fecha in enumerate(fechas_vencimiento, 1)]
        return cls(abonos=abonos, **options)  # type: ignore[arg-type]

    def montos(self, gran_total: Decimal, decimals: int) -> list[Decimal]:
        """The amount of every abono (explicit or computed share)."""
        explicit = [to_decimal(a.monto) for a in self.abonos if a.monto is not None]
        automatic = [a for a in self.abonos if a.monto is None]
        remaining = gran_total - sum(explicit, Decimal(0))
        share = quantize(remaining / len(automatic), decimals) if automatic else Decimal(0)
        result: list[Decimal] = []
        assigned = 0
        for abono in self.abonos:
            if abono.monto is not None:
                result.append(to_decimal(abono.monto))
                continue
            assigned += 1
            is_last = assigned == len(automatic)
            result.append(remaining - share * (len(automatic) - 1) if is_last else share)
        return result

    def write(self, parent: Element, amounts: DocumentAmounts, decimals: int) -> None:
        root = sub(parent, NS_CFC, "AbonosFacturaCambiaria", attrs={"Version": self.version})
        gran_total = amounts.gran_total.require("GranTotal")
        for abono, monto in zip(self.abonos, self.montos(gran_total, decimals), strict=True):
            item = sub(root, NS_CFC, "Abono")
            sub(item, NS_CFC, "NumeroAbono", str(abono.numero))
            sub(item, NS_CFC, "FechaVencimiento", abono.fecha_vencimiento)
            text = abono.monto if isinstance(abono.monto, str) else format_decimal(monto)
            sub(item, NS_CFC, "MontoAbono", text)


@dataclass(kw_only=True)
class ReferenciasNota(Complemento):
    """cno:ReferenciasNota of an NCRE/NDEB, pointing to the origin document.

    SerieDocumentoOrigen and NumeroDocumentoOrigen are required since 2023-02-24; by
    default they are derived from the origin UUID.
    """

    NAMESPACE: ClassVar[str] = NS_CNO
    PREFIX: ClassVar[str] = "cno"

    numero_autorizacion: str
    fecha_emision: str  # xs:date of the origin, e.g. "2026-03-02"
    motivo: str | None = "Ajuste"
    serie: str | None = None  # None: derived from numero_autorizacion
    numero: str | int | None = None  # None: derived from numero_autorizacion
    regimen_antiguo: bool = False
    version: str = "1"
    nombre_complemento: str = "ReferenciasNota"

    @classmethod
    def of(cls, origen: Invoice, motivo: str, **options: object) -> ReferenciasNota:
        """Reference a certified invoice (UUID, Serie, Numero, date of emission)."""
        if origen.certificacion is None:
            raise ValueError("the origin document is not certified: call certify() first")
        cert = origen.certificacion
        return cls(numero_autorizacion=cert.uuid, fecha_emision=origen.fecha[:10],
                   motivo=motivo, serie=cert.serie_efectiva, numero=cert.numero_efectivo,
                   **options)  # type: ignore[arg-type]

    def write(self, parent: Element, amounts: DocumentAmounts, decimals: int) -> None:
        derived = _derive_serie_numero(self.numero_autorizacion)
        sub(parent, NS_CNO, "ReferenciasNota", attrs={
            "Version": self.version,
            "RegimenAntiguo": "Antiguo" if self.regimen_antiguo else None,
            "NumeroAutorizacionDocumentoOrigen": self.numero_autorizacion,
            "FechaEmisionDocumentoOrigen": self.fecha_emision,
            "MotivoAjuste": self.motivo,
            "SerieDocumentoOrigen": self.serie if self.serie is not None else derived[0],
            "NumeroDocumentoOrigen": self.numero if self.numero is not None else derived[1],
        })


def _derive_serie_numero(uuid: str) -> tuple[str | None, str | None]:
    try:
        return uuid_serie_numero(uuid)
    except ValueError:
        return None, None


@dataclass(kw_only=True)
class RetencionesFacturaEspecial(Complemento):
    """cfe:RetencionesFacturaEspecial of an FESP.

    Defaults: RetencionISR = 5 % of the sum of IVA MontoGravable (FEL_INF534, since 2019),
    RetencionIVA = sum of IVA MontoImpuesto, TotalMenosRetenciones = GranTotal - both.
    """

    NAMESPACE: ClassVar[str] = NS_CFE
    PREFIX: ClassVar[str] = "cfe"

    retencion_isr: Number | None = None
    retencion_iva: Number | None = None
    total_menos_retenciones: Number | None = None
    tasa_isr: Decimal = Decimal("0.05")
    version: str = "1"
    nombre_complemento: str = "RetencionesFacturaEspecial"

    def write(self, parent: Element, amounts: DocumentAmounts, decimals: int) -> None:
        isr = pick(self.retencion_isr,
                   lambda: quantize(amounts.sum_monto_gravable("IVA") * self.tasa_isr, decimals))
        iva = pick(self.retencion_iva, lambda: amounts.sum_monto_impuesto("IVA"))
        total = pick(self.total_menos_retenciones, lambda: (
            amounts.gran_total.require("GranTotal")
            - isr.require("RetencionISR") - iva.require("RetencionIVA")))
        root = sub(parent, NS_CFE, "RetencionesFacturaEspecial", attrs={"Version": self.version})
        sub(root, NS_CFE, "RetencionISR", isr.text)
        sub(root, NS_CFE, "RetencionIVA", iva.text)
        sub(root, NS_CFE, "TotalMenosRetenciones", total.text)


# (attribute, element) pairs of cex:Exportacion, in schema order.
_EXPORTACION_FIELDS: tuple[tuple[str, str], ...] = (
    ("lugar_expedicion", "LugarExpedicion"),
    ("nombre_consignatario", "NombreConsignatarioODestinatario"),
    ("direccion_consignatario", "DireccionConsignatarioODestinatario"),
    ("codigo_consignatario", "CodigoConsignatarioODestinatario"),
    ("nombre_comprador", "NombreComprador"),
    ("direccion_comprador", "DireccionComprador"),
    ("codigo_comprador", "CodigoComprador"),
    ("pais_consignatario", "PaisConsignatario"),
    ("otra_referencia", "OtraReferencia"),
    ("incoterm", "INCOTERM"),
    ("nombre_exportador", "NombreExportador"),
    ("codigo_exportador", "CodigoExportador"),
    ("numero_autorizacion_provisional", "NumeroAutorizacionProvisional"),
    ("serie_documento_origen", "SerieDocumentoOrigen"),
    ("numero_documento_origen", "NumeroDocumentoOrigen"),
    ("numero_declaracion_mercancias", "NumeroDeclaracionMercancias"),
    ("fecha_exportacion", "fechaExportacion"),
    ("via_transporte", "viaTransporte"),
    ("aduana_salida", "aduanaSalida"),
)


@dataclass(kw_only=True)
class Exportacion(Complemento):
    """cex:Exportacion of an export invoice (Exp="SI"). Only given fields are written."""

    NAMESPACE: ClassVar[str] = NS_CEX
    PREFIX: ClassVar[str] = "cex"

    nombre_consignatario: str
    direccion_consignatario: str
    lugar_expedicion: str | None = None
    codigo_consignatario: str | None = None
    nombre_comprador: str | None = None
    direccion_comprador: str | None = None
    codigo_comprador: str | None = None
    pais_consignatario: str | None = None
    otra_referencia: str | None = None
    incoterm: str | None = None
    nombre_exportador: str | None = None
    codigo_exportador: str | None = None
    numero_autorizacion_provisional: str | None = None
    serie_documento_origen: str | None = None
    numero_documento_origen: str | None = None
    numero_declaracion_mercancias: str | None = None
    fecha_exportacion: str | None = None  # dd/mm/aaaa
    via_transporte: str | None = None  # Aérea, Marítima, Terrestre
    aduana_salida: str | None = None
    version: str = "1"
    nombre_complemento: str = "Exportacion"

    def write(self, parent: Element, amounts: DocumentAmounts, decimals: int) -> None:
        root = sub(parent, NS_CEX, "Exportacion", attrs={"Version": self.version})
        for attribute, tag in _EXPORTACION_FIELDS:
            value = getattr(self, attribute)
            if value is not None:
                sub(root, NS_CEX, tag, str(value))


@dataclass(kw_only=True)
class RawComplemento(Complemento):
    """Any other complement: a prepared lxml element, copied as is."""

    element: Element = field(default_factory=lambda: etree.Element("Vacio"))
    nombre_complemento: str = "Complemento"

    def uri(self) -> str:
        if self.uri_complemento is not None:
            return self.uri_complemento
        return etree.QName(self.element).namespace or ""

    def write(self, parent: Element, amounts: DocumentAmounts, decimals: int) -> None:
        parent.append(copy.deepcopy(self.element))

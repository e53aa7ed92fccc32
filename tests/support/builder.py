"""Builder of FEL XML documents (SAT Guatemala) for tests and examples.

Documents are built from plain Python values; every amount is a Decimal (never a float)
rounded half-up to ``Invoice.decimals`` fraction digits (default 2)::

    inv = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)],
                  items=[Item.goods("Cemento gris 42.5 kg", cantidad="10", precio_unitario="85.00")])
    xml_bytes = inv.to_xml()                      # unsigned, pretty-printed UTF-8
    inv.certify(uuid="9E52C854-E18B-45C1-A77B-C87CF42F35F1", fecha="2026-03-15T10:31:02-06:00")

Computation (IVA included in the price, SAT rules FEL_RCP331/348/349):

* Precio = Cantidad x PrecioUnitario; line Total = Precio - Descuento (+ other taxes).
* IVA "gravado" (CodigoUnidadGravable 1): MontoGravable = (Precio - Descuento) / 1.12 and
  MontoImpuesto = (Precio - Descuento) - MontoGravable, so both add up to the Total exactly.
* IVA "exento" (code 2): MontoGravable = Precio - Descuento, MontoImpuesto = 0.
* IVA "ninguno": no dte:Impuestos (FPEQ, FCAP, NABN, RECI by default).
* TotalImpuesto per NombreCorto = sum of MontoImpuesto; GranTotal = sum of line Total.

Making invalid documents on purpose:

* every computed value has an override field (``Item(total="1.00")``,
  ``Invoice(gran_total="0.01")``); values computed *from* an overridden one follow the
  override, so one wrong value produces one inconsistency;
* ``omit`` removes elements or attributes after building: ``"MontoGravable"``,
  ``"Impuestos/Impuesto"`` (``Parent/Tag``), ``"@SerieDocumentoOrigen"``, ``"Emisor@CorreoEmisor"``.
  ``Item.omit`` applies to that item, ``Invoice.omit`` to the whole document;
* ``attributes`` sets or replaces attributes by element name:
  ``{"DatosGenerales": {"Tipo": "XXXX"}}``;
* :meth:`Invoice.to_element` returns the lxml tree for any other edit; :func:`serialize`
  writes it like :meth:`Invoice.to_xml`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from .amounts import Amount, DocumentAmounts, Number, pick
from .anulacion import Anulacion, CertificacionAnulacion
from .complements import (
    Abono,
    Cambiaria,
    Complemento,
    Exportacion,
    RawComplemento,
    ReferenciasNota,
    RetencionesFacturaEspecial,
)
from .defaults import (
    AFILIACION_POR_TIPO,
    DEFAULT_EMISOR_NIT,
    DEFAULT_FECHA,
    FRASE_EXPORTACION,
    FRASES_POR_TIPO,
    SAT_CERTIFICADOR_NIT,
    SAT_CERTIFICADOR_NOMBRE,
    TIPOS_IVA_EXENTO,
    TIPOS_SIN_IVA,
)
from .identifiers import (
    cui_is_valid,
    cui_with_check_digit,
    nit_check_digit,
    nit_is_valid,
    nit_with_check_digit,
    uuid_serie_numero,
)
from .items import Impuesto, Item, IvaMode
from .xmltools import (
    NS_DS,
    NS_DTE,
    Element,
    add_placeholder_signature,
    apply_attributes,
    document_bytes,
    etree,
    prune,
    serialize,
    sub,
)

__all__ = [
    "Abono", "Anulacion", "Cambiaria", "Certificacion", "CertificacionAnulacion", "Complemento",
    "Direccion", "Exportacion", "Frase", "Impuesto", "Invoice", "Item", "IvaMode",
    "RawComplemento", "ReferenciasNota", "RetencionesFacturaEspecial", "SAMPLE_KINDS",
    "cui_is_valid", "cui_with_check_digit", "nit_check_digit", "nit_is_valid",
    "nit_with_check_digit", "sample_invoice", "serialize", "uuid_serie_numero",
]


@dataclass
class Direccion:
    """dte:DireccionEmisor / dte:DireccionReceptor (``None`` parts are not written)."""

    direccion: str = "6a. Avenida 8-45, Zona 1"
    codigo_postal: str | None = "01001"
    municipio: str | None = "Guatemala"
    departamento: str | None = "Guatemala"
    pais: str | None = "GT"

    def write(self, parent: Element, tag: str) -> Element:
        element = sub(parent, NS_DTE, tag)
        sub(element, NS_DTE, "Direccion", self.direccion)
        for name, value in (("CodigoPostal", self.codigo_postal), ("Municipio", self.municipio),
                            ("Departamento", self.departamento), ("Pais", self.pais)):
            if value is not None:
                sub(element, NS_DTE, name, value)
        return element


@dataclass
class Frase:
    """dte:Frase; a plain ``(tipo, escenario)`` tuple is accepted wherever a Frase is."""

    tipo: int | str
    escenario: int | str
    numero_resolucion: str | None = None
    fecha_resolucion: str | None = None


FraseLike = Frase | tuple[int, int]


@dataclass
class Certificacion:
    """dte:Certificacion; Serie and Numero default to the values derived from the UUID."""

    uuid: str
    fecha: str
    nit: str = SAT_CERTIFICADOR_NIT
    nombre: str = SAT_CERTIFICADOR_NOMBRE
    serie: str | None = None
    numero: str | int | None = None

    @property
    def serie_efectiva(self) -> str:
        return self.serie if self.serie is not None else uuid_serie_numero(self.uuid)[0]

    @property
    def numero_efectivo(self) -> str:
        return str(self.numero) if self.numero is not None else uuid_serie_numero(self.uuid)[1]

    def write(self, parent: Element) -> None:
        element = sub(parent, NS_DTE, "Certificacion")
        sub(element, NS_DTE, "NITCertificador", self.nit)
        sub(element, NS_DTE, "NombreCertificador", self.nombre)
        sub(element, NS_DTE, "NumeroAutorizacion", self.uuid,
            attrs={"Serie": self.serie_efectiva, "Numero": self.numero_efectivo})
        sub(element, NS_DTE, "FechaHoraCertificacion", self.fecha)


@dataclass(kw_only=True)
class Invoice:
    """A dte:GTDocumento (any DTE type: FACT, FCAM, FPEQ, FESP, NCRE, ...)."""

    tipo: str = "FACT"
    fecha: str = DEFAULT_FECHA  # FechaHoraEmision
    moneda: str = "GTQ"
    exp: bool = False
    numero_acceso: int | str | None = None
    tipo_personeria: int | str | None = None
    # Emisor
    emisor_nit: str = DEFAULT_EMISOR_NIT
    emisor_nombre: str = "FERRETERÍA EL QUETZAL, SOCIEDAD ANÓNIMA"
    emisor_nombre_comercial: str = "FERRETERÍA EL QUETZAL"
    codigo_establecimiento: int | str = 1
    emisor_correo: str | None = None
    afiliacion_iva: str | None = None  # None: PEQ for FPEQ/FCAP, else GEN
    emisor_direccion: Direccion = field(default_factory=Direccion)
    # Receptor
    receptor_id: str = "CF"
    receptor_nombre: str | None = None  # None: "CONSUMIDOR FINAL" for CF
    receptor_tipo_especial: str | None = None  # CUI or EXT
    receptor_correo: str | None = None
    receptor_direccion: Direccion | None = None
    # Content
    frases: Sequence[FraseLike] | None = None  # None: default of the type; []: no dte:Frases
    items: Sequence[Item] = field(default_factory=lambda: [
        Item.goods("Cemento gris 42.5 kg", cantidad="10", precio_unitario="85.00")])
    complementos: Sequence[Complemento] = ()
    certificacion: Certificacion | None = None
    adenda: Mapping[str, str] | None = None  # dte:SAT/dte:Adenda (not in the XSD)
    decimals: int = 2
    # Overrides and deliberate defects
    gran_total: Number | None = None
    total_impuestos: Mapping[str, Number] | None = None  # by NombreCorto; extra keys are added
    omit: Collection[str] = ()
    attributes: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    version: str = "0.1"

    # -- defaults depending on the type ------------------------------------------------
    def iva_mode(self, item: Item) -> IvaMode:
        """IVA treatment of ``item``: its own, else exempt for exports/RDON, none for FPEQ..."""
        if item.iva is not None:
            return item.iva
        if self.tipo in TIPOS_SIN_IVA:
            return "ninguno"
        if self.exp or self.tipo in TIPOS_IVA_EXENTO:
            return "exento"
        return "gravado"

    def frases_efectivas(self) -> list[Frase]:
        """The frases to write (explicit, or the defaults of the type)."""
        if self.frases is not None:
            frases = list(self.frases)
        else:
            frases = list(FRASES_POR_TIPO.get(self.tipo, ()))
            if self.exp and FRASE_EXPORTACION not in frases:
                frases.append(FRASE_EXPORTACION)
        return [f if isinstance(f, Frase) else Frase(*f) for f in frases]

    # -- amounts -----------------------------------------------------------------------
    def amounts(self) -> DocumentAmounts:
        """All computed (or overridden) amounts of the document."""
        lines = tuple(item.amounts(self.iva_mode(item), self.decimals) for item in self.items)
        sums: dict[str, Decimal] = {}
        for line in lines:
            for tax in line.impuestos:
                sums[tax.nombre_corto] = (sums.get(tax.nombre_corto, Decimal(0))
                                          + tax.monto_impuesto.require("MontoImpuesto"))
        totals = {name: Amount.computed(value) for name, value in sums.items()}
        for name, value in (self.total_impuestos or {}).items():
            totals[name] = Amount.given(value)
        gran_total = pick(self.gran_total, lambda: sum(
            (line.total.require("Total") for line in lines), Decimal(0)))
        return DocumentAmounts(lines=lines, total_impuestos=totals, gran_total=gran_total)

    # -- certification -----------------------------------------------------------------
    def certify(self, uuid: str, fecha: str, *, nit: str = SAT_CERTIFICADOR_NIT,
                nombre: str = SAT_CERTIFICADOR_NOMBRE, serie: str | None = None,
                numero: str | int | None = None) -> Invoice:
        """Add dte:Certificacion (Serie/Numero derived from ``uuid`` unless given); returns self."""
        self.certificacion = Certificacion(uuid, fecha, nit, nombre, serie, numero)
        return self

    def replace(self, **changes: object) -> Invoice:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    # -- XML ---------------------------------------------------------------------------
    def to_xml(self, signature: bool = False, *, signed: bool = True) -> bytes:
        """The document as UTF-8 bytes (declaration, 2-space indentation).

        A certified document is returned as its certifier would: signed by its issuer and its certifier
        (with the test signer of :mod:`.signing`), unless ``signed=False`` (a stripped certified document)
        or a placeholder ``signature`` is asked for.
        """
        return document_bytes(self.to_element(signature=signature), certified=self.certificacion is not None,
                              sign=signed and not signature)

    def to_element(self, signature: bool = False) -> Element:
        """The document as an lxml element; ``signature`` adds a placeholder ds:Signature."""
        amounts = self.amounts()
        nsmap = {"dte": NS_DTE}
        for complemento in self.complementos:
            if complemento.PREFIX:
                nsmap[complemento.PREFIX] = complemento.NAMESPACE
        if signature:
            nsmap["ds"] = NS_DS
        root = etree.Element(f"{{{NS_DTE}}}GTDocumento", nsmap=nsmap)
        root.set("Version", self.version)
        sat = sub(root, NS_DTE, "SAT", attrs={"ClaseDocumento": "dte"})
        dte = sub(sat, NS_DTE, "DTE", attrs={"ID": "DatosCertificados"})
        emision = sub(dte, NS_DTE, "DatosEmision", attrs={"ID": "DatosEmision"})
        self._write_generales(emision)
        self._write_emisor(emision)
        self._write_receptor(emision)
        self._write_frases(emision)
        items = sub(emision, NS_DTE, "Items")
        for index, (item, line) in enumerate(zip(self.items, amounts.lines, strict=True), 1):
            item.write(items, index, line)
        self._write_totales(emision, amounts)
        self._write_complementos(emision, amounts)
        if self.certificacion is not None:
            self.certificacion.write(dte)
        if self.adenda is not None:
            adenda = sub(sat, NS_DTE, "Adenda")
            for name, value in self.adenda.items():
                etree.SubElement(adenda, name).text = value
        if signature:
            add_placeholder_signature(root, "#DatosEmision")
        prune(root, self.omit)
        apply_attributes(root, self.attributes)
        return root

    def _write_generales(self, parent: Element) -> None:
        sub(parent, NS_DTE, "DatosGenerales", attrs={
            "Tipo": self.tipo,
            "Exp": "SI" if self.exp else None,
            "FechaHoraEmision": self.fecha,
            "CodigoMoneda": self.moneda,
            "NumeroAcceso": self.numero_acceso,
            "TipoPersoneria": self.tipo_personeria,
        })

    def _write_emisor(self, parent: Element) -> None:
        afiliacion = self.afiliacion_iva or AFILIACION_POR_TIPO.get(self.tipo, "GEN")
        emisor = sub(parent, NS_DTE, "Emisor", attrs={
            "NITEmisor": self.emisor_nit,
            "NombreEmisor": self.emisor_nombre,
            "CodigoEstablecimiento": self.codigo_establecimiento,
            "NombreComercial": self.emisor_nombre_comercial,
            "CorreoEmisor": self.emisor_correo,
            "AfiliacionIVA": afiliacion,
        })
        self.emisor_direccion.write(emisor, "DireccionEmisor")

    def _write_receptor(self, parent: Element) -> None:
        nombre = self.receptor_nombre
        if nombre is None:
            nombre = "CONSUMIDOR FINAL" if self.receptor_id == "CF" else "RECEPTOR"
        receptor = sub(parent, NS_DTE, "Receptor", attrs={
            "IDReceptor": self.receptor_id,
            "TipoEspecial": self.receptor_tipo_especial,
            "NombreReceptor": nombre,
            "CorreoReceptor": self.receptor_correo,
        })
        if self.receptor_direccion is not None:
            self.receptor_direccion.write(receptor, "DireccionReceptor")

    def _write_frases(self, parent: Element) -> None:
        frases = self.frases_efectivas()
        if not frases:
            return
        element = sub(parent, NS_DTE, "Frases")
        for frase in frases:
            sub(element, NS_DTE, "Frase", attrs={
                "TipoFrase": frase.tipo,
                "CodigoEscenario": frase.escenario,
                "NumeroResolucion": frase.numero_resolucion,
                "FechaResolucion": frase.fecha_resolucion,
            })

    def _write_totales(self, parent: Element, amounts: DocumentAmounts) -> None:
        totales = sub(parent, NS_DTE, "Totales")
        if amounts.total_impuestos:
            element = sub(totales, NS_DTE, "TotalImpuestos")
            for name, amount in amounts.total_impuestos.items():
                sub(element, NS_DTE, "TotalImpuesto",
                    attrs={"NombreCorto": name, "TotalMontoImpuesto": amount.text})
        sub(totales, NS_DTE, "GranTotal", amounts.gran_total.text)

    def _write_complementos(self, parent: Element, amounts: DocumentAmounts) -> None:
        if not self.complementos:
            return
        element = sub(parent, NS_DTE, "Complementos")
        for index, complemento in enumerate(self.complementos, 1):
            wrapper = sub(element, NS_DTE, "Complemento", attrs={
                "IDComplemento": complemento.id_complemento or str(index),
                "NombreComplemento": complemento.nombre_complemento,
                "URIComplemento": complemento.uri(),
            })
            complemento.write(wrapper, amounts, self.decimals)
            prune(wrapper, complemento.omit)



# -- default documents of each kind ------------------------------------------------------

SAMPLE_KINDS: tuple[str, ...] = (
    "FACT", "FACT-EXP", "FCAM", "FPEQ", "FCAP", "FESP", "NCRE", "NDEB", "NABN", "RECI", "RDON",
)
SAMPLE_ORIGEN_UUID = "9E52C854-E18B-45C1-A77B-C87CF42F35F1"
SAMPLE_RECEPTOR_NIT = nit_with_check_digit("4729185")
SAMPLE_RECEPTOR_CUI = cui_with_check_digit("25874196", 1, 1)


def sample_invoice(kind: str = "FACT", **changes: object) -> Invoice:
    """A small, schema-valid (apart from the signature) document of the given kind.

    ``kind`` is a DTE type of :data:`SAMPLE_KINDS` ("FACT-EXP" is an export FACT);
    ``changes`` replace any :class:`Invoice` field.
    """
    if kind not in SAMPLE_KINDS:
        raise ValueError(f"unknown sample kind {kind!r}; choose one of {SAMPLE_KINDS}")
    tipo = kind.split("-")[0]
    fields: dict[str, object] = {"tipo": tipo}
    vencimientos = ("2026-04-14", "2026-05-14")
    if kind == "FACT-EXP":
        fields.update(exp=True, complementos=[Exportacion(
            nombre_consignatario="Importadora Ejemplo, LLC",
            direccion_consignatario="100 Main Street, Houston, TX, EE. UU.",
            incoterm="FOB")])
    elif tipo in ("FCAM", "FCAP"):
        fields.update(complementos=[Cambiaria.plazos(*vencimientos)])
    elif tipo == "FESP":
        fields.update(receptor_id=SAMPLE_RECEPTOR_CUI, receptor_tipo_especial="CUI",
                      receptor_nombre="JUAN PÉREZ LÓPEZ",
                      items=[Item.goods("Madera de pino rústica, docena de tablas", "2", "450.00")],
                      complementos=[RetencionesFacturaEspecial()])
    elif tipo in ("NCRE", "NDEB"):
        fields.update(receptor_id=SAMPLE_RECEPTOR_NIT, receptor_nombre="CONSTRUCTORA EJEMPLO, S.A.",
                      complementos=[ReferenciasNota(
                          numero_autorizacion=SAMPLE_ORIGEN_UUID, fecha_emision="2026-03-02",
                          motivo="Devolución de mercadería" if tipo == "NCRE" else "Flete no cobrado")])
    elif tipo == "RDON":
        fields.update(tipo_personeria="2635", items=[
            Item.service("Donación para programa de alfabetización", "1", "500.00")])
    fields.update(changes)
    return Invoice(**fields)  # type: ignore[arg-type]

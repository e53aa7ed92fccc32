"""Writes the base documents of the complement, date and annulment rule cases.

Run ``python rules/tests/bases/make_complementos.py`` from the repository root. The documents are
built with the test builder; complements the builder has no class for (MediosDePago,
RetencionesFacturaEspecifica, DetalleProductos, CobroXCuentaAjena, LEPP, TrasladoMercancias) are
written with its RawComplemento, following the complement XSDs of SAT. Every document is valid:
``fel-rules validate`` reports no error for it. Like the examples, they are unsigned (pre-signature
documents); the cases that need a ds:Signature append one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fel_rules.testing.builder import (
    Anulacion,
    Direccion,
    Invoice,
    Item,
    RawComplemento,
    RetencionesFacturaEspecial,
    cui_with_check_digit,
    nit_with_check_digit,
    serialize,
)
from fel_rules.testing.xmltools import NS_DTE, Element, etree

HERE = Path(__file__).resolve().parent

NS_CMDP = "http://www.sat.gob.gt/face2/ComplementoMediosDePago/0.1.0"
NS_CRFE = "http://www.sat.gob.gt/face2/ComplementoRetencionesFacturaEspecifica/0.1.0"
NS_CDP = "http://www.sat.gob.gt/face2/ComplementoDetalleDeProductos/0.1.0"
NS_CCA = "http://www.sat.gob.gt/face2/CobroXCuentaAjena/0.1.0"
NS_CLEPP = "http://www.sat.gob.gt/face2/ComplementoPartidosPolitico/0.1.0"
NS_CTRASMER = "http://www.sat.gob.gt/face2/TrasladoMercancias/0.1.0"

UUID = "6C2A91F4-0B3D-4E7A-9F15-2D8C4B7E1A63"  # the annulled DTE

DISTRIBUIDORA = dict(
    emisor_nit=nit_with_check_digit("6285173"),
    emisor_nombre="DISTRIBUIDORA LOS VOLCANES, SOCIEDAD ANÓNIMA",
    emisor_nombre_comercial="DISTRIBUIDORA LOS VOLCANES",
    codigo_establecimiento=1,
    afiliacion_iva="GEN",
    emisor_direccion=Direccion("Avenida Petapa 41-10, Zona 12", "01012", "Guatemala", "Guatemala"),
)
CLIENTE = dict(receptor_id=nit_with_check_digit("3917462"), receptor_nombre="COMERCIAL SAN CRISTÓBAL, S.A.")


def _element(namespace: str, prefix: str, tag: str, attrs: dict[str, str] | None = None,
             children: list[tuple[str, str]] | None = None) -> Element:
    """A complement root in its own namespace with simple child elements (name, text)."""
    root = etree.Element(f"{{{namespace}}}{tag}", nsmap={prefix: namespace})
    for name, value in (attrs or {}).items():
        root.set(name, value)
    for name, text in children or []:
        etree.SubElement(root, f"{{{namespace}}}{name}").text = text
    return root


def _child(parent: Element, namespace: str, tag: str, children: list[tuple[str, str]]) -> Element:
    element = etree.SubElement(parent, f"{{{namespace}}}{tag}")
    for name, text in children:
        etree.SubElement(element, f"{{{namespace}}}{name}").text = text
    return element


def _medio(tipo: str, numero: str, fecha: str, monto: str) -> RawComplemento:
    return RawComplemento(nombre_complemento="MediosDePago", element=_element(
        NS_CMDP, "cmdp", "MediosDePago", {"Version": "1"},
        [("TipoFormaPago", tipo), ("NumeroTransaccion", numero), ("FechaTransaccion", fecha), ("Monto", monto)]))


def medios_de_pago() -> Element:
    """FACT of Q850.00 paid with two MediosDePago complements (Q500.00 + Q350.00)."""
    return Invoice(
        tipo="FACT", fecha="2026-03-15T10:30:00-06:00", **DISTRIBUIDORA, **CLIENTE, frases=[(1, 1)],
        items=[Item.goods("Cemento gris, bolsa de 42.5 kg", "10", "85.00")],
        complementos=[
            _medio("EFECTIVO", "2026031500001", "2026-03-15", "500.00"),
            _medio("TARJETA", "2026031500002", "2026-03-16", "350.00"),
        ],
    ).to_element()


def factura_especifica() -> Element:
    """FEPE of Q1,000.00 with RetencionesFacturaEspecifica: ICT 1.5 % = Q15.00."""
    return Invoice(
        tipo="FEPE", fecha="2026-03-18T08:45:00-06:00", **DISTRIBUIDORA, **CLIENTE, frases=[],
        items=[Item.goods("Maíz amarillo, quintal", "5", "200.00")],
        complementos=[RawComplemento(nombre_complemento="RetencionesFacturaEspecifica", element=_element(
            NS_CRFE, "crfe", "RetencionesFacturaEspecifica", {"Version": "1"},
            [("RetencionICT", "15.00"), ("TotalMenosRetenciones", "985.00")]))],
    ).to_element()


def factura_especial_2019() -> Element:
    """FESP of 2019-05-20 (before 2019-06-01): ISR on Q50,000.00 = Q1,500.00 + 7 % of Q20,000.00."""
    return Invoice(
        tipo="FESP", fecha="2019-05-20T10:00:00-06:00",
        emisor_nit=nit_with_check_digit("5418273"),
        emisor_nombre="BENEFICIO DE CAFÉ LOS ALTOS, SOCIEDAD ANÓNIMA",
        emisor_nombre_comercial="BENEFICIO LOS ALTOS", codigo_establecimiento=2, afiliacion_iva="GEN",
        emisor_direccion=Direccion("Kilómetro 4.5 Carretera a Almolonga, Zona 6", "09001",
                                   "Quetzaltenango", "Quetzaltenango"),
        receptor_id=cui_with_check_digit("31572948", 9, 1), receptor_tipo_especial="CUI",
        receptor_nombre="MARÍA TZOC CHAY",
        items=[Item.goods("Café pergamino, quintal", "50", "1120.00")],
        complementos=[RetencionesFacturaEspecial(retencion_isr="2900.00")],
    ).to_element()


def detalle_productos() -> Element:
    """FACT in USD with DetalleProductos: beer with its detail (tax 240 × 10.00 × 6 %) and alcohol."""
    detalle = _element(NS_CDP, "cdp", "DetalleProductos", {"Version": "1"})
    _child(detalle, NS_CDP, "ItemDetalleProductos", [
        ("NoItem", "1"), ("CodigoUnidadGravable", "1"), ("ClaseDeBebida", "Cervezas"),
        ("MarcaDeBebida", "Cerveza Quetzal"), ("NoResolucionAutorizacion", "R-2026-000123"),
        ("CapacidadEnvase", "355"), ("TotalCajas", "10"), ("TotalEnvases", "240"),
        ("PrecioVentaSugerido", "10.00"), ("ImpuestoBebidasAlcoholicas", "144.00")])
    _child(detalle, NS_CDP, "ItemDetalleProductos", [
        ("NoItem", "2"), ("CodigoUnidadGravable", "6"), ("ClaseDeBebida", "Alcoholes"),
        ("NoResolucionAutorizacion", "R-2026-000124"), ("CapacidadEnvase", "1000")])
    return Invoice(
        tipo="FACT", moneda="USD", fecha="2026-03-20T11:00:00-06:00", **DISTRIBUIDORA, **CLIENTE,
        frases=[(1, 1)],
        items=[Item.goods("Cerveza, caja de 24 latas de 355 ml", "10", "24.00"),
               Item.goods("Alcohol etílico potable, litro", "12", "6.00")],
        complementos=[RawComplemento(nombre_complemento="DetalleProductos", element=detalle)],
    ).to_element()


def cobro_cuenta_ajena() -> Element:
    """FACT of a customs broker with CobroXCuentaAjena: IVA 12 % of Q1,000.00, and an item without IVA."""
    cobro = _element(NS_CCA, "cca", "CobroXCuentaAjena", {"Version": "1"})
    _child(cobro, NS_CCA, "ItemCuentaAjena", [
        ("NITtercero", nit_with_check_digit("1654238")), ("NumeroDocumento", "DUCA-2026-004512"),
        ("FechaDocumento", "2026-03-10"), ("Descripcion", "Impuestos de importación pagados por cuenta del cliente"),
        ("BaseImponible", "1000.00"), ("MontoCobroDAI", "50.00"), ("MontoCobroIVA", "120.00"),
        ("MontoCobroOtros", "0.00"), ("MontoCobroTotal", "170.00")])
    _child(cobro, NS_CCA, "ItemCuentaAjena", [
        ("Descripcion", "Almacenaje en almacén fiscal"), ("BaseImponible", "0.00"), ("MontoCobroDAI", "0.00"),
        ("MontoCobroIVA", "0.00"), ("MontoCobroOtros", "75.00"), ("MontoCobroTotal", "75.00")])
    return Invoice(
        tipo="FACT", fecha="2026-03-12T15:20:00-06:00", **DISTRIBUIDORA, **CLIENTE, frases=[(1, 1)],
        items=[Item.service("Servicio de agenciamiento aduanero", "1", "1500.00")],
        complementos=[RawComplemento(nombre_complemento="CobroXCuentaAjena", element=cobro)],
    ).to_element()


def aporte_partido() -> Element:
    """RDON of a political party for a contribution in kind (LEPP): Aporte = GranTotal."""
    return Invoice(
        tipo="RDON", fecha="2026-02-10T17:00:00-06:00", tipo_personeria="2635",
        emisor_nit=nit_with_check_digit("9281736"),
        emisor_nombre="PARTIDO DEMOCRÁTICO DEL ALTIPLANO",
        emisor_nombre_comercial="PARTIDO DEMOCRÁTICO DEL ALTIPLANO", codigo_establecimiento=1,
        afiliacion_iva="GEN",
        emisor_direccion=Direccion("12 Calle 4-51, Zona 1", "01001", "Guatemala", "Guatemala"),
        receptor_id=nit_with_check_digit("4729185"), receptor_nombre="JORGE ALBERTO SICAN PÉREZ",
        items=[Item.goods("Aporte en especie: 40 sillas plásticas", "40", "30.00")],
        complementos=[RawComplemento(nombre_complemento="LEPP", element=_element(
            NS_CLEPP, "clepp", "LEPP", {
                "Version": "1", "CalidadAportante": "Simpatizante", "TipoAporte": "No dineraria o en especie",
                "DeclaracionProcedencia": "Bienes propios del aportante", "Aporte": "1200.00"}))],
    ).to_element()


def nota_envio() -> Element:
    """NEV with TrasladoMercancias driven by a foreign transporter (IDTransportista P4815162342)."""
    return Invoice(
        tipo="NEV", fecha="2026-03-25T07:30:00-06:00", **DISTRIBUIDORA, **CLIENTE, frases=[],
        items=[Item.goods("Cemento gris, bolsa de 42.5 kg", "200", "85.00", iva="ninguno")],
        complementos=[RawComplemento(nombre_complemento="TrasladoMercancias", element=_element(
            NS_CTRASMER, "ctrasmer", "TrasladoMercancias", {
                "Version": "1", "IDTransportista": "P4815162342", "TipoDocumentoIdentificacion": "Extranjero",
                "NombreTransportista": "LUIS ERNESTO MEJÍA", "Placa": "C123BCD",
                "DireccionProcedencia": "Avenida Petapa 41-10, Zona 12, Guatemala",
                "NITCUIConsignatario": CLIENTE["receptor_id"], "NombreConsignatario": "COMERCIAL SAN CRISTÓBAL",
                "DireccionDestino": "3a. Calle 5-20, Zona 1, Chimaltenango",
                "Motivo": "Traslado de mercadería vendida a bodega del cliente"}))],
    ).to_element()


def boleta_idp() -> Element:
    """BIDP (boleta de despacho IDP) with DatosGenerales/Idp and a foreign transporter."""
    root = Invoice(
        tipo="BIDP", fecha="2026-03-26T06:00:00-06:00", **DISTRIBUIDORA, **CLIENTE, frases=[],
        items=[Item.goods("Diésel, galón", "1000", "30.00")],
    ).to_element()
    generales = root.find(f".//{{{NS_DTE}}}DatosGenerales")
    idp = etree.SubElement(generales, f"{{{NS_DTE}}}Idp", {
        "Litoral": "Sur", "Placa": "C456DEF", "Numerodeviaje": "V-2026-0042",
        "Direcciondeentrega": "Kilómetro 18.5 Carretera al Pacífico, Villa Nueva",
        "Origendespacho": "Importaciones", "Destinodespacho": "Venta local", "Procedencia": "Importado"})
    etree.SubElement(idp, f"{{{NS_DTE}}}Terminal", {"codigo": "T01"}).text = "Terminal Puerto Quetzal"
    transportista = etree.SubElement(idp, f"{{{NS_DTE}}}Transportista", {"Id": "HN0801199012345",
                                                                         "TipoDocumento": "Extranjero"})
    transportista.text = "CARLOS ANTONIO REYES"
    return root


def anulacion_certificada() -> Element:
    """Certified annulment (unsigned, like the examples: a pre-signature document)."""
    return Anulacion(
        numero_documento=UUID, nit_emisor=DISTRIBUIDORA["emisor_nit"], id_receptor=CLIENTE["receptor_id"],
        fecha_emision_documento="2026-03-15T10:30:00-06:00", fecha_hora_anulacion="2026-03-16T09:00:00-06:00",
        motivo="Precio unitario incorrecto; se emite una nueva factura",
    ).certify("2026-03-16T09:00:05-06:00").to_element()


BASES: dict[str, Callable[[], Element]] = {
    "complementos-medios-pago.xml": medios_de_pago,
    "complementos-fepe.xml": factura_especifica,
    "complementos-fesp-2019.xml": factura_especial_2019,
    "complementos-detalle-productos.xml": detalle_productos,
    "complementos-cuenta-ajena.xml": cobro_cuenta_ajena,
    "complementos-lepp.xml": aporte_partido,
    "complementos-nev.xml": nota_envio,
    "complementos-bidp.xml": boleta_idp,
    "complementos-anulacion-certificada.xml": anulacion_certificada,
}


def main() -> None:
    for name, factory in BASES.items():
        (HERE / name).write_bytes(serialize(factory()))
        print(f"written: {HERE / name}")


if __name__ == "__main__":
    main()

"""Generate the base documents of the test cases of the FEL-FRA rules (frases).

Each file is a valid document that ``examples/`` does not provide: a DTE type with its own frase
(FARP, FPEC, FEPE, RANT, FACP, RECI, RDON, and export FARP and FPEC), an invoice issued in a
temporary location (frase 9-14), and a fuel invoice with the social-support product codes (frase
9-19). Built with the test builder (``fel_rules.testing``); all content is invented and every NIT
carries a correct check digit. The output is deterministic.

Usage::

    .venv/bin/python rules/tests/bases/make_frases.py
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from fel_rules.testing.builder import (
    Direccion,
    Exportacion,
    Frase,
    Impuesto,
    Invoice,
    Item,
    RawComplemento,
    nit_with_check_digit,
)

HERE = Path(__file__).resolve().parent

NS_CRFE = "http://www.sat.gob.gt/face2/ComplementoRetencionesFacturaEspecifica/0.1.0"

COMPRADOR = dict(
    receptor_id=nit_with_check_digit("3918624"),
    receptor_nombre="SUPERMERCADOS LA ESPIGA, SOCIEDAD ANÓNIMA",
)

PRIMARIO = dict(
    emisor_nit=nit_with_check_digit("7204183"),
    emisor_nombre="MARÍA ELENA CAAL POP",
    emisor_nombre_comercial="PARCELAMIENTO SAN ISIDRO",
    afiliacion_iva="PRI",
    emisor_direccion=Direccion("Caserío Sepacuité, San Pedro Carchá", "16002", "San Pedro Carchá", "Alta Verapaz"),
)

PECUARIO = dict(
    emisor_nit=nit_with_check_digit("6820317"),
    emisor_nombre="JULIO CÉSAR OLIVA PORTILLO",
    emisor_nombre_comercial="GANADERÍA LA CEIBITA",
    afiliacion_iva="PEC",
    emisor_direccion=Direccion("Aldea La Ceibita, Chiquimula", "20001", "Chiquimula", "Chiquimula"),
)

COMERCIO = dict(
    emisor_nit=nit_with_check_digit("9163524"),
    emisor_nombre="DISTRIBUIDORA EL VOLCÁN, SOCIEDAD ANÓNIMA",
    emisor_nombre_comercial="DISTRIBUIDORA EL VOLCÁN",
    afiliacion_iva="GEN",
    emisor_direccion=Direccion("Avenida Las Américas 9-20, Zona 3", "09003", "Quetzaltenango", "Quetzaltenango"),
)


def retenciones_factura_especifica(ict: str, total_menos: str) -> RawComplemento:
    """crfe:RetencionesFacturaEspecifica with the withheld ICT (1.5 % of GranTotal)."""
    element = etree.Element(f"{{{NS_CRFE}}}RetencionesFacturaEspecifica", nsmap={"crfe": NS_CRFE}, Version="1")
    etree.SubElement(element, f"{{{NS_CRFE}}}RetencionICT").text = ict
    etree.SubElement(element, f"{{{NS_CRFE}}}TotalMenosRetenciones").text = total_menos
    return RawComplemento(nombre_complemento="RetencionesFacturaEspecifica", element=element)


def factura_primario() -> Invoice:
    """FARP of a primary-regime grower to a supermarket (frase 10-1), no IVA."""
    return Invoice(tipo="FARP", fecha="2026-03-16T09:00:00-06:00", **PRIMARIO, **COMPRADOR,
                   frases=[(10, 1)], attributes={"Receptor": {"DestinodelaVenta": "Supermercado"}},
                   items=[Item.goods("Güisquil, caja de 50 unidades", "8", "95.00", iva="ninguno")])


def factura_primario_exportacion() -> Invoice:
    """Export FARP of a primary-regime grower (frase 10-2), receptor CF, no IVA."""
    return Invoice(tipo="FARP", exp=True, fecha="2026-03-16T15:00:00-06:00", **PRIMARIO,
                   receptor_id="CF", receptor_nombre="CENTRAL AMERICAN PRODUCE CORP.",
                   frases=[(10, 2)], attributes={"Receptor": {"DestinodelaVenta": "Exportación"}},
                   complementos=[Exportacion(nombre_consignatario="Central American Produce Corp.",
                                             direccion_consignatario="1450 NW 12th Avenue, Miami, FL, Estados Unidos",
                                             incoterm="FOB")],
                   items=[Item.goods("Arveja china, caja de 10 lb", "120", "68.00", iva="ninguno")])


def factura_pecuario_exportacion() -> Invoice:
    """Export FPEC of a livestock intermediary (ClasificacionEmisor 1674, frase 11-3), receptor CF.

    Test cases remove Exp and ClasificacionEmisor to reach the other scenarios of frase 11.
    """
    return Invoice(tipo="FPEC", exp=True, fecha="2026-03-17T08:00:00-06:00", **PECUARIO,
                   receptor_id="CF", receptor_nombre="GANADOS DEL SUR, S. DE R.L. (HONDURAS)",
                   frases=[(11, 3)],
                   attributes={"Emisor": {"ClasificacionEmisor": "1674"},
                               "Receptor": {"DestinodelaVenta": "Exportación en pie"}},
                   complementos=[Exportacion(nombre_consignatario="Ganados del Sur, S. de R.L.",
                                             direccion_consignatario="Carretera a Choluteca km 8, Honduras",
                                             incoterm="FCA")],
                   items=[Item.goods("Novillo en pie, 420 kg", "3", "7100.00", iva="ninguno")])


def factura_especifica() -> Invoice:
    """FEPE of a grain buyer to a primary-regime grower (frase 12-1), no IVA.

    GranTotal Q4,200.00; ICT 1.5 % = Q63.00.
    """
    return Invoice(tipo="FEPE", fecha="2026-03-18T11:00:00-06:00", **COMERCIO,
                   receptor_id=PRIMARIO["emisor_nit"], receptor_nombre=PRIMARIO["emisor_nombre"],
                   frases=[(12, 1)], complementos=[retenciones_factura_especifica("63.00", "4137.00")],
                   items=[Item.goods("Maíz blanco, quintal", "20", "210.00", iva="ninguno")])


def recibo_anticipo() -> Invoice:
    """RANT for an advance payment (frase 9-10), no IVA."""
    return Invoice(tipo="RANT", fecha="2026-03-19T10:00:00-06:00", **COMERCIO, **COMPRADOR, frases=[(9, 10)],
                   items=[Item.service("Anticipo por pedido de abarrotes", "1", "2500.00", iva="ninguno")])


def factura_provisional() -> Invoice:
    """FACP: provisional export invoice (frases 9-11 and 4-1), receptor CF, exempt lines."""
    return Invoice(tipo="FACP", exp=True, fecha="2026-03-20T15:00:00-06:00", **COMERCIO,
                   receptor_id="CF", receptor_nombre="MAYAN FOODS LLC", frases=[(9, 11), (4, 1)],
                   complementos=[Exportacion(nombre_consignatario="Mayan Foods LLC",
                                             direccion_consignatario="820 Commerce Street, Houston, TX, Estados Unidos",
                                             incoterm="FOB")],
                   items=[Item.goods("Frijol negro, saco de 45 kg", "40", "610.00")])


def recibo() -> Invoice:
    """RECI of an association for a monthly fee (frase 4-5), no IVA."""
    return Invoice(tipo="RECI", fecha="2026-03-21T09:00:00-06:00",
                   emisor_nit=nit_with_check_digit("5291736"),
                   emisor_nombre="ASOCIACIÓN DE CAFICULTORES DEL OCCIDENTE",
                   emisor_nombre_comercial="ASOCAFE OCCIDENTE", afiliacion_iva="GEN",
                   emisor_direccion=Direccion("7a. Avenida 3-15, Zona 1", "09001", "Quetzaltenango",
                                              "Quetzaltenango"),
                   **COMPRADOR, frases=[(4, 5)],
                   items=[Item.service("Cuota de asociado, marzo 2026", "1", "150.00")])


def recibo_donacion() -> Invoice:
    """RDON of a foundation (personería 2635) for a donation (frase 4-4), exempt IVA."""
    return Invoice(tipo="RDON", tipo_personeria="2635", fecha="2026-03-21T11:00:00-06:00",
                   emisor_nit=nit_with_check_digit("4618205"),
                   emisor_nombre="FUNDACIÓN MANOS QUE SIEMBRAN",
                   emisor_nombre_comercial="FUNDACIÓN MANOS QUE SIEMBRAN", afiliacion_iva="GEN",
                   emisor_direccion=Direccion("2a. Avenida 6-40, Zona 1", "12001", "San Marcos", "San Marcos"),
                   **COMPRADOR, frases=[(4, 4)],
                   items=[Item.service("Donación para comedor escolar", "1", "3000.00")])


def factura_ubicacion_temporal() -> Invoice:
    """FACT issued at a fair stand (EmisionUbicacionTemporal="SI", frase 9-14)."""
    return Invoice(tipo="FACT", fecha="2026-03-22T12:00:00-06:00", **COMERCIO,
                   frases=[(1, 1), (9, 14)],
                   attributes={"DatosGenerales": {"EmisionUbicacionTemporal": "SI"}},
                   items=[Item.goods("Miel de abeja, frasco de 500 g", "2", "45.00")])


def factura_combustible_apoyo() -> Invoice:
    """FACT of a fuel station with the social-support product codes (frase 9-19, Decreto 11-2026)."""
    return Invoice(
        tipo="FACT", fecha="2026-03-23T07:30:00-06:00", **COMERCIO, **COMPRADOR,
        frases=[(1, 1), (9, 19)],
        items=[
            Item.goods("Gasolina superior", "10", "29.00", unidad_medida="GAL", codigo_producto="GALSUPER",
                       otros_impuestos=[Impuesto("PETROLEO", 1, "47.00", cantidad_unidades_gravables="10")]),
            Item.goods("Combustible diésel", "15", "25.00", unidad_medida="GAL", codigo_producto="GALDIESEL",
                       otros_impuestos=[Impuesto("PETROLEO", 4, "19.50", cantidad_unidades_gravables="15")]),
        ],
    )


def factura_isr_directo() -> Invoice:
    """FACT of an emisor with SAT's resolution for direct ISR payment (frase 1-3 with resolution)."""
    return Invoice(tipo="FACT", fecha="2026-03-24T16:00:00-06:00", **COMERCIO, **COMPRADOR,
                   frases=[Frase(1, 3, numero_resolucion="2026-1-45-00731", fecha_resolucion="2026-01-15")],
                   items=[Item.service("Mantenimiento de cámaras frigoríficas", "1", "1800.00")])


DOCUMENTS = {
    "frases-farp.xml": factura_primario,
    "frases-farp-exportacion.xml": factura_primario_exportacion,
    "frases-fpec-exportacion.xml": factura_pecuario_exportacion,
    "frases-fepe.xml": factura_especifica,
    "frases-rant.xml": recibo_anticipo,
    "frases-facp.xml": factura_provisional,
    "frases-reci.xml": recibo,
    "frases-rdon.xml": recibo_donacion,
    "frases-temporal.xml": factura_ubicacion_temporal,
    "frases-combustible.xml": factura_combustible_apoyo,
    "frases-isr-directo.xml": factura_isr_directo,
}


def main() -> None:
    for name, build in DOCUMENTS.items():
        (HERE / name).write_bytes(build().to_xml())
        print(f"escrito {name}")


if __name__ == "__main__":
    main()

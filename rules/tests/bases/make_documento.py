"""Generate the base documents of the test cases of FEL-TIP, FEL-EXP, FEL-REC and FEL-PRO rules.

Each file is a valid document of a DTE type, or with a field, that ``examples/`` does not cover
(RDON, RANT, NEV, FEPE, FARP, FPEC; exports of FARP and FPEC; ClasificacionEmisor, AfiliacionOmiso,
EmisionUbicacionTemporal, CodigoProducto), built with the test builder (``fel_rules.testing``). All
content is invented; NITs carry a correct check digit. The output is deterministic.

Usage::

    .venv/bin/python rules/tests/bases/make_documento.py
"""

from __future__ import annotations

from pathlib import Path

from fel_rules.testing.builder import (
    Direccion,
    Exportacion,
    Impuesto,
    Invoice,
    Item,
    RawComplemento,
    nit_with_check_digit,
)
from fel_rules.testing.xmltools import etree

HERE = Path(__file__).resolve().parent

NS_CRFE = "http://www.sat.gob.gt/face2/ComplementoRetencionesFacturaEspecifica/0.1.0"

RECEPTOR = dict(
    receptor_id=nit_with_check_digit("6193047"),
    receptor_nombre="CONSTRUCTORA LOS ALTOS, SOCIEDAD ANÓNIMA",
)

FUNDACION = dict(
    emisor_nit=nit_with_check_digit("8120475"),
    emisor_nombre="FUNDACIÓN LETRAS PARA TODOS",
    emisor_nombre_comercial="FUNDACIÓN LETRAS PARA TODOS",
    afiliacion_iva="GEN",
    emisor_direccion=Direccion("3a. Calle 4-18, Zona 2", "01002", "Guatemala", "Guatemala"),
)

AGRICULTOR = dict(
    emisor_nit=nit_with_check_digit("6402815"),
    emisor_nombre="JOSÉ MANUEL SICAL CHOC",
    emisor_nombre_comercial="FINCA EL MIRADOR",
    afiliacion_iva="PRI",
    emisor_direccion=Direccion("Aldea Chicorral, Cobán", "16001", "Cobán", "Alta Verapaz"),
)

GANADERO = dict(
    emisor_nit=nit_with_check_digit("5730918"),
    emisor_nombre="RODOLFO ESTRADA MONZÓN",
    emisor_nombre_comercial="HACIENDA SANTA ROSALÍA",
    afiliacion_iva="PEC",
    emisor_direccion=Direccion("Kilómetro 165 Ruta al Atlántico", "19001", "Zacapa", "Zacapa"),
)


def recibo_donacion() -> Invoice:
    """RDON of a foundation (personería 2635) to a final consumer, exempt IVA (frase 4-4)."""
    return Invoice(tipo="RDON", tipo_personeria="2635", fecha="2026-03-06T11:00:00-06:00", **FUNDACION,
                   items=[Item.service("Donación para programa de alfabetización", "1", "500.00")])


def recibo_anticipo() -> Invoice:
    """RANT of a hardware company for a service paid in advance (frase 9-10), no IVA."""
    return Invoice(tipo="RANT", fecha="2026-03-11T09:30:00-06:00", **RECEPTOR, frases=[(9, 10)],
                   items=[Item.service("Anticipo por instalación de estanterías", "1", "1500.00",
                                       iva="ninguno")])


def nota_envio() -> Invoice:
    """NEV: goods sent to a customer, no taxes (frase 9-8)."""
    return Invoice(tipo="NEV", fecha="2026-03-12T08:00:00-06:00", **RECEPTOR, frases=[(9, 8)],
                   items=[Item.goods("Cemento gris 42.5 kg", "40", "85.00", iva="ninguno"),
                          Item.goods("Varilla de hierro 3/8\" × 6 m", "25", "46.50", iva="ninguno")])


def retenciones_factura_especifica(ict: str, total_menos: str) -> RawComplemento:
    """crfe:RetencionesFacturaEspecifica with the withheld ICT (1.5 % of GranTotal)."""
    element = etree.Element(f"{{{NS_CRFE}}}RetencionesFacturaEspecifica", nsmap={"crfe": NS_CRFE}, Version="1")
    etree.SubElement(element, f"{{{NS_CRFE}}}RetencionICT").text = ict
    etree.SubElement(element, f"{{{NS_CRFE}}}TotalMenosRetenciones").text = total_menos
    return RawComplemento(nombre_complemento="RetencionesFacturaEspecifica", element=element)


def factura_especifica() -> Invoice:
    """FEPE bought by a coffee mill from a primary producer (frase 12-1), goods only, no IVA.

    GranTotal Q3,720.00; ICT 1.5 % = Q55.80.
    """
    return Invoice(tipo="FEPE", fecha="2026-03-13T14:00:00-06:00",
                   emisor_nit=nit_with_check_digit("5418273"),
                   emisor_nombre="BENEFICIO DE CAFÉ LOS ALTOS, SOCIEDAD ANÓNIMA",
                   emisor_nombre_comercial="BENEFICIO LOS ALTOS", afiliacion_iva="GEN",
                   receptor_id=nit_with_check_digit("6402815"), receptor_nombre="JOSÉ MANUEL SICAL CHOC",
                   frases=[(12, 1)], complementos=[retenciones_factura_especifica("55.80", "3664.20")],
                   items=[Item.goods("Café en cereza, quintal", "12", "310.00", iva="ninguno")])


def factura_primario() -> Invoice:
    """FARP of a primary-regime farmer selling to a supermarket (frase 10-1), no IVA."""
    return Invoice(tipo="FARP", fecha="2026-03-16T10:00:00-06:00", **AGRICULTOR, **RECEPTOR,
                   frases=[(10, 1)], attributes={"Receptor": {"DestinodelaVenta": "Supermercado"}},
                   items=[Item.goods("Cardamomo en oro, quintal", "3", "1250.00", iva="ninguno")])


def factura_pecuario() -> Invoice:
    """FPEC of a livestock-regime rancher selling to a collection centre (frase 11-1), no IVA."""
    return Invoice(tipo="FPEC", fecha="2026-03-17T10:00:00-06:00", **GANADERO, **RECEPTOR,
                   frases=[(11, 1)], attributes={"Receptor": {"DestinodelaVenta": "Centro de acopio"}},
                   items=[Item.goods("Novillo en pie, 450 kg", "2", "6800.00", iva="ninguno")])


def factura_pecuario_intermediario() -> Invoice:
    """FPEC of a cattle intermediary (ClasificacionEmisor 1674, frase 11-2), no IVA."""
    return Invoice(tipo="FPEC", fecha="2026-03-18T10:00:00-06:00", **GANADERO, **RECEPTOR,
                   frases=[(11, 2)],
                   attributes={"Emisor": {"ClasificacionEmisor": "1674"},
                               "Receptor": {"DestinodelaVenta": "Intermediación de productos bovinos"}},
                   items=[Item.goods("Novillo en pie, 450 kg", "3", "6900.00", iva="ninguno")])


def factura_primario_exportacion() -> Invoice:
    """FARP of an export (Exp="SI", DestinodelaVenta Exportación, frase 10-2) to CF, no IVA."""
    return Invoice(tipo="FARP", exp=True, fecha="2026-03-19T10:00:00-06:00", **AGRICULTOR,
                   receptor_id="CF", receptor_nombre="SPICE TRADERS OF INDIA, LTD.", frases=[(10, 2)],
                   attributes={"Receptor": {"DestinodelaVenta": "Exportación"}},
                   complementos=[Exportacion(nombre_consignatario="Spice Traders of India, Ltd.",
                                             direccion_consignatario="12 Marine Drive, Mumbai, India",
                                             incoterm="FOB")],
                   items=[Item.goods("Cardamomo en oro, quintal", "20", "1300.00", iva="ninguno")])


def factura_pecuario_exportacion() -> Invoice:
    """FPEC of an export (Exp="SI", DestinodelaVenta Exportación en pie, frase 11-3) to CF, no IVA."""
    return Invoice(tipo="FPEC", exp=True, fecha="2026-03-20T10:00:00-06:00", **GANADERO,
                   receptor_id="CF", receptor_nombre="GANADERA DEL SURESTE, S.A. DE C.V.", frases=[(11, 3)],
                   attributes={"Receptor": {"DestinodelaVenta": "Exportación en pie"}},
                   complementos=[Exportacion(nombre_consignatario="Ganadera del Sureste, S.A. de C.V.",
                                             direccion_consignatario="Carretera Tapachula km 12, Chiapas, México",
                                             incoterm="FCA")],
                   items=[Item.goods("Novillo en pie, 450 kg", "10", "7000.00", iva="ninguno")])


def factura_omiso() -> Invoice:
    """FACT of an omiso issuer (AfiliacionIVA OMI) whose regime is the general one (AfiliacionOmiso GEN)."""
    return Invoice(tipo="FACT", fecha="2026-03-09T12:00:00-06:00", afiliacion_iva="OMI", **RECEPTOR,
                   attributes={"Emisor": {"AfiliacionOmiso": "GEN"}},
                   items=[Item.goods("Cemento gris 42.5 kg", "10", "85.00")])


def factura_ubicacion_temporal() -> Invoice:
    """FACT issued at a temporary location (EmisionUbicacionTemporal, frase 9-14)."""
    return Invoice(tipo="FACT", fecha="2026-03-14T16:00:00-06:00", frases=[(1, 1), (9, 14)],
                   attributes={"DatosGenerales": {"EmisionUbicacionTemporal": "SI"}},
                   items=[Item.goods("Juego de herramientas para feria, caja", "2", "350.00")])


def factura_galones() -> Invoice:
    """FACT of a fuel station with product codes GALSUPER, GALDIESEL and GALREGULAR (IDP codes 1, 4, 2)."""
    return Invoice(
        tipo="FACT", fecha="2026-03-21T07:30:00-06:00", **RECEPTOR, frases=[(1, 1), (9, 19)],
        emisor_nit=nit_with_check_digit("4729165"),
        emisor_nombre="SERVICIOS Y COMBUSTIBLES LOS VOLCANES, SOCIEDAD ANÓNIMA",
        emisor_nombre_comercial="ESTACIÓN DE SERVICIO LOS VOLCANES", codigo_establecimiento=3,
        items=[
            Item.goods("Gasolina superior", "10", "28.40", unidad_medida="GAL", codigo_producto="GALSUPER",
                       otros_impuestos=[Impuesto("PETROLEO", 1, "47.00", cantidad_unidades_gravables="10")]),
            Item.goods("Combustible diésel", "15", "25.15", unidad_medida="GAL", codigo_producto="GALDIESEL",
                       otros_impuestos=[Impuesto("PETROLEO", 4, "19.50", cantidad_unidades_gravables="15")]),
            Item.goods("Gasolina regular", "8", "27.10", unidad_medida="GAL", codigo_producto="GALREGULAR",
                       otros_impuestos=[Impuesto("PETROLEO", 2, "36.80", cantidad_unidades_gravables="8")]),
        ],
    )


DOCUMENTS = {
    "documento-rdon.xml": recibo_donacion,
    "documento-rant.xml": recibo_anticipo,
    "documento-nev.xml": nota_envio,
    "documento-fepe.xml": factura_especifica,
    "documento-farp.xml": factura_primario,
    "documento-fpec.xml": factura_pecuario,
    "documento-fpec-intermediario.xml": factura_pecuario_intermediario,
    "documento-farp-exportacion.xml": factura_primario_exportacion,
    "documento-fpec-exportacion.xml": factura_pecuario_exportacion,
    "documento-omiso.xml": factura_omiso,
    "documento-ubicacion.xml": factura_ubicacion_temporal,
    "documento-galones.xml": factura_galones,
}


def main() -> None:
    for name, build in DOCUMENTS.items():
        (HERE / name).write_bytes(build().to_xml())
        print(f"escrito {name}")


if __name__ == "__main__":
    main()

"""Generate the example FEL documents shipped in ``examples/`` (and the example logo).

All content is invented (companies, people, NITs, CUI, UUIDs) but consistent: every NIT and
the CUI carry a correct check digit, Serie/Numero derive from the UUID, and amounts follow
SAT's IVA-inclusive arithmetic (see ``fel_rules/testing/builder.py``). The documents are
unsigned (pre-signature): fel-rules validates them as such (an information note); against SAT's own
XSD, which requires the emisor's ds:Signature, they validate except for it. The certified one carries the
issuer's and the certifier's signatures, as a certified document always does, made with the tests'
self-signed certificate (``fel_rules/testing/signing.py``, not SAT's).

The output is deterministic: running the script again rewrites identical bytes.

Usage::

    python examples/generate.py           # write the files next to this script
    python examples/generate.py --check   # also validate them (XSD bundle + arithmetic)
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from fel_rules.testing.builder import (
    Anulacion,
    Cambiaria,
    Direccion,
    Exportacion,
    Impuesto,
    Invoice,
    Item,
    ReferenciasNota,
    RetencionesFacturaEspecial,
    cui_with_check_digit,
    nit_with_check_digit,
)

HERE = Path(__file__).resolve().parent
#: SAT's XSD bundle patched for offline use, in the reference data beside the checkout (``--check`` only).
SAT_BUNDLE = HERE.parent.parent / "shared/fel-reference/xsd/patched-offline/fel-bundle.xsd"

# -- parties ----------------------------------------------------------------------------

FERRETERIA = dict(
    emisor_nit=nit_with_check_digit("8537264"),
    emisor_nombre="FERRETERÍA EL QUETZAL, SOCIEDAD ANÓNIMA",
    emisor_nombre_comercial="FERRETERÍA EL QUETZAL",
    codigo_establecimiento=1,
    afiliacion_iva="GEN",
    emisor_direccion=Direccion("Calzada Roosevelt 22-43, Zona 11", "01011", "Guatemala", "Guatemala"),
)

LIBRERIA = dict(
    emisor_nit=nit_with_check_digit("7315829"),
    emisor_nombre="ANA LUCÍA XICARÁ TZUL",
    emisor_nombre_comercial="LIBRERÍA Y PAPELERÍA SAN BARTOLO",
    codigo_establecimiento=1,
    afiliacion_iva="PEQ",
    emisor_direccion=Direccion("4a. Calle 12-35, Zona 1", "09001", "Quetzaltenango", "Quetzaltenango"),
)

COLEGIO = dict(
    emisor_nit=nit_with_check_digit("9176305"),
    emisor_nombre="CENTRO EDUCATIVO MONTE VERDE, SOCIEDAD ANÓNIMA",
    emisor_nombre_comercial="COLEGIO MIXTO MONTE VERDE",
    codigo_establecimiento=1,
    afiliacion_iva="GEN",
    emisor_direccion=Direccion("Diagonal 3 15-20, Zona 3", "09001", "Quetzaltenango", "Quetzaltenango"),
)

BENEFICIO = dict(
    emisor_nit=nit_with_check_digit("5418273"),
    emisor_nombre="BENEFICIO DE CAFÉ LOS ALTOS, SOCIEDAD ANÓNIMA",
    emisor_nombre_comercial="BENEFICIO LOS ALTOS",
    codigo_establecimiento=2,
    afiliacion_iva="GEN",
    emisor_direccion=Direccion("Kilómetro 4.5 Carretera a Almolonga, Zona 6", "09001",
                               "Quetzaltenango", "Quetzaltenango"),
)

GASOLINERA = dict(
    emisor_nit=nit_with_check_digit("4729165"),
    emisor_nombre="SERVICIOS Y COMBUSTIBLES LOS VOLCANES, SOCIEDAD ANÓNIMA",
    emisor_nombre_comercial="ESTACIÓN DE SERVICIO LOS VOLCANES",
    codigo_establecimiento=3,
    afiliacion_iva="GEN",
    emisor_direccion=Direccion("Kilómetro 14.5 Carretera a El Salvador", "01051",
                               "Santa Catarina Pinula", "Guatemala"),
)

TRANSPORTISTA = dict(
    receptor_id=nit_with_check_digit("5826391"),
    receptor_nombre="TRANSPORTES RÁPIDOS DEL SUR, SOCIEDAD ANÓNIMA",
    receptor_direccion=Direccion("Avenida Petapa 38-12, Zona 12", "01012", "Guatemala", "Guatemala"),
)

CLIENTE_FACT = dict(
    receptor_id=nit_with_check_digit("3846152"),
    receptor_nombre="CARLOS ENRIQUE MÉNDEZ RUIZ",
    receptor_direccion=Direccion("15 Avenida 4-28, Zona 13", "01013", "Guatemala", "Guatemala"),
)

CONSTRUCTORA = dict(
    receptor_id=nit_with_check_digit("6193047"),
    receptor_nombre="CONSTRUCTORA LOS ALTOS, SOCIEDAD ANÓNIMA",
    receptor_direccion=Direccion("Avenida Las Américas 7-62, Zona 3", "09001",
                                 "Quetzaltenango", "Quetzaltenango"),
)

PADRE_DE_FAMILIA = dict(
    receptor_id=nit_with_check_digit("2938471"),
    receptor_nombre="MARÍA JOSÉ CHOJOLÁN GARCÍA",
)

PRODUCTOR_CUI = dict(
    receptor_id=cui_with_check_digit("27591843", 9, 12),
    receptor_tipo_especial="CUI",
    receptor_nombre="TOMÁS AJPOP YAX",
    receptor_direccion=Direccion("Aldea Santa Rita, Caserío El Mirador", None,
                                 "Colomba Costa Cuca", "Quetzaltenango", "GT"),
)

CERTIFICACION_FACT = dict(
    uuid="5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93",
    fecha="2026-03-02T09:15:27-06:00",
)

# -- documents --------------------------------------------------------------------------


def factura_fact() -> Invoice:
    """FACT to a NIT, three lines (one with a discount), frase ISR 1/1."""
    return Invoice(
        tipo="FACT", fecha="2026-03-02T09:15:00-06:00", **FERRETERIA, **CLIENTE_FACT,
        frases=[(1, 1)],
        items=[
            Item.goods("Cemento gris de uso general, bolsa 42.5 kg", "10", "85.00",
                       unidad_medida="BOL"),
            Item.goods('Varilla de hierro corrugado 3/8" x 6 m', "20", "38.50",
                       descuento="38.50"),
            Item.goods("Pintura látex blanca para interiores, galón", "2", "165.00",
                       unidad_medida="GAL"),
        ],
    )


def factura_certificada() -> Invoice:
    """The same FACT after certification (dte:Certificacion by SAT's free certifier)."""
    return factura_fact().certify(**CERTIFICACION_FACT)


def nota_credito() -> Invoice:
    """NCRE returning two damaged bags of the certified FACT."""
    return Invoice(
        tipo="NCRE", fecha="2026-03-09T11:40:00-06:00", **FERRETERIA, **CLIENTE_FACT,
        frases=[],
        items=[Item.goods("Devolución: cemento gris de uso general, bolsa 42.5 kg (bolsas dañadas)",
                          "2", "85.00", unidad_medida="BOL")],
        complementos=[ReferenciasNota.of(
            factura_certificada(), motivo="Devolución de 2 bolsas de cemento dañadas en el transporte")],
    )


def factura_cambiaria() -> Invoice:
    """FCAM to a construction company, payable in two abonos."""
    return Invoice(
        tipo="FCAM", fecha="2026-03-10T15:05:00-06:00", **FERRETERIA, **CONSTRUCTORA,
        frases=[(1, 1)],
        items=[
            Item.goods("Block de concreto 15 x 20 x 40 cm", "500", "4.75"),
            Item.goods("Arena de río, metro cúbico", "6", "210.00", unidad_medida="M3"),
            Item.goods('Piedrín de 1/2", metro cúbico', "4", "295.00", unidad_medida="M3"),
        ],
        complementos=[Cambiaria.plazos("2026-04-10", "2026-05-10")],
    )


def factura_pequeno() -> Invoice:
    """FPEQ of a small taxpayer: no IVA detail, frase 3/1."""
    return Invoice(
        tipo="FPEQ", fecha="2026-02-18T16:20:00-06:00", **LIBRERIA,
        receptor_id="CF", receptor_nombre="CONSUMIDOR FINAL",
        frases=[(3, 1)],
        items=[
            Item.goods("Cuaderno universitario de 100 hojas, cuadriculado", "5", "18.50"),
            Item.goods("Lapicero de tinta azul", "12", "2.50"),
            Item.goods("Resma de papel bond tamaño carta, 500 hojas", "1", "48.00"),
        ],
    )


def factura_exenta() -> Invoice:
    """FACT of a school: exempt tuition (frase 4, escenario 8) and a taxed uniform."""
    return Invoice(
        tipo="FACT", fecha="2026-03-04T08:10:00-06:00", **COLEGIO, **PADRE_DE_FAMILIA,
        frases=[(1, 1), (4, 8)],
        items=[
            Item.service("Colegiatura del mes de marzo 2026, tercero primaria", "1", "650.00",
                         iva="exento"),
            Item.goods("Uniforme de educación física (pants y playera), talla 10", "1", "240.00"),
        ],
    )


def factura_especial() -> Invoice:
    """FESP: the beneficio buys coffee cherry from a producer identified by CUI."""
    return Invoice(
        tipo="FESP", fecha="2026-01-22T13:30:00-06:00", **BENEFICIO, **PRODUCTOR_CUI,
        frases=[(5, 1)],
        items=[Item.goods("Café en uva (cereza madura), quintal", "25", "310.00",
                          unidad_medida="QQ")],
        complementos=[RetencionesFacturaEspecial()],
    )


def factura_exportacion() -> Invoice:
    """Export FACT (Exp="SI"): receptor CF, exempt lines, frase 4/1, Exportacion complement."""
    comprador = "PACIFIC BEAN IMPORTERS, INC."
    direccion = "2200 Harbor Boulevard, Oakland, CA 94607, Estados Unidos"
    return Invoice(
        tipo="FACT", exp=True, fecha="2026-03-20T10:00:00-06:00", **BENEFICIO,
        receptor_id="CF", receptor_nombre=comprador,
        frases=[(1, 1), (4, 1)],
        items=[Item.goods("Café oro lavado estrictamente duro (SHB), saco de 69 kg", "275",
                          "2650.00", unidad_medida="SAC")],
        complementos=[Exportacion(
            lugar_expedicion="Quetzaltenango, Guatemala",
            nombre_consignatario=comprador, direccion_consignatario=direccion,
            codigo_consignatario="PBI-0042",
            nombre_comprador=comprador, direccion_comprador=direccion, codigo_comprador="PBI-0042",
            pais_consignatario="US", otra_referencia="Contrato de compraventa PBI-2026-007",
            incoterm="FOB", nombre_exportador="BENEFICIO DE CAFÉ LOS ALTOS, S.A.",
            codigo_exportador="EXP-54182735", fecha_exportacion="20/03/2026",
            via_transporte="Marítima", aduana_salida="Puerto Quetzal",
        )],
    )


def factura_combustible() -> Invoice:
    """FACT of a fuel station: gasoline and diesel with IDP (PETROLEO), and a line without IDP.

    The IDP is a specific tax per gallon (CantidadUnidadesGravables, no MontoGravable), added to
    the line Total: superior (code 1) 12.5 gal × Q4.70 = 58.75; diésel (code 4) 20 gal × Q1.30 = 26.00
    (rates of rules/data/impuestos.yaml). IVA is included in Precio, as on any line.
    """
    return Invoice(
        tipo="FACT", fecha="2026-03-12T07:45:00-06:00", **GASOLINERA, **TRANSPORTISTA,
        frases=[(1, 1)],
        items=[
            Item.goods("Gasolina superior", "12.5", "28.40", unidad_medida="GAL", otros_impuestos=[
                Impuesto("PETROLEO", 1, "58.75", cantidad_unidades_gravables="12.5")]),
            Item.goods("Combustible diésel", "20", "25.15", unidad_medida="GAL", descuento="10.00",
                       otros_impuestos=[Impuesto("PETROLEO", 4, "26.00", cantidad_unidades_gravables="20")]),
            Item.goods("Aceite para motor 15W-40, galón", "1", "195.00", unidad_medida="GAL"),
        ],
    )


def anulacion() -> Anulacion:
    """Annulment of another (not shipped) FACT of the ferretería, issued to CF."""
    return Anulacion(
        numero_documento="3B7E9A12-64C1-4F0D-8E25-A9D3C6B1F47E",
        nit_emisor=FERRETERIA["emisor_nit"], id_receptor="CF",
        fecha_emision_documento="2026-03-05T14:02:00-06:00",
        fecha_hora_anulacion="2026-03-05T16:20:00-06:00",
        motivo="Descripción del producto incorrecta; se emite una nueva factura",
    )


EXAMPLES = {
    "factura-fact.xml": factura_fact,
    "factura-certificada.xml": factura_certificada,
    "nota-credito-ncre.xml": nota_credito,
    "factura-cambiaria-fcam.xml": factura_cambiaria,
    "factura-pequeno-fpeq.xml": factura_pequeno,
    "factura-exenta.xml": factura_exenta,
    "factura-especial-fesp.xml": factura_especial,
    "factura-exportacion.xml": factura_exportacion,
    "factura-combustible.xml": factura_combustible,
    "anulacion.xml": anulacion,
}


def build_examples() -> dict[str, bytes]:
    """File name -> XML bytes of every example document (unsigned)."""
    return {name: factory().to_xml() for name, factory in EXAMPLES.items()}


# -- logo -------------------------------------------------------------------------------

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
GREEN, DARK_GREEN, RED, GREY = (11, 122, 75), (6, 71, 44), (200, 16, 46), (90, 98, 94)


def draw_logo(width: int = 600, height: int = 200) -> bytes:
    """PNG bytes of the example company logo (drawn at 3x, then downsampled)."""
    from PIL import Image, ImageDraw

    scale = 3
    image = Image.new("RGB", (width * scale, height * scale), "white")
    draw = ImageDraw.Draw(image)
    s = lambda *values: [v * scale for v in values]  # noqa: E731
    # Mark: green rounded square, white hexagonal nut, red quetzal-tail arc.
    draw.rounded_rectangle(s(20, 20, 180, 180), radius=32 * scale, fill=GREEN)
    draw.arc(s(-50, -130, 250, 170), start=68, end=112, fill=RED, width=8 * scale)
    nut = [(100, 40), (143, 65), (143, 115), (100, 140), (57, 115), (57, 65)]
    draw.polygon([(x * scale, y * scale) for x, y in nut], fill="white")
    draw.ellipse(s(79, 69, 121, 111), fill=GREEN)
    # Wordmark.
    draw.text((205 * scale, 38 * scale), "Ferretería", fill=DARK_GREEN,
              font=_font("DejaVuSans-Bold.ttf", 46 * scale))
    draw.text((205 * scale, 92 * scale), "El Quetzal", fill=RED,
              font=_font("DejaVuSans-Bold.ttf", 40 * scale))
    draw.text((207 * scale, 146 * scale), "Materiales de construcción · Guatemala", fill=GREY,
              font=_font("DejaVuSans.ttf", 15 * scale))
    logo = image.resize((width, height), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    logo.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def _font(name: str, size: int):
    from PIL import ImageFont

    path = FONT_DIR / name
    return ImageFont.truetype(str(path), size) if path.exists() else ImageFont.load_default(size)


# -- main -------------------------------------------------------------------------------


def check(examples: dict[str, bytes]) -> int:
    """Validate every example (XSD except the missing signature, arithmetic); print a report."""
    from fel_rules.testing.verify import (
        arithmetic_problems,
        load_bundle,
        xsd_errors,
        xsd_errors_except_signature,
    )

    if not SAT_BUNDLE.exists():
        print(f"XSD bundle not found at {SAT_BUNDLE}: schema check skipped")
        schema = None
    else:
        schema = load_bundle(SAT_BUNDLE)
    failures = 0
    for name, xml in examples.items():
        problems = [] if name.startswith("anulacion") else arithmetic_problems(xml)
        if schema is not None:
            all_errors = xsd_errors(schema, xml)
            problems += xsd_errors_except_signature(schema, xml)
            note = f"XSD: {len(all_errors)} error(s), only the missing ds:Signature" \
                if not problems else "XSD/arithmetic problems"
        else:
            note = "arithmetic only"
        failures += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} {name}: {note}")
        for problem in problems:
            print(f"       {problem}")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="validate the generated documents")
    args = parser.parse_args(argv)
    examples = build_examples()
    for name, xml in examples.items():
        (HERE / name).write_bytes(xml)
    (HERE / "logo.png").write_bytes(draw_logo())
    print(f"wrote {len(examples)} documents and logo.png to {HERE}")
    return check(examples) if args.check else 0


if __name__ == "__main__":
    sys.exit(main())

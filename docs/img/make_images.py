"""Render the README's example invoices and save their first pages as PNG.

Run: ``python docs/img/make_images.py`` (uses pypdfium2 from the test extras to rasterise). The pictures: the
certified example on letter paper, the exchange invoice in the ``moderno`` theme, the certified example on an
80 mm ticket, and a half-letter invoice with a 170-character razón social, a long address, Mayan and Cyrillic
names and an adenda.
"""

from __future__ import annotations

from pathlib import Path

import pypdfium2

from fel_rules.outputs.render import RenderSettings, render_bytes
from fel_rules.testing.builder import Direccion, Invoice, Item

ROOT = Path(__file__).resolve().parents[2]
LOGO = ROOT / "examples" / "logo.png"

NAME = ("DISTRIBUIDORA INTERNACIONAL DE MATERIALES DE CONSTRUCCIÓN, FERRETERÍA Y ACABADOS ARQUITECTÓNICOS DEL "
        "ALTIPLANO OCCIDENTAL DE GUATEMALA, SOCIEDAD ANÓNIMA")


def long_invoice() -> bytes:
    """A half-letter stress case: long names and address, ʼ and Cyrillic, units of measure, an adenda."""
    address = Direccion(direccion="Kilómetro 14.5 Carretera Interamericana, Centro Comercial Las Américas, Local "
                                  "23-B, Aldea Llano Grande, San Lucas Sacatepéquez, Sacatepéquez",
                        codigo_postal="03006", municipio="San Lucas Sacatepéquez", departamento="Sacatepéquez")
    items = [Item.goods("Güipil tejido a mano en telar de cintura, Santiago Atitlán (Tzʼutujil)", "2", "450.00",
                        unidad_medida="UNI"),
             Item.goods("Cemento gris de uso general, bolsa 42.5 kg", "12", "85.00", unidad_medida="BOL"),
             Item.service("Flete y descarga en obra", "1", "350.00", unidad_medida="SRV")]
    invoice = Invoice(emisor_nombre=NAME, emisor_nombre_comercial="Tejidos y Materiales Qʼanjobʼal",
                      emisor_direccion=address, receptor_id="38461528", receptor_nombre="Иван Петров (Importaciones)",
                      frases=[(1, 1)], items=items,
                      adenda={"NumeroOrden": "OC-2026-00457", "Vendedor": "María José Xicará",
                              "Observaciones": "Entregar en bodega 3 antes de las 10:00"})
    return invoice.certify("5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93", "2026-03-02T09:15:27-06:00").to_xml()


PICTURES = {
    "factura-certificada": ("factura-certificada.xml", {"theme": "clasico"}),
    "factura-cambiaria-fcam": ("factura-cambiaria-fcam.xml", {"theme": "moderno"}),
    "ticket-80mm": ("factura-certificada.xml", {"page": "ticket"}),
    "media-carta-nombre-largo": (None, {"page": "media-carta"}),
}


def main() -> None:
    for name, (source, options) in PICTURES.items():
        settings = RenderSettings.from_env({}, logo=LOGO, **options)
        data = (ROOT / "examples" / source).read_bytes() if source else long_invoice()
        pdf = render_bytes(data, settings=settings).pdf
        page = pypdfium2.PdfDocument(pdf)[0]
        target = Path(__file__).parent / f"{name}.png"
        image = page.render(scale=100 / 72).to_pil().convert("RGB")
        image.quantize(colors=64).save(target, optimize=True)  # a few colours: small files, sharp text
        print(target.relative_to(ROOT), target.stat().st_size // 1024, "KB")


if __name__ == "__main__":
    main()

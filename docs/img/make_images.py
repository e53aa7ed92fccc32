"""Render the README's example invoices and save their first pages as PNG.

Run: ``python docs/img/make_images.py`` (uses pypdfium2 from the test extras to rasterise). The pictures: the
certified example on letter paper, the exchange invoice in the ``moderno`` theme, the certified example on an
80 mm ticket, and a half-letter invoice with a 170-character razón social, a long address, Mayan and Cyrillic
names and an adenda. Then a screenshot of the ``reporte.html`` of a batch over the examples plus one invoice with
an error, its findings unfolded (with Debian's chromium; without it that picture is left as it is).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import pypdfium2
from PIL import Image

from fel_rules.batch import BatchOptions, run_batch
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
    page_picture(Path(__file__).parent / "reporte-html.png")


def page_picture(target: Path) -> None:
    """The batch page of the examples and one invalid invoice: sorted by verdict, the invalid one unfolded."""
    sys.path.insert(0, str(ROOT))
    from tests.browser import CHROMIUM, Browser

    if CHROMIUM is None:
        print("chromium is not installed: reporte-html.png left as it is", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "facturas"
        shutil.copytree(ROOT / "examples", folder, ignore=shutil.ignore_patterns("*.py", "*.md"))
        wrong = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], gran_total="999.00",
                        items=[Item.goods("Arena de río, metro cúbico", "3", "210.00")])
        (folder / "factura-con-error.xml").write_bytes(wrong.to_xml())
        out = Path(tmp) / "salida"
        run_batch(BatchOptions(input_dir=folder, out_dir=out, progress=False,
                               render_settings=RenderSettings.from_env({}, logo=LOGO)))
        with Browser(width=1280, height=1150) as browser:
            browser.open(out / "reporte.html")
            browser.eval("document.querySelectorAll('#documents thead th')[7].querySelector('button').click()")
            browser.eval("document.querySelector('#documents tbody[data-verdict=invalid] button.toggle').click()")
            shot = browser.screenshot(Path(tmp) / "page.png")
        Image.open(shot).convert("RGB").quantize(colors=128).save(target, optimize=True)
    print(target.relative_to(ROOT), target.stat().st_size // 1024, "KB")


if __name__ == "__main__":
    main()

"""Render three example invoices and save their first pages as PNG for the README, and a screenshot of the
``reporte.html`` of a batch over the examples (plus one invoice with an error, its findings unfolded).

Run: ``python docs/img/make_images.py`` (uses pypdfium2 from the test extras to rasterise, and Debian's chromium
for the page; without chromium the page's picture is left as it is).
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
from fel_rules.testing.builder import Invoice, Item

ROOT = Path(__file__).resolve().parents[2]

PICTURES = {
    "factura-certificada": "clasico",
    "factura-cambiaria-fcam": "moderno",
    "nota-credito-ncre": "clasico",
}


def main() -> None:
    for name, theme in PICTURES.items():
        settings = RenderSettings.from_env({}, logo=ROOT / "examples" / "logo.png", theme=theme)
        pdf = render_bytes((ROOT / "examples" / f"{name}.xml").read_bytes(), settings=settings).pdf
        page = pypdfium2.PdfDocument(pdf)[0]
        target = Path(__file__).parent / f"{name}.png"
        page.render(scale=110 / 72).to_pil().convert("RGB").save(target, optimize=True)
        print(target.relative_to(ROOT))
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
                               render_settings=RenderSettings.from_env({}, logo=folder / "logo.png")))
        with Browser(width=1280, height=1150) as browser:
            browser.open(out / "reporte.html")
            browser.eval("document.querySelectorAll('#documents thead th')[7].querySelector('button').click()")
            browser.eval("document.querySelector('#documents tbody[data-verdict=invalid] button.toggle').click()")
            shot = browser.screenshot(Path(tmp) / "page.png")
        image = Image.open(shot).convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
        image.save(target, optimize=True)
    print(target.resolve().relative_to(ROOT), f"{target.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()

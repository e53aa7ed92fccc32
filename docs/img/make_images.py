"""Render three example invoices and save their first pages as PNG for the README.

Run: ``python docs/img/make_images.py`` (uses pypdfium2 from the test extras to rasterise).
"""

from __future__ import annotations

from pathlib import Path

import pypdfium2

from fel_rules.outputs.render import RenderSettings, render_bytes

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


if __name__ == "__main__":
    main()

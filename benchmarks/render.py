"""Benchmark of PDF rendering: medians for a 1-page invoice and a 100-line invoice.

Run from the repository root: ``python -m benchmarks.render [--repeat N]``. Each figure covers what
``render_bytes`` does (validate, build the view, lay out with reportlab, QR) and is printed next to a
reference measured in the same process — validation alone — so machine noise affects both alike. Nothing
asserts timings.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.timing import median_ms
from fel_rules import Validator
from fel_rules.outputs.render import RenderSettings, render_bytes
from fel_rules.testing.builder import Invoice, Item

ROOT = Path(__file__).resolve().parent.parent

UUID = "5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93"


def invoice(lines: int) -> bytes:
    items = [Item.goods(f"Artículo de ferretería número {n}, presentación estándar", cantidad=str(1 + n % 4),
                        precio_unitario=f"{15 + n}.50") for n in range(1, lines + 1)]
    document = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items)
    return document.certify(UUID, "2026-03-02T09:15:27-06:00").to_xml()




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()
    validator = Validator()
    settings = RenderSettings.from_env({}, logo=ROOT / "examples" / "logo.png")
    print(f"{'invoice':>22} {'pages':>5} {'render':>9} {'PDFs/s':>7} {'validate ref':>13} {'ratio':>6}")
    for label, data in (("3 lines (examples)", (ROOT / "examples" / "factura-certificada.xml").read_bytes()),
                        ("1 page, 10 lines", invoice(10)), ("100 lines", invoice(100))):
        print(_row(label, data, validator, settings, args.repeat))
    print("\nrender = validate + view + reportlab layout + QR, one core; ratio = render / validation alone.")


def _row(label: str, data: bytes, validator: Validator, settings: RenderSettings, repeat: int) -> str:
    """One line of the table: rendering ``data`` against validating it alone, side by side."""
    result = render_bytes(data, settings=settings, validator=validator)  # warm-up (logo, schema)
    pages = result.pdf.count(b"/Type /Page\n")
    render = median_ms(lambda: render_bytes(data, settings=settings, validator=validator), repeat)
    reference = median_ms(lambda: validator.validate_bytes(data), repeat)
    return (f"{label:>22} {pages:>5} {render:>7.2f}ms {1000 / render:>7.0f} {reference:>11.2f}ms "
            f"{render / reference:>6.1f}")


if __name__ == "__main__":
    main()

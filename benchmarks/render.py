"""Benchmark of PDF rendering: medians for a 1-page invoice and a 100-line invoice.

Run from the repository root: ``python -m benchmarks.render [--repeat N]``. The first table covers what a PDF
costs once its document is validated (what a batch worker does: build the view, lay out with reportlab, QR,
the logo), in PDFs per second on one core, beside a reference measured in the same process: reportlab
writing an empty letter page with the same logo. The second covers what ``render_bytes`` does (validate, then
the same), beside validation alone. Both tables are medians of CPU time, measured interleaved: machine noise
affects both columns of a row alike. Nothing asserts timings.
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path

from reportlab.lib.pagesizes import LETTER
from reportlab.pdfgen.canvas import Canvas

from benchmarks.timing import interleaved_cpu_ms
from fel_rules import Validator
from fel_rules.outputs.render import RenderSettings, build_view, render_bytes
from fel_rules.outputs.render.api import load_logo
from fel_rules.outputs.render.pdf import render_view
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
    cases = (("3 lines (examples)", (ROOT / "examples" / "factura-certificada.xml").read_bytes()),
             ("1 page, 10 lines", invoice(10)), ("100 lines", invoice(100)))
    logo = load_logo(settings.logo, settings)
    print(f"{'invoice':>22} {'pages':>5} {'layout':>9} {'PDFs/s':>7} {'empty page ref':>15} {'ref/s':>6} {'ratio':>6}")
    for label, data in cases:
        print(_layout_row(label, data, validator, logo, settings.logo, args.repeat))
    print("\nlayout = view + reportlab layout + QR + logo (a validated document), one core;"
          "\nref = reportlab alone writing an empty page with the same logo file; ratio = layout / ref;"
          "\nmedians of CPU time (other processes on the machine do not count).\n")
    print(f"{'invoice':>22} {'pages':>5} {'render':>9} {'PDFs/s':>7} {'validate ref':>13} {'ratio':>6}")
    for label, data in cases:
        print(_row(label, data, validator, settings, args.repeat))
    print("\nrender = validate + view + reportlab layout + QR, one core; ratio = render / validation alone;"
          "\nmedians of CPU time, as above.")


def _empty_page(logo: Path | None) -> bytes:
    """The reference: one empty letter page with the logo file drawn, by reportlab alone."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=LETTER, invariant=1)
    if logo:
        canvas.drawImage(str(logo), 40, 700, 120, 60, mask="auto")
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def _layout_row(label: str, data: bytes, validator: Validator, logo: bytes | None, logo_file: Path | None,
                repeat: int) -> str:
    """One line of the table: laying out a validated document against the empty page, side by side."""
    outcome = validator.inspect_bytes(data, path="bench.xml")
    report, facts = outcome.report, outcome.facts
    frases = validator.catalog.catalogues.frases

    def layout() -> bytes:
        return render_view(build_view(facts, report, frases=frases), logo=logo).pdf

    pages = layout().count(b"/Type /Page\n")
    _empty_page(logo_file)
    times = interleaved_cpu_ms({"layout": layout, "empty page": lambda: _empty_page(logo_file)}, repeat,
                               block=5)
    measured, reference = times["layout"], times["empty page"]
    return (f"{label:>22} {pages:>5} {measured:>7.2f}ms {1000 / measured:>7.0f} {reference:>13.2f}ms "
            f"{1000 / reference:>6.0f} {measured / reference:>6.1f}")


def _row(label: str, data: bytes, validator: Validator, settings: RenderSettings, repeat: int) -> str:
    """One line of the table: rendering ``data`` against validating it alone, side by side."""
    result = render_bytes(data, settings=settings, validator=validator)  # warm-up (logo, schema)
    pages = result.pdf.count(b"/Type /Page\n")
    times = interleaved_cpu_ms({"render": lambda: render_bytes(data, settings=settings, validator=validator),
                                "validate": lambda: validator.validate_bytes(data)}, repeat, block=5)
    render, reference = times["render"], times["validate"]
    return (f"{label:>22} {pages:>5} {render:>7.2f}ms {1000 / render:>7.0f} {reference:>11.2f}ms "
            f"{render / reference:>6.1f}")


if __name__ == "__main__":
    main()

"""A small folder for the batch's page (reporte.html) and ledger (libro.csv): an invoice with its credit and
debit notes, an annulled invoice and its annulment, a fuel invoice with another tax, one in dollars, an invalid
one, a document whose names are hostile (markup, quotes, formulas, bidirectional and C1 control characters), and
a file that is not XML."""

from __future__ import annotations

import shutil
from pathlib import Path

from fel_rules.testing.builder import Anulacion, Invoice, Item, ReferenciasNota

from .conftest import EXAMPLES

ORIGIN_UUID = "7B21C6A4-3D5E-4F60-9A81-B2C3D4E5F607"
ANNULLED_UUID = "2C4E6A8B-1D3F-4A5B-9C7D-8E9F0A1B2C3D"
HOSTILE_NAME = '<script>alert("x")</script> & \'Comillas\' "dobles" \u202eevil\u0085'
FORMULA_NAME = '=HYPERLINK("http://example.invalid","clic")'
#: The documents of the folder by file name, in path order.
NAMES = ("a-factura.xml", "b-nota-credito.xml", "c-nota-debito.xml", "d-anulada.xml", "e-anulacion.xml",
         "f-combustible.xml", "g-dolares.xml", "h-invalida.xml", "i-hostil.xml", "j-no-es-xml.xml")


def fill(folder: Path) -> Path:
    """Write the folder into ``folder`` and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    origin = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], fecha="2026-03-02T09:15:27-06:00",
                     items=[Item.goods("Cemento gris, bolsa 42.5 kg", "10", "85.00")])
    origin.certify(ORIGIN_UUID, "2026-03-02T09:16:00-06:00")
    _write(folder, "a-factura.xml", origin.to_xml())
    credit = Invoice(tipo="NCRE", receptor_id="CF", fecha="2026-03-09T11:40:00-06:00",
                     items=[Item.goods("Devolución de cemento", "2", "85.00")],
                     complementos=[ReferenciasNota.of(origin, "Devolución parcial")])
    _write(folder, "b-nota-credito.xml", credit.to_xml())
    debit = Invoice(tipo="NDEB", receptor_id="CF", fecha="2026-03-10T08:00:00-06:00",
                    items=[Item.service("Flete de entrega", "1", "56.00")],
                    complementos=[ReferenciasNota.of(origin, "Cargo por flete")])
    _write(folder, "c-nota-debito.xml", debit.to_xml())
    annulled = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], fecha="2026-03-03T10:00:00-06:00",
                       items=[Item.goods("Clavos de 3 pulgadas, libra", "4", "12.50")])
    annulled.certify(ANNULLED_UUID, "2026-03-03T10:01:00-06:00")
    _write(folder, "d-anulada.xml", annulled.to_xml())
    annulment = Anulacion.for_invoice(annulled, "2026-03-04T16:20:00-06:00", "Cantidad incorrecta")
    _write(folder, "e-anulacion.xml", annulment.certify("2026-03-04T16:21:00-06:00").to_xml())
    shutil.copyfile(EXAMPLES / "factura-combustible.xml", folder / "f-combustible.xml")
    dollars = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], moneda="USD", fecha="2026-03-05T12:00:00-06:00",
                      items=[Item.goods("Herramienta importada", "1", "250.00")])
    _write(folder, "g-dolares.xml", dollars.to_xml())
    invalid = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], gran_total="999.00",
                      fecha="2026-03-06T15:30:00-06:00",
                      items=[Item.goods("Arena de río, metro cúbico", "3", "210.00")])
    _write(folder, "h-invalida.xml", invalid.to_xml())
    hostile = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], fecha="2026-03-07T09:00:00-06:00",
                      emisor_nombre=HOSTILE_NAME, receptor_nombre=FORMULA_NAME,
                      items=[Item.goods("Pintura <b>roja</b>", "1", "165.00")])
    _write(folder, "i-hostil.xml", hostile.to_xml())
    (folder / "j-no-es-xml.xml").write_text("Factura 123: Q 100.00\n", encoding="utf-8")
    return folder


def _write(folder: Path, name: str, data: bytes) -> None:
    (folder / name).write_bytes(data)

"""A folder of invoices for batch tests: valid, invalid, not XML, unreadable, cross-document cases."""

from __future__ import annotations

import os
from pathlib import Path

from fel_rules.testing.builder import Invoice, Item, ReferenciasNota

ORIGIN_UUID = "7B21C6A4-3D5E-4F60-9A81-B2C3D4E5F607"
TWIN_UUID = "1A2B3C4D-5E6F-4A7B-8C9D-0E1F2A3B4C5D"


def fill(folder: Path) -> Path:
    """Write the mixed folder into ``folder`` and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    origin = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)],
                     items=[Item.goods("Cemento gris, bolsa 42.5 kg", "10", "85.00")])
    origin.certify(ORIGIN_UUID, "2026-03-02T09:15:27-06:00")
    (folder / "a-factura.xml").write_bytes(origin.to_xml())
    note = Invoice(tipo="NCRE", receptor_id="CF", moneda="USD",
                   items=[Item.goods("Devolución de cemento", "12", "85.00")],
                   complementos=[ReferenciasNota.of(origin, "Devolución")])
    (folder / "b-nota-credito.xml").write_bytes(note.to_xml())
    good_note = Invoice(tipo="NCRE", receptor_id="CF", items=[Item.goods("Devolución de cemento", "2", "85.00")],
                        complementos=[ReferenciasNota.of(origin, "Devolución parcial")])
    (folder / "c-nota-correcta.xml").write_bytes(good_note.to_xml())
    for name, amount in (("d-gemela-1.xml", "10.00"), ("d-gemela-2.xml", "20.00")):
        twin = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=[Item.goods("Clavos", "1", amount)])
        (folder / name).write_bytes(twin.certify(TWIN_UUID, "2026-03-03T10:00:00-06:00").to_xml())
    bad = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], gran_total="999.00",
                  items=[Item.goods("Arena de río, metro cúbico", "3", "210.00")])
    (folder / "e-invalida.xml").write_bytes(bad.to_xml())
    (folder / "f-no-es-xml.xml").write_text("Factura 123: Q 100.00\n", encoding="utf-8")
    (folder / "g-roto.xml").symlink_to(folder / "no-existe.xml")
    (folder / "notas.txt").write_text("no es una factura", encoding="utf-8")
    nested = folder / "marzo"
    nested.mkdir(exist_ok=True)
    (nested / "h-anidada.xml").write_bytes(
        Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=[Item.goods("Pintura", "1", "165.00")]).to_xml())
    os.utime(folder / "a-factura.xml", (0, 0))
    return folder

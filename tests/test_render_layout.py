"""Valid documents that strain the renderer: cells longer than a page split across pages, and a failure of
the renderer itself is one clear line that never changes a verdict (CLI, batch)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reportlab.platypus.doctemplate import LayoutError

from fel_rules.batch import BatchOptions, run_batch
from fel_rules.batch.runner import _render_task
from fel_rules.batch.worker import FileTask, PdfNote, process_file
from fel_rules.cli.app import main
from fel_rules.outputs.render import RenderSettings, render_bytes
from fel_rules.outputs.render import api as render_api
from fel_rules.testing.builder import Invoice, Item

from .conftest import EXAMPLES
from .test_render import pdf_pages

UUID = "5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93"
_WORDS = "Servicio de mantenimiento preventivo y correctivo del equipo de bombeo industrial, repuestos incluidos. "


def _long_description(length: int = 9_990) -> str:
    text = "PRIMERA " + _WORDS * (length // len(_WORDS))
    return text[: length - 7] + " ULTIMA"


@pytest.fixture(scope="module")
def long_description_invoice() -> bytes:
    items = [Item.goods("Cemento gris 42.5 kg", "1", "85.00"), Item.goods(_long_description(), "2", "1500.00"),
             Item.goods("Arena de río, metro cúbico", "3", "150.00")]
    invoice = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items)
    return invoice.certify(UUID, "2026-03-02T09:15:27-06:00").to_xml()


def test_long_cells_split_across_pages(validator, long_description_invoice, tmp_path):
    assert validator.validate_bytes(long_description_invoice).valid
    result = render_bytes(long_description_invoice, settings=RenderSettings.from_env({}), validator=validator)
    pages = pdf_pages(result.pdf)
    assert len(pages) >= 3
    text = " ".join(" ".join(page.split()) for page in pages)
    assert text.count("Servicio de mantenimiento preventivo") == len(_long_description()) // len(_WORDS)
    assert text.index("PRIMERA") < text.index("ULTIMA") < text.index("Arena de río")
    for number, page in enumerate(pages, 1):
        if "Servicio de mantenimiento" in page:
            assert "Descripción" in page, f"table header missing on page {number}"
    folder = tmp_path / "entrada"
    folder.mkdir()
    (folder / "larga.xml").write_bytes(long_description_invoice)
    entry, = run_batch(BatchOptions(folder, tmp_path / "salida", workers=1, progress=False)).manifest.entries
    assert (entry.valid, entry.error, entry.pdf) == (True, None, "larga.pdf")


def _layout_error(*args, **kwargs):
    raise LayoutError("Flowable <Table@0x7F 3 rows x 7 cols> too large\non page 2 in frame 'normal'")


def test_render_failure_never_changes_a_verdict(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(render_api, "render_view", _layout_error)
    source = EXAMPLES / "factura-certificada.xml"
    assert main(["render", str(source), "--out", str(tmp_path / "f.pdf")]) == 2
    err = capsys.readouterr().err
    assert err == ("fel-rules: error: No se pudo componer el PDF (el veredicto de validación no cambia): algo no "
                   "cabe en la página (por ejemplo, un texto muy largo sin espacios en una línea)\n")
    assert not (tmp_path / "f.pdf").exists()

    import fel_rules.outputs.render.pdf as pdf  # what a batch worker renders with

    monkeypatch.setattr(pdf, "render_view", _layout_error)
    task = FileTask(str(source), "f.xml", str(tmp_path), True, {"lang": "es"}, RenderSettings().model_dump(mode="json"))
    result = process_file(task)
    assert (result.valid, result.error, result.pdf, result.pdf_note) == (True, None, None, PdfNote.NOT_WRITTEN)
    assert json.loads((tmp_path / "f.report.json").read_text())["valid"] is True
    rel, _, error = _render_task(task)  # the batch's second attempt, once cross-document rules are in
    assert error.startswith("No se pudo componer el PDF (el veredicto de validación no cambia): algo no cabe")
    assert "\n" not in error
    assert not Path(tmp_path / "f.pdf").exists()

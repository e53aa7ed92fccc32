"""A batch says which PDFs print characters their font has no glyph for (as ``[U+XXXX]``): in the manifest entry,
on reporte.html, on the terminal line of the file, and across ``--resume``."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pdfplumber
import pytest

from fel_rules import Config, Counts
from fel_rules.batch import BatchOptions, run_batch
from fel_rules.cli.app import main
from fel_rules.outputs.formats.html import PageContext, render_html
from fel_rules.outputs.formats.listing import Listed
from fel_rules.outputs.render import RenderSettings
from fel_rules.testing.builder import Invoice, Item

from .conftest import EXAMPLES

SETTINGS = RenderSettings.from_env({}, logo=EXAMPLES / "logo.png")
CHINESE = "中文贸易有限公司"
CERTIFIED_UUID = "5D3C2B1A-0F9E-4D8C-B7A6-958473625140"
#: The warning of the Chinese name: its eight characters, sorted by code point.
WARNING_ES = ("caracteres sin glifo en la fuente del PDF, impresos como [U+código] (8): 中 (U+4E2D), "
              "公 (U+516C), 司 (U+53F8), 文 (U+6587), 易 (U+6613), 有 (U+6709), 贸 (U+8D38), 限 (U+9650)")
#: The keys of a manifest entry without PDF warnings (as before the field existed).
ENTRY_KEYS = ["path", "sha256", "tipo", "numero_autorizacion", "valid", "complete", "counts", "report", "pdf",
              "pdf_note", "error"]


def _invoice(receptor: str | None, item: str = "Pintura anticorrosiva, galón") -> Invoice:
    return Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], receptor_nombre=receptor,
                   items=[Item.goods(item, "2", "165.00")])


def fill(folder: Path) -> Path:
    """An uncertified invoice to a Chinese company (its PDF is drawn while the file is processed), a certified one
    (drawn once the cross-document rules are in, as any document another one could refer to) and a plain one."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a-china.xml").write_bytes(_invoice(CHINESE).to_xml())
    certified = _invoice(CHINESE).certify(CERTIFIED_UUID, "2026-03-02T09:15:27-06:00")
    (folder / "b-certificada.xml").write_bytes(certified.to_xml())
    (folder / "c-normal.xml").write_bytes(_invoice(None).to_xml())
    return folder


def batch(folder: Path, out: Path, **options):
    options.setdefault("workers", 2)
    return run_batch(BatchOptions(input_dir=folder, out_dir=out, render_settings=SETTINGS, progress=False, **options))


def entries(out: Path) -> dict[str, dict]:
    """The manifest's entries as written, by path."""
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return {entry["path"]: entry for entry in manifest["entries"]}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return fill(tmp_path_factory.mktemp("glifos") / "entrada")


@pytest.fixture(scope="module")
def run(folder, tmp_path_factory):
    out = tmp_path_factory.mktemp("salida")
    return batch(folder, out), out


def test_the_manifest_entry_names_the_characters_and_a_plain_entry_is_unchanged(run):
    result, out = run
    written = entries(out)
    assert written["a-china.xml"]["pdf_warnings"] == [WARNING_ES]
    assert written["b-certificada.xml"]["pdf_warnings"] == [WARNING_ES]  # drawn in the last phase
    assert list(written["c-normal.xml"]) == ENTRY_KEYS  # no empty pdf_warnings
    assert result.manifest.entries[2].pdf_warnings == []
    assert result.summary.valid == result.summary.rendered == 3
    with pdfplumber.open(out / "a-china.pdf") as pdf:  # what the warning is about
        text = "".join(page.extract_text() for page in pdf.pages)
    assert "[U+4E2D][U+6587]" in text and CHINESE[0] not in text


def test_the_warning_follows_the_batch_language(folder, tmp_path):
    batch(folder, tmp_path / "en", config=Config(lang="en"))
    assert entries(tmp_path / "en")["a-china.xml"]["pdf_warnings"] == [
        "characters without a glyph in the PDF's font, printed as [U+code] (8): " + WARNING_ES.split(": ", 1)[1]]


def test_the_page_shows_a_notice_in_the_documents_row_and_its_details(run):
    _, out = run
    page = (out / "reporte.html").read_text(encoding="utf-8")
    bodies = {re.search(r'<td class="path">([^<]+)</td>', body).group(1): body
              for body in re.findall(r"<tbody data-verdict.*?</tbody>", page, re.S)}
    for name in ("a-china.xml", "b-certificada.xml"):
        row, details = bodies[name].split('<tr class="issues"')
        assert f'<span class="small notice" title="{WARNING_ES}">aviso del PDF</span>' in row
        assert f'<p class="notice">Aviso del PDF: {WARNING_ES}</p>' in details
    assert "notice" not in bodies["c-normal.xml"]


def test_the_terminal_line_of_the_file_ends_with_the_warning(folder, tmp_path, capsys):
    assert main(["batch", str(folder), "--out", str(tmp_path / "o"), "--workers", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"a-china.xml: VÁLIDO a-china.pdf; aviso: {WARNING_ES}"
    assert lines[1] == f"b-certificada.xml: VÁLIDO b-certificada.pdf; aviso: {WARNING_ES}"
    assert lines[2] == "c-normal.xml: VÁLIDO c-normal.pdf"


def test_no_pdf_no_warning(folder, tmp_path):
    result = batch(folder, tmp_path / "sin-pdf", render=False)
    assert all(entry.pdf_warnings == [] for entry in result.manifest.entries)
    assert "pdf_warnings" not in (tmp_path / "sin-pdf" / "manifest.json").read_text(encoding="utf-8")


def test_resume_keeps_the_warning_and_a_file_drawn_again_says_it_anew(tmp_path):
    folder = fill(tmp_path / "entrada")
    out = tmp_path / "salida"
    first = batch(folder, out)
    again = batch(folder, out, resume=True)
    assert again.manifest.run.reused == 3 and again.manifest.entries == first.manifest.entries
    assert entries(out)["a-china.xml"]["pdf_warnings"] == [WARNING_ES]
    (folder / "a-china.xml").write_bytes(_invoice("Comercial Xinhua, S.A.").to_xml())  # drawn again: nothing missing
    emoji = _invoice(CHINESE, item="Pintura 🎨").certify(CERTIFIED_UUID, "2026-03-02T09:15:27-06:00")
    (folder / "b-certificada.xml").write_bytes(emoji.to_xml())  # drawn again, in the last phase: one more character
    changed = batch(folder, out, resume=True)
    assert changed.manifest.run.reused == 1
    written = entries(out)
    assert list(written["a-china.xml"]) == ENTRY_KEYS
    (warning,) = written["b-certificada.xml"]["pdf_warnings"]
    assert warning.startswith("caracteres sin glifo en la fuente del PDF, impresos como [U+código] (9)")
    assert warning.endswith("限 (U+9650), 🎨 (U+1F3A8)")


def test_a_document_without_findings_still_unfolds_its_pdf_warning(validator):
    report = validator.inspect_bytes(_invoice(CHINESE).to_xml(), path="a-china.xml").report
    quiet = replace(report, issues=[], counts=Counts())
    listed = Listed(path="a-china.xml", report=quiet, report_link="a-china.report.json", pdf_link="a-china.pdf",
                    pdf_warnings=(WARNING_ES,))
    page = render_html([listed], context=PageContext(pdfs=1))
    assert '<button type="button" class="toggle" aria-expanded="false" aria-controls="issues-1">' in page
    assert f'<tr class="issues" id="issues-1"><td colspan="10"><p class="notice">Aviso del PDF: {WARNING_ES}' in page

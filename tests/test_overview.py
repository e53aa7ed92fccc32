"""The batch's page (reporte.html) and ledger (libro.csv): written beside the manifest, atomically, from the reports;
every document listed, hostile values escaped, amounts that add up, credit notes negative, annulments marked."""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal
from pathlib import Path
from urllib.parse import unquote

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from fel_rules import Config
from fel_rules.batch import BatchError, BatchOptions, run_batch
from fel_rules.outputs.formats.html import _script, _script_hash
from fel_rules.outputs.formats.ledger import BOM, COLUMNS, ledger_header, neutralised
from fel_rules.outputs.render import RenderSettings

from .conftest import EXAMPLES
from .overview_folder import ANNULLED_UUID, FORMULA_NAME, HOSTILE_NAME, NAMES, fill

SETTINGS = RenderSettings.from_env({}, logo=EXAMPLES / "logo.png")


class HtmlSnapshot(SingleFileSnapshotExtension):
    file_extension = "html"
    _write_mode = WriteMode.TEXT


class CsvSnapshot(SingleFileSnapshotExtension):
    file_extension = "csv"
    _write_mode = WriteMode.BINARY


def batch(folder: Path, out: Path, **options):
    options.setdefault("workers", 2)
    return run_batch(BatchOptions(input_dir=folder, out_dir=out, render_settings=SETTINGS, progress=False, **options))


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return fill(tmp_path_factory.mktemp("resumen") / "entrada")


@pytest.fixture(scope="module")
def run(folder, tmp_path_factory):
    out = tmp_path_factory.mktemp("salida")
    return batch(folder, out), out


def ledger_rows(out: Path) -> list[dict[str, str]]:
    text = (out / "libro.csv").read_bytes().decode("utf-8")
    assert text.startswith(BOM)
    rows = list(csv.reader(io.StringIO(text[len(BOM):], newline="")))
    assert all(len(row) == len(COLUMNS) for row in rows)
    return [dict(zip(COLUMNS, row, strict=True)) for row in rows[1:]]


# ---- the ledger -------------------------------------------------------------------------------------------------

def test_ledger_header_bom_and_line_ends(run):
    _, out = run
    data = (out / "libro.csv").read_bytes()
    assert data.startswith(BOM.encode() + ledger_header("es").encode() + b"\r\n")
    assert data.endswith(b"\r\n") and b"\n" not in data.replace(b"\r\n", b"")
    assert [row["archivo"] for row in ledger_rows(out)] != list(NAMES)  # in date order, not by file


def test_ledger_has_one_row_per_document_in_date_order(run):
    result, out = run
    rows = ledger_rows(out)
    assert sorted(row["archivo"] for row in rows) == [entry.path for entry in result.manifest.entries]
    dated = [row["fecha"] for row in rows if row["fecha"]]
    assert dated == sorted(dated) and rows[-1]["archivo"] == "j-no-es-xml.xml"  # undated last


def test_ledger_totals_add_up_to_the_reports(run):
    """Each amount column sums to the documents' reports: credit notes subtract, the annulled invoice and the
    annulment count zero, every other document adds its own figures."""
    result, out = run
    rows = {row["archivo"]: row for row in ledger_rows(out)}
    expected = {"base_gravable": Decimal(0), "iva": Decimal(0), "total": Decimal(0)}
    for entry in result.manifest.entries:
        report = json.loads((out / entry.report).read_text(encoding="utf-8"))
        document, totals = report["document"], report["totals"]
        if document["tipo"] in (None, "ANULACION") or document["numero_autorizacion"] == ANNULLED_UUID:
            continue
        sign = -1 if document["tipo"] == "NCRE" else 1
        for column, key in (("base_gravable", "subtotal"), ("iva", "iva"), ("total", "total")):
            expected[column] += sign * Decimal(totals[key])
            assert Decimal(rows[entry.path][column]) == sign * Decimal(totals[key]), (entry.path, column)
    for column, amount in expected.items():
        assert sum(Decimal(row[column]) for row in rows.values() if row[column]) == amount, column
    assert expected["total"] == Decimal("850.00") - Decimal("170.00") + Decimal("56.00") + Decimal("1127.75") \
        + Decimal("250.00") + Decimal("999.00") + Decimal("165.00")


def test_credit_notes_are_negative_and_debit_notes_positive(run):
    _, out = run
    rows = {row["tipo"]: row for row in ledger_rows(out) if row["tipo"] in ("NCRE", "NDEB")}
    credit, debit = rows["NCRE"], rows["NDEB"]
    for column in ("base_gravable", "iva", "total"):
        assert Decimal(credit[column]) < 0 and credit[column].startswith("-"), column
        assert Decimal(debit[column]) > 0, column
    assert Decimal(credit["base_gravable"]) + Decimal(credit["iva"]) + Decimal(credit["otros_impuestos"]) \
        == Decimal(credit["total"]) == Decimal("-170.00")


def test_annulments_are_rows_with_zero_amounts_and_mark_the_annulled_document(run):
    _, out = run
    rows = {row["archivo"]: row for row in ledger_rows(out)}
    annulled, annulment = rows["d-anulada.xml"], rows["e-anulacion.xml"]
    assert annulled["estado"] == "Anulado" and annulled["numero_autorizacion"] == ANNULLED_UUID
    assert annulment["estado"] == "Anulación" and annulment["tipo"] == "ANULACION"
    assert annulment["documento_anulado"] == ANNULLED_UUID and annulment["fecha"] == "2026-03-04"
    for row in (annulled, annulment):
        assert [row[c] for c in ("base_gravable", "iva", "otros_impuestos", "total")] == ["0.00"] * 4
    assert {row["estado"] for name, row in rows.items() if name not in ("d-anulada.xml", "e-anulacion.xml",
                                                                         "j-no-es-xml.xml")} == {"Vigente"}


def test_other_taxes_and_amounts_are_the_documents_decimals(run):
    _, out = run
    fuel = next(row for row in ledger_rows(out) if row["archivo"] == "f-combustible.xml")
    assert (fuel["base_gravable"], fuel["iva"], fuel["otros_impuestos"], fuel["total"]) == \
        ("931.25", "111.75", "84.75", "1127.75")
    assert Decimal(fuel["base_gravable"]) + Decimal(fuel["iva"]) + Decimal(fuel["otros_impuestos"]) \
        == Decimal(fuel["total"])
    dollars = next(row for row in ledger_rows(out) if row["archivo"] == "g-dolares.xml")
    assert dollars["moneda"] == "USD"
    unread = next(row for row in ledger_rows(out) if row["archivo"] == "j-no-es-xml.xml")
    assert unread["total"] == unread["estado"] == "" and unread["veredicto"] == "INVÁLIDO"


def test_formulas_are_neutralised_but_amounts_are_not(run):
    _, out = run
    hostile = next(row for row in ledger_rows(out) if row["archivo"] == "i-hostil.xml")
    assert hostile["nombre_receptor"] == "'" + FORMULA_NAME
    assert hostile["nombre_emisor"].startswith("<script>") and "\u202e" not in hostile["nombre_emisor"]
    assert "\\u202e" in hostile["nombre_emisor"] and "\\x85" in hostile["nombre_emisor"]
    credit = next(row for row in ledger_rows(out) if row["tipo"] == "NCRE")
    assert credit["total"] == "-170.00"  # a negative amount is a number, not a formula


@pytest.mark.parametrize("text", ["=1+2", "+1", "-1+2", "@SUM(A1)", "=cmd|' /C calc'!A0"])
def test_neutralised_cells(text):
    assert neutralised(text) == "'" + text
    assert neutralised("Ferretería " + text) == "Ferretería " + text
    assert neutralised("\tTab") == "\\tTab" and neutralised("a\r\nb") == "a\\r\\nb"


def test_ledger_snapshot(run, snapshot):
    _, out = run
    assert (out / "libro.csv").read_bytes() == snapshot(extension_class=CsvSnapshot)


# ---- the page -------------------------------------------------------------------------------------------------

def test_page_lists_every_document_with_relative_links_to_its_outputs(run):
    result, out = run
    page = (out / "reporte.html").read_text(encoding="utf-8")
    assert page.count("<tbody data-verdict=") == len(result.manifest.entries) == len(NAMES)
    for entry in result.manifest.entries:
        assert f'<td class="path">{entry.path}</td>' in page
    links = re.findall(r'href="([^"]*)"', page)
    assert links and all(link.startswith("./") for link in links)
    for link in links:
        assert (out / unquote(link)).is_file(), link
    pdfs = {link for link in links if link.endswith(".pdf")}
    assert len(pdfs) == result.summary.rendered
    verdicts = re.findall(r'<tbody data-verdict="(\w+)">', page)
    assert verdicts.count("valid") == result.summary.valid and verdicts.count("invalid") == result.summary.invalid


def test_page_escapes_hostile_values_and_loads_nothing(run):
    _, out = run
    page = (out / "reporte.html").read_text(encoding="utf-8")
    assert HOSTILE_NAME not in page and '<script>alert' not in page and "<b>roja" not in page
    assert page.count("<script") == 1 and page.count("</script>") == 1
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;Comillas&#x27;" in page
    assert "\u202e" not in page and "\x85" not in page and "\\u202e" in page
    assert not re.search(r"""(src|href|action)\s*=\s*["']?\s*(https?:|//|javascript:|data:)""", page, re.I)
    assert "@import" not in page and "url(" not in page
    policy = re.search(r'Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src 'none'" in policy and f"script-src '{_script_hash()}'" in policy
    assert f"<script>{_script()}</script>" in page


def test_page_summary_counts_and_top_rules(run):
    result, out = run
    page = (out / "reporte.html").read_text(encoding="utf-8")
    summary = result.summary
    for number, label in ((summary.files, "documentos"), (summary.valid, "válidos"), (summary.invalid, "inválidos"),
                          (summary.errors, "con error"), (summary.rendered, "PDFs")):
        assert f"<strong>{number}</strong><span>{label}</span>" in page, label
    assert re.search(r'data-rule="FEL-TOT-03">FEL-TOT-03</button></td><td>[^<]+</td><td class="n">1</td>', page)


def test_page_snapshot(run, snapshot):
    _, out = run
    assert (out / "reporte.html").read_text(encoding="utf-8") == snapshot(extension_class=HtmlSnapshot)


def test_same_bytes_on_resume_and_in_english(folder, run, tmp_path):
    _, out = run
    again = tmp_path / "again"
    batch(folder, again, workers=1)
    batch(folder, again, workers=1, resume=True)
    for name in ("reporte.html", "libro.csv"):
        assert (again / name).read_bytes() == (out / name).read_bytes(), name
    english = tmp_path / "english"
    batch(folder, english, workers=1, render=False, config=Config(lang="en"))
    assert (english / "libro.csv").read_text(encoding="utf-8-sig").startswith(ledger_header("en") + "\n")
    page = (english / "reporte.html").read_text(encoding="utf-8")
    assert '<html data-generator="fel-rules" lang="en">' in page and "FEL validation report" in page
    assert "Annulled" in (english / "libro.csv").read_text(encoding="utf-8-sig")
    assert ">PDF<" not in page and "rendering disabled (--no-render)" in page


def test_without_pdfs_the_same_reports_ledger_and_cross_results(folder, run, tmp_path):
    """A batch without PDFs (which validates without the facts of the lines): its reports (cross-document issues
    patched in), ledger and manifest entries are those of the batch with PDFs, bar what says where the PDF is or why
    there is none."""
    _, out = run
    plain = tmp_path / "plain"
    batch(folder, plain, render=False)
    assert (plain / "libro.csv").read_bytes() == (out / "libro.csv").read_bytes()
    reports = sorted(path.name for path in out.glob("*.report.json"))
    assert reports == sorted(path.name for path in plain.glob("*.report.json")) and len(reports) >= 9
    for name in reports:
        assert (plain / name).read_bytes() == (out / name).read_bytes(), name
    pdf_fields = {"pdf", "pdf_sha256", "pdf_note"}
    entries = [[{key: value for key, value in entry.items() if key not in pdf_fields} for entry in manifest["entries"]]
               for manifest in (json.loads((where / "manifest.json").read_text()) for where in (out, plain))]
    assert entries[0] == entries[1] and len(entries[1]) == len(NAMES)


@pytest.mark.parametrize("name", ["reporte.html", "libro.csv"])
def test_another_programs_file_stops_the_run_before_any_work(folder, tmp_path, name):
    out = tmp_path / "out"
    out.mkdir()
    (out / name).write_text("mío\n", encoding="utf-8")
    with pytest.raises(BatchError, match=re.escape(name)):
        batch(folder, out, workers=1, render=False)
    assert (out / name).read_text(encoding="utf-8") == "mío\n"
    assert not list(out.glob("*.report.json")) and not (out / "manifest.json").exists()


def test_an_earlier_runs_page_and_ledger_are_replaced(folder, tmp_path):
    small = tmp_path / "in"
    small.mkdir()
    (small / "a-factura.xml").write_bytes((folder / "a-factura.xml").read_bytes())
    out = tmp_path / "out"
    batch(folder, out, workers=1, render=False)
    batch(small, out, workers=1, render=False)
    assert len(ledger_rows(out)) == 1
    assert (out / "reporte.html").read_text(encoding="utf-8").count("<tbody") == 1


def test_html_escape_with_one_search_is_the_full_escape_for_every_character():
    """The page's escape skips texts with nothing to change after one search: for every code point, alone and
    amid plain text, it gives what escaping control characters and then markup gives."""
    import html
    import sys

    from fel_rules.core.printable import escape_controls
    from fel_rules.outputs.formats.html import _escape

    def full(text: str) -> str:
        return html.escape(escape_controls(text), quote=True)

    for code in range(sys.maxunicode + 1):
        character = chr(code)
        for text in (character, f"Factura {character} 1.50"):
            assert _escape(text) == full(text), hex(code)
    assert _escape(12) == "12" and _escape(None) == "None"

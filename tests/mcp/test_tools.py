"""fel_render, fel_batch and the sandbox through the server; progress and cancellation."""

from __future__ import annotations

import shutil
import time

import pytest

from fel_rules.testing.builder import Invoice, Item

from ..batch_folder import fill
from ..conftest import EXAMPLES
from ..test_batch_glyphs import WARNING_ES
from ..test_batch_glyphs import fill as fill_glyphs
from .harness import Session


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "facturas").mkdir()
    for name in ("factura-certificada.xml", "factura-fact.xml", "anulacion.xml", "logo.png"):
        shutil.copy(EXAMPLES / name, tmp_path / "facturas" / name)
    return tmp_path


@pytest.fixture
def session(workspace):
    current = Session([str(workspace)])
    current.initialize()
    yield current
    current.close()


def call(session, request_id, name, arguments, **params):
    reply = session.call(request_id, "tools/call", {"name": name, "arguments": arguments, **params})
    return reply["result"]


def test_render_writes_a_pdf_inside_the_root(session, workspace):
    result = call(session, 1, "fel_render", {"xml_path": "facturas/factura-certificada.xml",
                                             "logo_path": "facturas/logo.png", "theme": "moderno"})
    assert result["isError"] is False
    out = result["structuredContent"]
    assert out["pdf_path"] == str(workspace / "out" / "facturas" / "factura-certificada.pdf") and out["valid"] is True
    assert (workspace / "out" / "facturas" / "factura-certificada.pdf").read_bytes().startswith(b"%PDF")
    assert out["watermarks"] == []


def test_render_refuses_invalid_unless_forced(session, workspace):
    bad = workspace / "facturas" / "mala.xml"
    bad.write_bytes((EXAMPLES / "factura-fact.xml").read_bytes().replace(b">1911.50<", b">1900.00<"))
    refused = call(session, 1, "fel_render", {"xml_path": "facturas/mala.xml", "out_path": "pdf/mala.pdf"})
    assert refused["isError"] and "FEL-TOT-03" in refused["content"][0]["text"]
    assert not (workspace / "pdf" / "mala.pdf").exists()
    forced = call(session, 2, "fel_render",
                  {"xml_path": "facturas/mala.xml", "out_path": "pdf/mala.pdf", "force": True})
    assert not forced["isError"] and "NO VÁLIDO" in forced["structuredContent"]["watermarks"]


def test_render_annulment_is_a_tool_error(session):
    result = call(session, 1, "fel_render", {"xml_path": "facturas/anulacion.xml"})
    assert result["isError"] and "anulación" in result["content"][0]["text"]


@pytest.mark.parametrize(("argument", "value"), [
    ("xml_path", "../fuera.xml"),
    ("xml_path", "/etc/hosts"),
    ("xml_path", "enlace.xml"),
    ("out_path", "../fuera.pdf"),
    ("out_path", "/tmp/fuera.pdf"),
    ("logo_path", "/usr/share/pixmaps/debian-logo.png"),
])
def test_sandbox_escapes(session, workspace, argument, value):
    (workspace / "enlace.xml").symlink_to(EXAMPLES / "factura-fact.xml")  # inside the root, pointing out of it
    arguments = {"xml_path": "facturas/factura-certificada.xml", argument: value}
    result = call(session, 1, "fel_render", arguments)
    assert result["isError"]
    text = result["content"][0]["text"]
    assert "fuera de las carpetas permitidas" in text and str(workspace) in text


def test_validate_sandbox(session):
    result = call(session, 1, "fel_validate", {"xml_path": "../../etc/passwd"})
    assert result["isError"] and "fuera de las carpetas permitidas" in result["content"][0]["text"]
    missing = call(session, 2, "fel_validate", {"xml_path": "facturas/no-existe.xml"})
    assert missing["isError"] and "No existe" in missing["content"][0]["text"]


def test_batch_with_progress(session, workspace):
    fill(workspace / "lote")
    session.request(1, "tools/call", {"name": "fel_batch",
                                      "arguments": {"dir_xml": "lote", "render": False, "workers": 2},
                                      "_meta": {"progressToken": "t-1"}})
    reply = session.response(1, timeout=120)
    result = reply["result"]
    assert result["isError"] is False
    assert result["structuredContent"]["summary"] == {"files": 8, "valid": 2, "invalid": 5, "errors": 1, "rendered": 0}
    assert result["structuredContent"]["manifest_path"] == str(workspace / "out" / "lote" / "manifest.json")
    progress = [m["params"] for m in session.others if m.get("method") == "notifications/progress"]
    assert progress and all(p["progressToken"] == "t-1" and p["total"] == 8 for p in progress)
    values = [p["progress"] for p in progress]
    assert values == sorted(set(values)) and values[-1] == 8


def test_batch_names_its_page_and_ledger_and_lists_pdfs_with_warnings(session, workspace):
    fill_glyphs(workspace / "glifos")
    result = call(session, 1, "fel_batch", {"dir_xml": "glifos", "workers": 1})
    output = result["structuredContent"]
    out = workspace / "out" / "glifos"
    assert (output["report_html"], output["ledger_csv"]) == (str(out / "reporte.html"), str(out / "libro.csv"))
    assert (out / "reporte.html").is_file() and (out / "libro.csv").is_file()
    assert output["summary"]["valid"] == 3 and output["more_problems"] == 0
    assert output["problems"] == [
        {"path": name, "rule_id": None, "message": WARNING_ES, "pdf_warnings": [WARNING_ES]}
        for name in ("a-china.xml", "b-certificada.xml")]


def test_batch_cancelled(session, workspace):
    folder = workspace / "grande"
    folder.mkdir()
    for n in range(120):
        invoice = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)],
                          items=[Item.goods(f"Producto {n}-{k}", "1", "10.00") for k in range(1, 30)])
        (folder / f"f{n:03d}.xml").write_bytes(invoice.to_xml())
    session.request(7, "tools/call", {"name": "fel_batch", "arguments": {"dir_xml": "grande", "workers": 1},
                                      "_meta": {"progressToken": 7}})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until work has started
        message = session.receive(timeout=60)
        session.others.append(message)
        if message.get("method") == "notifications/progress":
            break
    session.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "test"}})
    assert session.call(8, "ping")["result"] == {}  # still serving while the batch stops
    time.sleep(2)
    assert all(m.get("id") != 7 for m in session.others)  # no response for the cancelled request
    assert not (workspace / "out" / "grande" / "manifest.json").exists()
    assert len(list((workspace / "out" / "grande").glob("*.pdf"))) < 120


def test_rules_tool_lists_the_rules(session):
    result = call(session, 1, "fel_rules", {"detail": True})
    rules = {rule["id"]: rule for rule in result["structuredContent"]["rules"]}
    assert rules["FEL-IVA-01"]["sat_code"] == "FEL_RCP331" and rules["FEL-IVA-01"]["severity"] == "error"


def test_render_takes_a_page_format_and_reports_missing_glyphs(session, workspace):
    import io

    import pypdf

    result = call(session, 1, "fel_render", {"xml_path": "facturas/factura-certificada.xml", "page": "ticket",
                                             "out_path": "pdf/ticket.pdf"})
    assert result["isError"] is False and result["structuredContent"]["warnings"] == []
    box = pypdf.PdfReader(io.BytesIO((workspace / "pdf" / "ticket.pdf").read_bytes())).pages[0].mediabox
    assert round(float(box.width), 1) == 226.8
    document = Invoice(frases=[(1, 1)], items=[Item.goods("Té 中文", "1", "10.00")])
    xml = document.certify("5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93", "2026-03-02T09:15:27-06:00").to_xml()
    result = call(session, 2, "fel_render", {"xml_text": xml.decode(), "out_path": "pdf/cjk.pdf"})
    [warning] = result["structuredContent"]["warnings"]
    assert warning.startswith("caracteres sin glifo en la fuente del PDF, impresos como [U+código] (2)")
    assert "中 (U+4E2D)" in warning
    assert warning in result["content"][0]["text"]

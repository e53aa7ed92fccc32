"""fel_render and fel_batch: outputs never replace an input nor collide by default, and the sandbox holds for
every file a batch reads or writes, symlinks and folders swapped mid-run included."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import pytest

import fel_rules.outputs.render.api as render_api
from fel_rules.batch import runner
from fel_rules.testing.builder import Invoice, Item

from .harness import Session

_IDS = itertools.count(1)


def invoice(n: int) -> bytes:
    items = [Item.goods(f"Producto {n}", "1", f"{20 + n}.00")]
    return (Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items)
            .certify(f"{n:08X}-0000-4000-8000-0000000000B2", "2026-03-02T09:15:27-06:00").to_xml())


@pytest.fixture
def root(tmp_path) -> Path:
    (tmp_path / "raiz").mkdir()
    return tmp_path / "raiz"


@pytest.fixture
def outside(tmp_path) -> Path:
    (tmp_path / "fuera").mkdir()
    return tmp_path / "fuera"


@pytest.fixture
def session(root):
    current = Session([str(root)])
    current.initialize()
    yield current
    current.close()


def call(session: Session, name: str, arguments: dict) -> dict:
    return session.call(next(_IDS), "tools/call", {"name": name, "arguments": arguments})["result"]


def swap_for_link(folder: Path, target: Path) -> None:
    """Someone replaces ``folder`` by a symlink to ``target`` (outside the roots) while a tool runs."""
    folder.rename(folder.with_name(folder.name + "-antes"))
    target.mkdir(exist_ok=True)
    folder.symlink_to(target, target_is_directory=True)


def test_outputs_never_destroy_inputs_or_foreign_files_over_mcp(session, root):
    for n, year in enumerate(("2024", "2025"), start=1):
        (root / year / "enero").mkdir(parents=True)
        (root / year / "enero" / "factura.xml").write_bytes(invoice(n))
    original = (root / "2024" / "enero" / "factura.xml").read_bytes()

    same = call(session, "fel_render", {"xml_path": "2024/enero/factura.xml", "out_path": "2024/enero/factura.xml"})
    assert same["isError"] and same["content"][0]["text"].endswith("es el documento de entrada; no se reemplaza")
    assert (root / "2024" / "enero" / "factura.xml").read_bytes() == original

    pdfs = {call(session, "fel_render", {"xml_path": f"{year}/enero/factura.xml"})["structuredContent"]["pdf_path"]
            for year in ("2024", "2025")}
    assert pdfs == {str(root / "out" / year / "enero" / "factura.pdf") for year in ("2024", "2025")}
    manifests = {}
    for year in ("2024", "2025"):
        result = call(session, "fel_batch", {"dir_xml": f"{year}/enero", "workers": 1})
        assert not result["isError"]
        manifests[year] = Path(result["structuredContent"]["manifest_path"])
    assert manifests == {year: root / "out" / year / "enero" / "manifest.json" for year in ("2024", "2025")}
    for path in manifests.values():  # each describes its own folder, whole
        (entry,) = json.loads(path.read_text(encoding="utf-8"))["entries"]
        report = json.loads((path.parent / entry["report"]).read_text(encoding="utf-8"))
        assert report["document"]["sha256"] == entry["sha256"]
        assert entry["numero_autorizacion"] == report["document"]["numero_autorizacion"]
    numbers = {json.loads(p.read_text())["entries"][0]["numero_autorizacion"] for p in manifests.values()}
    assert len(numbers) == 2

    into_folder = call(session, "fel_render", {"xml_path": "2024/enero/factura.xml", "out_path": "pdf/"})
    assert into_folder["structuredContent"]["pdf_path"] == str(root / "pdf" / "factura.pdf")


def test_mcp_sandbox_holds_through_batch(session, root, outside, monkeypatch):
    lote = root / "lote"
    (lote / "marzo").mkdir(parents=True)
    (lote / "propia.xml").write_bytes(invoice(1))
    (lote / "marzo" / "anidada.xml").write_bytes(invoice(2))
    (outside / "secreta.xml").write_bytes(invoice(3))
    (lote / "robada.xml").symlink_to(outside / "secreta.xml")

    # an input symlinked to a file outside the roots: an error entry, never read, never printed
    result = call(session, "fel_batch", {"dir_xml": "lote", "out_dir": "salida", "workers": 1})
    assert not result["isError"]
    manifest = json.loads(Path(result["structuredContent"]["manifest_path"]).read_text(encoding="utf-8"))
    entries = {entry["path"]: entry for entry in manifest["entries"]}
    stolen = entries["robada.xml"]
    assert stolen["sha256"] is None and stolen["pdf"] is None and not stolen["valid"]
    assert "fuera de las carpetas permitidas" in stolen["error"]
    assert not (root / "salida" / "robada.pdf").exists() and entries["propia.xml"]["pdf"] == "propia.pdf"

    # a symlink inside out_dir: nothing is written through it
    (root / "salida2").mkdir()
    (root / "salida2" / "marzo").symlink_to(outside, target_is_directory=True)
    result = call(session, "fel_batch", {"dir_xml": "lote", "out_dir": "salida2", "workers": 1, "recursive": True})
    manifest = json.loads(Path(result["structuredContent"]["manifest_path"]).read_text(encoding="utf-8"))
    nested = next(entry for entry in manifest["entries"] if entry["path"] == "marzo/anidada.xml")
    assert nested["report"] is None and "fuera de las carpetas permitidas" in nested["error"]
    (root / "salida3").mkdir()
    (root / "salida3" / ".fel-rules").symlink_to(outside, target_is_directory=True)  # the journal's folder
    refused = call(session, "fel_batch", {"dir_xml": "lote", "out_dir": "salida3", "workers": 1})
    assert refused["isError"] and "queda fuera de las carpetas permitidas" in refused["content"][0]["text"]
    assert sorted(p.name for p in outside.iterdir()) == ["secreta.xml"]

    # the output folder swapped for a symlink while the batch runs
    (root / "salida4").mkdir()
    apply_cross_rules = runner._apply_cross_rules

    def swap_then_apply(briefs, out_dir, *args):
        swap_for_link(root / "salida4", outside / "cambiada")
        apply_cross_rules(briefs, out_dir, *args)

    monkeypatch.setattr(runner, "_apply_cross_rules", swap_then_apply)
    swapped = call(session, "fel_batch", {"dir_xml": "lote", "out_dir": "salida4", "workers": 1})
    assert swapped["isError"] and "fuera de las carpetas permitidas" in swapped["content"][0]["text"]
    assert list((outside / "cambiada").rglob("*")) == []

    # the PDF's folder swapped for a symlink between the sandbox check and the write
    (root / "pdf").mkdir()
    render_bytes = render_api.render_bytes

    def render_then_swap(*args, **kwargs):
        rendered = render_bytes(*args, **kwargs)
        swap_for_link(root / "pdf", outside / "pdf")
        return rendered

    monkeypatch.setattr(render_api, "render_bytes", render_then_swap)
    raced = call(session, "fel_render", {"xml_path": "lote/propia.xml", "out_path": "pdf/propia.pdf"})
    assert raced["isError"] and "fuera de las carpetas permitidas" in raced["content"][0]["text"]
    assert list((outside / "pdf").iterdir()) == [] and sorted(os.listdir(outside)) == ["cambiada", "pdf", "secreta.xml"]


@pytest.mark.parametrize("blank", ["", "   "])
def test_an_empty_path_is_refused_not_the_working_folder(tmp_path, blank):
    from mcp_server.sandbox import Roots, SandboxError

    with pytest.raises(SandboxError, match="Ruta vacía"):
        Roots([tmp_path]).check(blank, must_exist=False)

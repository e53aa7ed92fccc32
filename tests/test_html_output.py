"""``fel-rules validate --format html`` and ``--output``: one self-contained page over the files named, in Spanish
or English, the same bytes each time, written atomically where asked."""

from __future__ import annotations

import json
import re

import pytest

from fel_rules.cli.app import main
from fel_rules.testing.builder import Invoice, Item

from .conftest import EXAMPLES

EXAMPLE_NAMES = sorted(path.name for path in EXAMPLES.glob("*.xml"))


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(["validate", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_html_page_of_the_examples_on_stdout(capsys):
    code, out, err = run(capsys, "--format", "html", EXAMPLES)
    assert code == 0 and err == ""
    assert out.startswith('<!DOCTYPE html>\n<html data-generator="fel-rules" lang="es">')
    assert out.count("<tbody data-verdict=\"valid\">") == len(EXAMPLE_NAMES)
    for name in EXAMPLE_NAMES:
        assert f'<td class="path">{EXAMPLES / name}</td>' in out, name
    assert "FERRETERÍA EL QUETZAL, SOCIEDAD ANÓNIMA" in out and "NIT 85372641" in out  # names beside the NITs
    assert "Q 1,911.50" in out  # amounts as the PDF prints them
    assert "href=" not in out and ">Archivos<" not in out  # no outputs to link outside a batch
    assert "<strong>10</strong><span>documentos</span>" in out and ">PDFs<" not in out
    assert run(capsys, "--format", "html", EXAMPLES)[1] == out  # the same bytes each time


def test_html_page_in_english(capsys):
    code, out, _ = run(capsys, "--format", "html", "--lang", "en", EXAMPLES / "nota-credito-ncre.xml")
    assert code == 0 and '<html data-generator="fel-rules" lang="en">' in out
    chrome = re.sub(r"<style>.*?</style>|<script>.*?</script>", "", out, flags=re.S)
    for said in ("FEL validation report", ">Summary<", ">Documents<", "Most frequent rules", ">Verdict<",
                 "of {total} documents", "Expand all", "VALID", '<abbr title="Credit Note">NCRE</abbr>'):
        assert said in chrome, said
    for spanish in ("Resumen", "Documentos", "Veredicto", "válidos", "Sugerencia", "VÁLIDO"):
        assert spanish not in chrome, spanish


def test_invalid_and_unreadable_files_keep_their_exit_codes(capsys, tmp_path):
    bad = tmp_path / "mala.xml"
    bad.write_bytes(Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], gran_total="1.00",
                            items=[Item.goods("Cemento", "1", "85.00")]).to_xml())
    code, out, _ = run(capsys, "--format", "html", bad)
    assert code == 1 and '<span class="verdict invalid">INVÁLIDO</span>' in out and "FEL-TOT-03" in out
    huge = tmp_path / "grande.xml"
    huge.write_bytes(b"<a>" + b" " * 2000 + b"</a>")
    code, out, _ = run(capsys, "--format", "html", "--max-bytes", "100", huge, bad)
    assert code == 2 and '<tbody data-verdict="unknown">' in out and "NO SE PUDO VALIDAR" in out


@pytest.mark.parametrize("form", ["text", "json", "sarif", "html"])
def test_output_writes_the_file_instead_of_stdout(capsys, tmp_path, form):
    target = tmp_path / "salida" / f"reporte.{form}"
    code, out, err = run(capsys, "--format", form, "-o", target, EXAMPLES / "factura-fact.xml")
    assert code == 0 and out == "" and err == ""
    written = target.read_text(encoding="utf-8")
    code, out, _ = run(capsys, "--format", form, EXAMPLES / "factura-fact.xml")
    if form == "json":  # the run section (time, duration) differs between two runs
        assert json.loads(written)["document"] == json.loads(out)["document"]
    else:
        assert written == out
    run(capsys, "--format", form, "--output", target, EXAMPLES / "factura-fact.xml")  # replaced
    assert target.is_file() and [p.name for p in target.parent.iterdir()] == [target.name]


def test_output_never_replaces_an_input_or_a_folder(capsys, tmp_path):
    source = tmp_path / "factura.xml"
    data = (EXAMPLES / "factura-fact.xml").read_bytes()
    source.write_bytes(data)
    code, out, err = run(capsys, "--format", "html", "-o", source, source)
    assert code == 2 and "es uno de los documentos a validar" in err and "Traceback" not in err
    assert source.read_bytes() == data
    code, _, err = run(capsys, "--format", "html", "-o", tmp_path, source)
    assert code == 2 and err.startswith(f"fel-rules: error: no se pudo escribir {tmp_path}: ")
    link = tmp_path / "enlace.html"
    link.symlink_to(tmp_path / "otro.html")
    code, _, err = run(capsys, "--lang", "en", "-o", link, source)
    assert code == 2 and "could not write" in err and not (tmp_path / "otro.html").exists()

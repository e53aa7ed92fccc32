"""What lxml/libxml2, xmlschema/elementpath, PyYAML, pydantic and Python's own parsers say reaches no user in their
English: reports, the command line's errors, ``rules lint``/``rules test`` and the MCP tools say it in the
catalogue's words (English with ``--lang en``); the library's text is kept as a ``detail`` (the JSON report's, an
error's), never as the message."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from fel_rules.cli.app import main

from .conftest import EXAMPLES

#: English words of the libraries' messages; none may appear in Spanish output.
ENGLISH = re.compile(r"\b(Invalid|invalid|Input should|expected|[Ll]ine \d|not defined|mapping values|found|"
                     r"[Uu]nexpected|should be|must be|is not|could not|Opening|string literal|<class|elementpath|"
                     r"Premature|redefined|Start tag|while (?:parsing|scanning)|Field required|Extra inputs|"
                     r"Traceback|Errno|[Ss]yntax error|was never closed|nothing to repeat)\b")

FACT = (EXAMPLES / "factura-fact.xml").read_bytes()

HEADER = "schema_version: 1\nruleset: {id: mias, version: '1', title: Mías}\nrules:\n"
RULE = """\
  - id: EMP-X-01
    title: Una regla
    context: items
    let:
      descripcion: {path: dte:Descripcion, type: text}
    assert: len(descripcion) > 3
    message: "Línea {item}: descripción corta."
"""


def _document(tmp_path, data: bytes, name: str = "factura.xml"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


#: Documents a library refuses, each with a word of its English that must become the detail.
DOCUMENTS = {
    "texto_plano": (b"hola", "Start tag expected"),
    "json": (b'{"Tipo": "FACT"}', "Start tag expected"),
    "truncado": (FACT[:600], "Premature end of data"),
    "etiquetas_cruzadas": (FACT.replace(b"</dte:Cantidad>", b"</dte:Cant>", 1), "tag mismatch"),
    "prefijo_sin_declarar": (FACT.replace(b"<dte:Cantidad>", b"<cfe:Cantidad>", 1).replace(
        b"</dte:Cantidad>", b"</cfe:Cantidad>", 1), "Namespace prefix cfe"),
    "latin1": (FACT.decode("utf-8").encode("latin-1"), "encoding"),
    "ampersand": (FACT.replace(b'NombreComercial="FERRETER', b'NombreComercial="P & FERRETER', 1), "EntityRef"),
    "fecha_con_barras": (re.sub(rb'FechaHoraEmision="[^"]*"', b'FechaHoraEmision="02/03/2026"', FACT, count=1),
                         "DateTime10"),
    "dia_que_no_existe": (re.sub(rb'FechaHoraEmision="[^"]*"', b'FechaHoraEmision="2026-02-30T10:00:00-06:00"',
                                 FACT, count=1), "out of range"),
    "linea_no_entera": (FACT.replace(b'NumeroLinea="1"', b'NumeroLinea="uno"', 1), "invalid literal"),
}


@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_a_document_a_library_refuses_is_said_in_spanish(tmp_path, capsys, name):
    data, said = DOCUMENTS[name]
    path = _document(tmp_path, data)
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert not ENGLISH.search(out), out
    assert main(["validate", str(path), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    errors = [issue for issue in report["issues"] if issue["severity"] == "error" and issue.get("detail")]
    assert errors and any(said in issue["detail"] for issue in errors), report["issues"]
    assert not any(ENGLISH.search(issue["message"]) for issue in report["issues"])


@pytest.mark.parametrize("name", ["etiquetas_cruzadas", "fecha_con_barras"])
def test_english_comes_from_the_catalogue(tmp_path, capsys, name):
    path = _document(tmp_path, DOCUMENTS[name][0])
    main(["validate", str(path), "--lang", "en"])
    out = capsys.readouterr().out
    assert "El " not in out and "<class" not in out and "Opening and ending" not in out
    assert "error FEL-" in out


#: Rule files a library refuses (YAML syntax, pydantic, lxml's XPath, Python's parser, re).
RULE_FILES = {
    "yaml_dos_puntos": HEADER + RULE.replace('"Línea {item}: descripción corta."', "Nota: corta"),
    "yaml_lista_sin_cerrar": HEADER + RULE.replace("assert: len(descripcion) > 3", "applies_to: [FACT, FCAM"),
    "yaml_comilla_sin_cerrar": HEADER + RULE.replace('"Línea {item}: descripción corta."', '"Línea {item}'),
    "yaml_tabulador": HEADER + RULE.replace("    title: Una regla", "\ttitle: Una regla"),
    "pydantic_booleano": HEADER + RULE + "    enabled: quizás\n",
    "pydantic_lista": HEADER + RULE + "    applies_to: FACT\n",
    "pydantic_fecha": HEADER + RULE + "    effective: {from: mañana}\n",
    "pydantic_severidad": HEADER + RULE + "    severity: grave\n",
    "xpath_corchete": HEADER + RULE.replace("dte:Descripcion", '"dte:Descripcion["'),
    "xpath_prefijo": HEADER + RULE.replace("dte:Descripcion", "cfe:Descripcion"),
    "xpath_funcion": HEADER + RULE.replace("dte:Descripcion", "nada(dte:Descripcion)"),
    "expresion_parentesis": HEADER + RULE.replace("len(descripcion) > 3", "(len(descripcion) > 3"),
    "expresion_por": HEADER + RULE.replace("len(descripcion) > 3", "len(descripcion) × 2 > 3"),
    "expresion_igual": HEADER + RULE.replace("len(descripcion) > 3", "len(descripcion) = 3"),
    "patron": HEADER + RULE.replace("len(descripcion) > 3", "matches(descripcion, \"[A-Z\")"),
    "plantilla": HEADER + RULE.replace('"Línea {item}: descripción corta."', '"Línea {item: corta"'),
}


def _rules(tmp_path, text: str):
    rules = tmp_path / "reglas"
    rules.mkdir()
    (rules / "mias.yaml").write_text(text, encoding="utf-8")
    return rules


@pytest.mark.parametrize("name", list(RULE_FILES))
def test_a_rule_file_a_library_refuses_is_said_in_spanish(tmp_path, capsys, name):
    rules = _rules(tmp_path, RULE_FILES[name])
    assert main(["validate", str(EXAMPLES / "factura-fact.xml"), "--rules-dir", str(rules)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fel-rules: error: {rules}/mias.yaml:") and not ENGLISH.search(err), err
    assert main(["rules", "--rules-dir", str(rules), "lint"]) == 2
    out = capsys.readouterr().out
    assert "mias.yaml:" in out and not ENGLISH.search(out), out
    main(["rules", "--rules-dir", str(rules), "--lang", "en", "lint"])
    assert "error: " in capsys.readouterr().out


def test_a_rule_file_error_keeps_the_library_words_as_detail(tmp_path):
    from fel_rules.core.errors import RuleFileError
    from fel_rules.ruleset import load_catalog

    for name, said in (("yaml_dos_puntos", "mapping values"), ("xpath_corchete", "Invalid expression"),
                       ("pydantic_booleano", "valid boolean"), ("expresion_parentesis", "never closed")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "mias.yaml").write_text(RULE_FILES[name], encoding="utf-8")
        with pytest.raises(RuleFileError) as caught:
            load_catalog(folder)
        assert caught.value.detail and said in caught.value.detail, (name, caught.value.detail)
        assert said not in caught.value.message


#: Case files ``rules test`` cannot run because a library refused them.
CASES = {
    "caso_pydantic": "rule: FEL-IVA-01\nbase: {base}\ncases:\n  - name: uno\n    expect: [{{id: FEL-IVA-01, "
                     "values: {{actual: 1.00}}}}]\n",
    "caso_yaml": "rule: FEL-IVA-01\nbase: {base}\ncases:\n  - name: uno\n    expect: [pass\n",
    "base_no_xml": "rule: FEL-IVA-01\nbase: {notxml}\ncases:\n  - name: uno\n    expect: pass\n",
    "parche_xpath": "rule: FEL-IVA-01\nbase: {base}\ncases:\n  - name: uno\n    patch:\n      - remove: "
                    "\"//dte:Item[\"\n    expect: pass\n",
    "parche_xml": "rule: FEL-IVA-01\nbase: {base}\ncases:\n  - name: uno\n    patch:\n      - append: "
                  "//dte:Items\n        xml: \"<dte:Item>\"\n    expect: pass\n",
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_case_file_a_library_refuses_is_said_in_spanish(tmp_path, capsys, name):
    notxml = tmp_path / "nota.xml"
    notxml.write_text("esto no es XML", encoding="utf-8")
    path = tmp_path / "FEL-IVA-01.yaml"
    path.write_text(CASES[name].format(base=EXAMPLES / "factura-fact.xml", notxml=notxml), encoding="utf-8")
    assert main(["rules", "test", str(path)]) == 2
    out = capsys.readouterr().out
    assert "FEL-IVA-01.yaml" in out and not ENGLISH.search(out), out


def test_a_render_setting_pydantic_refuses_is_said_in_spanish(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FEL_RULES_QR_SIZE", "grande")
    assert main(["render", str(EXAMPLES / "factura-fact.xml"), "--out", str(tmp_path / "f.pdf")]) == 2
    err = capsys.readouterr().err
    assert "FEL_RULES_QR_SIZE" in err and not ENGLISH.search(err), err


def test_the_mcp_tools_say_it_in_spanish(tmp_path):
    from .mcp.harness import Session

    shutil.copy(EXAMPLES / "factura-fact.xml", tmp_path / "factura.xml")
    (tmp_path / "rota.xml").write_bytes(DOCUMENTS["etiquetas_cruzadas"][0])
    session = Session([str(tmp_path)])
    session.initialize()
    try:
        for number, (tool, arguments) in enumerate([
            ("fel_validate", {"xml_text": "hola"}),
            ("fel_validate", {"xml_path": "rota.xml"}),
            ("fel_render", {"xml_path": "rota.xml"}),
        ], start=1):
            result = session.call(number, "tools/call", {"name": tool, "arguments": arguments})["result"]
            said = " ".join(block["text"] for block in result["content"])
            messages = [i["message"] for i in result.get("structuredContent", {}).get("issues", [])]
            assert not ENGLISH.search(" ".join(messages)), messages
            if result["isError"]:
                assert not ENGLISH.search(said), said
    finally:
        session.close()


def test_a_renderer_failure_keeps_its_words_as_detail():
    from fel_rules.outputs.render.api import render_failure

    class LayoutError(Exception):
        pass

    failure = render_failure(LayoutError("Flowable <Table> too large on page 2 in frame 'normal'"))
    assert "too large" in failure.detail and "too large" not in failure.message and "no cabe" in failure.message


def test_a_system_error_is_said_in_spanish(tmp_path, capsys):
    from fel_rules.core.catalogue import render_text
    from fel_rules.core.foreign import os_error

    assert render_text(os_error(PermissionError(13, "Permission denied"))) == "permiso denegado"
    assert render_text(os_error(OSError(6, "No such device or address"))) == "error del sistema ENXIO"
    assert main(["validate", str(tmp_path / ("x" * 300) / "f.xml")]) == 2
    err = capsys.readouterr().err
    assert not ENGLISH.search(err) and "File name too long" not in err, err

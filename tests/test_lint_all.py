"""``fel-rules rules lint`` lists every problem of a rules folder in one run — each rule file, each rule, each case
file — with its file and line, then a count; exit 2 when there are errors."""

from __future__ import annotations

import re

from fel_rules.authoring.tools import lint
from fel_rules.cli.app import main

from .conftest import EXAMPLES

GOOD = """\
  - id: EMP-OK-01
    title: Descripción presente
    refs: {law: Política interna}
    context: items
    let:
      descripcion: {path: dte:Descripcion, type: text}
    assert: len(descripcion) > 0
    message: "Línea {item}: sin descripción."
    message_en: "Line {item}: no description."
"""

#: a.yaml: an unknown key (line 6), a broken XPath (line 14), then a good rule; b.yaml: attribute access in an
#: expression (line 7) and, after it, an unknown placeholder in a second rule (line 16); c.yaml: broken YAML.
RULES = {
    "a.yaml": """\
schema_version: 1
ruleset: {id: a, version: "1", title: A}
rules:
  - id: EMP-A-01
    title: t
    severidad: error
    context: items
    assert: "1 == 1"
    message: m
  - id: EMP-A-02
    title: t
    context: items
    let:
      d: {path: "dte:Descripcion[", type: text}
    assert: len(d) > 3
    message: m
""" + GOOD,
    "b.yaml": """\
schema_version: 1
ruleset: {id: b, version: "1", title: B}
rules:
  - id: EMP-B-01
    title: t
    context: items
    assert: "x.y == 1"
    message: m
  - id: EMP-B-02
    title: t
    context: items
    let:
      d: {path: dte:Descripcion, type: text}
    assert: len(d) > 3
    message: "la descripción {desc} es corta"
""",
    "c.yaml": """\
schema_version: 1
ruleset: {id: c, version: "1", title: C
rules: []
""",
}

CASES = {
    "EMP-OK-01.yaml": f"""\
rule: EMP-OK-01
base: {EXAMPLES / "factura-fact.xml"}
cases:
  - name: con_descripcion
    expect: pass
  - name: sin_descripcion
    patch:
      - set: "//dte:Item[1]/dte:Descripcion"
        value: ""
    fires: [EMP-OK-01]
  - name: parche_roto
    patch:
      - remove: "//dte:Item[["
    expect: pass
  - name: base_que_no_existe
    base: no-existe.xml
    expect: pass
""",
    "EMP-A-02.yaml": "rule: EMP-A-02\nbase: x.xml\ncases:\n  - name: a\n    expect: [pass\n",
}


def _folder(tmp_path):
    rules = tmp_path / "reglas"
    (rules / "tests").mkdir(parents=True)
    for name, text in RULES.items():
        (rules / name).write_text(text, encoding="utf-8")
    for name, text in CASES.items():
        (rules / "tests" / name).write_text(text, encoding="utf-8")
    return rules


def test_every_problem_is_listed_with_its_file_and_line(tmp_path):
    rules = _folder(tmp_path)
    found = {(p.where.replace(str(rules) + "/", ""), p.severity) for p in lint(rules)}
    assert {
        ("a.yaml:6:5 [EMP-A-01]", "error"),       # unknown key
        ("a.yaml:10:5 [EMP-A-02]", "error"),      # broken XPath
        ("b.yaml:7:14 [EMP-B-01]", "error"),      # attribute access
        ("b.yaml:15:5 [EMP-B-02]", "error"),      # unknown placeholder, in the rule after a broken one
        ("c.yaml:3:6", "error"),                  # broken YAML: the other files are still read
        ("tests/EMP-OK-01.yaml:13:9", "error"),   # a patch's broken XPath
        ("tests/EMP-OK-01.yaml:16:5", "error"),   # a base that does not exist
        ("tests/EMP-A-02.yaml:6:1", "error"),     # broken YAML in a case file
    } <= found
    assert not any("EMP-A-01" in where for where, _ in found if "sin casos" in where)


def test_the_command_prints_them_all_then_a_count_and_exits_2(tmp_path, capsys):
    rules = _folder(tmp_path)
    assert main(["rules", "--rules-dir", str(rules), "lint"]) == 2
    out = capsys.readouterr().out.splitlines()
    errors = [line for line in out if ": error: " in line]
    assert len(errors) >= 8 and len({line.split(":")[0] for line in errors}) >= 4
    assert all(re.match(rf"{re.escape(str(rules))}/\S+\.yaml(:\d+(:\d+)?)?( \[[A-Z0-9-]+\])?: ", line)
               for line in out[:-1])
    assert re.fullmatch(r"Problemas: \d+ \(errores: \d+, advertencias: \d+\)", out[-1])
    said = "\n".join(out)
    assert "clave desconocida 'severidad'" in said and "marcador desconocido {desc}" in said
    assert "no existe el documento base no-existe.xml" in said
    for english in ("Invalid", "expected ", "while parsing", "Input should", "mapping values", " not "):
        assert english not in said


def test_lines_are_in_file_order(tmp_path):
    rules = _folder(tmp_path)
    places = [(p.where.split(":")[0], p.line or 0) for p in lint(rules)]
    assert places == sorted(places)


def test_english_with_lang_en(tmp_path, capsys):
    rules = _folder(tmp_path)
    assert main(["rules", "--rules-dir", str(rules), "--lang", "en", "lint"]) == 2
    out = capsys.readouterr().out
    assert "unknown key 'severidad'" in out and ": error: " in out and out.rstrip().splitlines()[-1].startswith(
        "Problems: ")


def test_warnings_alone_exit_0(tmp_path, capsys):
    rules = tmp_path / "reglas"
    (rules / "tests").mkdir(parents=True)
    (rules / "r.yaml").write_text("schema_version: 1\nruleset: {id: r, version: '1', title: R}\nrules:\n"
                                  + GOOD.replace("    message_en: \"Line {item}: no description.\"\n", ""),
                                  encoding="utf-8")
    (rules / "tests" / "EMP-OK-01.yaml").write_text(CASES["EMP-OK-01.yaml"].split("  - name: parche_roto")[0],
                                                    encoding="utf-8")
    assert main(["rules", "--rules-dir", str(rules), "lint"]) == 0
    out = capsys.readouterr().out
    assert "advertencia: sin message_en" in out and out.rstrip().endswith("(errores: 0, advertencias: 1)")

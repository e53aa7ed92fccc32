"""``fel-rules rules test`` without traps: every failure names the case file and the case and says what is
wrong (exit 2 when a case cannot run), never a traceback; ``fires``/``not`` expectations; one-case files; a
rule filter; failures and a summary by default."""

from __future__ import annotations

import textwrap

import pytest

from fel_rules.cli.app import main

from .conftest import EXAMPLES

BASE = EXAMPLES / "factura-fact.xml"


def write_case(tmp_path, body: str, name: str = "FEL-IVA-01.yaml"):
    path = tmp_path / name
    path.write_text(f"rule: FEL-IVA-01\nbase: {BASE}\n" + textwrap.dedent(body), encoding="utf-8")
    return path


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(["rules", "test", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("case, says", [
    ("""\
      - name: nada_que_parchar
        patch:
          - set: //dte:NoExiste
            value: "1"
        expect: pass
     """, "el parche no encuentra nada: //dte:NoExiste"),
    ("""\
      - name: xpath_rota
        patch:
          - set: "//dte:Item[["
            value: "1"
        expect: pass
     """, "XPath inválida en un parche (//dte:Item[[): la expresión está mal escrita"),
    ("""\
      - name: base_mal_escrita
        base: no-existe.xml
        expect: pass
     """, "no se pudo leer la base no-existe.xml: no existe el archivo o la carpeta"),
])
def test_a_case_that_cannot_run_is_named_and_explained(tmp_path, capsys, case, says):
    path = write_case(tmp_path, "cases:\n" + case)
    code, out, err = run(capsys, str(path))
    name = case.split("name: ")[1].split()[0]
    assert code == 2 and err == "" and "Traceback" not in out
    assert f"ERROR FEL-IVA-01.yaml: FEL-IVA-01/{name}: {says}" in out
    assert out.splitlines()[-1] == "Casos: 1 (correctos: 0, fallidos: 0, sin ejecutar: 1)"


def test_a_case_file_for_a_rule_that_does_not_exist(tmp_path, capsys):
    path = tmp_path / "FEL-NO-99.yaml"
    path.write_text(f"rule: FEL-NO-99\nbase: {BASE}\ncases:\n  - name: algo\n    expect: pass\n", encoding="utf-8")
    code, out, _ = run(capsys, str(path))
    assert code == 2
    assert "ERROR FEL-NO-99.yaml: FEL-NO-99: la regla FEL-NO-99 no existe en las reglas cargadas" in out


def test_an_invalid_case_file_is_named_with_its_line(tmp_path, capsys):
    path = write_case(tmp_path, "cases:\n  - name: sin_expectativa\n")
    code, out, _ = run(capsys, str(path))
    assert code == 2 and "Traceback" not in out
    assert out.startswith(f"ERROR FEL-IVA-01.yaml: {path}:4:")
    assert "el caso necesita 'expect', 'fires' o 'not'" in out


def test_fires_and_not(tmp_path, capsys):
    path = write_case(tmp_path, """\
        cases:
          - name: iva_alterado_dispara_al_menos
            patch:
              - set: "(//dte:Impuesto[dte:NombreCorto='IVA'])[1]/dte:MontoImpuesto"
                value: "99.00"
            fires: [FEL-IVA-01]
            not: [FEL-NIT-01]
          - name: correcto_no_dispara
            not: [FEL-IVA-01]
        """)
    code, out, _ = run(capsys, str(path), "--all")
    assert code == 0, out
    assert "correcto FEL-IVA-01.yaml: FEL-IVA-01/iva_alterado_dispara_al_menos: esperado fires: FEL-IVA-01; " \
           "not: FEL-NIT-01; obtenido FEL-IVA-01," in out


def test_fires_that_does_not_fire_fails(tmp_path, capsys):
    path = write_case(tmp_path, "cases:\n  - name: no_dispara\n    fires: [FEL-IVA-01]\n")
    code, out, _ = run(capsys, str(path))
    assert code == 1
    assert out.splitlines() == ["FALLA FEL-IVA-01.yaml: FEL-IVA-01/no_dispara: esperado fires: FEL-IVA-01; "
                                "obtenido —", "Casos: 1 (correctos: 0, fallidos: 1, sin ejecutar: 0)"]


def test_a_one_case_file_is_accepted(tmp_path, capsys):
    path = write_case(tmp_path, "cases:\n  - name: correcto\n    expect: pass\n")
    code, out, _ = run(capsys, str(path))
    assert (code, out) == (0, "Casos: 1 (correctos: 1, fallidos: 0, sin ejecutar: 0)\n")


def test_rule_filter_and_quiet_default(capsys):
    code, out, _ = run(capsys, "--rule", "FEL-NIT-01")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 1 and lines[0].endswith("fallidos: 0, sin ejecutar: 0)")
    count = int(lines[0].split()[1])
    code, out, _ = run(capsys, "--rule", "FEL-NIT-01", "--all")
    assert len(out.splitlines()) == count + 1
    assert all(line.startswith("correcto FEL-NIT-01.yaml: FEL-NIT-01/") for line in out.splitlines()[:-1])


def test_english(tmp_path, capsys):
    path = write_case(tmp_path, "cases:\n  - name: no_dispara\n    fires: [FEL-IVA-01]\n")
    code = main(["rules", "--lang", "en", "test", str(path)])
    out = capsys.readouterr().out
    assert code == 1 and out.splitlines()[0].startswith("FAIL FEL-IVA-01.yaml: FEL-IVA-01/no_dispara: expected fires:")
    assert out.splitlines()[-1] == "Cases: 1 (ok: 0, failed: 1, could not run: 0)"

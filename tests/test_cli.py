"""The ``fel-rules validate`` command: outputs, exit codes 0/1/2, and clear errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from fel_rules.cli.app import main

from .conftest import EXAMPLES, FEL_REFERENCE, RULES, requires_shared

FACT = EXAMPLES / "factura-fact.xml"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["validate", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def broken_fact(tmp_path):
    path = tmp_path / "mala.xml"
    path.write_bytes(FACT.read_bytes().replace(b"<dte:GranTotal>1911.50<", b"<dte:GranTotal>1900.00<"))
    return path


def test_examples_folder_is_valid(capsys):
    code, out, err = run(capsys, EXAMPLES)
    assert code == 0 and err == ""
    lines = out.strip().splitlines()
    assert lines[-2].startswith(f"Archivos: {len(list(EXAMPLES.glob('*.xml')))} (")  # then the rules seen most
    assert lines[-1].startswith("Reglas más frecuentes (archivos): ")
    assert "factura-fact.xml: VÁLIDO" in out


def test_invalid_file_exits_1_with_linter_lines(capsys, broken_fact):
    code, out, _ = run(capsys, broken_fact)
    assert code == 1
    assert f"{broken_fact}:85: error FEL-TOT-03 El GranTotal es Q 1,900.00" in out
    assert f"{broken_fact}: INVÁLIDO" in out


def test_json_single_file_is_one_report(capsys):
    code, out, _ = run(capsys, FACT, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["valid"] is True and data["report_version"] == 1
    assert data["document"]["gran_total"] == "1911.50" and "run" in data


def test_json_several_files_has_summary(capsys, broken_fact):
    code, out, _ = run(capsys, FACT, broken_fact, "--format", "json")
    data = json.loads(out)
    assert code == 1
    assert data["summary"] == {"files": 2, "valid": 1, "invalid": 1, "could_not_validate": 0}


def test_sarif_output(capsys, broken_fact):
    code, out, _ = run(capsys, broken_fact, "--format", "sarif")
    sarif = json.loads(out)
    assert code == 1 and sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    total = next(r for r in results if r["ruleId"] == "FEL-TOT-03")
    assert total["level"] == "error" and total["locations"][0]["physicalLocation"]["region"]["startLine"] == 85
    assert total["properties"] == {"expected": "1911.50", "actual": "1900.00", "difference": "-11.50"}


def test_english(capsys, broken_fact):
    _, out, _ = run(capsys, broken_fact, "--lang", "en")
    assert "GranTotal is Q 1,900.00, but the line totals add up to Q 1,911.50" in out
    assert ": INVALID (errors: 2" in out


def test_missing_path_exits_2(capsys, tmp_path):
    code, out, err = run(capsys, tmp_path / "no-existe.xml")
    assert code == 2 and out == ""
    assert "No existe el archivo o directorio" in err and "Traceback" not in err


def test_directory_without_xml_exits_2(capsys, tmp_path):
    (tmp_path / "notas.txt").write_text("hola")
    code, _, err = run(capsys, tmp_path)
    assert code == 2 and "no contiene archivos .xml" in err


def test_malformed_rule_file_exits_2_naming_file_and_line(capsys, tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(RULES, rules)
    bad = rules / "lineas.yaml"
    text = bad.read_text(encoding="utf-8")
    bad.write_text(text.replace("    at: precio\n", "    at: precio\n    severidad: alta\n", 1), encoding="utf-8")
    code, out, err = run(capsys, FACT, "--rules-dir", rules)
    assert code == 2 and out == ""
    assert f"{bad}:" in err and "[FEL-LIN-01]" in err and "clave desconocida 'severidad'" in err


def test_fifty_megabyte_file_exits_2(capsys, tmp_path):
    big = tmp_path / "grande.xml"
    with big.open("wb") as handle:
        handle.seek(50 * 1024 * 1024)
        handle.write(b"\n")
    code, out, _ = run(capsys, big)
    assert code == 2 and "FEL-XML-02" in out and "NO SE PUDO VALIDAR" in out


def test_not_xml_exits_1(capsys, tmp_path):
    path = tmp_path / "factura.xml"
    path.write_text('{"Tipo": "FACT"}')
    code, out, _ = run(capsys, path)
    assert code == 1 and "FEL-XML-03" in out


def test_bad_arguments_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["validate", str(FACT), "--tolerance", "mucho"])
    assert exit_info.value.code == 2
    assert "no es un número decimal" in capsys.readouterr().err


def test_profile_and_fail_on_warning(capsys, tmp_path):
    profile = tmp_path / "suave.yaml"
    profile.write_text(
        "schema_version: 1\nprofile: {id: suave, title: Perfil de prueba}\n"
        "overrides:\n  FEL-NIT-02: {severity: warning, reason: Receptores heredados sin NIT verificado}\n",
        encoding="utf-8",
    )
    document = tmp_path / "nit.xml"
    document.write_bytes(FACT.read_bytes().replace(b'IDReceptor="38461528"', b'IDReceptor="38461529"'))
    code, out, _ = run(capsys, document, "--profile", profile)
    assert code == 0 and "advertencia FEL-NIT-02" in out
    code, _, _ = run(capsys, document, "--profile", profile, "--fail-on", "warning")
    assert code == 1


@requires_shared
def test_official_schema_dir(capsys):
    code, out, _ = run(capsys, FACT, "--schema-dir", FEL_REFERENCE / "xsd", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["schema"]["set"].startswith("sat:xsd (corregido: ")


def test_schema_dir_that_does_not_exist(capsys, tmp_path):
    code, _, err = run(capsys, FACT, "--schema-dir", tmp_path / "nada")
    assert code == 2 and "La carpeta de esquemas no existe" in err


def test_console_script_never_prints_a_traceback(tmp_path):
    path = tmp_path / "roto.xml"
    path.write_bytes(b"<dte:GTDocumento")
    result = subprocess.run([sys.executable, "-m", "fel_rules", "validate", str(path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr + result.stdout


# --- fel-rules render ----------------------------------------------------------------------------


def render(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["render", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_render_writes_the_pdf(capsys, tmp_path):
    code, out, err = render(capsys, EXAMPLES / "factura-certificada.xml", "--out", tmp_path,
                            "--logo", EXAMPLES / "logo.png", "--theme", "moderno")
    target = tmp_path / "factura-certificada.pdf"
    assert code == 0 and out.strip() == str(target) and err == ""
    assert target.read_bytes().startswith(b"%PDF-")


def test_render_refuses_an_invalid_document_with_exit_1(capsys, broken_fact, tmp_path):
    code, out, err = render(capsys, broken_fact, "--out", tmp_path / "x.pdf")
    assert code == 1 and out == "" and "FEL-TOT-03" in err and "--force" in err
    assert not (tmp_path / "x.pdf").exists()
    code, out, err = render(capsys, broken_fact, "--out", tmp_path / "x.pdf", "--force")
    assert code == 0 and (tmp_path / "x.pdf").exists() and "NO VÁLIDO" in err


def test_render_errors_exit_2(capsys, tmp_path):
    code, _, err = render(capsys, EXAMPLES / "anulacion.xml", "--out", tmp_path)
    assert code == 2 and "anulación" in err
    code, _, err = render(capsys, FACT, "--logo", tmp_path / "no-hay-logo.png", "--out", tmp_path)
    assert code == 2 and "logo" in err
    code, _, err = render(capsys, tmp_path / "nada.xml")
    assert code == 2 and "No existe" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("arguments", [
    ["validate", "{fact}", "--schema-dir", "{loop}"],
    ["validate", "{fact}", "--profile", "{loop}"],
    ["batch", "{loop}", "--out", "{out}"],
    ["batch", "{examples}", "--out", "{loop}", "--no-render"],
])
def test_a_loop_of_symbolic_links_is_one_line_and_exit_2(tmp_path, capsys, arguments):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    places = {"fact": EXAMPLES / "factura-fact.xml", "loop": tmp_path / "a", "out": tmp_path / "out",
              "examples": EXAMPLES}
    code = main([argument.format(**places) for argument in arguments])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1].endswith("sus enlaces simbólicos forman un ciclo")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any folder")
def test_a_folder_that_cannot_be_listed_is_one_line_and_exit_2(tmp_path, capsys):
    folder = tmp_path / "cerrada"
    folder.mkdir()
    folder.chmod(0)
    try:
        code = main(["validate", str(folder)])
    finally:
        folder.chmod(0o755)
    assert code == 2 and "permiso denegado" in capsys.readouterr().err


@pytest.mark.parametrize("arguments", [
    ["validate", ""], ["validate", "{fact}", "-o", ""], ["batch", ""], ["batch", "{examples}", "--out", " "],
    ["render", "{fact}", "--out", ""], ["validate", "{fact}", "--rules-dir", ""],
])
def test_an_empty_path_is_refused_not_the_working_folder(capsys, arguments):
    places = {"fact": EXAMPLES / "factura-fact.xml", "examples": EXAMPLES}
    with pytest.raises(SystemExit) as exited:
        main([argument.format(**places) for argument in arguments])
    assert exited.value.code == 2 and "una ruta vacía no es una ruta" in capsys.readouterr().err

"""The text output says what to fix: hints under their findings, infos hidden unless asked for, batch lines
with the first error, a summary with the rules seen most."""

from __future__ import annotations

import shutil

from fel_rules.cli.app import main

from .conftest import EXAMPLES

BROKEN = (EXAMPLES / "factura-fact.xml").read_bytes().replace(b"<dte:GranTotal>1911.50</dte:GranTotal>",
                                                              b"<dte:GranTotal>1900.00</dte:GranTotal>")


def _validate(capsys, *args) -> list[str]:
    main(["validate", *args])
    return capsys.readouterr().out.splitlines()


def test_each_finding_is_followed_by_its_hint(tmp_path, capsys):
    path = tmp_path / "factura.xml"
    path.write_bytes(BROKEN)
    lines = _validate(capsys, str(path))
    index = next(i for i, line in enumerate(lines) if " FEL-TOT-04 " in line)
    assert lines[index + 1].startswith("    sugerencia: Subtotal = montos gravables del IVA")
    english = _validate(capsys, str(path), "--lang", "en")
    assert any(line.startswith("    hint: ") for line in english)


def test_infos_are_counted_not_listed_by_default(tmp_path, capsys):
    path = tmp_path / "factura.xml"
    shutil.copy(EXAMPLES / "factura-fact.xml", path)
    assert _validate(capsys, str(path)) == [f"{path}: VÁLIDO (errores: 0, advertencias: 0, informativos: 1)"]
    listed = _validate(capsys, str(path), "--min-severity", "info")
    assert any(" info FEL-XSD-02 " in line for line in listed)


def test_only_errors(tmp_path, capsys):
    path = tmp_path / "exenta.xml"
    shutil.copy(EXAMPLES / "factura-exenta.xml", path)  # carries a warning (FEL-FRA-15)
    assert any(" advertencia FEL-FRA-15 " in line for line in _validate(capsys, str(path)))
    assert not any("FEL-FRA-15" in line for line in _validate(capsys, str(path), "--solo-errores"))
    assert not any("FEL-FRA-15" in line for line in _validate(capsys, str(path), "--min-severity", "error"))


def test_summary_names_the_rules_seen_most(tmp_path, capsys):
    for n in range(3):
        (tmp_path / f"mala-{n}.xml").write_bytes(BROKEN)
    shutil.copy(EXAMPLES / "factura-exenta.xml", tmp_path / "exenta.xml")
    lines = _validate(capsys, str(tmp_path))
    assert lines[-2] == "Archivos: 4 (válidos: 1, inválidos: 3, sin validar: 0)"
    assert lines[-1] == "Reglas más frecuentes (archivos): FEL-TOT-03 (3), FEL-TOT-04 (3), FEL-FRA-15 (1)"


def test_batch_lines_give_the_first_error(tmp_path, capsys):
    folder = tmp_path / "entrada"
    folder.mkdir()
    (folder / "mala.xml").write_bytes(BROKEN)
    shutil.copy(EXAMPLES / "factura-fact.xml", folder / "buena.xml")
    main(["batch", str(folder), "--out", str(tmp_path / "salida"), "--no-render", "--workers", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert "mala.xml: INVÁLIDO FEL-TOT-03 El GranTotal es Q 1,900.00, pero la suma de los totales de línea es " \
           "Q 1,911.50; diferencia -Q 11.50." in lines
    assert "buena.xml: VÁLIDO render desactivado (--no-render)" in lines

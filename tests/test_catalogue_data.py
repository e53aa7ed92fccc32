"""The data files of a rules folder (taxes, frases) are read as written or refused with their place: a value that
would silently change a verdict (a quoted ``"false"``, a code written twice, a factor that loses digits or
overflows) is an error of the file."""

from __future__ import annotations

import textwrap

import pytest

from fel_rules import RuleFileError
from fel_rules.expressions.catalogues import load_frases, load_tax_units

TAXES = """\
impuestos:
  IVA:
    unidades:
{units}
"""
FRASES = """\
tipos:
  1:
    escenarios:
{escenarios}
"""


def _units(tmp_path, units: str):
    path = tmp_path / "impuestos.yaml"
    path.write_text(TAXES.format(units=textwrap.indent(units, " " * 6)), encoding="utf-8")
    return load_tax_units(path)


def _frases(tmp_path, escenarios: str):
    path = tmp_path / "frases.yaml"
    path.write_text(FRASES.format(escenarios=textwrap.indent(escenarios, " " * 6)), encoding="utf-8")
    return load_frases(path)


def test_the_units_as_written(tmp_path):
    units = _units(tmp_path, '1: {factor: "0.12", base: MontoGravable}\n2: {factor: 0, base: MontoGravable}\n')
    assert {key: str(unit.factor) for key, unit in units.items()} == {("IVA", "1"): "0.12", ("IVA", "2"): "0"}


@pytest.mark.parametrize(("units", "said"), [
    ('1: {factor: 0.12, base: MontoGravable}\n', "entre comillas"),  # a float: binary digits
    ('1: {factor: "1e999999", base: MontoGravable}\n', "sin exponente"),
    ('1: {factor: "-0.12", base: MontoGravable}\n', "sin exponente"),
    ('1: {factor: "0.12", base: MontoGravable}\n"01": {factor: "0.05", base: MontoGravable}\n', "repite"),
    ('1: {factor: "0.12", base: MontoGravable}\n"1": {factor: "0.05", base: MontoGravable}\n', "repite"),
])
def test_a_unit_that_would_change_a_verdict_is_refused(tmp_path, units, said):
    with pytest.raises(RuleFileError) as refused:
        _units(tmp_path, units)
    assert said in refused.value.message and refused.value.line is not None


@pytest.mark.parametrize(("escenarios", "said"), [
    ('1: {texto: "a", resolucion: "false"}\n', "true o false"),
    ('1: {texto: "a"}\n"01": {texto: "b"}\n', "repite"),
])
def test_a_frase_that_would_change_a_verdict_is_refused(tmp_path, escenarios, said):
    with pytest.raises(RuleFileError) as refused:
        _frases(tmp_path, escenarios)
    assert said in refused.value.message


def test_a_frase_as_written(tmp_path):
    frases = _frases(tmp_path, '1: {texto: "a", resolucion: true}\n2: {texto: "b"}\n')
    assert [(key, entry.needs_resolution) for key, entry in frases.items()] == [(("1", "1"), True), (("1", "2"), False)]

"""The command line speaks Spanish, argparse's own words included; English with --lang en."""

from __future__ import annotations

import argparse

import pytest

from fel_rules.cli.app import main


def test_help_frame_is_spanish(capsys):
    with pytest.raises(SystemExit) as info:
        main(["validate", "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert out.startswith("uso: fel-rules validate")
    assert "argumentos posicionales:" in out and "opciones:" in out and "mostrar esta ayuda y salir" in out
    assert "usage:" not in out and "show this help message" not in out


@pytest.mark.parametrize("argv, said", [
    (["validate", "--format", "xx", "a.xml"],
     "fel-rules: error: argumento --format: opción inválida: 'xx' (elija entre 'text', 'json', 'sarif', 'html')"),
    (["validate"], "fel-rules: error: faltan estos argumentos: PATH"),
    (["validate", "a.xml", "--nada"], "fel-rules: error: argumentos no reconocidos: --nada"),
    (["validate", "--min-severity", "info", "--solo-errores", "a.xml"],
     "fel-rules: error: argumento --solo-errores: no se admite junto con el argumento --min-severity"),
])
def test_usage_errors_are_spanish(capsys, argv, said):
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.startswith("uso: fel-rules") and said in err.splitlines()


def test_english_with_lang_en(capsys):
    with pytest.raises(SystemExit):
        main(["validate", "--lang", "en", "--format", "xx", "a.xml"])
    err = capsys.readouterr().err
    assert err.startswith("usage: fel-rules") and "invalid choice: 'xx'" in err


def test_argparse_is_left_as_it_was():
    """The Spanish words are argparse's only while a command runs (other users of argparse see English)."""
    with pytest.raises(SystemExit):
        main(["validate", "--format", "xx", "a.xml"])
    assert argparse._("usage: ") == "usage: "  # type: ignore[attr-defined]

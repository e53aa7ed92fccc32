"""README.es.md, followed literally: the walkthrough of "Escribir reglas" (its rule file, its case file, its
commands and the output it shows) runs in a temporary folder, and every ``fel-rules`` command of its code
blocks is one the command line accepts. The English README's walkthrough is followed the same way."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from fel_rules.cli.app import build_parser, main
from fel_rules.testing.builder import Item

from .conftest import EXAMPLES
from .readme_walkthrough import commands_of, copy, fel_rules_commands, walkthrough

ROOT = Path(__file__).resolve().parent.parent
README_ES = ROOT / "README.es.md"
README_EN = ROOT / "README.md"


def _invoice_with_a_large_discount() -> bytes:
    """The example FACT with a discount of Q 300.00 on line 2 (price Q 770.00), totals recomputed."""
    spec = importlib.util.spec_from_file_location("examples_generate", EXAMPLES / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    invoice = module.factura_fact()
    items = list(invoice.items)
    items[1] = Item.goods('Varilla de hierro corrugado 3/8" x 6 m', "20", "38.50", descuento="300.00")
    return invoice.replace(items=items).to_xml()


def follow(readme: Path, tmp_path, monkeypatch, capsys) -> list:
    """Run the walkthrough of ``readme`` in ``tmp_path``, where a sample invoice of the user's (the example FACT)
    and one with a large discount are; every command must end with its exit code and print the output shown."""
    (tmp_path / "factura-de-muestra.xml").write_bytes((EXAMPLES / "factura-fact.xml").read_bytes())
    (tmp_path / "factura-con-descuento.xml").write_bytes(_invoice_with_a_large_discount())
    monkeypatch.chdir(tmp_path)
    steps = walkthrough(readme.read_text(encoding="utf-8"))
    for step in steps:
        if step.file is not None:
            path = tmp_path / step.file.file
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(step.file.text, encoding="utf-8")
            continue
        out = ""
        for argv, code in commands_of(step.commands):
            if argv[0] == "cp":
                copy(argv[1:], tmp_path)
                continue
            if argv[:2] == ["mkdir", "-p"]:
                for folder in argv[2:]:
                    (tmp_path / folder).mkdir(parents=True, exist_ok=True)
                continue
            assert argv[0] == "fel-rules", argv
            got = main(argv[1:])
            captured = capsys.readouterr()
            assert got == code, (argv, captured.out, captured.err)
            out += captured.out
        if step.output is not None:
            printed = out.splitlines()
            for line in step.output.lines:
                assert line in printed, (line, out)
    return steps


def _walkthrough_covers_a_whole_rule(steps) -> None:
    files = {step.file.file: step.file.text for step in steps if step.file is not None}
    rule = next(text for name, text in files.items() if name.count("/") == 1 and "rules:" in text)
    cases = next(text for name, text in files.items() if "/tests/" in name)
    assert "assert:" in rule and "message:" in rule and "message_en:" in rule
    assert "expect: pass" in cases and "expect: [" in cases and "fires: [" in cases and "not: [" in cases
    commands = [" ".join(argv) for step in steps if step.commands for argv, _ in commands_of(step.commands)]
    assert any(c.startswith("fel-rules rules") and c.endswith(" lint") for c in commands), commands
    assert any(" test --rule " in c for c in commands), commands


def test_the_spanish_walkthrough_runs_as_written(tmp_path, monkeypatch, capsys):
    steps = follow(README_ES, tmp_path, monkeypatch, capsys)
    _walkthrough_covers_a_whole_rule(steps)
    assert sum(step.output is not None for step in steps) >= 3  # lint, test and validate show their output


def test_the_english_walkthrough_runs_as_written(tmp_path, monkeypatch, capsys):
    steps = follow(README_EN, tmp_path, monkeypatch, capsys)
    _walkthrough_covers_a_whole_rule(steps)


@pytest.mark.parametrize("readme, least", [(README_ES, 20), (README_EN, 8)], ids=["es", "en"])
def test_every_command_of_the_readme_is_accepted(readme, least, capsys):
    commands = list(fel_rules_commands(readme.read_text(encoding="utf-8")))
    assert len(commands) >= least  # the extraction sees the commands
    for line, arguments in commands:
        try:
            build_parser().parse_args(arguments)
        except SystemExit as exc:  # --version and --help end here with 0; a rejected command with 2
            assert exc.code == 0, (readme.name, line, arguments, capsys.readouterr().err)


def test_the_two_readmes_link_each_other():
    spanish, english = README_ES.read_text(encoding="utf-8"), README_EN.read_text(encoding="utf-8")
    assert "(README.md)" in "\n".join(spanish.splitlines()[:4])
    assert "(README.es.md)" in "\n".join(english.splitlines()[:4])
    for topic in ("## Instalación", "## Los dos comandos", "## Uso desde la terminal", "## Perfiles",
                  "--profile pruebas", "## Servidor MCP", "claude_desktop_config.json", "## Escribir reglas"):
        assert topic in spanish, topic

"""``--resume`` reuses a result only when nothing it depends on changed — by content, not by name or version —
and only when its outputs on disk are the very bytes the journal recorded: a resumed run always ends as a fresh
run with the same inputs and settings would."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from fel_rules import Config
from fel_rules.batch import BatchOptions, run_batch
from fel_rules.cli.app import main
from fel_rules.outputs.render import RenderSettings
from fel_rules.testing.builder import Invoice, Item

from .conftest import EXAMPLES, RULES
from .test_batch import tree


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _new_logo(path: Path) -> None:
    Image.new("RGB", (40, 20), "red").save(path, format="PNG")


CHANGES: dict[str, Callable[[Path], None]] = {  # each edits a copy of what the results depend on
    "rule file": lambda setup: _replace(setup / "reglas" / "totales.yaml", "El GranTotal es {actual}",
                                        "El GranTotal declarado es {actual}"),
    "data file": lambda setup: _replace(setup / "reglas" / "data" / "impuestos.yaml", 'factor: "0.12"',
                                        'factor: "0.13"'),
    "profile": lambda setup: _replace(setup / "perfil.yaml", "FEL-TOT-03", "FEL-TOT-04"),
    "logo": lambda setup: _new_logo(setup / "logo.png"),
}


@pytest.fixture
def setup(tmp_path) -> Path:
    """Two invoices (one valid, one invalid), a copy of the rules, a profile and a logo, all in ``tmp_path``."""
    folder = tmp_path / "entrada"
    folder.mkdir()
    good = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=[Item.goods("Cemento", "10", "85.00")])
    (folder / "buena.xml").write_bytes(good.to_xml())
    bad = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], gran_total="999.00",
                  items=[Item.goods("Arena", "3", "210.00")])
    (folder / "mala.xml").write_bytes(bad.to_xml())
    shutil.copytree(RULES, tmp_path / "reglas", ignore=shutil.ignore_patterns("tests"))
    (tmp_path / "perfil.yaml").write_text(
        "schema_version: 1\nprofile: {id: local, title: Local}\n"
        "overrides:\n  FEL-TOT-03: {severity: warning, reason: prueba}\n", encoding="utf-8")
    shutil.copy(EXAMPLES / "logo.png", tmp_path / "logo.png")
    return tmp_path


def run(setup: Path, out: str, **options):
    config = Config(rules_dir=setup / "reglas", profile=str(setup / "perfil.yaml"))
    settings = RenderSettings.from_env({}, logo=setup / "logo.png")
    return run_batch(BatchOptions(input_dir=setup / "entrada", out_dir=setup / out, workers=1, progress=False,
                                  config=config, render_settings=settings, **options))


@pytest.mark.parametrize("change", CHANGES)
def test_resume_never_reuses_stale_results(setup, change):
    run(setup, "salida")
    CHANGES[change](setup)
    resumed = run(setup, "salida", resume=True)
    fresh = run(setup, "fresca")
    assert resumed.manifest.run.reused == 0, f"{change} changed: every result is stale"
    assert tree(setup / "salida") == tree(setup / "fresca")
    assert resumed.manifest.entries == fresh.manifest.entries


@pytest.mark.parametrize("output, damage", [("buena.report.json", b"{}"), ("mala.report.json", b"{}"),
                                            ("buena.pdf", b"%PDF-1.4 otro"), ("buena.report.json", b"")])
def test_resume_never_reuses_damaged_outputs(setup, output, damage):
    first = run(setup, "salida")
    (setup / "salida" / output).write_bytes(damage)
    resumed = run(setup, "salida", resume=True)
    fresh = run(setup, "fresca")
    assert resumed.manifest.run.reused == 1  # the other file only
    assert resumed.manifest.entries == fresh.manifest.entries == first.manifest.entries
    assert tree(setup / "salida") == tree(setup / "fresca")


def test_resume_reuses_what_is_unchanged(setup):
    first = run(setup, "salida")
    resumed = run(setup, "salida", resume=True)
    assert resumed.manifest.run.reused == 2 and resumed.manifest.entries == first.manifest.entries


def test_batch_accepts_rules_dir(setup, capsys):
    CHANGES["rule file"](setup)
    code = main(["batch", str(setup / "entrada"), "--out", str(setup / "cli"), "--no-render", "--workers", "1",
                 "--rules-dir", str(setup / "reglas"), "--format", "json"])
    assert code == 1 and json.loads(capsys.readouterr().out)["summary"]["invalid"] == 1
    report = json.loads((setup / "cli" / "mala.report.json").read_text(encoding="utf-8"))
    assert any(issue["message"].startswith("El GranTotal declarado es") for issue in report["issues"])

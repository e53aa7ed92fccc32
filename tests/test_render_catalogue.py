"""The frase texts printed on a PDF are those of the rules in force: a custom rules folder governs rendering
(single document and batch) as it governs validation, and the built-in catalogue is not read instead."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pypdf
import pytest

from fel_rules import BatchOptions, Config, RenderSettings, Validator, render_bytes, run_batch
from fel_rules.core.resources import BUILTIN_RULES_DIR

from .conftest import EXAMPLES

BUILTIN_TEXT = "Sujeto a pagos trimestrales ISR"  # TipoFrase 1, CodigoEscenario 1 in the built-in catalogue
CUSTOM_TEXT = "Frase de prueba de un catalogo propio"
SETTINGS = RenderSettings.from_env({})


@pytest.fixture(scope="module")
def custom_rules(tmp_path_factory) -> Path:
    """A copy of the built-in rules whose frases catalogue prints another text for frase 1/1."""
    folder = tmp_path_factory.mktemp("reglas") / "rules"
    shutil.copytree(BUILTIN_RULES_DIR, folder, ignore=shutil.ignore_patterns("tests", "__pycache__"))
    frases = folder / "data" / "frases.yaml"
    original = frases.read_text(encoding="utf-8")
    assert f'1: {{texto: "{BUILTIN_TEXT}"}}' in original
    frases.write_text(original.replace(BUILTIN_TEXT, CUSTOM_TEXT), encoding="utf-8")
    return folder


def pdf_text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages)


def test_render_prints_the_frases_of_the_configured_rules(custom_rules):
    validator = Validator(Config(rules_dir=custom_rules))
    result = render_bytes((EXAMPLES / "factura-certificada.xml").read_bytes(), settings=SETTINGS, validator=validator)
    assert result.report.valid
    assert result.view.frases == [CUSTOM_TEXT]
    text = pdf_text(result.pdf)
    assert CUSTOM_TEXT in text and BUILTIN_TEXT not in text


def test_render_with_the_built_in_rules_prints_the_built_in_frases():
    result = render_bytes((EXAMPLES / "factura-certificada.xml").read_bytes(), settings=SETTINGS)
    assert result.view.frases == [BUILTIN_TEXT]


def test_batch_prints_the_frases_of_its_rules_dir(custom_rules, tmp_path):
    folder = tmp_path / "xml"
    folder.mkdir()
    shutil.copy(EXAMPLES / "factura-certificada.xml", folder / "factura.xml")
    result = run_batch(BatchOptions(input_dir=folder, out_dir=tmp_path / "out", workers=1, progress=False,
                                    render_settings=SETTINGS, config=Config(rules_dir=custom_rules)))
    [entry] = result.manifest.entries
    assert entry.valid and entry.pdf is not None
    text = pdf_text((tmp_path / "out" / entry.pdf).read_bytes())
    assert CUSTOM_TEXT in text and BUILTIN_TEXT not in text

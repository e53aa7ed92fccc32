"""The manifest's entries are written without building an :class:`Entry` each: the text must be the model's."""

from __future__ import annotations

import json

import pytest

from fel_rules.batch.manifest import Entry
from fel_rules.batch.manifest_writer import _entry_json
from fel_rules.batch.worker import FileResult, PdfNote
from fel_rules.core.inputs import readable_name
from fel_rules.core.report import Counts


def _result(**changes) -> FileResult:
    base = dict(rel="sub/factura-ñ.xml", sha256="ab" * 32, tipo="FACT", numero_autorizacion="1-2-3", valid=True,
                complete=True, counts={"warning": 2, "info": 1, "error": 0}, report="sub/factura-ñ.report.json",
                pdf="sub/factura-ñ.pdf", pdf_note=None, error=None)
    return FileResult(**{**base, **changes})


def _model_text(result: FileResult, lang: str) -> str:
    """What the manifest held when each entry was an Entry dumped by pydantic."""
    return Entry(path=readable_name(result.rel), sha256=result.sha256, tipo=result.tipo,
                 numero_autorizacion=result.numero_autorizacion, valid=result.valid, complete=result.complete,
                 counts=Counts(**result.counts), report=result.report, pdf=result.pdf,
                 pdf_note=PdfNote.say(result.pdf_note, lang), error=result.error,
                 pdf_warnings=result.pdf_warnings(lang)).model_dump_json(indent=2)


@pytest.mark.parametrize("lang", ["es", "en"])
@pytest.mark.parametrize("changes", [
    {},
    {"missing_glyphs": ["\u4e2d", "\U0001f600"]},  # a PDF whose font could not draw some characters
    {"valid": False, "pdf": None, "pdf_note": PdfNote.INVALID},
    {"pdf": None, "pdf_note": "an older note", "error": 'line 1: bad "quote"\\ \x01 tab\there\nnewline \u2028'},
    {"sha256": None, "tipo": None, "numero_autorizacion": None, "report": None, "pdf": None,
     "pdf_note": PdfNote.NOT_PROCESSED, "error": "FEL-XML-07: no se pudo leer", "complete": False},
    {"rel": "raro-\udcff.xml"},  # an input name that is not UTF-8: named readably
])
def test_entry_text_is_the_models(changes, lang):
    result = _result(**changes)
    text = _entry_json(result, lang)
    assert text == _model_text(result, lang)
    assert list(json.loads(text)["counts"]) == ["error", "warning", "info"]

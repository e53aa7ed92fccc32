"""A credit or debit note without SerieDocumentoOrigen/NumeroDocumentoOrigen (required since 2023-02-24): the
schema error's hint says what to put there, worked out from the origin's authorization number."""

from __future__ import annotations

import re

import pytest

from .conftest import EXAMPLES

NOTE = (EXAMPLES / "nota-credito-ncre.xml").read_bytes()


def _without(document: bytes, *attributes: str) -> bytes:
    for name in attributes:
        document = re.sub(rf' {name}="[^"]*"'.encode(), b"", document)
    return document


def _origin_errors(report):
    return [i for i in report.issues if i.rule_id == "FEL-XSD-01" and i.location.field in
            ("SerieDocumentoOrigen", "NumeroDocumentoOrigen")]


@pytest.mark.parametrize("missing", [("SerieDocumentoOrigen",), ("NumeroDocumentoOrigen",),
                                     ("SerieDocumentoOrigen", "NumeroDocumentoOrigen")])
def test_missing_origin_series_or_number_says_what_to_put(validator, missing):
    report = validator.validate_bytes(_without(NOTE, *missing))
    errors = _origin_errors(report)
    assert sorted(i.location.field for i in errors) == sorted(missing)
    for issue in errors:
        assert issue.message == f"Falta el atributo obligatorio {issue.location.field} en cno:ReferenciasNota."
        assert issue.hint == ("El documento origen es electrónico (autorización 5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93): "
                              'ponga SerieDocumentoOrigen="5D8A3F21" y NumeroDocumentoOrigen="2622180986" (los '
                              "primeros 8 caracteres de la autorización, y el número decimal de los 8 siguientes) "
                              "(FEL_GEN102).")


def test_origin_hint_in_english(validator_en):
    (issue,) = _origin_errors(validator_en.validate_bytes(_without(NOTE, "NumeroDocumentoOrigen")))
    assert issue.hint.startswith("The origin document is electronic (authorization "
                                 '5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93): set SerieDocumentoOrigen="5D8A3F21" and '
                                 'NumeroDocumentoOrigen="2622180986"')


def test_origin_hint_without_an_electronic_authorization(validator):
    """An origin of the former regime has no UUID: the hint explains both cases instead."""
    document = _without(NOTE, "SerieDocumentoOrigen").replace(
        b'NumeroAutorizacionDocumentoOrigen="5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93"',
        b'NumeroAutorizacionDocumentoOrigen="A-123456"')
    (issue,) = _origin_errors(validator.validate_bytes(document))
    assert issue.hint.startswith("Para un documento origen electrónico (FEL), SerieDocumentoOrigen son los primeros 8")
    assert 'RegimenAntiguo=\"Antiguo\"' in issue.hint


def test_other_schema_errors_keep_the_general_hint(validator):
    document = NOTE.replace(b'MotivoAjuste="', b'MotivoAjusteX="')
    issues = [i for i in validator.validate_bytes(document).issues if i.rule_id == "FEL-XSD-01"]
    assert issues and all(i.hint == "Corrija el campo indicado según el esquema de SAT (FEL_GEN102)." for i in issues)

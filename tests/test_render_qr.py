"""The verifier QR: the codewords computed by fel-rules are qrcode's own, module for module, whatever the data's
modes, length (versions 1…40) and block layout."""

from __future__ import annotations

import random

import pytest
import qrcode
from qrcode.constants import ERROR_CORRECT_M

from fel_rules.outputs.render.qr import _runs, qr_rows


def _reference(data: str) -> list[list[bool]]:
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, border=4, mask_pattern=0)
    code.add_data(data)
    code.make(fit=True)
    return code.get_matrix()


def qr_matrix(data: str) -> list[list[bool]]:
    """The symbol's rows as qrcode's ``get_matrix`` gives them (a dark module true)."""
    return [[module == 1 for module in row] for row in qr_rows(data)]


URL = ("https://felpub.c.sat.gob.gt/verificador-web/publico/vistas/verificacionDte.jsf?tipo=autorizacion"
       "&numero=5D8A3F21-9C4B-4E7A-B2D6-0F1E8C7A4B93&emisor=85372641&receptor=38461528&monto=1911.50")


@pytest.mark.parametrize("alphabet", ["0123456789", "0123456789ABCDEFGHIJ $%*+-./:", "abcXYZ019-./:?&=% áé€"])
def test_the_matrix_is_qrcodes_own(alphabet):
    rng = random.Random(alphabet)
    lengths = [1, 2, 3, 17, 40, 100, 180, 300, 600, 1000, 1400] + [rng.randint(1, 1200) for _ in range(12)]
    for length in lengths:
        data = "".join(rng.choice(alphabet) for _ in range(length))
        assert qr_matrix(data) == _reference(data), (alphabet, length)
    assert qr_matrix(URL) == _reference(URL)


def test_the_rows_hold_only_light_and_dark_modules():
    for data in (URL, "1", "A" * 900, "é" * 300):
        assert {module for row in qr_rows(data) for module in row} == {0, 1}


def test_the_drawn_runs_cover_exactly_the_dark_modules():
    matrix = qr_matrix(URL)
    count = len(matrix)
    drawn = [[False] * count for _ in range(count)]
    for operator in _runs(qr_rows(URL)).splitlines():
        x, y, width, height, name = operator.split()
        assert (name, height) == ("re", "1")
        for column in range(int(x), int(x) + int(width)):
            drawn[count - 1 - int(y)][column] = True
    assert drawn == matrix

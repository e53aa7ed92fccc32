"""The verifier QR as vector squares (crisp at any zoom, no raster image in the PDF)."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from functools import cache
from itertools import zip_longest
from operator import itemgetter
from typing import NamedTuple

import qrcode
from qrcode import LUT, base, util
from qrcode.constants import ERROR_CORRECT_M

__all__ = ["BORDER", "draw_qr", "qr_rows"]


#: The quiet zone around the symbol, in modules.
BORDER = 4
_MASK = 0  # a fixed mask skips trying all eight (the slowest part of qrcode); any mask decodes


def qr_rows(data: str) -> list[bytes]:
    """The module rows of ``data``'s symbol (error correction M, quiet zone included), top to bottom: one byte a
    module, 1 for a dark one."""
    # The version and the codewords (bits, then Reed-Solomon error correction) are computed with whole integers
    # instead of qrcode's bit-by-bit buffer and polynomial objects; the modules are the symbol's fixed ones (laid
    # out by qrcode once per version) with the codeword bits gathered into their places in one step: the same
    # symbol as qrcode's, several times faster.
    segments = qrcode.QRCode(error_correction=ERROR_CORRECT_M)
    segments.add_data(data)
    pieces = _pieces(segments.data_list)
    version = _version(pieces, ERROR_CORRECT_M)
    codewords = _codewords(version, ERROR_CORRECT_M, pieces)
    layout = _layout(version)
    places = len(layout.flips)  # (the codewords' bits fill the data modules; any place left over is 0)
    value = int.from_bytes(bytes(codewords), "big")
    spare = places - 8 * len(codewords)
    value = value << spare if spare >= 0 else value >> -spare
    bits = format(value ^ layout.flips_value, f"0{places}b").encode().translate(_ZERO_ONE)
    modules = bytes(layout.gather(layout.fixed + bits))
    width = layout.width
    return [modules[start:start + width] for start in range(0, width * width, width)]


_ZERO_ONE = bytes.maketrans(b"01", b"\x00\x01")


class _Layout(NamedTuple):
    """A version's symbol: its fixed modules, where the data goes, and how to put them together."""

    width: int  # modules a side, quiet zone included
    fixed: bytes  # the symbol's modules without data (1: dark), then one light module (the quiet zone's)
    flips: tuple[bool, ...]  # for each data module in placement order: whether the mask darkens it
    flips_value: int  # the same as one integer, first module first
    gather: Callable[[bytes], tuple[int, ...]]  # fixed modules + data bits → the symbol, row by row


@cache
def _layout(version: int) -> _Layout:
    """The layout of a symbol of ``version`` with error correction M and the fixed mask (qrcode lays it out)."""
    symbol = _Blank(error_correction=ERROR_CORRECT_M, mask_pattern=_MASK)
    symbol.version = version
    symbol.data_cache = []
    symbol.make(fit=False)
    blank = symbol.blank
    count = len(blank)
    path = _placement(blank)
    mask = util.mask_func(_MASK)
    flips = tuple(bool(mask(row, column)) for row, column in path)
    light = count * count  # (the index of the light module after the fixed ones; the data bits follow it)
    fixed = bytes(1 if module is True else 0 for row in blank for module in row) + b"\x00"
    where = {place: count * count + 1 + index for index, place in enumerate(path)}
    width = count + 2 * BORDER
    indexes = []
    for row in range(-BORDER, count + BORDER):
        for column in range(-BORDER, count + BORDER):
            if 0 <= row < count and 0 <= column < count:
                indexes.append(where.get((row, column), row * count + column))
            else:
                indexes.append(light)
    flips_value = int("".join("1" if flip else "0" for flip in flips) or "0", 2)
    return _Layout(width, fixed, flips, flips_value, itemgetter(*indexes))


class _Blank(qrcode.QRCode):
    """qrcode's symbol, kept as it is before its data is placed (function patterns, format and version
    information; ``None`` where data goes)."""

    def map_data(self, data, mask_pattern):  # noqa: ANN001 - qrcode's API
        self.blank = [list(row) for row in self.modules]


def _placement(modules: list[list[bool | None]]) -> list[tuple[int, int]]:
    """The data modules of a symbol (``modules``: ``None`` where data goes) in the order qrcode fills them: two
    columns at a time from the right, up then down, the vertical timing column skipped."""
    count, path = len(modules), []
    row, step = count - 1, -1
    for column in range(count - 1, 0, -2):
        if column <= 6:
            column -= 1
        while 0 <= row < count:
            path += [(row, c) for c in (column, column - 1) if modules[row][c] is None]
            row += step
        row -= step
        step = -step
    return path


class _Bits:
    """A bit buffer with the interface ``QRData.write`` uses (``put``), held in one integer."""

    def __init__(self) -> None:
        self.value = self.length = 0

    def put(self, number: int, length: int) -> None:
        self.value = (self.value << length) | (number & ((1 << length) - 1))
        self.length += length

    def __len__(self) -> int:
        return self.length


class _Piece(NamedTuple):
    """A segment of the data: its mode, its length in characters and its data bits (``value``, ``bits`` long)."""

    mode: int
    length: int
    value: int
    bits: int


def _pieces(data_list) -> list[_Piece]:
    """qrcode's segments of the data, each with its data bits as ``QRData.write`` writes them (a byte segment's
    bits are its bytes)."""
    pieces = []
    for segment in data_list:
        if segment.mode == util.MODE_8BIT_BYTE:
            value, bits = int.from_bytes(segment.data, "big"), 8 * len(segment.data)
        else:
            written = _Bits()
            segment.write(written)
            value, bits = written.value, written.length
        pieces.append(_Piece(segment.mode, len(segment), value, bits))
    return pieces


def _segments(pieces: list[_Piece], version: int) -> _Bits:
    """The segments as bits: mode, length, data (as in a symbol of ``version``)."""
    sizes = util.mode_sizes_for_version(version)
    bits = _Bits()
    for piece in pieces:
        bits.put(piece.mode, 4)
        bits.put(piece.length, sizes[piece.mode])
        bits.put(piece.value, piece.bits)
    return bits


def _version(pieces: list[_Piece], error_correction: int, start: int = 1) -> int:
    """The smallest version that holds the segments (qrcode's own fitting)."""
    needed = len(_segments(pieces, start))
    version = bisect_left(util.BIT_LIMIT_TABLE[error_correction], needed, start)
    if version == 41:
        raise qrcode.exceptions.DataOverflowError()
    if util.mode_sizes_for_version(start) is not util.mode_sizes_for_version(version):
        return _version(pieces, error_correction, version)
    return version


def _codewords(version: int, error_correction: int, pieces: list[_Piece]) -> list[int]:
    """Data and error correction codewords, interleaved by block, as ``qrcode.util.create_data`` gives them."""
    bits = _segments(pieces, version)
    blocks = base.rs_blocks(version, error_correction)
    limit = sum(block.data_count * 8 for block in blocks)
    if len(bits) > limit:
        raise qrcode.exceptions.DataOverflowError(f"Code length overflow ({len(bits)} > {limit} bits)")
    bits.put(0, min(limit - len(bits), 4))  # terminator
    bits.put(0, -len(bits) % 8)  # to a whole byte
    value = bits.value
    for index in range((limit - len(bits)) // 8):  # pad bytes 0xEC, 0x11… up to the capacity
        value = (value << 8) | (util.PAD0 if index % 2 == 0 else util.PAD1)
    stream = value.to_bytes(limit // 8, "big")
    data_blocks, ec_blocks, offset = [], [], 0
    for block in blocks:
        chunk = stream[offset: offset + block.data_count]
        offset += block.data_count
        data_blocks.append(chunk)
        ec_blocks.append(_remainder(chunk, block.total_count - block.data_count))
    return _interleaved(data_blocks) + _interleaved(ec_blocks)


def _remainder(data: bytes, count: int) -> list[int]:
    """The ``count`` Reed-Solomon error correction codewords of ``data`` (GF(256), QR's generator): long
    division with the remainder held in one integer, one table row XORed in per data byte."""
    rows, top, mask = _division_rows(count), 8 * (count - 1), (1 << 8 * count) - 1
    remainder = 0
    for byte in data:
        remainder = ((remainder << 8) & mask) ^ rows[byte ^ (remainder >> top)]
    return list(remainder.to_bytes(count, "big"))


@cache
def _division_rows(count: int) -> tuple[int, ...]:
    """For each leading byte, the generator with ``count`` codewords times that byte, as one integer."""
    log, exp = base.LOG_TABLE, base.EXP_TABLE
    generator = [log[c] for c in _generator(count)[1:]]  # as logarithms; its coefficients are never 0
    rows = [0]
    for factor in range(1, 256):
        row = bytes(exp[(log[factor] + g) % 255] for g in generator)
        rows.append(int.from_bytes(row, "big"))
    return tuple(rows)


def _generator(count: int) -> list[int]:
    """The generator polynomial with ``count`` error correction codewords (coefficients, highest first)."""
    if count in LUT.rsPoly_LUT:
        return list(LUT.rsPoly_LUT[count])
    polynomial = base.Polynomial([1], 0)
    for index in range(count):
        polynomial = polynomial * base.Polynomial([1, base.gexp(index)], 0)
    return [polynomial[i] for i in range(len(polynomial))]


def _interleaved(blocks) -> list[int]:
    """The codewords of ``blocks`` taken one from each block in turn."""
    return [codeword for column in zip_longest(*blocks) for codeword in column if codeword is not None]


def draw_qr(canvas, data: str, x: float, y: float, size: float) -> None:
    """The QR of ``data`` as a square of side ``size`` points with its bottom-left corner at ``(x, y)``: a white
    ground, then the dark modules merged into horizontal runs, one path filled once."""
    rows = qr_rows(data)
    count = len(rows)
    canvas.saveState()
    canvas.setFillColorRGB(1, 1, 1)
    canvas.rect(x, y, size, size, stroke=0, fill=1)
    canvas.setFillColorRGB(0, 0, 0)
    canvas.translate(x, y)
    canvas.scale(size / count, size / count)  # one unit per module: whole numbers below
    canvas.addLiteral(f"{_runs(rows)} f")
    canvas.restoreState()


def _runs(rows: list[bytes]) -> str:
    """The dark modules of ``rows`` (a module 1 is dark) as PDF rectangles (``x y w h re``), merged into
    horizontal runs, in module units from the bottom-left corner."""
    count = len(rows)
    numbers = _numbers(count)
    rects: list[str] = []
    for row_index, row in enumerate(rows):
        y = f" {count - row_index - 1} "
        spans = [run.span() for run in _DARK.finditer(row)]
        rects += [f"{numbers[start]}{y}{numbers[end - start]} 1 re" for start, end in spans]
    return "\n".join(rects)


@cache
def _numbers(count: int) -> tuple[str, ...]:
    """The numbers 0…``count`` written out."""
    return tuple(map(str, range(count + 1)))


_DARK = re.compile(b"\x01+")

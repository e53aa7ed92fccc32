"""The verifier QR as vector squares (crisp at any zoom, no raster image in the PDF)."""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import cache

import qrcode
from qrcode import LUT, base, util
from qrcode.constants import ERROR_CORRECT_M

__all__ = ["draw_qr", "qr_matrix"]


def qr_matrix(data: str) -> list[list[bool]]:
    """Module matrix of ``data`` (error correction M, quiet zone of 4 modules included)."""
    # A fixed mask skips trying all eight (the slowest part of qrcode); any mask decodes. qrcode lays out the
    # symbol; the version and the codewords (bits, then Reed-Solomon error correction) are computed here with
    # whole integers instead of qrcode's bit-by-bit buffer and polynomial objects: the same codewords, several
    # times faster.
    code = _QRCode(error_correction=ERROR_CORRECT_M, border=4, mask_pattern=0)
    code.add_data(data)
    code.version = _version(code.data_list, code.error_correction)
    code.data_cache = _codewords(code.version, code.error_correction, code.data_list)
    code.make(fit=False)
    return code.get_matrix()


class _QRCode(qrcode.QRCode):
    """qrcode's symbol, with the data placed along a path computed once per version (qrcode walks the zigzag
    module by module for every symbol)."""

    def map_data(self, data, mask_pattern):  # noqa: ANN001 - qrcode's API
        path, flips = _placement(self.version, mask_pattern, self.modules)
        bits = format(int.from_bytes(bytes(data), "big"), f"0{8 * len(data)}b").ljust(len(path), "0")
        modules = self.modules
        for (row, column), bit, flip in zip(path, bits, flips, strict=False):
            modules[row][column] = (bit == "1") != flip


_PLACEMENTS: dict[tuple[int, int], tuple[tuple[tuple[int, int], ...], tuple[bool, ...]]] = {}


def _placement(version: int, mask_pattern: int, modules) -> tuple[tuple[tuple[int, int], ...], tuple[bool, ...]]:
    """The data modules of a symbol of ``version`` in the order qrcode fills them (``modules`` holds the function
    patterns, the format and version information, ``None`` elsewhere), and which ones the mask flips."""
    key = (version, mask_pattern)
    if key not in _PLACEMENTS:
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
        mask = util.mask_func(mask_pattern)
        _PLACEMENTS[key] = (tuple(path), tuple(bool(mask(r, c)) for r, c in path))
    return _PLACEMENTS[key]


class _Bits:
    """A bit buffer with the interface ``QRData.write`` uses (``put``), held in one integer."""

    def __init__(self) -> None:
        self.value = self.length = 0

    def put(self, number: int, length: int) -> None:
        self.value = (self.value << length) | (number & ((1 << length) - 1))
        self.length += length

    def __len__(self) -> int:
        return self.length


def _segments(data_list, version: int) -> _Bits:
    """The segments of ``data_list`` as bits: mode, length, data (as in a symbol of ``version``)."""
    sizes = util.mode_sizes_for_version(version)
    bits = _Bits()
    for segment in data_list:
        bits.put(segment.mode, 4)
        bits.put(len(segment), sizes[segment.mode])
        segment.write(bits)
    return bits


def _version(data_list, error_correction: int, start: int = 1) -> int:
    """The smallest version that holds ``data_list`` (qrcode's own fitting, on :class:`_Bits`)."""
    needed = len(_segments(data_list, start))
    version = bisect_left(util.BIT_LIMIT_TABLE[error_correction], needed, start)
    if version == 41:
        raise qrcode.exceptions.DataOverflowError()
    if util.mode_sizes_for_version(start) is not util.mode_sizes_for_version(version):
        return _version(data_list, error_correction, version)
    return version


def _codewords(version: int, error_correction: int, data_list) -> list[int]:
    """Data and error correction codewords, interleaved by block, as ``qrcode.util.create_data`` gives them."""
    bits = _segments(data_list, version)
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
    longest = max(len(block) for block in blocks)
    return [block[i] for i in range(longest) for block in blocks if i < len(block)]


def draw_qr(canvas, data: str, x: float, y: float, size: float) -> None:
    """The QR of ``data`` as a square of side ``size`` points with its bottom-left corner at ``(x, y)``: a white
    ground, then the dark modules merged into horizontal runs, one path filled once."""
    matrix = qr_matrix(data)
    count = len(matrix)
    canvas.saveState()
    canvas.setFillColorRGB(1, 1, 1)
    canvas.rect(x, y, size, size, stroke=0, fill=1)
    canvas.setFillColorRGB(0, 0, 0)
    canvas.translate(x, y)
    canvas.scale(size / count, size / count)  # one unit per module: whole numbers below
    canvas.addLiteral(f"{_runs(matrix)} f")
    canvas.restoreState()


def _runs(matrix: list[list[bool]]) -> str:
    """The dark modules of ``matrix`` as PDF rectangles (``x y w h re``), merged into horizontal runs, in
    module units from the bottom-left corner."""
    count = len(matrix)
    rects = []
    for row_index, row in enumerate(matrix):
        y = count - row_index - 1
        line = bytes(row)  # (a dark module is True: byte 1)
        rects += [f"{run.start()} {y} {run.end() - run.start()} 1 re" for run in _DARK.finditer(line)]
    return "\n".join(rects)


_DARK = re.compile(b"\x01+")

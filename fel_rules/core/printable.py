"""Control characters written visibly: a value from a document or a file name can never start a new
line of text output, move the cursor, or reorder what a terminal shows (``\\n``, ``\\x1b``, ``\\u202e``)."""

from __future__ import annotations

import re

__all__ = ["CONTROL_CLASS", "escape_controls"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: The characters :func:`escape_controls` escapes, as ranges of code points (first, last).
_RANGES = ((0x00, 0x1F), (0x7F, 0x9F), (0x2028, 0x2029), (0x202A, 0x202E), (0x2066, 0x2069))
_CONTROLS = [code for first, last in _RANGES for code in range(first, last + 1)]
_TABLE = {code: _NAMED.get(chr(code), f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}") for code in _CONTROLS}
#: The same, as the inside of a regular expression's character class (ranges: a class compiles faster from them).
CONTROL_CLASS = "".join(f"\\x{first:02x}-\\x{last:02x}" if last < 0x100 else f"\\u{first:04x}-\\u{last:04x}"
                        for first, last in _RANGES)
_ANY = re.compile(f"[{CONTROL_CLASS}]")


def escape_controls(text: str) -> str:
    """``text`` with C0/C1 controls, DEL, line and paragraph separators and bidirectional overrides escaped
    (idempotent: the escapes themselves are printable)."""
    return text.translate(_TABLE) if _ANY.search(text) else text  # most texts have none: no copy made

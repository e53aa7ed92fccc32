"""Regular expressions for ``matches(value, pattern)``: a small, safe subset, checked when rules load.

A pattern always matches the whole text (no ``^``/``$``), is at most :data:`MAX_PATTERN_LENGTH`
characters, and uses literals, ``.``, classes (``[A-Z0-9]``, ``\\d``, ``\\w``, ``\\s``, ASCII only),
groups, ``|`` and the quantifiers ``? * + {m} {m,} {m,n}``. What could make matching slow on a
hostile document is refused: a quantifier over a group that itself repeats or branches (``(a+)+``,
``(a|b)*``), backreferences, lookarounds, lazy or possessive quantifiers, and patterns whose
variable repetitions could split a text in more than :data:`MAX_SPLITS` ways. Compiled patterns are
kept, so each is compiled once per process.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..core.catalogue import render_text
from ..core.foreign import regex_error
from ..core.text import Text

__all__ = ["MAX_MATCHED_TEXT", "MAX_PATTERN_LENGTH", "MAX_SPLITS", "PatternError", "compile_pattern"]

#: Longest pattern a rule may write.
MAX_PATTERN_LENGTH = 100

#: Longest text ``matches`` looks at; a longer value never matches.
MAX_MATCHED_TEXT = 1000

#: Most ways the variable repetitions of a pattern may split a text (an unbounded one counts as
#: :data:`MAX_MATCHED_TEXT` ways, ``{m,n}`` as n − m + 1, ``?`` and each ``|`` as 2).
MAX_SPLITS = 1_000_000

_ESCAPES = set("dDwWsS")
_QUANTIFIER = re.compile(r"[*+?]|\{([0-9]{1,4})(?:(,)([0-9]{0,4}))?\}")


class PatternError(ValueError):
    """A pattern outside the safe subset; ``position`` is 0-based within the pattern."""

    def __init__(self, message: str, message_en: str, position: int | None = None) -> None:
        super().__init__(message)
        self.message_en = message_en
        self.position = position


class _Group:
    """A group of the pattern being checked (the whole pattern is the first)."""

    __slots__ = ("branches", "repeats", "start")

    def __init__(self, start: int = 0) -> None:
        self.repeats = False  # holds a quantifier
        self.branches = False  # holds a |
        self.start = start


class _Scan:
    """Where the check of a pattern stands: its open groups, its last atom, the ways it may split a text."""

    __slots__ = ("atom", "groups", "splits")

    def __init__(self) -> None:
        self.groups = [_Group()]
        self.atom: _Group | None = None  # the last atom: a group it closed, or an empty marker for a single character
        self.splits = 1


@lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` checked against the safe subset and compiled (ASCII classes); raises :class:`PatternError`."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise PatternError(f"el patrón tiene más de {MAX_PATTERN_LENGTH} caracteres",
                           f"the pattern is longer than {MAX_PATTERN_LENGTH} characters")
    _check(pattern)
    try:
        return re.compile(pattern, re.ASCII)
    except re.error as exc:
        said = Text.of("expression.bad_pattern", reason=regex_error(exc.msg))
        raise PatternError(render_text(said), render_text(said, "en"), exc.pos) from None


def _check(pattern: str) -> None:
    scan = _Scan()
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index = _escape(pattern, index)
            scan.atom = _Group()
        elif char == "[":
            index = _char_class(pattern, index)
            scan.atom = _Group()
        elif char == "(":
            index = _open_group(scan, pattern, index)
        elif char == ")":
            index = _close_group(scan, index)
        elif char == "|":
            scan.groups[-1].branches = True
            scan.splits *= 2
            scan.atom = None
            index += 1
        elif char in "^$":
            raise PatternError("el patrón ya se compara con todo el texto: quite ^ y $",
                           "the pattern already matches the whole text: remove ^ and $", index)
        elif (quantifier := _QUANTIFIER.match(pattern, index)) is not None:
            index = _quantify(scan, quantifier, pattern)
        elif char in "{}":
            raise PatternError("escriba \\{ o \\} para una llave literal", "write \\{ or \\} for a literal brace",
                               index)
        else:
            scan.atom = _Group()
            index += 1
        if scan.splits > MAX_SPLITS:
            raise PatternError("demasiadas repeticiones variables: fije los límites con {m,n}",
                           "too many variable repetitions: bound them with {m,n}", index - 1)


def _open_group(scan: _Scan, pattern: str, index: int) -> int:
    """Index after the opening of a group, ``(`` or ``(?:``, which is pushed on the scan."""
    if pattern.startswith("(?", index) and not pattern.startswith("(?:", index):
        raise PatternError("solo se admiten grupos ( … ) y (?: … )", "only ( … ) and (?: … ) groups are allowed",
                           index)
    scan.groups.append(_Group(start=index))
    scan.atom = None
    return index + (3 if pattern.startswith("(?:", index) else 1)


def _close_group(scan: _Scan, index: int) -> int:
    """Index after ``)``: the closed group becomes the atom a quantifier may follow."""
    if len(scan.groups) == 1:
        raise PatternError("paréntesis ')' sin abrir", "unbalanced ')'", index)
    closed = scan.groups.pop()
    scan.groups[-1].repeats |= closed.repeats
    scan.groups[-1].branches |= closed.branches
    scan.atom = closed
    return index + 1


def _escape(pattern: str, index: int) -> int:
    escaped = pattern[index + 1:index + 2]
    if not escaped or (escaped.isalnum() and escaped not in _ESCAPES):
        raise PatternError(f"escape no admitido '\\{escaped}'; use \\d, \\w, \\s o un signo escapado",
                       f"escape not allowed '\\{escaped}'; use \\d, \\w, \\s or an escaped sign", index)
    return index + 2


def _char_class(pattern: str, index: int) -> int:
    """Index after the class that starts at ``index`` (``[``)."""
    position = index + 1
    if pattern.startswith("^", position):
        position += 1
    if pattern.startswith("]", position):
        position += 1
    while position < len(pattern) and pattern[position] != "]":
        if pattern[position] == "\\":
            position = _escape(pattern, position)
        elif pattern[position] == "[":
            raise PatternError("escriba \\[ dentro de una clase", "write \\[ inside a class", position)
        else:
            position += 1
    if position >= len(pattern):
        raise PatternError("clase '[' sin cerrar", "unterminated class '['", index)
    return position + 1


def _quantify(scan: _Scan, quantifier: re.Match[str], pattern: str) -> int:
    start, end = quantifier.span()
    if scan.atom is None:
        raise PatternError("el cuantificador no tiene nada que repetir", "nothing to repeat", start)
    if scan.atom.repeats or scan.atom.branches:
        raise PatternError("un grupo que se repite no puede contener otra repetición ni |",
                       "a repeated group cannot hold another repetition or |", start)
    if end < len(pattern) and pattern[end] in "?+":
        raise PatternError("solo cuantificadores simples (sin ? ni + detrás)",
                       "only plain quantifiers (no ? or + after them)", end)
    text = quantifier.group()
    if text == "?":
        ways = 2
    elif text in "*+":
        ways = MAX_MATCHED_TEXT
    elif quantifier.group(2) is None:
        ways = 1
    elif not quantifier.group(3):
        ways = MAX_MATCHED_TEXT
    else:
        low, high = int(quantifier.group(1)), int(quantifier.group(3))
        if high < low:
            raise PatternError("en {m,n}, n no puede ser menor que m", "in {m,n}, n cannot be less than m", start)
        ways = high - low + 1
    scan.splits *= ways
    scan.groups[-1].repeats |= ways > 1
    scan.atom = None
    return end

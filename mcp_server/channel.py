"""The stdio channel: newline-delimited UTF-8 JSON lines, a line-length limit, one writer lock.

At start the real stdout is kept for the protocol and file descriptor 1 is pointed at stderr, so a
stray ``print`` — from Python or from a C library — can never corrupt the stream.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from typing import BinaryIO

__all__ = ["DEFAULT_LINE_LIMIT", "Channel", "LineTooLong", "dumps", "one_line", "protect_stdout", "standard_input"]

DEFAULT_LINE_LIMIT = 8 * 1024 * 1024
_CHUNK = 1024 * 1024


#: Characters JSON leaves raw in a string that line splitters such as Python's ``str.splitlines`` take for line
#: breaks (JSON escapes the others: every control character below U+0020).
_BREAKS = ("\x85", "\u2028", "\u2029")


def dumps(value: object) -> str:
    """Compact JSON text on one line, UTF-8 characters kept (see :func:`one_line`)."""
    return one_line(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def one_line(text: str) -> str:
    """JSON ``text`` with U+0085, U+2028 and U+2029 escaped: the same JSON, one line for every line splitter."""
    for character in _BREAKS:
        if character in text:
            text = text.replace(character, f"\\u{ord(character):04x}")
    return text


class LineTooLong(Exception):
    """A line over the limit was read (and discarded up to its newline)."""


def protect_stdout() -> BinaryIO:
    """A private binary handle on the real stdout; fd 1 and ``sys.stdout`` now go to stderr.

    A standard descriptor the process started without (``2>&-``) is first opened on the null device: otherwise the
    handle would take its number, and whatever is written to stderr would land in the protocol stream."""
    for descriptor in (0, 1, 2):
        try:
            os.fstat(descriptor)
        except OSError:
            null = os.open(os.devnull, os.O_RDONLY if descriptor == 0 else os.O_WRONLY)
            if null != descriptor:
                os.dup2(null, descriptor)
                os.close(null)
    if sys.stderr is None:  # (Python gives no stream for a descriptor closed at start)
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    if sys.stdout is not None:
        sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def standard_input() -> BinaryIO:
    """The process's stdin, as bytes (the null device's when it started without one: see :func:`protect_stdout`)."""
    if sys.stdin is None:
        return open(0, "rb", closefd=False)  # noqa: SIM115
    return sys.stdin.buffer


class Channel:
    """Reads lines from ``reader`` and writes compact JSON messages to ``writer``."""

    def __init__(self, reader: BinaryIO, writer: BinaryIO, *, line_limit: int = DEFAULT_LINE_LIMIT) -> None:
        self.reader, self.writer, self.line_limit = reader, writer, line_limit
        self._lock = threading.Lock()
        self.closed = False
        self.on_close: Callable[[], None] | None = None  # called once, when the client stops reading

    def read_line(self) -> bytes | None:
        """The next non-empty line without its line ending, ``None`` at EOF; ``LineTooLong`` when over the limit."""
        while True:
            line = self.reader.readline(self.line_limit + 1)
            if not line:
                return None
            if len(line) > self.line_limit and not line.endswith(b"\n"):
                while True:  # discard the rest of the oversized line, bounded chunks
                    rest = self.reader.readline(_CHUNK)
                    if not rest or rest.endswith(b"\n"):
                        break
                raise LineTooLong
            line = line.strip()
            if line:
                return line

    def send(self, message: dict | list) -> None:
        """Write one message as one line (UTF-8, no embedded newline) and flush; a gone client is ignored."""
        # A lone surrogate (a client may send "\ud800" in an id, a method name, a path…) cannot be
        # encoded as UTF-8; it can only sit inside a JSON string, where "\ud800" is its valid escape.
        data = dumps(message).encode("utf-8", "backslashreplace") + b"\n"
        with self._lock:
            if self.closed:
                return
            try:
                self.writer.write(data)
                self.writer.flush()
                return
            except (BrokenPipeError, ValueError, OSError):
                self.closed = True
        if self.on_close is not None:
            self.on_close()

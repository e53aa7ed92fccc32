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

__all__ = ["DEFAULT_LINE_LIMIT", "Channel", "LineTooLong", "dumps", "protect_stdout"]

DEFAULT_LINE_LIMIT = 8 * 1024 * 1024
_CHUNK = 1024 * 1024


def dumps(value: object) -> str:
    """Compact JSON text, UTF-8 characters kept (no newline can appear: strings escape it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class LineTooLong(Exception):
    """A line over the limit was read (and discarded up to its newline)."""


def protect_stdout() -> BinaryIO:
    """A private binary handle on the real stdout; fd 1 and ``sys.stdout`` now go to stderr."""
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


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

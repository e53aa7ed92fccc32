"""The standard streams of a ``fel-rules`` process: usable however the caller left them, and a failed write to
stdout said in one line.

A caller may start the process with a standard descriptor closed (``2>&-``, ``<&-``). Python then has no stream
for it, and the next file the process opens takes its number: what is meant for that stream lands in the file (a
diagnostic in a PDF, or in the MCP server's protocol stream). :func:`open_standard_streams` opens each closed one
on the null device before anything else runs. :class:`ReportedOutput` turns a failed write to stdout (a full
disk, ``> /dev/full``) into an :class:`OutputError`, which the command line reports as one line and exit 2.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any, TextIO

from ..core.errors import FelRulesError

__all__ = ["OutputError", "ReportedOutput", "discard_output", "open_standard_streams"]

#: The standard descriptors, the name of their stream in :mod:`sys`, and how the null device is opened for each.
_STANDARD = ((0, "stdin", os.O_RDONLY), (1, "stdout", os.O_WRONLY), (2, "stderr", os.O_WRONLY))


class OutputError(FelRulesError):
    """stdout could not be written (a full disk, an I/O error): what the command said is lost."""

    def __init__(self, exc: OSError) -> None:
        reason = exc.strerror or type(exc).__name__
        super().__init__(f"no se pudo escribir la salida estándar: {reason}",
                         message_en=f"could not write the standard output: {reason}", detail=str(exc))


class ReportedOutput:
    """A text stream (stdout) whose failed writes and flushes raise :class:`OutputError`; a closed pipe still
    raises :class:`BrokenPipeError` (the reader went away: nothing to report). Everything else is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc) from exc

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc) from exc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def open_standard_streams() -> None:
    """Open every standard descriptor the process started without on the null device, and give :mod:`sys` a
    stream for each it has none of."""
    for descriptor, name, flags in _STANDARD:
        try:
            os.fstat(descriptor)
        except OSError:
            _open_null(descriptor, flags)
        if getattr(sys, name) is None:
            mode = "r" if descriptor == 0 else "w"
            setattr(sys, name, open(descriptor, mode, encoding="utf-8", errors="backslashreplace",  # noqa: SIM115
                                    closefd=False))


def discard_output() -> None:
    """Point stdout's descriptor at the null device, so what it still holds (and the interpreter's last flush)
    goes nowhere instead of failing again."""
    try:
        _open_null(sys.stdout.fileno(), os.O_WRONLY)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass


def _open_null(descriptor: int, flags: int) -> None:
    """Make ``descriptor`` the null device."""
    null = os.open(os.devnull, flags)
    if null != descriptor:
        os.dup2(null, descriptor)
        os.close(null)

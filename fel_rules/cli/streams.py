"""The standard streams of a ``fel-rules`` process: usable however the caller left them, a failed write to stdout
said in one line, and a failed write to stderr never turned into another failure.

A caller may start the process with a standard descriptor closed (``2>&-``, ``<&-``). Python then has no stream
for it, and the next file the process opens takes its number: what is meant for that stream lands in the file (a
diagnostic in a PDF, or in the MCP server's protocol stream). :func:`open_standard_streams` opens each closed one
on the null device before anything else runs.

:func:`guard_standard_streams` then makes stdout a :class:`ReportedOutput`, whose failed writes (a full disk,
``> /dev/full``) raise :class:`OutputError`, which the command line reports as one line and exit 2; an unbuffered
stdout (``python -u``, ``PYTHONUNBUFFERED``) is written through a buffer flushed at every write, since Python's own
unbuffered text stream drops what a short write leaves. stderr becomes a :class:`QuietErrors`: when even it cannot
be written (``> log 2>&1`` on a full disk), what it was to say is dropped and the exit code still says it.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any, TextIO

from ..core.errors import FelRulesError

__all__ = ["OutputError", "QuietErrors", "ReportedOutput", "discard_output", "guard_standard_streams",
           "open_standard_streams"]

#: The standard descriptors, the name of their stream in :mod:`sys`, and how the null device is opened for each.
_STANDARD = ((0, "stdin", os.O_RDONLY), (1, "stdout", os.O_WRONLY), (2, "stderr", os.O_WRONLY))


class OutputError(FelRulesError):
    """stdout could not be written (a full disk, an I/O error): what the command said is lost."""

    def __init__(self, exc: OSError) -> None:
        from ..core.catalogue import render_text
        from ..core.foreign import os_error

        reason = os_error(exc)
        super().__init__(f"no se pudo escribir la salida estándar: {render_text(reason)}",
                         message_en=f"could not write the standard output: {render_text(reason, 'en')}",
                         detail=str(exc))


class _Wrapped:
    """A text stream whose writes go through its subclass's ``write``; everything else is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class ReportedOutput(_Wrapped):
    """A text stream (stdout) whose failed writes and flushes raise :class:`OutputError`; a closed pipe still
    raises :class:`BrokenPipeError` (the reader went away: nothing to report). ``flushing``: every write is flushed
    (the stream stands for an unbuffered one)."""

    def __init__(self, stream: TextIO, *, flushing: bool = False) -> None:
        super().__init__(stream)
        self._flushing = flushing

    def write(self, text: str) -> int:
        try:
            written = self._stream.write(text)
            if self._flushing:
                self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc) from exc
        return written

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(exc) from exc


class QuietErrors(_Wrapped):
    """A text stream (stderr) whose failed writes and flushes are dropped: there is nowhere left to say them."""

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except (OSError, ValueError):
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except (OSError, ValueError):
            pass


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


def guard_standard_streams() -> None:
    """Make stdout a :class:`ReportedOutput` (over a buffer when it was unbuffered) and stderr a
    :class:`QuietErrors`. A character stdout's encoding has no way to write (``PYTHONIOENCODING=ascii``) is written
    as its escape (``\\xe9``), as on stderr, never a failure."""
    if getattr(sys.stdout, "errors", None) == "strict" and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    stdout, flushing = _buffered(sys.stdout)
    sys.stdout = ReportedOutput(stdout, flushing=flushing)  # type: ignore[assignment]
    sys.stderr = QuietErrors(sys.stderr)  # type: ignore[assignment]


def discard_output() -> None:
    """Point stdout's descriptor at the null device, so what it still holds (and the interpreter's last flush)
    goes nowhere instead of failing again."""
    try:
        _open_null(sys.stdout.fileno(), os.O_WRONLY)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass


def _buffered(stream: TextIO) -> tuple[TextIO, bool]:
    """``stream``, or when it writes straight to its file (unbuffered), a text stream on a buffer over that file,
    and whether it stands for an unbuffered one (to be flushed at every write)."""
    raw = getattr(stream, "buffer", None)
    if not isinstance(raw, io.RawIOBase):
        return stream, False
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding=stream.encoding, errors=stream.errors,
                            write_through=True), True


def _open_null(descriptor: int, flags: int) -> None:
    """Make ``descriptor`` the null device."""
    null = os.open(os.devnull, flags)
    if null != descriptor:
        os.dup2(null, descriptor)
        os.close(null)

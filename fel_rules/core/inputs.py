"""Reading input files safely: regular files only, never more than a byte cap; names shown readably.

A FIFO, a device (``/dev/zero``), a socket or a symlink to one of them is never read: the file is
opened without blocking (opening a FIFO with no writer returns at once) and judged on the opened
descriptor, so nothing can be swapped in between a check and the read. With allowed folders (``roots``) the
opened file must be inside one of them (:func:`~fel_rules.core.confine.confine_opened`). File names that are not valid
UTF-8 (Latin-1 names from Windows zip files) reach Python as strings with escaped bytes; they are shown
with those bytes written as ``\\xNN``, so JSON, reports and terminals never fail on them.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from .capped import read_capped
from .confine import OutsideRoots, confine, confine_opened
from .foreign import os_error
from .handover import HANDOVER
from .text import Text

__all__ = ["OWN_FILE_LIMIT", "InputTooLarge", "NotRegularFile", "describe_read_error", "input_sha256", "read_input",
           "read_own", "readable_name"]

_CHUNK = 1024 * 1024
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)

_KINDS = {  # S_IFMT → what the file is
    stat.S_IFIFO: "fifo",
    stat.S_IFCHR: "character_device",
    stat.S_IFBLK: "block_device",
    stat.S_IFDIR: "directory",
    stat.S_IFSOCK: "socket",
}


class NotRegularFile(OSError):
    """The path names something other than a regular file (FIFO, device, socket, folder)."""

    def __init__(self, path: str | os.PathLike, mode: int | None) -> None:
        self.kind = _KINDS.get(stat.S_IFMT(mode or 0), "special")
        from .catalogue import render_text  # the catalogue loads with the first file that is not a regular one

        super().__init__(errno.EINVAL, render_text(self.reason, "en"), os.fspath(path))  # as the system says it

    @property
    def reason(self) -> Text:
        """``no es un archivo regular: es una carpeta``, said in the reader's language."""
        return Text.of("file.not_regular", kind=Text(f"file_kind.{self.kind}"))


class InputTooLarge(Exception):
    """The file holds more than the limit allows (``size`` is what was seen: at least ``limit + 1``)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"{size} bytes > {limit}")
        self.size, self.limit = size, limit


def read_input(path: str | os.PathLike, limit: int, *, roots: Sequence[Path] = ()) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    Raises :class:`NotRegularFile` (FIFO, device, socket, folder), :class:`InputTooLarge` (checked on the
    opened file before reading, and again while reading: the file may grow),
    :class:`~fel_rules.core.confine.OutsideRoots` (``roots`` given and the opened file is outside them) or
    :class:`OSError`.
    """
    descriptor = -1
    try:
        with HANDOVER:  # (a time limit's alarm waits until the descriptor is where the ``finally`` closes it)
            descriptor, size = _open_regular(path, roots)
        if size > limit:
            raise InputTooLarge(size, limit)
        data = read_capped(descriptor, size, limit)
        if len(data) > limit:
            raise InputTooLarge(max(len(data), os.fstat(descriptor).st_size), limit)
        return data
    finally:
        if descriptor >= 0:
            os.close(descriptor)


#: Larger than any file fel-rules writes and reads back (a report, a manifest, a journal entry); only guards against
#: a swapped device.
OWN_FILE_LIMIT = 1 << 30


def read_own(path: str | os.PathLike, limit: int = OWN_FILE_LIMIT, *, roots: Sequence[Path] = ()) -> bytes:
    """The bytes of a file fel-rules wrote and reads back (a journal entry, a report, a kept view, the manifest),
    read as :func:`read_input` reads inputs (inside ``roots`` when given): a FIFO, a device or a folder put in its
    place is an ``OSError`` (never a read that blocks or never ends), and so is a file over ``limit`` (``EFBIG``):
    callers that take a damaged file for a missing one need no other case."""
    try:
        return read_input(path, limit, roots=roots)
    except InputTooLarge as exc:
        raise OSError(errno.EFBIG, os.strerror(errno.EFBIG), os.fspath(path)) from exc


def input_sha256(path: str | os.PathLike, limit: int, *, roots: Sequence[Path] = ()) -> str:
    """sha256 of the regular file at ``path`` read in chunks (same refusals as :func:`read_input`)."""
    stream = None
    try:
        with HANDOVER:  # (a time limit's alarm waits until the stream holds the descriptor)
            descriptor, _ = _open_regular(path, roots)
            stream = os.fdopen(descriptor, "rb", buffering=0)
        digest, seen = hashlib.sha256(), 0
        while chunk := stream.read(_CHUNK):
            seen += len(chunk)
            if seen > limit:
                raise InputTooLarge(seen, limit)
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        if stream is not None:
            stream.close()


def _open_regular(path: str | os.PathLike, roots: Sequence[Path] = ()) -> tuple[int, int]:
    """A descriptor open for reading on the regular file at ``path``, inside ``roots`` when they are given (see
    :func:`read_input`), and the size the file says it has: a path outside them is not even opened, and the opened
    file is judged again (the path may have been swapped for a symlink in between)."""
    if roots:
        confine(Path(path), roots)
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket (or a FIFO on some systems) cannot be opened: say what it is
            raise NotRegularFile(path, _mode(path)) from None
        raise
    try:
        confine_opened(descriptor, path, roots)
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(path, info.st_mode)
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor, info.st_size


def _mode(path: str | os.PathLike) -> int | None:
    try:
        return os.stat(path).st_mode
    except OSError:
        return None


def describe_read_error(exc: OSError) -> Text | str:
    """Why a file could not be read: the system's reason, or what the file is when it is not a regular one."""
    if isinstance(exc, NotRegularFile):
        return exc.reason
    if isinstance(exc, OutsideRoots):
        return Text("os_error.outside_roots")
    return os_error(exc)


def readable_name(name: str | bytes | os.PathLike) -> str:
    """``name`` as valid UTF-8 text: bytes that are not UTF-8 (``factura-a\\xf1o.xml``) written as ``\\xNN``.

    Names that are valid UTF-8 come back unchanged."""
    text = os.fsdecode(name)
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # surrogates that are not escaped bytes (from JSON, say)
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")

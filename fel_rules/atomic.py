"""Atomic file writes: a temporary file in the target folder, then ``os.replace``."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["atomic_writer", "describe_os_error", "write_atomic"]


@contextmanager
def atomic_writer(path: Path, *, durable: bool = True) -> Iterator[BinaryIO]:
    """A binary stream whose content replaces ``path`` only when the block ends without error.

    Readers see the old file or the whole new one, never a part. The parent folder is created when
    missing. ``durable`` also flushes the data to disk before the rename (survives a power cut, not
    only a killed process). On any failure the temporary file is removed and the error propagates.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            yield stream
            if durable:
                stream.flush()
                os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:  # already gone (folder deleted meanwhile): the original error is what matters
            pass
        raise


def write_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_writer`). A folder deleted while the file was
    being written (someone cleaning the output folder up) is created again, once."""
    try:
        with atomic_writer(path, durable=durable) as stream:
            stream.write(data)
    except FileNotFoundError:  # the temporary file's folder vanished between mkdir and rename
        with atomic_writer(path, durable=durable) as stream:
            stream.write(data)


_REASONS = {
    errno.ENOSPC: ("no queda espacio en el disco", "no space left on device"),
    errno.EDQUOT: ("se agotó la cuota de disco", "disk quota exceeded"),
    errno.EROFS: ("el sistema de archivos es de solo lectura", "read-only file system"),
    errno.EACCES: ("permiso denegado", "permission denied"),
    errno.EPERM: ("operación no permitida", "operation not permitted"),
    errno.ENOENT: ("no existe el archivo o la carpeta", "no such file or directory"),
    errno.ENOTDIR: ("una parte de la ruta no es una carpeta", "a part of the path is not a folder"),
    errno.EISDIR: ("es una carpeta", "is a folder"),
    errno.ENAMETOOLONG: ("el nombre es demasiado largo", "file name too long"),
    errno.EIO: ("error de entrada/salida del disco", "input/output error"),
}


def describe_os_error(exc: OSError, lang: str = "es") -> str:
    """A short reason for a failed file operation, in Spanish (``lang="en"``: English), e.g. for ENOSPC
    ``no queda espacio en el disco``; unknown errors keep the system's text."""
    reason = _REASONS.get(exc.errno)
    if reason is not None:
        return reason[1] if lang == "en" else reason[0]
    return exc.strerror or str(exc) or type(exc).__name__

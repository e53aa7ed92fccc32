"""Atomic file writes: a temporary file in the target folder, then ``os.replace``."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["atomic_writer", "write_atomic"]


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
        except FileNotFoundError:
            pass
        raise


def write_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path, durable=durable) as stream:
        stream.write(data)

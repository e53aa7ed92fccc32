"""One batch at a time per output folder: a POSIX lock between processes, a set between threads."""

from __future__ import annotations

import errno
import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..core.confine import open_folder
from .errors import BatchError
from .journal import STATE_DIR

__all__ = ["exclusive"]

_LOCK = "lock"  # in STATE_DIR
_HELD: set[Path] = set()  # output folders held by batches of this process
_HELD_GUARD = threading.Lock()


@contextmanager
def exclusive(out_dir: Path, roots: tuple[Path, ...]) -> Iterator[None]:
    """Hold the output folder for this run alone (created if missing); a second batch into it fails at once.
    A POSIX lock on ``OUT/.fel-rules/lock`` excludes other processes; it belongs to this process only (not to
    its workers), so it ends with the process however that ends. POSIX locks do not exclude the threads of one
    process (the MCP server's): those are kept apart by :data:`_HELD`."""
    with _held(out_dir):
        handle = _open_lock(out_dir, roots)
        try:
            _lock(handle, out_dir)
            yield
        finally:
            os.close(handle)  # releases the lock


@contextmanager
def _held(out_dir: Path) -> Iterator[None]:
    """``out_dir`` marked as held by a batch of this process while the block runs."""
    with _HELD_GUARD:
        if out_dir in _HELD:
            raise _busy(out_dir)
        _HELD.add(out_dir)
    try:
        yield
    finally:
        with _HELD_GUARD:
            _HELD.discard(out_dir)


def _open_lock(out_dir: Path, roots: tuple[Path, ...]) -> int:
    """The lock file of ``out_dir``, opened (created if missing) through its folder's descriptor."""
    folder = open_folder(out_dir / STATE_DIR, roots)
    try:
        return os.open(_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=folder)
    finally:
        os.close(folder)


def _lock(handle: int, out_dir: Path) -> None:
    """Take the lock without waiting; :class:`BatchError` when another process holds it."""
    try:
        fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EAGAIN):
            raise
        raise _busy(out_dir) from None


def _busy(out_dir: Path) -> BatchError:
    return BatchError(
        f"La carpeta de salida {out_dir} está en uso por otro lote; espere a que termine o use otra carpeta.",
        message_en=f"The output folder {out_dir} is in use by another batch; wait for it to finish or use another "
                   "folder.",
    )

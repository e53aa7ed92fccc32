"""One batch at a time per output folder: a lock on a file between processes, a set between threads."""

from __future__ import annotations

import errno
import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from ..core.confine import open_folder
from .errors import BatchError
from .journal import STATE_DIR

__all__ = ["exclusive"]

_LOCK = "lock"  # in STATE_DIR
_HELD: set[Path] = set()  # output folders held by batches of this process
_HELD_GUARD = threading.Lock()
_DESCRIPTORS: set[int] = set()  # the lock files open in this process (closed in a child it forks)


def _close_in_child() -> None:
    """In a process just forked: close the lock files it inherited. Its parent's lock stays (it has its own
    descriptor), and ends with the parent, not with a worker that outlives it or a pool kept for later batches.
    (A fork waits for :data:`_HELD_GUARD`, under which a lock file is opened and registered: none is missed.)"""
    for handle in _DESCRIPTORS:
        with suppress(OSError):
            os.close(handle)
    _DESCRIPTORS.clear()
    _HELD_GUARD.release()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_HELD_GUARD.acquire, after_in_parent=_HELD_GUARD.release,
                        after_in_child=_close_in_child)


@contextmanager
def exclusive(out_dir: Path, roots: tuple[Path, ...]) -> Iterator[None]:
    """Hold the output folder for this run alone (created if missing); a second batch into it fails at once.
    An ``flock`` on ``OUT/.fel-rules/lock`` excludes other processes. It belongs to the descriptor opened here,
    not to the process: opening and closing the same file elsewhere in the process (a tool asked to read it) does
    not release it, as it would a POSIX record lock. A forked child closes its copy (:func:`_close_in_child`), so
    the lock ends with this process however that ends. The threads of one process (the MCP server's) are kept
    apart by :data:`_HELD`."""
    with _held(out_dir):
        with _HELD_GUARD:
            handle = _open_lock(out_dir, roots)
            _DESCRIPTORS.add(handle)
        try:
            _lock(handle, out_dir)
            yield
        finally:
            with _HELD_GUARD:  # (a fork in between would inherit a descriptor no longer registered)
                _DESCRIPTORS.discard(handle)
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
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EAGAIN, errno.EWOULDBLOCK):
            raise
        raise _busy(out_dir) from None


def _busy(out_dir: Path) -> BatchError:
    return BatchError(
        f"La carpeta de salida {out_dir} está en uso por otro lote; espere a que termine o use otra carpeta.",
        message_en=f"The output folder {out_dir} is in use by another batch; wait for it to finish or use another "
                   "folder.",
    )

"""Atomic file writes: a temporary file in the target folder, then a rename, both through one descriptor of
that folder (see :mod:`fel_rules.core.confine`). Files get the permissions the umask gives (0644 under umask 022).
Only a missing or regular file is ever replaced, and only one the caller recognises as its own."""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from .catalogue import render_text
from .confine import OutsideRoots, open_folder
from .foreign import os_error
from .handover import HANDOVER, alarms_wait_in
from .text import Text

__all__ = ["Owned", "UnsafeTarget", "atomic_writer", "describe_os_error", "flush_to_disk", "remove_own",
           "remove_own_temporaries", "write_atomic"]

Owned = Callable[[BinaryIO], bool]
"""Says, from an open existing file, whether it is one this tool wrote (and so may replace or remove)."""

_TEMPORARY = re.compile(r"\..+\.fel-[0-9a-f]{12}\.tmp")  # .<name>.fel-<random>.tmp: ours, nobody else's
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class UnsafeTarget(FileExistsError):
    """A write or removal refused: the file there is not a regular file, or not one this tool wrote."""

    def __init__(self, path: Path, kind: str) -> None:
        """``kind``: ``special`` (not a regular file), ``foreign`` (not written by fel-rules) or ``input``."""
        super().__init__(errno.EEXIST, render_text(Text(f"os_error.unsafe_{kind}")), str(path))
        self.kind = kind

    @property
    def reason(self) -> Text:
        """Why the file was not replaced."""
        return Text(f"os_error.unsafe_{self.kind}")


@contextmanager
def atomic_writer(path: str | os.PathLike, *, durable: bool = True, roots: Sequence[Path] = (),
                  owned: Owned | None = None) -> Iterator[BinaryIO]:
    """A binary stream whose content replaces ``path`` only when the block ends without error.

    Readers see the old file or the whole new one, never a part. The parent folder is created when
    missing and must resolve inside ``roots`` when they are given. ``durable`` also flushes the data to
    disk before the rename (survives a power cut, not only a killed process). An existing ``path`` is
    replaced only when it is a regular file and ``owned`` (when given) recognises it, else
    :class:`UnsafeTarget`. On any failure the temporary file is removed and the error propagates.
    """
    target = _AtomicFile(path, roots)
    try:
        yield target.open()
        target.commit(durable, owned)
    except BaseException as exc:
        target.fail(exc)
        raise
    finally:
        if target.folder >= 0:  # (not a method call: an alarm landing as a method begins stops it there)
            os.close(target.folder)


class _AtomicFile:
    """One atomic write (see :func:`atomic_writer`): the target's folder open, a temporary file beside it, renamed
    over the target on :meth:`commit`. Every descriptor is an attribute from the moment it is opened (within a
    handover, :mod:`.handover`), so whatever stops the write, :meth:`fail` and the caller's ``finally`` (which closes
    :attr:`folder`) find it and let it go."""

    __slots__ = ("path", "roots", "parent", "name", "temporary", "folder", "created", "stream")

    def __init__(self, path: str | os.PathLike, roots: Sequence[Path]) -> None:
        self.path, self.roots = path, roots
        self.parent, self.name = _split(path)
        self.temporary = f".{self.name}.fel-{secrets.token_hex(6)}.tmp"
        self.folder, self.created = -1, False
        self.stream: BinaryIO | None = None

    def open(self) -> BinaryIO:
        """The stream of the temporary file (the folder opened, and created when missing, first)."""
        with HANDOVER:
            self.folder = open_folder(self.parent, self.roots)
        with HANDOVER:
            handle = os.open(self.temporary, _CREATE_FLAGS, 0o666, dir_fd=self.folder)
            self.created = True
            self.stream = stream = os.fdopen(handle, "wb")
        return stream

    def commit(self, durable: bool, owned: Owned | None) -> None:
        """Close the temporary file (flushed to disk when ``durable``) and rename it over the target."""
        stream = self.stream
        assert stream is not None  # (opened first)
        if durable:
            stream.flush()
            os.fsync(stream.fileno())
        stream.close()
        _check_replaceable(self.folder, self.name, self.path, owned)
        os.replace(self.temporary, self.name, src_dir_fd=self.folder, dst_dir_fd=self.folder)
        self.created = False  # (it is the target now)

    @alarms_wait_in  # (it lets descriptors go: an alarm landing as it begins would leave them open)
    def fail(self, exc: BaseException) -> None:
        """After a failure: the temporary file closed and removed; an error of a call relative to the folder's
        descriptor names its file in full."""
        if self.stream is not None:
            try:
                self.stream.close()
            except OSError:  # what it still held cannot be written either (disk full): the first error is the one
                pass
        if self.created:
            try:
                os.unlink(self.temporary, dir_fd=self.folder)
            except OSError:  # already gone (folder deleted meanwhile): the original error is what matters
                pass
        if (isinstance(exc, OSError) and self.folder >= 0 and isinstance(exc.filename, str)
                and "/" not in exc.filename):
            exc.filename = str(Path(self.parent, exc.filename))  # (as a path joins them)


def _split(path: str | os.PathLike) -> tuple[str, str]:
    """``(str(Path(path).parent), Path(path).name)``, without making a path when ``path`` ends in a plain name (a
    batch writes two files for every input)."""
    text = os.fspath(path)
    parent, name = os.path.split(text)
    if not parent or name in ("", ".", ".."):
        whole = Path(text)
        return str(whole.parent), whole.name
    return parent, name


def flush_to_disk(folder: Path, roots: Sequence[Path] = (), *, subfolders: Iterable[str] = ()) -> None:
    """Flush to disk every file written so far on the file system of ``folder`` and of each of its ``subfolders``
    (relative names: one that is a mount point or a link to another disk has a file system of its own), with Linux
    ``syncfs`` once per file system; a full ``sync`` where that cannot be done (elsewhere, or a subfolder that
    cannot be opened now): one call makes many files written without ``durable`` survive a power cut. A folder
    deleted meanwhile has nothing left to flush."""
    flushed: set[int] = set()
    for name in dict.fromkeys(("", *subfolders)):
        try:
            handle = open_folder(Path(folder) / name, roots, create=False)
        except FileNotFoundError:
            continue
        except OSError:
            if not name:
                raise
            os.sync()  # (moved out of the roots, say): what was written there is flushed all the same
            return
        try:
            device = os.fstat(handle).st_dev
            if device not in flushed and not _flush_file_system(handle):
                os.sync()
                return
            flushed.add(device)
        finally:
            os.close(handle)


def _flush_file_system(handle: int) -> bool:
    """``syncfs`` on the folder of ``handle``, opened again for reading (Linux refuses a descriptor opened only as a
    path, ``O_PATH``, as :func:`~.confine.open_folder` gives): the folder's file system is flushed, not every one.
    False when it could not be done."""
    try:
        readable = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=handle)
    except OSError:
        return False
    try:
        return _syncfs(readable) == 0
    finally:
        os.close(readable)


def _syncfs(handle: int) -> int:
    """``syncfs(handle)``; -1 where the C library has none."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).syncfs(handle)
    except (OSError, AttributeError):
        return -1


def write_atomic(path: str | os.PathLike, data: bytes, *, durable: bool = True, roots: Sequence[Path] = (),
                 owned: Owned | None = None) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_writer`). A folder deleted while the file was
    being written (someone cleaning the output folder up) is created again, once."""
    try:
        _write(path, data, durable, roots, owned)
    except FileNotFoundError:  # the temporary file's folder vanished between opening it and the rename
        _write(path, data, durable, roots, owned)


def _write(path: str | os.PathLike, data: bytes, durable: bool, roots: Sequence[Path], owned: Owned | None) -> None:
    """:func:`atomic_writer` with ``data`` written at once, as a plain function: whatever point a time limit's alarm
    lands at, what was opened is let go here and now (a generator-based context manager that an alarm stops between
    its steps only lets go once it is dropped)."""
    target = _AtomicFile(path, roots)
    try:
        target.open().write(data)
        target.commit(durable, owned)
    except BaseException as exc:
        target.fail(exc)
        raise
    finally:
        if target.folder >= 0:  # (not a method call: an alarm landing as a method begins stops it there)
            os.close(target.folder)


def remove_own(path: Path, owned: Owned, roots: Sequence[Path] = ()) -> bool:
    """Remove ``path`` if it is a regular file ``owned`` recognises; True when nothing of ours is left there
    (removed, or absent). Anything else is left alone."""
    folder = -1
    try:
        with HANDOVER:
            folder = open_folder(Path(path).parent, roots, create=False)
        if _is_own(folder, path.name, owned):
            os.unlink(path.name, dir_fd=folder)
            return True
        return not _exists(folder, path.name)
    except FileNotFoundError:  # no folder, or removed meanwhile
        return True
    finally:
        if folder >= 0:
            os.close(folder)


def remove_own_temporaries(folder: Path, roots: Sequence[Path] = ()) -> None:
    """Temporary files a killed writer left anywhere under ``folder`` (only this module's, never another
    program's); subfolders are walked through descriptors, symlinks are not followed."""
    handle = -1
    try:
        try:
            with HANDOVER:
                handle = open_folder(folder, roots, create=False)
        except FileNotFoundError:
            return
        for _, _, files, parent in os.fwalk(".", dir_fd=handle, follow_symlinks=False):
            for name in files:
                if _TEMPORARY.fullmatch(name):
                    try:
                        if stat.S_ISREG(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
                            os.unlink(name, dir_fd=parent)
                    except FileNotFoundError:
                        pass
    finally:
        if handle >= 0:
            os.close(handle)


def _check_replaceable(folder: int, name: str, path: str | os.PathLike, owned: Owned | None) -> None:
    """:class:`UnsafeTarget` unless ``name`` (in ``folder``; ``path``, as the caller named it) is absent, or a regular
    file that ``owned`` (if any) recognises."""
    try:
        mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise UnsafeTarget(Path(path), "special")
    if owned is not None and not _is_own(folder, name, owned):
        raise UnsafeTarget(Path(path), "foreign")


def _is_own(folder: int, name: str, owned: Owned) -> bool:
    """True when ``name`` is a regular file that ``owned`` recognises (False for anything else)."""
    stream = None
    try:
        with HANDOVER:  # (a time limit's alarm waits until the stream holds the descriptor)
            try:
                handle = os.open(name, _READ_FLAGS, dir_fd=folder)
            except OSError:  # absent, a symlink (ELOOP), a device that refuses to open…: nothing of ours
                return False
            stream = os.fdopen(handle, "rb")
        return stat.S_ISREG(os.fstat(handle).st_mode) and owned(stream)
    finally:
        if stream is not None:
            stream.close()


def _exists(folder: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def describe_os_error(exc: OSError) -> Text | str:
    """A short reason for a failed file operation (for ENOSPC ``no queda espacio en el disco``), in the
    catalogue's words (:func:`~fel_rules.core.foreign.os_error`)."""
    if isinstance(exc, UnsafeTarget):
        return exc.reason
    if isinstance(exc, OutsideRoots):
        return Text("os_error.outside_roots")
    return os_error(exc)

"""Paths confined to allowed folders, and folders opened without following symlinks.

A path is checked against the allowed roots *after* resolving its symlinks; a folder is then opened
one component at a time from ``/`` with ``O_NOFOLLOW``, so a component swapped for a symlink after the
check fails the open instead of redirecting what is written through the descriptor (no check-then-write
race). A file to read is judged once open (:func:`confine_opened`): what the descriptor reads is what was
checked, whatever the path names by then. An empty ``roots`` means "anywhere" (the command line): symlinks the
user set up are followed when the path is resolved, never afterwards.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from .handover import HANDOVER

__all__ = ["OutsideRoots", "confine", "confine_opened", "open_folder"]

# O_PATH (Linux): a folder needs only search permission to be walked through, as with a path
_O_PATH = getattr(os, "O_PATH", 0)
_FOLDER_FLAGS = (_O_PATH or os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class OutsideRoots(PermissionError):
    """A path that resolves outside the allowed folders."""

    def __init__(self, path: Path) -> None:
        super().__init__(errno.EACCES, "fuera de las carpetas permitidas", str(path))


def confine(path: Path, roots: Sequence[Path] = ()) -> Path:
    """``path`` made absolute with its symlinks resolved; :class:`OutsideRoots` when ``roots`` are given and
    it lands outside every one of them (the roots themselves must be resolved)."""
    return Path(_confined(path, roots))


def _confined(path: str | os.PathLike, roots: Sequence[Path]) -> str:
    """What :func:`confine` gives, as text (no path object made on the way: a batch confines every write)."""
    real = _kernel_resolved(path)
    if real is None:
        try:
            real = str(Path(path).resolve())
        except RuntimeError as exc:  # a symlink loop (Python < 3.13)
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from exc
    if roots and not _inside(real, roots):
        raise OutsideRoots(Path(real))
    return real


def confine_opened(handle: int, path: str | os.PathLike, roots: Sequence[Path]) -> None:
    """:class:`OutsideRoots` unless the file open at ``handle`` (opened from ``path``) is inside ``roots``: judged by
    the path the kernel names the open file by (``/proc/self/fd``), so a path swapped for a symlink between an
    earlier check and the open never lets a file from elsewhere be read. Where the open file has no such name (no
    ``/proc``; a file removed since it was opened) ``path`` is checked now and must still name the very file that is
    open (same device and inode), else ``FileNotFoundError``: the file opened is no longer there."""
    if not roots:
        return
    real = _opened_path(handle)
    if real is not None:
        if not _inside(real, roots):
            raise OutsideRoots(Path(real))
        return
    checked = confine(Path(path), roots)
    try:
        same = os.path.samestat(os.stat(checked), os.fstat(handle))
    except FileNotFoundError:
        same = False
    if not same:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), os.fspath(path))


def _inside(real: str | Path, roots: Sequence[Path]) -> bool:
    """True when ``real`` is one of ``roots`` or lies under one (all absolute and resolved: compared as text, which
    is what ``real == root or root in real.parents`` says, without making a path of each parent)."""
    text = str(real)
    for root in roots:
        folder = str(root)
        if text == folder or text.startswith(folder if folder.endswith("/") else folder + "/"):
            return True
    return False


def _kernel_resolved(path: str | os.PathLike) -> str | None:
    """The absolute path, symlinks resolved, of an existing ``path`` as the kernel names it once opened
    (``/proc/self/fd``): what :meth:`Path.resolve` gives, in three system calls instead of one per component.
    ``None`` when the path is missing or cannot be opened (``Path.resolve`` then keeps its missing tail or
    says why) or where Linux's ``/proc`` is not there."""
    if not _O_PATH:
        return None
    with HANDOVER:  # (a time limit's alarm waits until the descriptor is closed again, see handover)
        try:
            handle = os.open(path, _O_PATH | os.O_CLOEXEC)
        except (OSError, ValueError):
            return None
        try:
            return _opened_path(handle)
        finally:
            os.close(handle)


def _opened_path(handle: int) -> str | None:
    """The absolute path the kernel names the file open at ``handle`` by; ``None`` where ``/proc`` is not there
    or the file has been removed."""
    try:
        real = os.readlink(f"/proc/self/fd/{handle}")
    except OSError:
        return None
    return real if real.startswith("/") and not real.endswith(" (deleted)") else None


def open_folder(folder: str | os.PathLike, roots: Sequence[Path] = (), *, create: bool = True) -> int:
    """A descriptor of ``folder`` (see the module docstring); missing folders are created when ``create``.
    The caller closes it."""
    names = [name for name in _confined(folder, roots).split("/") if name]  # (an absolute path, no . or ..)
    with HANDOVER:  # a time limit's alarm waits for the walk: each descriptor is either held or closed (the caller
        handle = os.open("/", _FOLDER_FLAGS)  # receives the last one in a handover of its own, see handover)
        try:
            for depth, name in enumerate(names, 1):
                previous, handle = handle, _open_child(handle, name, create, names[:depth])
                os.close(previous)
        except BaseException:
            os.close(handle)
            raise
        return handle


def _open_child(parent: int, name: str, create: bool, names: list[str]) -> int:
    """The subfolder ``name`` of ``parent``, never through a symlink; ``names`` (of its path from ``/``) name it in
    errors."""
    try:
        return os.open(name, _FOLDER_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), _shown(names)) from None
    except OSError as exc:
        raise _refused_folder(parent, name, _shown(names), exc) from None
    try:
        os.mkdir(name, 0o777, dir_fd=parent)
    except FileExistsError:  # created meanwhile by another worker
        pass
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, _shown(names)) from None
    try:
        return os.open(name, _FOLDER_FLAGS, dir_fd=parent)
    except OSError as exc:
        raise _refused_folder(parent, name, _shown(names), exc) from None


def _shown(names: list[str]) -> str:
    """The absolute path of the folders ``names``, one inside the other from ``/``."""
    return "/" + "/".join(names)


def _refused_folder(parent: int, name: str, shown: str, exc: OSError) -> OSError:
    """``ELOOP`` for a symlink where a folder was expected, the original error otherwise (naming ``shown``)."""
    try:
        is_link = stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        is_link = False
    if is_link:
        return OSError(errno.ELOOP, os.strerror(errno.ELOOP), shown)
    return OSError(exc.errno, exc.strerror, shown)

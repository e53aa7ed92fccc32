"""A private cache of what is costly to build and quick to read back: the loaded rule set, the message catalogue.

The folder is ``$FEL_RULES_CACHE_DIR``, else ``$XDG_CACHE_HOME/fel-rules``, else ``~/.cache/fel-rules``;
``FEL_RULES_NO_CACHE=1`` turns the cache off. An entry is a file named by the caller (its *slot*) holding the key of
what it was built from (the caller's digest of every input, see :func:`digest`), a digest of its content and the
value, pickled.

A pickle can run code when it is read, so an entry is only read from a folder that belongs to this user and that
nobody else may write to (fel-rules creates it ``0700``), and only when the file itself is a regular file (not a
symlink) of this user that nobody else may write to (fel-rules writes it ``0600``, atomically). Both are checked on
the open descriptors. Reading it back rebuilds only classes and functions of fel-rules and a short list of plain
types (Decimal, dates, syntax-tree nodes). An entry whose key differs (the inputs changed), whose content does not
match its digest, that cannot be read back, or that fails any of those checks is ignored, never an error: the caller
builds the value again and writes a new entry. Writing is best effort too (a read-only home just means no cache).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import io
import os
import pickle
import stat
import sys
from functools import cache
from pathlib import Path

from .capped import read_capped
from .version import __version__

__all__ = ["CACHE_DIR_VARIABLE", "NO_CACHE_VARIABLE", "cache_folder", "code_fingerprint", "digest", "read_entry",
           "write_entry"]

CACHE_DIR_VARIABLE = "FEL_RULES_CACHE_DIR"
NO_CACHE_VARIABLE = "FEL_RULES_NO_CACHE"

#: Start of every entry; the number changes with the layout of the file.
_MAGIC = b"fel-rules cache 1\n"
_DIGEST_SIZE = 32
#: Largest entry read (the shipped rule set takes about 0.5 MB).
_MAX_ENTRY_BYTES = 64 * 1024 * 1024
#: Entries kept in the folder; the least recently written beyond that are removed when one is written.
MAX_ENTRIES = 32
_SUFFIX = ".pickle"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # (where it is missing the cache is off: see cache_folder)
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH

#: Globals an entry may name outside fel-rules (module → names; ``ast`` gives its node classes).
_PLAIN_GLOBALS = {
    "decimal": {"Decimal"},
    "datetime": {"date", "datetime", "time", "timedelta", "timezone"},
    "functools": {"partial"},
}


def cache_folder() -> Path | None:
    """The cache folder, or ``None`` when the cache is off (``FEL_RULES_NO_CACHE`` set to anything but ``0``) or
    there is no home to put it in."""
    if os.environ.get(NO_CACHE_VARIABLE, "") not in ("", "0") or not hasattr(os, "geteuid") or not _NOFOLLOW:
        return None  # off, or a system without file owners or symlink-safe opens to check entries with
    chosen = os.environ.get(CACHE_DIR_VARIABLE)
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no home directory
            return None
    return Path(base) / "fel-rules"


def digest(*parts: bytes | str) -> bytes:
    """sha256 of ``parts``, each length-prefixed (no two different lists of parts give the same bytes)."""
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogateescape") if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "big") + data)
    return hasher.digest()


#: Libraries whose code shapes what is cached (parsing, validation, XPath, expressions).
_LIBRARIES = ("pydantic", "pydantic_core", "lxml", "yaml", "simpleeval")


@cache
def code_fingerprint() -> bytes:
    """What the code that builds cached values is: fel-rules' version, the size and modification time of each of its
    modules (an edited checkout or a reinstalled package changes it), the interpreter, and the same of the entry
    file of each library in :data:`_LIBRARIES` (an upgraded library changes it; none is imported for this)."""
    package = Path(__file__).resolve().parent.parent
    parts: list[str] = [__version__, sys.version, sys.implementation.cache_tag or ""]
    for name in _LIBRARIES:
        parts.append(f"{name}:{_stamp(_origin(name))}")
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        relative = os.path.relpath(folder, package)
        for name in sorted(files):
            if name.endswith(".py"):
                parts.append(f"{relative}/{name}:{_stamp(os.path.join(folder, name))}")
    return digest(*parts)


def _origin(name: str) -> str | None:
    """The file a top-level module is loaded from (found without importing it), or ``None``."""
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__file__", None)
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None else None


def _stamp(path: str | None) -> str:
    if path is None:
        return "-"
    try:
        info = os.stat(path)
    except OSError:
        return "-"
    return f"{info.st_size}:{info.st_mtime_ns}"


def read_entry(slot: str, key: bytes) -> object | None:
    """The value stored in ``slot`` for ``key``, or ``None`` (no cache, no entry, another key, or an entry that
    is not safe or not sound: see the module docstring)."""
    folder = cache_folder()
    if folder is None:
        return None
    try:
        handle = os.open(folder, _FOLDER_FLAGS)
    except OSError:
        return None
    try:
        if not _private(os.fstat(handle), directory=True):
            return None
        data = _read_private(_entry_name(slot), handle)
    finally:
        os.close(handle)
    if data is None:
        return None
    header = len(_MAGIC) + 2 * _DIGEST_SIZE
    if len(data) < header or not data.startswith(_MAGIC):
        return None
    stored_key = data[len(_MAGIC):len(_MAGIC) + _DIGEST_SIZE]
    content_digest = data[len(_MAGIC) + _DIGEST_SIZE:header]
    payload = memoryview(data)[header:]
    if stored_key != key or hashlib.sha256(payload).digest() != content_digest:
        return None
    try:
        return _Unpickler(io.BytesIO(payload)).load()
    except Exception:  # noqa: BLE001 - a damaged or foreign entry is ignored, whatever it raises
        return None


def write_entry(slot: str, key: bytes, value: object) -> None:
    """Store ``value`` in ``slot`` under ``key`` (atomically, ``0600``); nothing happens when the cache is off,
    the folder is not private to this user, or the value or the file cannot be written."""
    folder = cache_folder()
    if folder is None:
        return
    try:
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - a value that cannot be pickled (a plug-in's objects) is simply not kept
        return
    entry = _MAGIC + key + hashlib.sha256(payload).digest() + payload
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle = os.open(folder, _FOLDER_FLAGS)
    except OSError:
        return
    try:
        if not _private(os.fstat(handle), directory=True):
            return
        _write_private(handle, _entry_name(slot), entry)
        _prune(handle)
    except OSError:  # a full or read-only disk: no cache this time
        return
    finally:
        os.close(handle)


def _entry_name(slot: str) -> str:
    return f"{slot}{_SUFFIX}"


def _private(info: os.stat_result, *, directory: bool) -> bool:
    """True for a folder (or regular file) of this user that no one else may write to."""
    kind_ok = stat.S_ISDIR(info.st_mode) if directory else stat.S_ISREG(info.st_mode)
    return kind_ok and info.st_uid == os.geteuid() and not info.st_mode & _OTHERS_WRITE


def _read_private(name: str, folder: int) -> bytes | None:
    try:
        handle = os.open(name, _READ_FLAGS, dir_fd=folder)
    except OSError:  # absent, or a symlink (ELOOP)
        return None
    try:
        info = os.fstat(handle)
        if not _private(info, directory=False) or info.st_size > _MAX_ENTRY_BYTES:
            return None
        data = read_capped(handle, info.st_size, _MAX_ENTRY_BYTES)
        return data if len(data) <= _MAX_ENTRY_BYTES else None
    except OSError:
        return None
    finally:
        os.close(handle)


def _write_private(folder: int, name: str, data: bytes) -> None:
    """``data`` written to a new ``0600`` file renamed over ``name`` (readers see the old entry or the new one)."""
    temporary = f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
    handle = os.open(temporary, _WRITE_FLAGS, 0o600, dir_fd=folder)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=folder)
        except OSError:
            pass
        raise


def _prune(folder: int) -> None:
    """Keep the :data:`MAX_ENTRIES` most recently written entries."""
    with os.scandir(folder) as listing:
        entries = [(entry.stat(follow_symlinks=False).st_mtime_ns, entry.name) for entry in listing
                   if entry.name.endswith(_SUFFIX) and entry.is_file(follow_symlinks=False)]
    for _, name in sorted(entries)[:-MAX_ENTRIES]:
        try:
            os.unlink(name, dir_fd=folder)
        except FileNotFoundError:
            pass


class _Unpickler(pickle.Unpickler):
    """Rebuilds only what fel-rules stores: its own classes and functions, syntax-tree nodes and a few plain types."""

    def find_class(self, module: str, name: str) -> object:
        if "." in name:  # a dotted name reaches through attributes (fel_rules.x.os.system): never stored
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a fel-rules cache entry")
        if name in _PLAIN_GLOBALS.get(module, ()):
            return super().find_class(module, name)
        if module.startswith("fel_rules."):
            found = super().find_class(module, name)
            if str(getattr(found, "__module__", "")).startswith("fel_rules."):  # defined there, not imported
                return found
        if module == "ast":
            found = getattr(ast, name, None)
            if isinstance(found, type) and issubclass(found, ast.AST):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a fel-rules cache entry")

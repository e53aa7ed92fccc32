"""The files a rule folder and a profile name stand for (what the loader reads and the caches watch)."""

from __future__ import annotations

import os
from pathlib import Path

from ..core.resources import BUILTIN_RULES_DIR
from ..expressions.holidays import HOLIDAYS_FILE
from .places import PLACES_FILE

__all__ = ["catalog_files", "profile_path", "stamps", "watched_paths"]


def catalog_files(directory: Path, profile: str | None = None) -> list[Path]:
    """Every file :func:`~.loader.load_catalog` may read for ``directory`` and ``profile``: rule files, data files
    (the built-in places and holidays when the folder has none) and the profile (what a cache of results must
    watch)."""
    data = directory / "data"
    files = sorted(directory.glob("*.yaml"))
    if data.is_dir():
        files += sorted(path for path in data.iterdir() if not path.is_dir())
    for shared in (PLACES_FILE, HOLIDAYS_FILE):
        if not (directory / shared).is_file() and (BUILTIN_RULES_DIR / shared).is_file():
            files.append(BUILTIN_RULES_DIR / shared)
    if profile:
        files.append(profile_path(directory, profile))
    return files


def profile_path(directory: Path, profile: str) -> Path:
    """The file of ``profile``: a path as given (``.yaml``/``.yml``, or with a ``/``), else a name in the folder's
    ``profiles``."""
    candidate = Path(profile)
    if candidate.suffix in (".yaml", ".yml") or "/" in profile:
        return candidate
    return directory / "profiles" / f"{profile}.yaml"



def watched_paths(directory: Path, profile: str | None = None) -> tuple[str, ...]:
    """What tells whether the catalogue of ``directory`` and ``profile`` may have changed: its files
    (:func:`catalog_files`) and the folders they are listed from (a file added or removed changes its folder).
    Empty when the folder cannot be listed (then nothing is ever taken as unchanged)."""
    try:
        files = catalog_files(directory, profile)
    except (OSError, ValueError):  # (ValueError: a name the file system cannot encode)
        return ()
    folders = [directory, directory / "data", directory / "profiles"]
    if profile:
        folders.append(profile_path(directory, profile).parent)
    return tuple(map(str, [*folders, *files]))


def stamps(paths: tuple[str, ...]) -> tuple | None:
    """What the files and folders ``paths`` are now, as far as the system tells without reading them: each one's
    size, modification and change times and inode (the change time moves on every write, whatever the modification
    time is set back to; ``None`` for one that is not there). Equal stamps: nothing was written there since.
    ``None`` for no paths."""
    if not paths:
        return None
    found: list[tuple | None] = []
    for path in paths:
        try:
            info = os.stat(path)
        except (OSError, ValueError):  # (ValueError: a name the file system cannot encode)
            found.append(None)
            continue
        found.append((info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev))
    return tuple(found)

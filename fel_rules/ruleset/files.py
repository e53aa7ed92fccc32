"""The files a rule folder and a profile name stand for (what the loader reads and the caches watch)."""

from __future__ import annotations

from pathlib import Path

from ..core.resources import BUILTIN_RULES_DIR
from .places import PLACES_FILE

__all__ = ["catalog_files", "profile_path"]


def catalog_files(directory: Path, profile: str | None = None) -> list[Path]:
    """Every file :func:`~.loader.load_catalog` may read for ``directory`` and ``profile``: rule files, data files
    (the built-in places when the folder has none) and the profile (what a cache of results must watch)."""
    data = directory / "data"
    files = sorted(directory.glob("*.yaml"))
    if data.is_dir():
        files += sorted(path for path in data.iterdir() if not path.is_dir())
    if not (directory / PLACES_FILE).is_file() and (BUILTIN_RULES_DIR / PLACES_FILE).is_file():
        files.append(BUILTIN_RULES_DIR / PLACES_FILE)
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

"""Where the data files that ship with fel-rules live: the built-in rule set and schema set.

The repository keeps them at its top level (``rules/``, ``xsd/``); the build installs them as the data
packages ``fel_rules.rules`` and ``fel_rules.xsd``, and an editable install maps those names back to the
checkout's folders. Either way they are found through the import system (the folder the package was imported
from), never through a path relative to the source tree.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from importlib import import_module
from pathlib import Path

__all__ = ["BUILTIN_RULES_DIR", "BUILTIN_XSD_DIR", "tree_digest"]


def _folder(package: str) -> Path:
    """The folder of an installed data package, as a real path (the schema engine needs file names). Read from
    where the package was imported (what :func:`importlib.resources.files` gives for a package on disk, without
    importing that module and the archive and temporary-file modules it brings)."""
    origin = getattr(import_module(package), "__file__", None)
    if origin is not None and Path(origin).is_file():
        return Path(origin).parent
    from importlib.resources import files

    location = files(package)
    if not isinstance(location, Path):  # e.g. imported from a zip archive
        raise RuntimeError(f"fel-rules must be installed as files on disk; {package} is inside {location}")
    return location


BUILTIN_RULES_DIR = _folder("fel_rules.rules")
BUILTIN_XSD_DIR = _folder("fel_rules.xsd")


def tree_digest(paths: Iterable[Path], base: Path) -> str:
    """sha256 over files in path order, each named by its path relative to ``base``: a folder's identity."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(path.relative_to(base).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()

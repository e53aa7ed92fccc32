"""Load a rule folder: from the user's cache when its files did not change (no pydantic, no YAML), else read and
validated (:mod:`.reading`, imported then), failing early with file, line, column and rule in both languages."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..checks.registry import known_kinds
from ..core.errors import RuleFileError
from ..core.inputs import InputTooLarge, read_input
from ..core.yamlfile import MAX_YAML_BYTES
from .files import catalog_files, profile_path
from .loaded import RuleCatalog, Ruleset
from .places import Places
from .stored import stored_catalog

__all__ = ["apply_profile", "catalog_files", "check_catalog", "load_catalog", "load_rule_file"]


def load_catalog(directory: Path, profile: str | None = None) -> RuleCatalog:
    """Every ``*.yaml`` rule file in ``directory`` (sorted by name), with ``profile`` applied.

    A catalogue is immutable, so the last few loaded are kept and shared, keyed by the exact bytes of
    every file :func:`catalog_files` names (and the check kinds registered so far): an edited file is read
    again, and so is a folder whose first load brought in a plug-in kind. Between processes, the user's
    cache keeps them the same way (:mod:`fel_rules.ruleset.stored`).
    """
    contents = _contents(directory, profile)
    if contents is None:  # a missing folder or profile, an unencodable name: the loader says so precisely
        return _load_catalog(directory, profile)
    kinds = tuple((name, id(kind)) for name, kind in known_kinds().items())
    return _cached_catalog(directory, profile, Path.cwd(), contents, kinds)


def _contents(directory: Path, profile: str | None) -> tuple[tuple[Path, bytes], ...] | None:
    """Every file of the catalogue with its bytes, read as the loader reads them (regular files only, at most
    :data:`~fel_rules.core.yamlfile.MAX_YAML_BYTES` each: a FIFO or a device named like a rule file is never
    read); ``None`` when one cannot be read, and the loader then says which and why."""
    try:
        return tuple((path.resolve(), read_input(path, MAX_YAML_BYTES)) for path in catalog_files(directory, profile))
    except (OSError, ValueError, InputTooLarge):
        return None


@lru_cache(maxsize=8)
def _cached_catalog(directory: Path, profile: str | None, cwd: Path, contents: tuple, kinds: tuple) -> RuleCatalog:
    """The catalogue as loaded (it names its files as ``directory`` does, so the folder as given is in the key)."""
    relative = not directory.is_absolute() or (profile is not None
                                               and not profile_path(directory, profile).is_absolute())
    return stored_catalog(directory, profile, contents, cwd if relative else None,
                          build=lambda: _load_catalog(directory, profile),
                          reread=lambda: _contents(directory, profile))


def _load_catalog(directory: Path, profile: str | None) -> RuleCatalog:
    """The catalogue read from its files (:func:`.reading.read_catalog`)."""
    from .reading import read_catalog

    return read_catalog(directory, profile)


def check_catalog(directory: Path) -> tuple[RuleCatalog | None, list[RuleFileError]]:
    """Every problem of the rule folder, going on past each one (:func:`.reading.check_catalog`)."""
    from .reading import check_catalog as check

    return check(directory)


def load_rule_file(path: Path, places: Places | None = None, *, problems: list[RuleFileError] | None = None
                   ) -> Ruleset:
    """One rule file, read and prepared (:func:`.reading.load_rule_file`)."""
    from .reading import load_rule_file as load

    return load(path, places, problems=problems)


def apply_profile(catalog: RuleCatalog, path: Path) -> RuleCatalog:
    """``catalog`` with the overrides of the profile file at ``path`` (:func:`.reading.apply_profile`)."""
    from .reading import apply_profile as apply

    return apply(catalog, path)

"""The loaded rule set kept between runs, in the user's cache (:mod:`fel_rules.core.cache`).

Reading fifteen rule files, validating them and checking and preparing every expression and XPath is most of what
a one-shot command does before it looks at a document. A catalogue loaded once is stored under a key made of
everything it was built from: the content of every rule, data and profile file :func:`~.loader.catalog_files`
names, the folder and profile as given (and the working folder when either is relative), the check kinds
registered, fel-rules' code and version, the interpreter and pydantic. Any change gives another key: the next run
loads the files again and replaces the entry. Only catalogues whose checks are all fel-rules' own kinds are stored
(a plug-in's objects are its own business); a stored entry is checked again as it is read back (see
:func:`fel_rules.expressions.language.recheck`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from ..checks.registry import known_kinds
from ..core.cache import code_fingerprint, digest, read_entry, write_entry
from .loaded import RuleCatalog

__all__ = ["stored_catalog"]

#: Files of a catalogue: (resolved path, content), as :func:`~.loader.load_catalog` reads them.
Contents = tuple[tuple[Path, bytes], ...]


def stored_catalog(directory: Path, profile: str | None, contents: Contents, relative_to: Path | None,
                   build: Callable[[], RuleCatalog], reread: Callable[[], Contents | None]) -> RuleCatalog:
    """The catalogue of ``directory`` with ``profile``, read from the cache when an entry for exactly ``contents``
    is there, else ``build()`` (stored when ``reread()`` shows the files did not change while it ran).

    ``relative_to`` is the working folder when the folder or the profile was given as a relative path (the
    catalogue names its files as they were given), else ``None``."""
    where = "" if relative_to is None else str(relative_to)
    slot = "rules-" + digest(str(directory), profile or "", where).hex()[:24]
    key = _key(directory, profile, where, contents)
    found = read_entry(slot, key)
    if isinstance(found, RuleCatalog):
        return found
    catalog = build()
    if _own_kinds_only(catalog) and reread() == contents:
        write_entry(slot, key, catalog)
    return catalog


def _key(directory: Path, profile: str | None, where: str, contents: Contents) -> bytes:
    kinds = [f"{name}={kind.__module__}.{kind.__qualname__}" for name, kind in known_kinds().items()]
    files = [part for path, data in contents for part in (str(path), hashlib.sha256(data).digest())]
    return digest(b"rules", code_fingerprint(), str(directory), profile or "", where, *kinds, b"files", *files)


def _own_kinds_only(catalog: RuleCatalog) -> bool:
    checks = [check for rule in catalog.rules for check in (rule.check, rule.overridden_check) if check is not None]
    return all(type(check).__module__.startswith("fel_rules.") for check in checks)

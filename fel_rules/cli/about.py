"""What ``fel-rules --version`` prints: the program's version and the identities of the data it judges with.

The rule sets are named as reports name them (``id`` and ``version`` of each file's ``ruleset`` header),
the schema set by the same sha256 a report's ``schema`` section carries. Reading them parses no rule
and compiles no schema, so the answer is immediate.
"""

from __future__ import annotations

import platform
from pathlib import Path

import yaml

from ..core.resources import BUILTIN_RULES_DIR, tree_digest
from ..core.version import __version__

__all__ = ["version_text"]


def version_text(rules_dir: Path = BUILTIN_RULES_DIR) -> str:
    """Three lines: program and Python version, rule sets in force, schema set."""
    from ..document.schema import BUILTIN_SCHEMA_SET, builtin_schema_digest

    rulesets = _ruleset_headers(rules_dir)
    rules_digest = tree_digest(rules_dir.glob("*.yaml"), rules_dir)
    by_version: dict[str, list[str]] = {}
    for ruleset_id, version in rulesets:
        by_version.setdefault(version, []).append(ruleset_id)
    names = "; ".join(f"versión {version}: {', '.join(ids)}" for version, ids in sorted(by_version.items()))
    return (
        f"fel-rules {__version__} (Python {platform.python_version()})\n"
        f"reglas: {len(rulesets)} conjuntos en {rules_dir} (sha256 {rules_digest[:16]}): {names}\n"
        f"esquema: {BUILTIN_SCHEMA_SET} (sha256 {builtin_schema_digest()[:16]})"
    )


def _ruleset_headers(rules_dir: Path) -> list[tuple[str, str]]:
    """``(id, version)`` of each rule file's ``ruleset`` header, in file order."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    headers = []
    for path in sorted(rules_dir.glob("*.yaml")):
        header = (yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or {}).get("ruleset") or {}
        headers.append((str(header.get("id", path.stem)), str(header.get("version", "?"))))
    return headers

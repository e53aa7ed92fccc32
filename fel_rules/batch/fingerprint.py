"""What every result of a batch depends on, as one digest: --resume reuses only results made under it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..core.config import Config
from ..core.inputs import InputTooLarge, input_sha256
from ..core.version import __version__
from ..core.yamlfile import MAX_YAML_BYTES
from ..outputs.render.settings import LOGO_SUFFIXES, RenderSettings
from ..ruleset.loader import catalog_files

__all__ = ["content_digest", "fingerprint", "logo_dir_digest"]

#: What a journal entry records; raised when entries record something new (2: the characters a PDF could not
#: draw), so no entry that lacks it is reused.
_ENTRY_FORMAT = 2


def fingerprint(config: dict, resolved: Config, schema_sha: str | None, render: bool, settings: RenderSettings,
                logo: bytes | None, logos: str | None = None) -> str:
    """What every result depends on, by content: the journal entries' format, options, rule, data and profile
    files, the schema set, the renderer and its settings, the logo and the logos by emisor (``logos``, see
    :func:`logo_dir_digest`). Any change means no result of an earlier run is reused."""
    sources = {str(path): content_digest(path, MAX_YAML_BYTES)
               for path in catalog_files(resolved.rules_dir, resolved.profile)}
    data = {"entry_format": _ENTRY_FORMAT, "config": config, "sources": sources, "schema": schema_sha,
            "renderer": __version__, "render": render, "settings": settings.model_dump(mode="json") if render else None,
            "logo": hashlib.sha256(logo).hexdigest() if logo is not None else None}
    if logos is not None:
        data["logos"] = logos
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def logo_dir_digest(settings: RenderSettings) -> str | None:
    """One digest of the logos by emisor of ``settings.logo_dir`` (the name and content of each ``<NIT>.png`` or
    ``.jpg`` there), ``None`` without a folder."""
    folder = settings.logo_dir
    if folder is None:
        return None
    names = sorted(path.name for path in folder.iterdir() if path.suffix in LOGO_SUFFIXES)
    digests = {name: content_digest(folder / name, settings.logo_max_bytes) for name in names}
    return hashlib.sha256(json.dumps(digests, sort_keys=True).encode()).hexdigest()


def content_digest(path: Path, limit: int, roots: tuple[Path, ...] = ()) -> str | None:
    """sha256 of a file read safely (inside ``roots`` when given), ``None`` when it cannot be read (so it never
    matches a readable one)."""
    try:
        return input_sha256(path, limit, roots=roots)
    except (OSError, InputTooLarge):
        return None

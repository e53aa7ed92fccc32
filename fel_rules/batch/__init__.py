"""Batch processing: a folder of invoices → reports, PDFs, cross-document checks and manifest.json.

The names load on first use: the manifest's models (which the MCP server describes at start) come without the
runner, the workers and the engine.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .errors import BatchCancelled, BatchError
    from .manifest import MANIFEST_VERSION, Entry, Manifest, manifest_json_schema
    from .options import BatchOptions, BatchResult
    from .runner import run_batch
    from .worker import output_paths

#: Where each name lives.
_HOMES = {
    "BatchCancelled": ".errors", "BatchError": ".errors", "BatchOptions": ".options", "BatchResult": ".options",
    "Entry": ".manifest", "MANIFEST_VERSION": ".manifest", "Manifest": ".manifest",
    "manifest_json_schema": ".manifest", "output_paths": ".worker", "run_batch": ".runner",
}

__all__ = [
    "MANIFEST_VERSION", "BatchCancelled", "BatchError", "BatchOptions", "BatchResult", "Entry", "Manifest",
    "manifest_json_schema", "output_paths", "run_batch",
]


def __getattr__(name: str) -> object:
    """Import a name from its module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

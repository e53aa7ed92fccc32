"""What the PDF of a document will show, kept while its verdict may still change.

A cross-document rule (``rules/lote.yaml``) can make a document invalid once the whole batch is seen, so a
document another one could refer to is not rendered in phase 1: its worker keeps the view it built from the
validation it just made (:class:`~fel_rules.outputs.render.view.InvoiceView`, plain strings) under
``OUT/.fel-rules/views``, and the batch renders it from there once the verdict is final — no PDF written only
to be deleted, no document validated twice. A view is used only for the same run settings (fingerprint) and
the same input bytes (sha256); anything else, or none at all, means the document is validated again.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import suppress
from pathlib import Path

from ..core.atomic import write_atomic
from ..core.confine import confine
from ..core.inputs import read_own

__all__ = ["drop_folder", "drop_view", "load_view", "save_view", "view_file"]


def view_file(journal: str | Path, rel: str) -> Path:
    """Where the view of the input at ``rel`` waits (beside the journal folder ``journal``)."""
    return Path(journal).parent / "views" / f"{hashlib.sha1(rel.encode('utf-8', 'surrogateescape')).hexdigest()}.json"


def save_view(journal: str | Path, rel: str, fingerprint: str, sha256: str | None, view: dict,
              roots: tuple[Path, ...] = ()) -> None:
    """Keep ``view`` (an ``InvoiceView`` as JSON data) of the input at ``rel`` whose bytes have ``sha256``.
    Atomic, not flushed to disk: like the journal it is a cache, and a damaged one is never used."""
    data = {"fingerprint": fingerprint, "sha256": sha256, "view": view}
    write_atomic(view_file(journal, rel), json.dumps(data, ensure_ascii=False).encode(), durable=False, roots=roots)


def load_view(journal: str | Path, rel: str, fingerprint: str, sha256: str | None,
              roots: tuple[Path, ...] = ()) -> dict | None:
    """The view kept for ``rel`` when it was made under ``fingerprint`` from input bytes with ``sha256``;
    ``None`` otherwise (missing, unreadable, stale)."""
    if sha256 is None:
        return None
    try:
        path = view_file(journal, rel)
        data = json.loads(read_own(path, roots=roots))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != fingerprint or data.get("sha256") != sha256:
        return None
    view = data.get("view")
    return view if isinstance(view, dict) else None


def drop_view(journal: str | Path, rel: str, roots: tuple[Path, ...] = ()) -> None:
    """Remove the view kept for ``rel``, if any (its PDF is written, or the document will have none)."""
    with suppress(OSError):
        path = view_file(journal, rel)
        (confine(path, roots) if roots else path).unlink(missing_ok=True)


def drop_folder(journal: str | Path, roots: tuple[Path, ...] = ()) -> None:
    """Remove the folder of kept views once it is empty (every PDF settled); one still holding views stays."""
    with suppress(OSError):
        folder = view_file(journal, "").parent
        (confine(folder, roots) if roots else folder).rmdir()

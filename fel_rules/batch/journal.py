"""The resume journal, read side: one small JSON file per finished input, under ``OUT/.fel-rules/journal``.
Workers write their entries (:func:`~fel_rules.batch.worker.record`); the batch reads them back, patches them
and decides which earlier results ``--resume`` may reuse."""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from pathlib import Path

from ..core.confine import confine
from ..core.inputs import OWN_FILE_LIMIT, read_own
from .fingerprint import content_digest
from .worker import FileResult, FileTask, entry_name, journal_file, record, validator_for

__all__ = ["STATE_DIR", "Journal"]

STATE_DIR = ".fel-rules"  # in the output folder: the journal and the lock


class Journal:
    """The resume journal of one output folder (atomic entries, no fsync: it is a cache)."""

    def __init__(self, out_dir: Path, fingerprint: str, roots: tuple[Path, ...]) -> None:
        self.folder, self.fingerprint, self.roots = out_dir / STATE_DIR / "journal", fingerprint, roots

    def _file(self, rel: str) -> str | Path:
        """The journal entry of ``rel`` (``OSError`` when the journal's folder now resolves outside the roots)."""
        if not self.roots:
            return os.path.join(self.folder, entry_name(rel))  # (journal_file's path, as text: read for every file)
        return confine(journal_file(self.folder, rel), self.roots)

    def record(self, result: FileResult) -> None:
        """Write (or replace) the entry of ``result``."""
        record(self.folder, self.fingerprint, result, self.roots)

    def has(self, rel: str) -> bool:
        """True when ``rel`` has a journal entry."""
        return os.path.isfile(self._file(rel))

    def entries(self) -> frozenset[str] | None:
        """The names of the entries in the journal's folder now (none when it does not exist yet); ``None`` when
        the folder cannot be listed."""
        try:
            folder = confine(self.folder, self.roots) if self.roots else self.folder
            return frozenset(os.listdir(folder))
        except FileNotFoundError:
            return frozenset()
        except OSError:
            return None

    def written(self, rel: str, present: Collection[str] | None = None) -> tuple[str, ...]:
        """The outputs of ``rel`` the journal records as written by fel-rules (so a damaged copy is still ours).
        ``present``: the :meth:`entries` listed a moment ago (an input without an entry among them is not read)."""
        if present is not None and entry_name(rel) not in present:
            return ()
        try:
            result = self.load(rel)
        except (OSError, ValueError, KeyError, TypeError):
            return ()
        return tuple(name for name in (result.report, result.pdf) if name)

    def load(self, rel: str) -> FileResult:
        """The recorded result of ``rel``."""
        return FileResult.from_dict(json.loads(read_own(self._file(rel)))["result"])

    def reusable(self, task: FileTask) -> FileResult | None:
        """The recorded result when input, rules, schema and renderer are unchanged and the outputs are intact
        (the report and PDF on disk are the very bytes recorded)."""
        try:
            data = json.loads(read_own(self._file(task.rel)))
            result = FileResult.from_dict(data["result"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if data.get("fingerprint") != self.fingerprint or result.error is not None or result.rel != task.rel:
            return None
        return result if self._unchanged(task, result) else None

    def _unchanged(self, task: FileTask, result: FileResult) -> bool:
        """True when the input still has the recorded digest and its report and PDF are intact."""
        try:
            digest = content_digest(task.source_path(), validator_for(task.config).config.max_bytes, task.allowed)
        except OSError:  # outside the roots
            return False
        if digest is None or digest != result.sha256 or not result.report:
            return False
        out = Path(task.out_dir)
        if not _intact(out / result.report, result.report_sha256, self.roots):
            return False
        return not result.pdf or _intact(out / result.pdf, result.pdf_sha256, self.roots)


def _intact(path: Path, recorded: str | None, roots: tuple[Path, ...]) -> bool:
    """True when the output at ``path`` (inside ``roots``) holds exactly the bytes whose sha256 the journal
    recorded."""
    return recorded is not None and content_digest(path, OWN_FILE_LIMIT, roots) == recorded  # (None outside)

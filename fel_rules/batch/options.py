"""What a batch run is asked to do (:class:`BatchOptions`) and what it answers (:class:`BatchResult`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

from ..core.config import Config
from ..core.inputs import read_own
from ..outputs.render.settings import RenderSettings
from .cross import MAX_CROSS_FINDINGS
from .manifest import Manifest, Summary

__all__ = ["DEFAULT_FILE_TIME_LIMIT", "HTML_NAME", "LEDGER_NAME", "MAX_FILE_TIME_LIMIT", "BatchOptions", "BatchResult"]

#: Seconds one file may take in a worker (validation, report and PDF); SAT's largest invoice, 9,999 lines,
#: takes about 10 s. A file over the limit gets an ``error`` entry and the batch goes on.
DEFAULT_FILE_TIME_LIMIT = 120.0
#: The largest time limit a batch takes (about 11 days; ``None`` is no limit at all).
MAX_FILE_TIME_LIMIT = 1_000_000.0

HTML_NAME = "reporte.html"  # the batch's page, beside the manifest
LEDGER_NAME = "libro.csv"  # the batch's purchase/sales ledger, beside the manifest


@dataclass(frozen=True)
class BatchOptions:
    """Everything a batch run needs. With ``roots``, every file the batch reads or writes must resolve inside
    one of them (an input outside gets an ``error`` entry; an output folder outside stops the run)."""

    input_dir: Path
    out_dir: Path
    workers: int | None = None  # local processes; default and maximum: the cores this process may use
    render: bool = True
    recursive: bool = False
    resume: bool = False
    executor: Literal["process", "dask"] = "process"
    scheduler: str | None = None
    config: Config = field(default_factory=Config)
    render_settings: RenderSettings | None = None
    progress: bool | None = None
    max_files: int = 100_000
    max_cross_findings: int = MAX_CROSS_FINDINGS  # issues per batch rule and report, documents named per issue
    file_time_limit: float | None = DEFAULT_FILE_TIME_LIMIT  # seconds per file (local workers); over it: an error;
    # None: no limit; a limit that is not a number of seconds above 0 and up to MAX_FILE_TIME_LIMIT stops the run
    on_progress: Callable[[int, int], None] | None = None
    cancel: threading.Event | None = None
    roots: tuple[Path, ...] = ()


@dataclass(frozen=True)
class BatchResult:
    """Where the manifest (and beside it the page and the ledger) was written, its summary, and the exit code
    (0 all valid, 1 some invalid, 2 some could not be processed). :attr:`manifest` reads the whole manifest back
    when asked for (judged inside the batch's ``roots`` once open, when it had any)."""

    path: Path
    summary: Summary
    exit_code: int
    roots: tuple[Path, ...] = ()

    @property
    def report_html(self) -> Path:
        """The batch's page, ``reporte.html``, beside the manifest."""
        return self.path.parent / HTML_NAME

    @property
    def ledger_csv(self) -> Path:
        """The batch's ledger, ``libro.csv``, beside the manifest."""
        return self.path.parent / LEDGER_NAME

    @cached_property
    def manifest(self) -> Manifest:
        """The manifest as written."""
        return Manifest.model_validate_json(read_own(self.path, roots=self.roots))

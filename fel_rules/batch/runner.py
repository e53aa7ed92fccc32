"""Run a batch: many files → reports, PDFs, cross-document checks and ``manifest.json``.

The run is planned first (:mod:`.plan`: inputs, configuration, fingerprint), then holds its output folder
alone (:mod:`.lock`) through the phases (:mod:`.phases`): per-file work in parallel, recorded in the journal
so a killed run can resume; cross-document rules; PDFs reconciled with the final verdicts. A last check
(:mod:`.output_check`) makes sure every report and PDF still exists (an entry whose output vanished says
so), then the manifest, sorted by path, is written atomically, its entries in the same pass over the journal
as the page and ledger (:mod:`.overview`; the workers write them up). Reports and PDFs are written atomically but
not flushed one by one: the output folder's file system is flushed once, just before the manifest takes its place, so a
manifest on disk only names outputs on disk; after a power cut before it, ``--resume`` trusts an output
only if it still has the sha256 its journal entry recorded. An output folder that cannot be written (disk
full, read-only) stops the run with :class:`BatchError`; no manifest is left that describes anything but a
finished run.
"""

from __future__ import annotations

import os

from ..core.atomic import flush_to_disk, remove_own, remove_own_temporaries
from ..core.confine import open_folder
from ..core.owned import own_manifest
from .errors import BatchError, output_error
from .executors import frozen_heap, open_executor
from .lock import exclusive
from .manifest import Summary
from .manifest_writer import manifest_writer, summarize
from .options import BatchOptions, BatchResult
from .output_check import check_outputs
from .overview import annulled_numbers, clear_overview, overview_parts, page_context, write_overview
from .phases import RenderPdfs, process_files, reusable_briefs, unrendered
from .phases import apply_cross_rules as _apply_cross_rules
from .phases import reconcile_pdfs as _reconcile_pdfs
from .plan import BatchRun, plan
from .progress import Progress
from .worker import output_paths, plan_function_pays, process_and_record, warm_up_renderer, warm_up_validator
from .worker import render_and_record as _render_task

__all__ = ["run_batch"]

# The phases and the per-file functions are looked up here when a run needs them, so one can be wrapped or
# replaced for a whole run (faults injected, a folder swapped between two phases).


def run_batch(options: BatchOptions) -> BatchResult:
    """Process every XML file of ``options.input_dir`` (see the module docstring)."""
    batch = plan(options)
    try:
        with exclusive(batch.out_dir, batch.roots):
            return _run(batch)
    except OSError as exc:
        raise output_error(batch.out_dir, exc) from exc


def _run(batch: BatchRun) -> BatchResult:
    _clear_output_folder(batch)
    briefs = reusable_briefs(batch)
    reused = len(briefs)
    executor = open_executor(batch.options.executor, batch.options.scheduler, batch.options.workers)
    if getattr(executor, "forks", False):  # (the pool forks its workers when the first task is sent)
        left = len(batch.files) - reused
        with frozen_heap():  # (the warm-ups' collections walk only what they make, not the rules and schema)
            if executor.workers > 1 and left > executor.workers:  # once here rather than once per worker
                warm_up_validator(batch.config, plan_function=plan_function_pays(left, executor.workers))
            if batch.options.render:
                warm_up_renderer(batch.rendering, batch.roots)
    progress = Progress(len(batch.files), enabled=batch.options.progress)
    progress.advance(reused)
    try:
        process_files(batch, executor, process_and_record, briefs, progress)
        _apply_cross_rules(briefs, batch.out_dir, batch.journal, batch.config, batch.options.max_cross_findings)
        if batch.options.render:
            _reconcile_pdfs(briefs, batch.out_dir, batch.journal, _renderer(batch, executor))
        if getattr(executor, "crashes", 0):  # a killed worker could not remove its temporary file
            remove_own_temporaries(batch.out_dir, batch.roots)  # (no task runs now)
        fixes = check_outputs(briefs, batch.out_dir, batch.journal, batch.lang)
        summary = summarize(briefs.values())
        context = page_context(batch, summary, annulled_numbers(briefs.values()))
        with manifest_writer(batch, summary, executor, reused) as manifest:  # in place once the block ends
            parts = overview_parts(batch, sorted(briefs), fixes, context, executor)  # made by the workers
            write_overview(batch, context, manifest, parts)
            # reports, PDFs, page, ledger: written without a flush each, in the output folder and its subfolders
            written_in = {os.path.dirname(output_paths(rel)[0]) for rel in briefs}
            flush_to_disk(batch.out_dir, batch.roots, subfolders=written_in)
    except BaseException:  # cancelled, interrupted, terminated, output failed: the workers stop now
        executor.close(abort=True)
        _remove_temporaries_of_stopped_workers(batch)
        raise
    finally:
        progress.close()
    executor.close()
    return BatchResult(batch.manifest_path, summary, _exit_code(summary), batch.roots)


def _clear_output_folder(batch: BatchRun) -> None:
    """Remove what an earlier run left that no longer holds: its temporary files, its manifest, page and ledger
    (they describe a finished run, never one under way); fail before any work if the folder cannot be written."""
    remove_own_temporaries(batch.out_dir, batch.roots)
    path = batch.manifest_path
    if not remove_own(path, own_manifest, batch.roots):
        raise BatchError(
            f"{path} no es un manifiesto de fel-rules y no se reemplaza; use otra carpeta de salida.",
            message_en=f"{path} is not a fel-rules manifest and is not replaced; use another output folder.",
        )
    clear_overview(batch)
    os.close(open_folder(batch.journal.folder, batch.roots))  # a read-only output folder fails here


def _remove_temporaries_of_stopped_workers(batch: BatchRun) -> None:
    """After an abort: a worker stopped in the middle of a write leaves its temporary file; remove it, but never
    let a failure here (a read-only folder) hide the error that stopped the run."""
    try:
        remove_own_temporaries(batch.out_dir, batch.roots)
    except OSError:
        pass


def _renderer(batch: BatchRun, executor) -> RenderPdfs:
    """Renders PDFs with :func:`_render_task` in the workers of ``executor``."""
    return lambda rels: executor.run(_render_task, map(batch.task, rels), unrendered)


def _exit_code(summary: Summary) -> int:
    """0 all valid, 1 some invalid, 2 some could not be processed."""
    return 2 if summary.errors else (1 if summary.invalid else 0)

"""Run a batch: many files → reports, PDFs, cross-document checks and ``manifest.json``.

Phases: (1) per-file work in parallel (validate, report, PDF), each finished file recorded in a
journal so a killed run can resume; (2) cross-document rules, patched into the affected reports;
(3) PDFs reconciled with the final verdicts; (4) the manifest, sorted by path, written atomically.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from .. import __version__
from ..atomic import write_atomic
from ..config import Config
from ..errors import InputError
from ..report import Issue, Report
from ..render.api import load_logo
from ..render.settings import RenderSettings
from .cross import CROSS_RULE_PREFIX, cross_issues
from .executors import DaskExecutor, LocalExecutor, default_workers
from .manifest import Entry, Manifest, RunStats, Summary
from .progress import Progress
from .worker import FileResult, FileTask, _validator, output_paths, process_file, render_pdf

__all__ = ["BatchOptions", "BatchResult", "run_batch"]

_STATE_DIR = ".fel-rules"


@dataclass(frozen=True)
class BatchOptions:
    """Everything a batch run needs."""

    input_dir: Path
    out_dir: Path
    workers: int | None = None
    render: bool = True
    recursive: bool = False
    resume: bool = False
    executor: Literal["process", "dask"] = "process"
    scheduler: str | None = None
    config: Config = field(default_factory=Config)
    render_settings: RenderSettings | None = None
    progress: bool | None = None


@dataclass(frozen=True)
class BatchResult:
    """The manifest, where it was written, and the exit code (0 all valid, 1 some invalid, 2 some errors)."""

    manifest: Manifest
    path: Path
    exit_code: int


def run_batch(options: BatchOptions) -> BatchResult:
    """Process every XML file of ``options.input_dir`` (see the module docstring)."""
    started, clock = datetime.now(timezone.utc), time.perf_counter()
    input_dir, out_dir = options.input_dir.resolve(), options.out_dir.resolve()
    files = _collect(input_dir, out_dir, options.recursive, options.config.lang)
    settings = options.render_settings or RenderSettings.from_env(lang=options.config.lang)
    if options.render:
        load_logo(settings.logo)  # a bad logo stops the run before any work
    config = options.config.model_dump(mode="json", exclude_none=True)
    validator = _validator(config)  # compiled here so forked workers inherit it
    schema_info = validator.schema_set.info
    rulesets = [{"id": r.id, "version": r.version} for r in validator.catalog.rulesets]
    fingerprint = _fingerprint(config, rulesets, schema_info.sha256, options.render, settings)
    _remove_stale_temporaries(out_dir)
    journal = out_dir / _STATE_DIR / "journal"

    all_tasks = {
        task.rel: task
        for task in (FileTask(str(source), source.relative_to(input_dir).as_posix(), str(out_dir), options.render,
                              config, settings.model_dump(mode="json")) for source in files)
    }
    results: dict[str, FileResult] = {}
    tasks: list[FileTask] = []
    for rel, task in all_tasks.items():
        reused = _reusable(journal, task, fingerprint) if options.resume else None
        if reused is not None:
            results[rel] = reused
        else:
            tasks.append(task)
    reused_count = len(results)

    executor = _executor(options)
    progress = Progress(len(files), enabled=options.progress)
    progress.advance(reused_count)
    try:
        for result in executor.run(process_file, tasks):
            results[result.rel] = result
            _record(journal, result, fingerprint)
            progress.advance()
        _apply_cross_rules(results, out_dir, journal, fingerprint, options.config.lang)
        if options.render:
            _reconcile_pdfs(results, tasks_by_rel=all_tasks, out_dir=out_dir, executor=executor, journal=journal,
                            fingerprint=fingerprint)
    finally:
        progress.close()
        executor.close()

    entries = [_entry(results[rel]) for rel in sorted(results)]
    manifest = Manifest(
        render=options.render,
        recursive=options.recursive,
        rulesets=rulesets,
        schema=schema_info,
        renderer_version=__version__,
        summary=Summary(
            files=len(entries),
            valid=sum(1 for e in entries if e.valid),
            invalid=sum(1 for e in entries if not e.valid and e.error is None),
            errors=sum(1 for e in entries if e.error is not None),
            rendered=sum(1 for e in entries if e.pdf),
        ),
        entries=entries,
        run=RunStats(started_at=started.isoformat(timespec="seconds"),
                     duration_ms=round((time.perf_counter() - clock) * 1000, 1), executor=executor.name,
                     workers=executor.workers, reused=reused_count, engine_version=__version__),
    )
    path = out_dir / "manifest.json"
    write_atomic(path, (manifest.to_json() + "\n").encode())
    summary = manifest.summary
    code = 2 if summary.errors else (1 if summary.invalid else 0)
    return BatchResult(manifest, path, code)


def _collect(input_dir: Path, out_dir: Path, recursive: bool, lang: str) -> list[Path]:
    if not input_dir.is_dir():
        raise InputError(f"No existe el directorio: {input_dir}", message_en=f"No such directory: {input_dir}")
    pattern = input_dir.rglob("*") if recursive else input_dir.iterdir()
    files = sorted(
        (p for p in pattern if p.suffix.lower() == ".xml" and not p.is_dir() and not _inside(p, out_dir)),
        key=lambda p: p.relative_to(input_dir).as_posix(),
    )
    if not files:
        raise InputError(f"El directorio no contiene archivos .xml: {input_dir}",
                         message_en=f"The directory contains no .xml files: {input_dir}")
    return files


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder)
    except ValueError:
        return False
    return True


def _executor(options: BatchOptions):
    if options.executor == "dask":
        if not options.scheduler:
            raise InputError("--executor dask necesita --scheduler DIRECCIÓN",
                             message_en="--executor dask needs --scheduler ADDRESS")
        return DaskExecutor(options.scheduler)
    return LocalExecutor(options.workers or default_workers())


def _fingerprint(config: dict, rulesets: list, schema_sha: str | None, render: bool, settings: RenderSettings) -> str:
    data = {"config": config, "rulesets": rulesets, "schema": schema_sha, "renderer": __version__, "render": render,
            "settings": settings.model_dump(mode="json") if render else None}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def _journal_file(journal: Path, rel: str) -> Path:
    return journal / f"{hashlib.sha1(rel.encode()).hexdigest()}.json"


def _record(journal: Path, result: FileResult, fingerprint: str) -> None:
    data = {"fingerprint": fingerprint, "result": result.to_dict()}
    write_atomic(_journal_file(journal, result.rel), json.dumps(data, sort_keys=True).encode())


def _reusable(journal: Path, task: FileTask, fingerprint: str) -> FileResult | None:
    """The recorded result when the input, rules, schema and renderer are unchanged and outputs exist."""
    try:
        data = json.loads(_journal_file(journal, task.rel).read_text(encoding="utf-8"))
        result = FileResult.from_dict(data["result"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if data.get("fingerprint") != fingerprint or result.error is not None or result.rel != task.rel:
        return None
    try:
        digest = hashlib.sha256(Path(task.source).read_bytes()).hexdigest()
    except OSError:
        return None
    out = Path(task.out_dir)
    if digest != result.sha256 or not result.report or not (out / result.report).is_file():
        return None
    if result.pdf and not (out / result.pdf).is_file():
        return None
    return result


def _remove_stale_temporaries(out_dir: Path) -> None:
    """Temporary files left by a killed run (atomic writes never leave anything else)."""
    if out_dir.is_dir():
        for stale in out_dir.rglob(".*.tmp"):
            stale.unlink(missing_ok=True)


def _apply_cross_rules(results: dict[str, FileResult], out_dir: Path, journal: Path, fingerprint: str,
                       lang: str) -> None:
    """Patch cross-document issues into reports; drop stale ones from earlier runs."""
    found = cross_issues(results.values(), lang)
    for rel, result in results.items():
        new = found.get(rel, [])
        if result.report is None or (not new and not result.cross_applied):
            continue
        path = out_dir / result.report
        report = Report.model_validate_json(path.read_text(encoding="utf-8"))
        kept = [i for i in report.issues if not i.rule_id.startswith(CROSS_RULE_PREFIX)]
        patched = _with_issues(report, kept + new)
        write_atomic(path, (patched.to_json(include_run=False) + "\n").encode())
        result.valid, result.counts = patched.valid, patched.counts.model_dump()
        result.cross_applied = bool(new)
        _record(journal, result, fingerprint)


def _with_issues(report: Report, issues: list[Issue]) -> Report:
    issues = sorted(issues, key=Issue.sort_key)
    counts = {level: sum(1 for i in issues if i.severity.value == level) for level in ("error", "warning", "info")}
    stages = []
    for stage in report.stages:
        if stage.name == "rules" and stage.status in ("passed", "failed"):
            failed = any(i.stage == "rules" and i.severity.value == "error" for i in issues)
            stage = stage.model_copy(update={"status": "failed" if failed else "passed"})
        stages.append(stage)
    valid = all(s.status == "passed" for s in stages) and counts["error"] == 0
    return report.model_copy(update={"issues": issues, "counts": report.counts.model_copy(update=counts),
                                     "stages": stages, "valid": valid})


def _reconcile_pdfs(results: dict[str, FileResult], *, tasks_by_rel: dict[str, FileTask], out_dir: Path, executor,
                    journal: Path, fingerprint: str) -> None:
    """After cross-document rules: valid documents have a PDF, invalid ones none."""
    missing = []
    for rel, result in results.items():
        pdf = output_paths(rel)[1]
        if result.valid and result.renderable and result.error is None:
            if not (out_dir / pdf).is_file():
                missing.append(tasks_by_rel[rel])
        elif result.pdf or (out_dir / pdf).is_file():
            (out_dir / pdf).unlink(missing_ok=True)
            result.pdf, result.pdf_note = None, result.pdf_note or "documento no válido (reglas entre documentos)"
            _record(journal, result, fingerprint)
    for rel in executor.run(_render_task, missing):
        result = results[rel]
        result.pdf, result.pdf_note = output_paths(rel)[1], None
        _record(journal, result, fingerprint)


def _render_task(task: FileTask) -> str:
    render_pdf(task)
    return task.rel


def _entry(result: FileResult) -> Entry:
    return Entry(
        path=result.rel, sha256=result.sha256, tipo=result.tipo, numero_autorizacion=result.numero_autorizacion,
        valid=result.valid, complete=result.complete, counts=result.counts, report=result.report, pdf=result.pdf,
        pdf_note=result.pdf_note, error=result.error,
    )

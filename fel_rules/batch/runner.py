"""Run a batch: many files → reports, PDFs, cross-document checks and ``manifest.json``.

Phases: (1) per-file work in parallel (validate, report, PDF), each finished file recorded in a
journal so a killed run can resume — a file whose outputs vanished meanwhile (output folder deleted) is
processed again, and one that kills its worker process twice gets an ``error`` entry; (2) cross-document
rules, patched into the affected reports; (3) PDFs reconciled with the final verdicts; (4) a last check
that every report and PDF still exists (an entry whose output vanished says so), then the manifest,
sorted by path, written atomically. An output folder that cannot be written (disk full, read-only)
stops the run with :class:`BatchError`; no manifest is left that describes anything but a finished run.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Literal

from .._version import __version__
from ..core.atomic import (
    atomic_writer,
    describe_os_error,
    remove_own,
    remove_own_temporaries,
)
from ..core.catalogue import render_text
from ..core.config import Config
from ..core.confine import confine, open_folder
from ..core.errors import FelRulesError, InputError
from ..core.inputs import InputTooLarge, input_sha256, readable_name
from ..core.owned import own_manifest, own_pdf, own_report
from ..core.report import Report
from ..core.text import Text
from ..core.yamlfile import MAX_YAML_BYTES
from ..findings.verdict import with_issues
from ..outputs.render.api import load_logo, render_failure
from ..outputs.render.settings import RenderSettings
from ..ruleset.loader import catalog_files
from .cross import CROSS_RULE_PREFIX, MAX_CROSS_FINDINGS, cross_issues
from .executors import DaskExecutor, LocalExecutor, local_workers
from .manifest import Entry, Manifest, RunStats, Summary
from .progress import Progress
from .worker import (
    Brief,
    FileResult,
    FileTask,
    FileTimeLimit,
    PdfNote,
    _validator,
    _write_error,
    crashed_result,
    journal_file,
    output_paths,
    process_and_record,
    record,
    remove_stale_outputs,
    render_pdf,
    time_limit,
    time_limit_error,
    write_output,
)

__all__ = ["BatchCancelled", "BatchError", "BatchOptions", "BatchResult", "run_batch"]

_STATE_DIR = ".fel-rules"
#: Seconds one file may take in a worker (validation, report and PDF); SAT's largest invoice, 9,999 lines,
#: takes about 10 s. A file over the limit gets an ``error`` entry and the batch goes on.
DEFAULT_FILE_TIME_LIMIT = 120.0
_LOCK = "lock"  # in _STATE_DIR


class BatchCancelled(Exception):
    """The run was cancelled; finished files are in the journal, so ``resume`` continues from there."""


class BatchError(FelRulesError):
    """The output folder could not be written (disk full, read-only…): the run stopped without a manifest.
    Finished files are in the journal, so ``resume`` continues once the problem is fixed."""


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
    file_time_limit: float | None = DEFAULT_FILE_TIME_LIMIT  # seconds per file (local workers); over it: an error
    on_progress: Callable[[int, int], None] | None = None
    cancel: threading.Event | None = None
    roots: tuple[Path, ...] = ()


@dataclass(frozen=True)
class BatchResult:
    """Where the manifest was written, its summary, and the exit code (0 all valid, 1 some invalid, 2 some
    could not be processed). :attr:`manifest` reads the whole manifest back when asked for."""

    path: Path
    summary: Summary
    exit_code: int

    @cached_property
    def manifest(self) -> Manifest:
        """The manifest as written."""
        return Manifest.model_validate_json(self.path.read_text(encoding="utf-8"))


def run_batch(options: BatchOptions) -> BatchResult:
    """Process every XML file of ``options.input_dir`` (see the module docstring)."""
    started, clock = datetime.now(timezone.utc), time.perf_counter()
    input_dir, out_dir = options.input_dir.resolve(), options.out_dir.resolve()
    options = replace(options, roots=tuple(Path(root).resolve() for root in options.roots))
    files = _collect(input_dir, out_dir, options.recursive, options.config.lang)
    if len(files) > options.max_files:
        raise InputError(f"El lote tiene {len(files)} archivos y el límite es {options.max_files} (--max-files)",
                         message_en=f"The batch has {len(files)} files and the limit is {options.max_files} (--max-files)")
    settings = options.render_settings or RenderSettings.from_env(lang=options.config.lang)
    if settings.logo is not None:  # workers may run elsewhere (another cwd, a Dask node): absolute paths only
        settings = settings.model_copy(update={"logo": settings.logo.resolve()})
    logo = load_logo(settings.logo, settings) if options.render else None  # a bad logo stops the run before any work
    config = _absolute_paths(options.config).model_dump(mode="json", exclude_none=True)
    validator = _validator(config)  # compiled here so forked workers inherit it
    schema_info = validator.schema_set.info
    rulesets = [{"id": r.id, "version": r.version} for r in validator.catalog.rulesets]
    fingerprint = _fingerprint(config, validator.config, schema_info.sha256, options.render, settings, logo)
    try:
        with _exclusive(out_dir, options):
            return _run(options, started, clock, input_dir, out_dir, files, settings, config, rulesets, schema_info,
                        fingerprint)
    except OSError as exc:
        raise _output_error(out_dir, exc) from exc


@contextmanager
def _exclusive(out_dir: Path, options: BatchOptions) -> Iterator[None]:
    """Hold the output folder for this run alone (created if missing); a second batch into it fails at once.
    A POSIX lock on ``OUT/.fel-rules/lock`` excludes other processes; it belongs to this process only (not to
    its workers), so it ends with the process however that ends. POSIX locks do not exclude the threads of one
    process (the MCP server's): those are kept apart by :data:`_HELD`."""
    with _HELD_GUARD:
        if out_dir in _HELD:
            raise _busy(out_dir)
        _HELD.add(out_dir)
    try:
        handle = _open_lock(out_dir, options.roots)
        try:
            try:
                fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EACCES, errno.EAGAIN):
                    raise
                raise _busy(out_dir) from None
            yield
        finally:
            os.close(handle)  # releases the lock
    finally:
        with _HELD_GUARD:
            _HELD.discard(out_dir)


_HELD: set[Path] = set()  # output folders held by batches of this process
_HELD_GUARD = threading.Lock()


def _open_lock(out_dir: Path, roots: tuple[Path, ...]) -> int:
    """The lock file of ``out_dir``, opened (created if missing) through its folder's descriptor."""
    folder = open_folder(out_dir / _STATE_DIR, roots)
    try:
        return os.open(_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=folder)
    finally:
        os.close(folder)


def _busy(out_dir: Path) -> BatchError:
    return BatchError(
        f"La carpeta de salida {out_dir} está en uso por otro lote; espere a que termine o use otra carpeta.",
        message_en=f"The output folder {out_dir} is in use by another batch; wait for it to finish or use another "
                   "folder.",
    )


def _run(options: BatchOptions, started: datetime, clock: float, input_dir: Path, out_dir: Path, files: list[str],
         settings: RenderSettings, config: dict, rulesets: list, schema_info, fingerprint: str) -> BatchResult:
    roots = options.roots
    remove_own_temporaries(out_dir, roots)
    path = out_dir / "manifest.json"
    if not remove_own(path, own_manifest, roots):  # a manifest describes a finished run, never one under way
        raise BatchError(
            f"{path} no es un manifiesto de fel-rules y no se reemplaza; use otra carpeta de salida.",
            message_en=f"{path} is not a fel-rules manifest and is not replaced; use another output folder.",
        )
    run = _Run(out_dir / _STATE_DIR / "journal", fingerprint, roots)
    os.close(open_folder(run.folder, roots))  # a read-only output folder fails here, before any work
    rendering = settings.model_dump(mode="json")
    task_of = lambda rel: FileTask(str(input_dir / rel), rel, str(out_dir), options.render,  # noqa: E731
                                   config, rendering, str(run.folder), fingerprint, tuple(map(str, roots)),
                                   options.file_time_limit, run.written(rel))
    crashed = lambda task: _crashed(task, run)  # noqa: E731

    briefs: dict[str, Brief] = {}
    pending: list[str] = []
    for rel in files:
        reused = run.reusable(task_of(rel)) if options.resume else None
        if reused is not None:
            briefs[rel] = Brief.of(reused)
        else:
            pending.append(rel)
    reused_count = len(briefs)

    executor = _executor(options)
    progress = Progress(len(files), enabled=options.progress)
    progress.advance(reused_count)
    cancelled = lambda: options.cancel is not None and options.cancel.is_set()  # noqa: E731
    try:
        for brief in executor.run(process_and_record, (task_of(rel) for rel in pending), crashed, stop=cancelled):
            briefs[brief.rel] = brief
            progress.advance()
            if options.on_progress is not None:
                options.on_progress(len(briefs), len(files))
        if cancelled():
            raise BatchCancelled(f"lote cancelado tras {len(briefs)} de {len(files)} archivos; "
                                 "--resume continúa donde quedó")
        lost = [rel for rel, brief in briefs.items() if _missing_outputs(rel, brief, out_dir, run)]
        for brief in executor.run(process_and_record, (task_of(rel) for rel in lost), crashed):
            briefs[brief.rel] = brief  # its outputs vanished during the run (output folder deleted…): done again
        _apply_cross_rules(briefs, out_dir, run, options.config.lang, options.max_cross_findings)
        if options.render:
            _reconcile_pdfs(briefs, out_dir, run, executor, task_of)
    except BaseException:  # cancelled, interrupted, terminated, output failed: the workers stop now
        executor.close(abort=True)
        raise
    finally:
        progress.close()
    executor.close()
    if getattr(executor, "crashes", 0):
        remove_own_temporaries(out_dir, roots)  # a killed worker could not remove its temporary file
    fixes = _check_outputs(briefs, out_dir, run, options.config.lang)

    summary = Summary(
        files=len(briefs),
        valid=sum(1 for b in briefs.values() if b.valid and not b.failed),
        invalid=sum(1 for b in briefs.values() if not b.valid and not b.failed),
        errors=sum(1 for b in briefs.values() if b.failed),
        rendered=sum(1 for b in briefs.values() if b.has_pdf),
    )
    header = Manifest(
        render=options.render, recursive=options.recursive, rulesets=rulesets, schema=schema_info,
        renderer_version=__version__, summary=summary, entries=[],
        run=RunStats(started_at=started.isoformat(timespec="seconds"),
                     duration_ms=round((time.perf_counter() - clock) * 1000, 1), executor=executor.name,
                     workers=executor.workers, reused=reused_count, engine_version=__version__),
    )
    _write_manifest(path, header, (fixes.get(rel) or run.load(rel) for rel in sorted(briefs)), roots,
                    options.config.lang)
    code = 2 if summary.errors else (1 if summary.invalid else 0)
    return BatchResult(path, summary, code)


def _output_error(out_dir: Path, exc: OSError) -> BatchError:
    """``No se pudo completar el lote: OUT/a.pdf: no queda espacio en el disco…``"""
    where = Path(exc.filename) if isinstance(exc.filename, (str, Path)) else out_dir
    if where.name.startswith(".") and where.name.endswith(".tmp"):  # a temporary file: name its folder
        where = where.parent
    return BatchError(
        f"No se pudo completar el lote: {where}: {render_text(describe_os_error(exc))}. Los archivos terminados quedan "
        "registrados; corrija el problema y repita con --resume para continuar.",
        message_en=f"Could not complete the batch: {where}: {render_text(describe_os_error(exc), 'en')}. Finished files are "
                   "recorded; fix the problem and run again with --resume to continue.",
    )


def _crashed(task: FileTask, run: _Run) -> Brief:
    """A file that killed its worker twice: an ``error`` entry, and no outputs (any there are stale)."""
    result = crashed_result(task)
    remove_stale_outputs(task)
    run.record(result)
    return Brief.of(result)


def _missing_outputs(rel: str, brief: Brief, out_dir: Path, run: _Run) -> list[str]:
    """What the manifest would name for ``rel`` but is not on disk: its journal entry, report or PDF."""
    report, pdf = output_paths(rel)
    missing = [] if run.has(rel) else [_JOURNAL]
    if brief.has_report and not (out_dir / report).is_file():
        missing.append(report)
    if brief.has_pdf and not (out_dir / pdf).is_file():
        missing.append(pdf)
    return missing


_JOURNAL = ""  # stands for the journal entry in _missing_outputs


def _check_outputs(briefs: dict[str, Brief], out_dir: Path, run: _Run, lang: str) -> dict[str, FileResult]:
    """The last check before the manifest: every report and PDF it names exists. An entry whose output
    vanished (deleted while the run was finishing) loses that path and gets an ``error`` saying so."""
    fixes: dict[str, FileResult] = {}
    for rel, brief in briefs.items():
        missing = _missing_outputs(rel, brief, out_dir, run)
        if not missing:
            continue
        try:
            result = run.load(rel)
        except (OSError, ValueError, KeyError, TypeError):
            result = FileResult(rel=rel, sha256=None, tipo=None, numero_autorizacion=None, valid=brief.valid,
                                complete=False, counts={"error": 0, "warning": 0, "info": 0}, report=None, pdf=None,
                                pdf_note=PdfNote.NOT_PROCESSED, error=None)
        if result.report is not None and not (out_dir / result.report).is_file():
            result.report = None
        if result.pdf is not None and not (out_dir / result.pdf).is_file():
            result.pdf, result.pdf_sha256, result.pdf_note = None, None, PdfNote.VANISHED
        names = [name or Text("batch.journal_entry") for name in missing]
        note = render_text(Text.of("batch.outputs_vanished", names=names), lang)
        result.error = f"{result.error}; {note}" if result.error else note
        brief.failed, brief.has_pdf, brief.has_report = True, result.pdf is not None, result.report is not None
        fixes[rel] = result
    return fixes


def _write_manifest(path: Path, header: Manifest, results: Iterator[FileResult], roots: tuple[Path, ...],
                    lang: str) -> None:
    """The manifest JSON, entries streamed one by one from the journal (memory stays flat)."""
    data = json.loads(header.to_json())
    run = data.pop("run")
    data.pop("entries")
    head = json.dumps(data, ensure_ascii=False, indent=2)[:-2]  # without the closing "\n}"
    tail = json.dumps(run, ensure_ascii=False, indent=2).replace("\n", "\n  ")
    with atomic_writer(path, roots=roots, owned=own_manifest) as stream:
        stream.write((head + ',\n  "entries": [').encode())
        for index, result in enumerate(results):
            entry = json.dumps(_entry(result, lang).model_dump(mode="json"), ensure_ascii=False, indent=2)
            indented = "\n".join("    " + line for line in entry.splitlines())
            stream.write((("\n" if index == 0 else ",\n") + indented).encode())
        stream.write(f'\n  ],\n  "run": {tail}\n}}\n'.encode())


def _absolute_paths(config: Config) -> Config:
    changes = {name: getattr(config, name).resolve() for name in ("rules_dir", "schema_dir")
               if getattr(config, name) is not None}
    if config.profile and (config.profile.endswith((".yaml", ".yml")) or "/" in config.profile):
        changes["profile"] = str(Path(config.profile).resolve())
    return config.model_copy(update=changes)


def _collect(input_dir: Path, out_dir: Path, recursive: bool, lang: str) -> list[str]:
    """Relative POSIX paths of the inputs, sorted (strings: far lighter than Path objects)."""
    if not input_dir.is_dir():
        raise InputError(f"No existe el directorio: {input_dir}", message_en=f"No such directory: {input_dir}")
    pattern = input_dir.rglob("*") if recursive else input_dir.iterdir()
    files = sorted(
        p.relative_to(input_dir).as_posix()
        for p in pattern
        if p.suffix.lower() == ".xml" and not p.is_dir() and not _inside(p, out_dir)
    )
    if not files:
        raise InputError(f"El directorio no contiene archivos .xml: {input_dir}",
                         message_en=f"The directory contains no .xml files: {input_dir}")
    return files


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder)
    except (ValueError, OSError, RuntimeError):  # RuntimeError: a symlink loop (reported per file later)
        return False
    return True


def _executor(options: BatchOptions):
    if options.executor == "dask":
        if not options.scheduler:
            raise InputError("--executor dask necesita --scheduler DIRECCIÓN",
                             message_en="--executor dask needs --scheduler ADDRESS")
        return DaskExecutor(options.scheduler)
    return LocalExecutor(local_workers(options.workers))


def _fingerprint(config: dict, resolved: Config, schema_sha: str | None, render: bool, settings: RenderSettings,
                 logo: bytes | None) -> str:
    """What every result depends on, by content: options, rule, data and profile files, the schema set, the
    renderer and its settings, the logo. Any change means no result of an earlier run is reused."""
    sources = {str(path): _content_digest(path, MAX_YAML_BYTES)
               for path in catalog_files(resolved.rules_dir, resolved.profile)}
    data = {"config": config, "sources": sources, "schema": schema_sha, "renderer": __version__, "render": render,
            "settings": settings.model_dump(mode="json") if render else None,
            "logo": hashlib.sha256(logo).hexdigest() if logo is not None else None}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def _content_digest(path: Path, limit: int) -> str | None:
    """sha256 of a file read safely, ``None`` when it cannot be read (so it never matches a readable one)."""
    try:
        return input_sha256(path, limit)
    except (OSError, InputTooLarge):
        return None


class _Run:
    """The resume journal: one small JSON file per finished input (atomic, no fsync: it is a cache)."""

    def __init__(self, folder: Path, fingerprint: str, roots: tuple[Path, ...]) -> None:
        self.folder, self.fingerprint, self.roots = folder, fingerprint, roots

    def _file(self, rel: str) -> Path:
        """The journal entry of ``rel`` (``OSError`` when the journal's folder now resolves outside the roots)."""
        path = journal_file(self.folder, rel)
        return confine(path, self.roots) if self.roots else path

    def record(self, result: FileResult) -> None:
        record(self.folder, self.fingerprint, result, self.roots)

    def has(self, rel: str) -> bool:
        """True when ``rel`` has a journal entry."""
        return self._file(rel).is_file()

    def written(self, rel: str) -> tuple[str, ...]:
        """The outputs of ``rel`` the journal records as written by fel-rules (so a damaged copy is still ours)."""
        try:
            result = self.load(rel)
        except (OSError, ValueError, KeyError, TypeError):
            return ()
        return tuple(name for name in (result.report, result.pdf) if name)

    def load(self, rel: str) -> FileResult:
        return FileResult.from_dict(json.loads(self._file(rel).read_text(encoding="utf-8"))["result"])

    def reusable(self, task: FileTask) -> FileResult | None:
        """The recorded result when input, rules, schema and renderer are unchanged and the outputs are intact
        (the report and PDF on disk are the very bytes recorded)."""
        try:
            data = json.loads(self._file(task.rel).read_text(encoding="utf-8"))
            result = FileResult.from_dict(data["result"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if data.get("fingerprint") != self.fingerprint or result.error is not None or result.rel != task.rel:
            return None
        try:
            digest = _content_digest(task.source_path(), _validator(task.config).config.max_bytes)
        except OSError:  # outside the roots
            return None
        if digest is None or digest != result.sha256 or not result.report:
            return None
        out = Path(task.out_dir)
        if not _intact(out / result.report, result.report_sha256, self.roots):
            return None
        if result.pdf and not _intact(out / result.pdf, result.pdf_sha256, self.roots):
            return None
        return result


def _intact(path: Path, recorded: str | None, roots: tuple[Path, ...]) -> bool:
    """True when the output at ``path`` (inside ``roots``) holds exactly the bytes whose sha256 the journal
    recorded."""
    try:
        path = confine(path, roots)
    except OSError:
        return False
    return recorded is not None and _content_digest(path, _MAX_OUTPUT_BYTES) == recorded


_MAX_OUTPUT_BYTES = 1 << 30  # larger than any report or PDF a batch writes; only guards against a swapped device


def _apply_cross_rules(briefs: dict[str, Brief], out_dir: Path, run: _Run, lang: str, limit: int) -> None:
    """Patch cross-document issues into reports; drop stale ones from earlier runs."""
    found = cross_issues(((rel, b.cross) for rel, b in briefs.items() if b.cross is not None), lang, limit)
    for rel, brief in briefs.items():
        new = found.get(rel, [])
        if brief.failed or (not new and not brief.cross_applied):
            continue
        result = run.load(rel)
        path = out_dir / result.report
        report = Report.model_validate_json(confine(path, run.roots).read_text(encoding="utf-8"))
        kept = [i for i in report.issues if not i.rule_id.startswith(CROSS_RULE_PREFIX)]
        patched = with_issues(report, kept + new)
        result.report_sha256 = write_output(path, (patched.to_json(include_run=False) + "\n").encode(), run.roots,
                                            own_report)
        result.valid, result.counts, result.cross_applied = patched.valid, patched.counts.model_dump(), bool(new)
        run.record(result)
        brief.valid, brief.cross_applied = result.valid, result.cross_applied


def _reconcile_pdfs(briefs: dict[str, Brief], out_dir: Path, run: _Run, executor, task_of) -> None:
    """After cross-document rules: valid documents have a PDF, invalid ones none. A PDF that could not be
    written (in phase 1, or here) is an ``error`` of its entry."""
    missing = []
    for rel, brief in briefs.items():
        pdf = out_dir / output_paths(rel)[1]
        if brief.valid and brief.renderable and not brief.failed:
            if not brief.has_pdf or not pdf.is_file():
                missing.append(rel)
        elif brief.has_pdf or brief.pdf_failed or pdf.is_file():
            remove_own(pdf, own_pdf, run.roots)  # a PDF fel-rules did not write (another program's) stays
            if brief.has_pdf or brief.pdf_failed:  # rendered (or tried) in phase 1, then made invalid by a
                result = run.load(rel)  # cross-document rule
                result.pdf, result.pdf_sha256 = None, None
                result.pdf_note = PdfNote.INVALID_CROSS
                run.record(result)
                brief.has_pdf = brief.pdf_failed = False
    rendered = executor.run(_render_task, (task_of(rel) for rel in missing),
                            lambda task: (task.rel, None, crashed_result(task).error))
    for rel, digest, error in rendered:
        result = run.load(rel)
        result.pdf_sha256 = digest
        if error is None:
            result.pdf, result.pdf_note = output_paths(rel)[1], None
        else:
            result.pdf, result.pdf_note, result.error = None, PdfNote.NOT_WRITTEN, error
            briefs[rel].failed = True
        run.record(result)
        briefs[rel].has_pdf = error is None


def _render_task(task: FileTask) -> tuple[str, str | None, str | None]:
    """``(rel, sha256 of the PDF, None)`` once the PDF is written, ``(rel, None, why not)`` otherwise."""
    try:
        with time_limit(task.time_limit):
            digest = render_pdf(task)
    except FileTimeLimit:
        return task.rel, None, time_limit_error(task)
    except OSError as exc:
        return task.rel, None, _write_error(Text("batch.the_pdf"), output_paths(task.rel)[1], exc, task)
    except Exception as exc:  # noqa: BLE001 - one bad file never stops the batch
        return task.rel, None, render_failure(exc).localized(task.config.get("lang", "es"))
    return task.rel, digest, None


def _entry(result: FileResult, lang: str) -> Entry:
    return Entry(
        path=readable_name(result.rel), sha256=result.sha256, tipo=result.tipo,
        numero_autorizacion=result.numero_autorizacion, valid=result.valid, complete=result.complete, counts=result.counts, report=result.report, pdf=result.pdf,
        pdf_note=_said(result.pdf_note, lang), error=result.error,
    )


def _said(note: str | None, lang: str) -> str | None:
    """A :class:`PdfNote` in ``lang`` (a note of unknown value, from an older journal, as written)."""
    if note is None:
        return None
    try:
        return PdfNote(note).said(lang)
    except ValueError:
        return note

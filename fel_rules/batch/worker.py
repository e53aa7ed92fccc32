"""The per-file work of a batch: validate, write the report, render the PDF. Runs in any worker
process (local pool or a Dask cluster); everything it receives and returns is plain, picklable data."""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
import traceback
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, fields
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import NamedTuple

from ..checks import PLAN_FUNCTION_AFTER
from ..checks.batch_input import CrossFacts, cross_facts
from ..core.atomic import describe_os_error, remove_own, write_atomic
from ..core.catalogue import render_text
from ..core.config import Config
from ..core.confine import confine
from ..core.inputs import InputTooLarge, input_sha256, read_own, readable_name
from ..core.owned import own_pdf, own_report, recorded
from ..core.report import Report
from ..core.text import Text
from ..document.facts import Anulacion, Documento
from ..engine import WARM_UP_SAMPLE, Outcome, Stopped, Validator
from ..outputs.render.notices import missing_glyphs_warnings
from .pending import drop_view, load_view, save_view
from .time_limit import FileTimeLimit, own_time_limits, time_limit, time_limit_error

__all__ = [
    "Brief", "FileResult", "FileTask", "WrittenPdf", "crashed_result", "entry_name", "journal_file", "output_paths",
    "plan_function_pays", "process_and_record", "process_file", "process_many", "record", "record_pdf",
    "remove_stale_outputs", "render_and_record", "render_pdf", "render_task",
    "validator_for", "validator_for_run", "warm_up_renderer", "warm_up_validator", "write_output",
]


@dataclass(frozen=True)
class FileTask:
    """One input to process; ``journal``/``fingerprint`` say where and under which key to record it; every
    file read or written must resolve inside ``roots`` when there are any."""

    source: str
    rel: str
    out_dir: str
    render: bool
    config: dict
    render_settings: dict
    journal: str = ""
    fingerprint: str = ""
    roots: tuple[str, ...] = ()
    time_limit: float | None = None  # seconds for this file's work (validation, report, PDF)
    recorded: tuple[str, ...] = ()  # outputs of this input that this folder's journal says fel-rules wrote
    durable: bool = True  # flush each output to disk (False: the batch flushes the file system once, at the end)

    def owned(self, name: str, check):
        """How to recognise the earlier output ``name`` as fel-rules' own: by the journal, or by its format."""
        return recorded if name in self.recorded else check

    @property
    def allowed(self) -> tuple[Path, ...]:
        """:attr:`roots` as paths."""
        return tuple(map(Path, self.roots))

    def say(self, text: Text) -> str:
        """``text`` in the batch's language."""
        return render_text(text, self.config.get("lang", "es"))

    def source_path(self) -> Path:
        """The input, resolved and checked against the roots (``OSError`` when outside them)."""
        return confine(Path(self.source), self.allowed)


@dataclass
class FileResult:
    """What a worker reports back (small: the report itself stays on disk)."""

    rel: str
    sha256: str | None
    tipo: str | None
    numero_autorizacion: str | None
    valid: bool
    complete: bool
    counts: dict[str, int]
    report: str | None
    pdf: str | None
    pdf_note: PdfNote | None  # (a plain string in a journal read back: a PdfNote's value)
    error: str | None
    cross: CrossFacts = field(default_factory=CrossFacts)
    renderable: bool = False
    cross_applied: bool = False
    report_sha256: str | None = None  # of the report and PDF as written: --resume reuses only what is intact
    pdf_sha256: str | None = None
    ledger: dict | None = None  # LedgerFacts.to_dict(): names and other taxes for reporte.html and libro.csv
    missing_glyphs: list[str] = field(default_factory=list)  # characters of the PDF printed as [U+XXXX]

    def pdf_warnings(self, lang: str) -> list[str]:
        """What the reader of the PDF should know (characters its font could not draw), in ``lang``; none
        without a PDF."""
        if self.pdf is None:
            return []
        return [render_text(text, lang) for text in missing_glyphs_warnings(self.missing_glyphs)]

    def to_dict(self) -> dict:
        """Plain data for the resume journal (what ``dataclasses.asdict`` gives, without its deep copies)."""
        data = {name: getattr(self, name) for name in _RESULT_FIELDS}
        data["counts"] = dict(self.counts)
        data["cross"] = {name: getattr(self.cross, name) for name in _CROSS_FIELDS}
        return data

    @classmethod
    def from_dict(cls, data: dict) -> FileResult:
        """Inverse of :meth:`to_dict`."""
        cross = dict(data["cross"])
        cross["tax_totals"] = tuple(tuple(pair) for pair in cross.get("tax_totals", ()))
        cross["frases"] = tuple(cross.get("frases", ()))
        return cls(**{**data, "cross": CrossFacts(**cross)})


_RESULT_FIELDS = tuple(field.name for field in fields(FileResult))
_CROSS_FIELDS = tuple(field.name for field in fields(CrossFacts))


class WrittenPdf(NamedTuple):
    """A PDF the batch wrote: its sha256, and the characters its font could not draw (printed as ``[U+XXXX]``)."""

    sha256: str
    missing: tuple[str, ...] = ()


class PdfNote(StrEnum):
    """Why a file has no PDF; the manifest says it in the batch's language (catalogue ``batch.pdf_note.*``)."""

    NOT_PROCESSED = "not_processed"
    RENDER_DISABLED = "render_disabled"
    ANNULMENT = "annulment"
    INVALID = "invalid"
    INVALID_CROSS = "invalid_cross"  # made invalid by a cross-document rule after its PDF was written
    NOT_WRITTEN = "not_written"  # a valid document whose PDF could not be written
    VANISHED = "vanished"  # the PDF was deleted while the batch ran

    @cache  # (a few notes in two languages, said for every file of a batch's manifest and page)
    def said(self, lang: str) -> str:
        """The note in ``lang``."""
        return render_text(Text(f"batch.pdf_note.{self.value}"), lang)

    @staticmethod
    def say(note: str | None, lang: str) -> str | None:
        """A journal's note in ``lang`` (a note of unknown value, from an older journal, as written)."""
        if note is None:
            return None
        try:
            return PdfNote(note).said(lang)
        except ValueError:
            return note

_VALIDATORS: dict[str, Validator] = {}
_LAST: tuple[dict, Validator] | None = None  # the configuration asked for last (the same object, task after task)
_RUNS: dict[str, str] = {}  # configuration → the run (its fingerprint) its validator was made current for


def validator_for(config: dict) -> Validator:
    """One validator per configuration and process (rules loaded, schema compiled once): the one of the run in
    progress (see :func:`validator_for_run`)."""
    global _LAST
    last = _LAST
    if last is not None and last[0] is config:
        return last[1]
    key = json.dumps(config, sort_keys=True, default=str)
    if key not in _VALIDATORS:
        _VALIDATORS[key] = Validator(Config(**config))
    _LAST = (config, _VALIDATORS[key])
    return _VALIDATORS[key]


def validator_for_run(config: dict, run: str | None = None) -> Validator:
    """:func:`validator_for`, made current with the rule, data and profile files
    (:meth:`~fel_rules.engine.Validator.current`) once per run, so that a process that runs batch after batch never
    judges with files edited since an earlier run, and one run never judges with two versions of them: the planner
    asks at the start of a run (``run`` ``None``: always) and again with the run's fingerprint once it has it (the
    mark its forked workers inherit); a worker asks at its tasks with their run's fingerprint, so a worker of a
    cluster reads the files at its first task of a run and never during it."""
    global _LAST
    key = json.dumps(config, sort_keys=True, default=str)
    validator = validator_for(config)
    if run is not None and _RUNS.get(key) == run:
        return validator
    current = validator.current()
    if current is not validator:
        _VALIDATORS[key], _LAST = current, None
    if run is not None:
        _RUNS[key] = run
    return current


def output_paths(rel: str) -> tuple[str, str]:
    """(report, pdf) paths relative to the output folder for an input at ``rel``: ``a.xml`` gives
    ``a.report.json`` and ``a.pdf``; any other name keeps its suffix (``a.XML`` gives ``a.XML.pdf``), as does a
    name whose stem looks like an XML file name (``a.XML.xml``), so two inputs never share an output. Output
    names are valid UTF-8, whatever the input's name."""
    rel = readable_name(rel)
    stem = rel[: -len(".xml")]
    if not rel.endswith(".xml") or _suffix(stem).lower() == ".xml":
        stem = rel
    return f"{stem}.report.json", f"{stem}.pdf"


def _suffix(path: str) -> str:
    """``Path(path).suffix``, without making a path when its last component is a name (a batch asks for each
    input's outputs several times)."""
    name = path.rpartition("/")[2]
    if name in ("", "."):  # (a path ending in "/" or "/.": its last component is the one before)
        return Path(path).suffix
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def journal_file(journal: str | Path, rel: str) -> Path:
    """Where the journal keeps the result of the input at ``rel``."""
    return Path(journal) / entry_name(rel)


def entry_name(rel: str) -> str:
    """The name of the journal entry of the input at ``rel`` (in the journal's folder)."""
    return f"{hashlib.sha1(rel.encode('utf-8', 'surrogateescape')).hexdigest()}.json"


def record(journal: str | Path, fingerprint: str, result: FileResult, roots: tuple[Path, ...] = ()) -> None:
    """Write ``result`` to the journal (atomic; no fsync: the journal is a cache of finished work)."""
    data = {"fingerprint": fingerprint, "result": result.to_dict()}
    write_atomic(os.path.join(journal, entry_name(result.rel)), json.dumps(data, sort_keys=True).encode(),
                 durable=False, roots=roots)  # (journal_file's path, as text: one path object fewer an entry)


def process_and_record(task: FileTask, validated: Outcome | None = None, spent: float = 0.0) -> Brief:
    """:func:`process_file` within the task's time limit, recorded in the journal by the worker; only a small
    summary travels back. ``validated``: the task's validation, already made in ``spent`` seconds of its time limit
    (see :func:`process_many`)."""
    _warm_up(task)
    limit = task.time_limit
    try:
        if limit and spent >= limit:
            raise FileTimeLimit(limit)
        with time_limit(limit - spent if limit else None):
            result = process_file(task, validated)
    except FileTimeLimit:
        result = _over_time(task)
    record(task.journal, task.fingerprint, result, task.allowed)
    return Brief.of(result)


def process_many(tasks: Sequence[FileTask]) -> list[Brief]:
    """:func:`process_and_record` of each task, in order, their inputs validated together first
    (:meth:`~fel_rules.engine.Validator.inspect_many`: some 15–20 % less CPU a file), each within its own time
    limit: a document whose validation goes over it is stopped there and the others go on, and what is left of
    its limit is what its report and PDF may take. Anything else that goes wrong with the group (a validator that
    cannot be made) is met again, and said, by each task on its own."""
    first = tasks[0]
    if any(task.config is not first.config or task.time_limit != first.time_limit or task.roots != first.roots
           for task in tasks):
        return [process_and_record(task) for task in tasks]  # (a batch's tasks share them: not met in practice)
    _warm_up(first)
    sources: dict[int, tuple[Path, str]] = {}
    for index, task in enumerate(tasks):
        with suppress(OSError):  # an input outside the roots: process_and_record says so
            sources[index] = (task.source_path(), task.rel)
    try:
        with own_time_limits(first.time_limit) as guard:
            outcomes = validator_for(first.config).inspect_many(sources.values(), guard=guard, roots=first.allowed,
                                                                lines=first.render)
    except (Exception, FileTimeLimit, Stopped):  # noqa: BLE001 - each task meets it again and says it in its entry
        return [process_and_record(task) for task in tasks]
    validated = dict(zip(sources, outcomes, strict=True))
    briefs: list[Brief | None] = [None] * len(tasks)
    unrendered: dict[int, _Validated] = {}
    for index, task in enumerate(tasks):
        if index not in validated:  # outside the roots: said on its own
            briefs[index] = process_and_record(task)
        elif (outcome := validated[index]) is None:  # stopped: its validation took its whole time limit
            briefs[index] = process_and_record(task, spent=math.inf)
        else:
            run = outcome.report.run  # its duration: the time of its own stages
            spent = run.duration_ms / 1000 if run is not None else 0.0
            if task.render:
                briefs[index] = process_and_record(task, outcome, spent)
            else:
                unrendered[index] = _Validated(task, outcome, spent)
    if unrendered:
        for index, brief in zip(unrendered, _write_up(list(unrendered.values())), strict=True):
            briefs[index] = brief
    return briefs  # type: ignore[return-value] # (every position filled above)


@dataclass(slots=True)
class _Validated:
    """A task of a group whose validation is made and whose report and journal entry are to be written (see
    :func:`_write_up`); ``spent``: the seconds of its time limit used so far."""

    task: FileTask
    outcome: Outcome
    spent: float
    result: FileResult | None = None
    data: bytes = b""
    over: bool = False  # it went over its time limit
    failed: bool = False  # a step failed: its result says why


def _write_up(items: list[_Validated]) -> list[Brief]:
    """What :func:`process_and_record` does with validated tasks that get no PDF, each step for every task in turn
    rather than each task through every step (the step's code stays warm: some 15 % less time a file): their results
    and the texts of their reports, then the reports written, then their journal entries. Each task's steps run
    within what is left of its time limit; a task over it gets the entry of one (and no outputs), the others go
    on."""
    _warm_up(items[0].task)
    limit = items[0].task.time_limit  # (the tasks of a group share it: see process_many)
    with own_time_limits(limit, over=lambda: FileTimeLimit(limit or 0)) as guard:
        for item in items:
            _step(item, guard, _prepared)
        for item in items:
            _step(item, guard, _written)
    briefs = []
    for item in items:
        result = _over_time(item.task) if item.over else item.result
        assert result is not None  # (a step that failed left the error's result)
        record(item.task.journal, item.task.fingerprint, result, item.task.allowed)
        briefs.append(Brief.of(result))
    return briefs


def _step(item: _Validated, guard, work: Callable[[_Validated], None]) -> None:
    """``work(item)`` within what is left of the item's time limit (``guard``, or none), its time counted; a failure
    is the item's result, as in :func:`process_file`. Nothing is done for an item that failed or went over."""
    if item.over or item.failed:
        return
    started = time.perf_counter()
    try:
        if guard is None:
            work(item)
        else:
            with guard(item.spent):
                work(item)
    except FileTimeLimit:
        item.over = True
    except Exception as exc:  # noqa: BLE001 - one bad file never stops the batch
        item.result, item.failed = _failed_result(item.task, exc), True
    item.spent += time.perf_counter() - started


def _prepared(item: _Validated) -> None:
    item.result = _result_of(item.task, item.outcome)
    item.data = _report_bytes(item.outcome.report)


def _written(item: _Validated) -> None:
    assert item.result is not None  # (prepared first)
    outcome = item.outcome
    if _write_report(item.task, item.data, item.result):
        _add_pdf(item.task, outcome.facts, outcome.report, item.result)


def _over_time(task: FileTask) -> FileResult:
    """The result of a task that went over its time limit (a report written before it would contradict it)."""
    remove_stale_outputs(task)
    return _unprocessed_result(task, time_limit_error(task.time_limit or 0, task.config.get("lang", "es")))


process_and_record.many = process_many  # type: ignore[attr-defined] # a pool's task takes its group at once


def _warm_up(task: FileTask) -> None:
    """Load the rules, compile the schema and import the renderer once per process, outside any file's time
    limit (a spawned worker's first file would otherwise pay for them). A failure here is reported by
    :func:`process_file`, which meets it again."""
    with suppress(Exception):
        validator_for_run(task.config, task.fingerprint).schema_set  # noqa: B018 - compiled on first access
        if task.render:
            from ..outputs.render import pdf  # noqa: F401 - reportlab's import alone takes a good part of a second


def plan_function_pays(files: int, workers: int) -> bool:
    """Whether ``workers`` workers validating ``files`` inputs between them would each make the rules' plan
    function anyway (:data:`~fel_rules.checks.PLAN_FUNCTION_AFTER` documents each): a batch then makes it once,
    before forking (:func:`warm_up_validator`)."""
    return files >= PLAN_FUNCTION_AFTER * workers


def warm_up_validator(config: dict, *, plan_function: bool = True) -> bool:
    """Warm the validator up in this process (:meth:`~fel_rules.engine.Validator.warm_up`: the packaged sample
    validated twice), then validate the sample once more and write its report and read it back, before the workers
    are forked: what the validator makes on its first documents (signature libraries imported, rule expressions
    compiled, some 60 ms of CPU), with ``plan_function`` the function of the rules' plan (some 25–40 ms more: for a
    batch whose workers would each make it anyway), and what reading a report back takes (the page and ledger read
    every report) are then made once and inherited by every worker instead of made again in each. The sample's
    report is thrown away. False when the sample could not be validated (a failure is met again, and reported, by
    the batch's own files)."""
    try:
        validator = validator_for(config)
        if not validator.warm_up(plan_function=plan_function):
            return False
        report = validator.inspect_bytes(WARM_UP_SAMPLE.read_bytes(), path=WARM_UP_SAMPLE.name).report
        read_back = Report.from_json(report.to_json(include_run=False))  # as the batch reads its reports back
    except Exception:  # noqa: BLE001 - a warm-up never stops a batch
        return False
    return read_back.document.sha256 == report.document.sha256


def warm_up_renderer(render_settings: dict, roots: tuple[Path, ...] = ()) -> None:
    """Register the PDF's fonts and prepare the default logo (read inside ``roots`` when given) in this process
    (some 40 ms of CPU): done before the workers are forked, each inherits them instead of making its own for its
    first PDF. A failure here is met again, and reported, by the first PDF."""
    from ..outputs.render import RenderSettings
    from ..outputs.render.api import load_logo
    from ..outputs.render.fonts import register_fonts
    from ..outputs.render.logo import logo_reader

    with suppress(Exception):
        register_fonts()
        settings = RenderSettings(**render_settings)
        logo = load_logo(settings.logo, settings, roots=roots)
        if logo:
            logo_reader(logo)


@dataclass(slots=True)
class Brief:
    """What a batch keeps in memory per file; everything else lives in the journal on disk."""

    rel: str
    valid: bool
    renderable: bool
    failed: bool
    has_pdf: bool
    cross_applied: bool
    cross: CrossFacts | None
    has_report: bool = True
    pdf_failed: bool = False
    pdf_pending: bool = False  # valid when its worker saw it, rendered once the cross-document rules are in

    @classmethod
    def of(cls, result: FileResult) -> Brief:
        """The summary of a full result."""
        relevant = result.cross.relevant and result.error is None
        return cls(result.rel, result.valid, result.renderable, result.error is not None, result.pdf is not None,
                   result.cross_applied, result.cross if relevant else None, result.report is not None,
                   result.pdf is None and result.pdf_note == PdfNote.NOT_WRITTEN,
                   result.pdf is None and result.pdf_note is None and result.report is not None
                   and result.error is None)


def process_file(task: FileTask, validated: Outcome | None = None) -> FileResult:
    """Validate one file (unless ``validated`` is its validation, already made), write its report, render its PDF
    when valid; never raises."""
    try:
        outcome = _inspect(task) if validated is None else validated
        report, facts = outcome.report, outcome.facts
        result = _result_of(task, outcome)
        if _write_report(task, _report_bytes(report), result):
            _add_pdf(task, facts, report, result)
        return result
    except Exception as exc:  # noqa: BLE001 - one bad file never stops the batch
        return _failed_result(task, exc)


def _failed_result(task: FileTask, exc: Exception) -> FileResult:
    """The result of a file whose processing failed with ``exc`` (it has no outputs)."""
    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return FileResult(rel=task.rel, sha256=None, tipo=None, numero_autorizacion=None, valid=False, complete=False,
                      counts={"error": 0, "warning": 0, "info": 0}, report=None, pdf=None,
                      pdf_note=PdfNote.NOT_PROCESSED, error=detail)


def _inspect(task: FileTask) -> Outcome:
    """The outcome of the task's input (a read error when it resolves outside the roots); the facts of its lines
    only when it may get a PDF."""
    validator = validator_for(task.config)
    try:
        source = task.source_path()
    except OSError as exc:  # it resolves outside the roots
        return Outcome(validator.read_error(task.rel, exc), None)
    return validator.inspect_path(source, name=task.rel, roots=task.allowed,  # (judged again once open)
                                  lines=task.render)


def _result_of(task: FileTask, outcome: Outcome) -> FileResult:
    """The result the outcome gives, before any output is written."""
    report, facts = outcome.report, outcome.facts
    error = None
    if report.could_not_validate:
        first = next((i for i in report.issues if i.severity.value == "error"), None)
        error = f"{first.rule_id}: {first.message}" if first else task.say(Text("batch.could_not_validate"))
    return FileResult(
        rel=task.rel, sha256=report.document.sha256, tipo=report.document.tipo,
        numero_autorizacion=report.document.numero_autorizacion, valid=report.valid, complete=report.complete,
        counts=report.counts.to_dict(), report=output_paths(task.rel)[0], pdf=None, pdf_note=None, error=error,
        cross=cross_facts(facts), renderable=isinstance(facts, Documento), ledger=outcome.ledger.to_dict(),
    )


def _report_bytes(report: Report) -> bytes:
    """The content of the report file of ``report``."""
    return (report.to_json(include_run=False) + "\n").encode()


def _write_report(task: FileTask, data: bytes, result: FileResult) -> bool:
    """Write the report (its file's content: ``data``); False (and the entry says why) when it could not be
    written."""
    report_rel = output_paths(task.rel)[0]
    try:
        result.report_sha256 = write_output(os.path.join(task.out_dir, report_rel), data, task.allowed,
                                            task.owned(report_rel, own_report), durable=task.durable)
    except OSError as exc:  # disk full, read-only folder…: said in the entry, nothing half-written left
        result.report, result.pdf_note = None, PdfNote.NOT_PROCESSED
        result.error = _write_error(Text("batch.the_report"), report_rel, exc, task)
        remove_stale_outputs(task)  # outputs of an earlier run would contradict the entry
        return False
    return True


def _add_pdf(task: FileTask, facts: Documento | Anulacion | None, report: Report, result: FileResult) -> None:
    """Render the PDF of a valid document whose verdict is final, or say why there is none. A document another
    one could refer to waits for the cross-document rules: its view is kept (:mod:`.pending`), its entry has
    neither a PDF nor a note yet, and the batch renders it from that view once the verdict is final."""
    result.pdf_note = _why_no_pdf(task, facts, report)
    if result.pdf_note is None and isinstance(facts, Documento):
        try:
            view = _view(task, facts, report)
            if result.cross.relevant and task.journal:  # (a task outside a batch has nowhere to keep it)
                save_view(task.journal, task.rel, task.fingerprint, result.sha256, view.model_dump(mode="json"),
                          task.allowed)
                return
            written = _write_pdf(task, view)
        except Exception:  # noqa: BLE001 - disk full, a layout failure…: the verdict stands; the batch tries
            result.pdf_note = PdfNote.NOT_WRITTEN  # again once cross rules are in, and the entry says why
        else:
            result.pdf, result.pdf_sha256 = output_paths(task.rel)[1], written.sha256
            result.missing_glyphs = list(written.missing)


def _why_no_pdf(task: FileTask, facts: Documento | Anulacion | None, report: Report) -> PdfNote | None:
    """Why the document gets no PDF (``None``: it gets one)."""
    if not task.render:
        return PdfNote.RENDER_DISABLED
    if isinstance(facts, Anulacion):
        return PdfNote.ANNULMENT
    if not report.valid:
        return PdfNote.INVALID
    return None


def _write_error(what: Text, rel: str, exc: OSError, task: FileTask) -> str:
    """``no se pudo escribir el PDF a.pdf: no queda espacio en el disco`` (in the batch's language)."""
    return task.say(Text.of("batch.write_failed", what=what, path=rel, reason=describe_os_error(exc)))


def remove_stale_outputs(task: FileTask) -> None:
    """Remove the report and PDF of ``task`` an earlier run left, when fel-rules wrote them (never another file)."""
    out = Path(task.out_dir)
    for name, check in zip(output_paths(task.rel), (own_report, own_pdf), strict=True):
        try:
            remove_own(out / name, task.owned(name, check), task.allowed)
        except OSError:
            pass


def crashed_result(task: FileTask) -> FileResult:
    """The result of a file whose worker process died each time it was tried (it has no outputs)."""
    return _unprocessed_result(task, task.say(Text("batch.worker_crashed")))


def _unprocessed_result(task: FileTask, error: str) -> FileResult:
    """The result of a file that could not be processed (it has no outputs), saying why."""
    try:
        digest = input_sha256(task.source_path(), validator_for(task.config).config.max_bytes, roots=task.allowed)
    except (OSError, InputTooLarge):
        digest = None
    return FileResult(rel=task.rel, sha256=digest, tipo=None, numero_autorizacion=None, valid=False, complete=False,
                      counts={"error": 0, "warning": 0, "info": 0}, report=None, pdf=None,
                      pdf_note=PdfNote.NOT_PROCESSED, error=error)


def write_output(path: str | os.PathLike, data: bytes, roots: tuple[Path, ...], owned, *, durable: bool = True,
                 ) -> str:
    """Write an output file atomically inside ``roots``, replacing only a file ``owned`` recognises as
    fel-rules'; its sha256, which the journal keeps. ``durable``: flushed to disk before it replaces the old one."""
    write_atomic(path, data, durable=durable, roots=roots, owned=owned)
    return hashlib.sha256(data).hexdigest()


class InputChanged(Exception):
    """The input of a task is no longer the content its recorded verdict judged: no PDF is made of it."""


def render_pdf(task: FileTask, facts: Documento | None = None, report=None) -> WrittenPdf:
    """Render the PDF of ``task`` and write it atomically. From the given facts and report, else
    from the view its first pass kept (:mod:`.pending`), else by validating the input again (no view kept:
    an earlier run's entry, a failed write). A PDF shows only the content its journal entry judged valid: the kept
    view must be of those bytes, and so must the input be now; an input whose bytes are no longer those (changed
    since it was validated) or that is not valid when validated again raises :class:`InputChanged`, and its view is
    let go (a task without a journal has no verdict yet: the new validation must be valid)."""
    if facts is not None and report is not None:
        return _write_pdf(task, _view(task, facts, report))
    judged = _judged_sha256(task)
    view = _kept_view(task, judged)
    if view is None:
        outcome = validator_for(task.config).inspect_path(task.source_path(), name=task.rel, roots=task.allowed)
        report, found = outcome.report, outcome.facts
        expected = judged if task.journal else report.document.sha256
        if report.document.sha256 != expected or not report.valid or not isinstance(found, Documento):
            if task.journal:
                drop_view(task.journal, task.rel, task.allowed)
            raise InputChanged(task.rel)
        view = _view(task, found, report)
    written = _write_pdf(task, view)
    if task.journal:
        drop_view(task.journal, task.rel, task.allowed)
    return written


def _judged_sha256(task: FileTask) -> str | None:
    """The sha256 of the content the journal entry of ``task`` records a verdict for (``None``: no entry)."""
    if not task.journal:
        return None
    try:
        return _recorded(task.journal, task.rel, task.allowed).sha256
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _recorded(journal: str | Path, rel: str, roots: tuple[Path, ...]) -> FileResult:
    """The result the journal entry of ``rel`` records (read as the batch reads back what it wrote)."""
    return FileResult.from_dict(json.loads(read_own(journal_file(journal, rel), roots=roots))["result"])


def _view(task: FileTask, facts: Documento, report: Report):
    """What the PDF of ``task`` shows."""
    from ..outputs.render import RenderSettings, build_view

    lang = RenderSettings(**task.render_settings).lang
    return build_view(facts, report, frases=validator_for(task.config).catalog.catalogues.frases, lang=lang)


def _kept_view(task: FileTask, judged: str | None):
    """The view kept by the first pass over ``task``, when it is of the bytes its verdict judged (``judged``) and
    the input still holds those bytes."""
    from ..outputs.render import InvoiceView

    if not task.journal or judged is None:
        return None
    try:
        digest = input_sha256(task.source_path(), validator_for(task.config).config.max_bytes, roots=task.allowed)
    except (OSError, InputTooLarge):
        return None
    if digest != judged:
        return None
    data = load_view(task.journal, task.rel, task.fingerprint, judged, task.allowed)
    try:
        return None if data is None else InvoiceView.model_validate(data)
    except ValueError:  # not a view (edited by hand): validate again
        return None


def _write_pdf(task: FileTask, view) -> WrittenPdf:
    """Lay out ``view`` with the task's render settings and write the PDF."""
    from ..outputs.render import RenderSettings
    from ..outputs.render.api import load_logo
    from ..outputs.render.pdf import render_view
    from ..outputs.render.settings import logo_for

    settings = RenderSettings(**task.render_settings)
    logo = load_logo(logo_for(settings, view.emisor.id_value), settings, roots=task.allowed)
    rendered = render_view(view, theme_name=settings.theme, logo=logo, qr_size_mm=settings.qr_size_mm,
                           header_mm=settings.header_mm, page=settings.page)
    pdf_rel = output_paths(task.rel)[1]
    digest = write_output(Path(task.out_dir) / pdf_rel, rendered.pdf, task.allowed, task.owned(pdf_rel, own_pdf),
                          durable=task.durable)
    return WrittenPdf(digest, rendered.missing)


def render_and_record(task: FileTask) -> tuple[str, str | None, str | None]:
    """:func:`render_task`, its outcome recorded in the task's journal entry by the worker (as in phase 1: the
    coordinator only keeps count)."""
    rel, written, error = render_task(task)
    digest = written.sha256 if written is not None else None
    if task.journal:
        record_pdf(task.journal, task.fingerprint, rel, digest, error, task.allowed,
                   missing=written.missing if written is not None else ())
    return rel, digest, error


def record_pdf(journal: str | Path, fingerprint: str, rel: str, digest: str | None, error: str | None,
               roots: tuple[Path, ...] = (), *, missing: Sequence[str] = ()) -> None:
    """Patch the journal entry of ``rel`` with its PDF (``digest``) and the characters its font could not draw
    (``missing``), or with why it could not be written."""
    result = _recorded(journal, rel, roots)
    result.pdf_sha256, result.missing_glyphs = digest, list(missing)
    if error is None:
        result.pdf, result.pdf_note = output_paths(rel)[1], None
    else:
        result.pdf, result.pdf_note, result.error = None, PdfNote.NOT_WRITTEN, error
    record(journal, fingerprint, result, roots)


def render_task(task: FileTask) -> tuple[str, WrittenPdf | None, str | None]:
    """The PDF of a file rendered again once cross-document rules are in: ``(rel, the PDF written, None)``
    once written, ``(rel, None, why not)`` otherwise."""
    from ..outputs.render.api import render_failure

    try:
        with time_limit(task.time_limit):
            written = render_pdf(task)
    except FileTimeLimit as exc:
        return task.rel, None, time_limit_error(exc.seconds, task.config.get("lang", "es"))
    except InputChanged:
        return task.rel, None, task.say(Text.of("batch.input_changed", path=task.rel))
    except OSError as exc:
        return task.rel, None, _write_error(Text("batch.the_pdf"), output_paths(task.rel)[1], exc, task)
    except Exception as exc:  # noqa: BLE001 - one bad file never stops the batch
        return task.rel, None, render_failure(exc).localized(task.config.get("lang", "es"))
    return task.rel, written, None

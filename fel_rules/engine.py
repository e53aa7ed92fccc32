"""The pipeline: safe parse → schema → facts → rules → :class:`~fel_rules.core.report.Report`.

A :class:`Validator` loads its rules when created (bad rule files fail at once) and compiles its
schema set on first use, both once per process. :meth:`Validator.validate_bytes` never raises for
document content: every problem, including a failing check, becomes an issue.
"""

from __future__ import annotations

import decimal
import hashlib
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import UTC, date, datetime
from itertools import islice
from pathlib import Path
from typing import NamedTuple, get_args

from lxml import etree

from .checks import CheckError, CheckInput, CheckKind, Unreadable, quiet_plan
from .core.catalogue import MESSAGES
from .core.config import Config
from .core.errors import InputError
from .core.foreign import evaluation
from .core.inputs import InputTooLarge, describe_read_error, read_input, readable_name
from .core.learnt import keep_learnt
from .core.money import MONEY_CONTEXT
from .core.namespaces import DTE, prefixed
from .core.record import build
from .core.report import (
    REPORT_VERSION,
    Issue,
    Refs,
    Report,
    RulesetRef,
    RunInfo,
    SchemaInfo,
    Severity,
    Stage,
    StageName,
    StageStatus,
)
from .core.resources import BUILTIN_RULES_DIR
from .core.text import Text
from .core.version import __version__
from .core.xmlpath import element_xpath
from .document.adenda import AdendaText, read_adenda
from .document.facts import Anulacion, Documento, extract_facts
from .document.ledger import LedgerFacts, ledger_facts
from .document.parse import parse_xml
from .document.schema import (
    SchemaSet,
    builtin_schema_set,
    check_schema,
    official_schema_set,
    strip_adendas,
)
from .document.schema_guard import searchable_bytes
from .document.summary import document_summary, document_totals
from .expressions.language import Evaluator
from .findings.model import Finding
from .findings.render import render_issue, rule_issue
from .findings.reuse import SaidIssues
from .findings.verdict import decide, tally
from .ruleset import LoadedRule, RuleCatalog, load_catalog
from .ruleset.files import stamps, watched_paths

__all__ = [
    "ALONE_BYTES", "GROUP_BYTES", "GROUP_SIZE", "MAX_FINDINGS_PER_RULE", "WARM_UP_SAMPLE", "Outcome", "Stopped",
    "Validator",
]

#: Issues one rule may add to a report; beyond that an information issue says how many were left out.
MAX_FINDINGS_PER_RULE = 200

_ITEM = f"{{{DTE}}}Item"

_EMISION = f"{{{DTE}}}SAT/{{{DTE}}}DTE/{{{DTE}}}DatosEmision"

#: The first element with more attributes than ``$limit``: the parent of an attribute at position ``$limit + 1``
#: (compiled once; libxml2 walks the attribute axis, never counting every element's attributes nor testing
#: elements without any).
_CROWDED = etree.XPath("(//@*[$limit + 1]/..)[1]")
#: How many documents :meth:`Validator.inspect_many` takes through the pipeline's stages together: the gain levels
#: off from some 16 (measured: 1.54 ms a signed invoice one by one, 1.38 by 4, 1.31 by 16 or 32).
GROUP_SIZE = 32
#: The most input (bytes) a group holds: its documents' trees are all in memory at once.
GROUP_BYTES = 512 * 1024
#: A document larger than this is validated alone: its own stages are long enough to keep their caches (measured,
#: 32 files of each, one by one → together: 26 KB 2.15 → 2.01 ms, 50 KB 3.69 → 3.68–3.74, 83 KB 5.21 → 5.32).
ALONE_BYTES = 32 * 1024


class Stopped(BaseException):
    """Raised by a :meth:`Validator.inspect_many` guard to stop one document of a group (a ``BaseException``: no
    ``except Exception`` on the way mistakes it for an engine failure); its outcome is ``None``."""
#: What a rule that finds nothing gives first.
_NOTHING = object()

#: The stages a report lists, and each of them with each outcome (immutable: one object serves every report).
_STAGE_NAMES: tuple[StageName, ...] = ("xml", "schema", "rules")
_STAGES = {(name, status): Stage(name=name, status=status) for name in _STAGE_NAMES
           for status in get_args(StageStatus)}

#: The schema section of a report that never reached the schema stage (immutable: shared).
_NO_SCHEMA = SchemaInfo()

#: The last whole second a report started in, and how reports write it (made once a second, not once a report).
_SECOND: tuple[int, str] = (0, "")


def _started_at() -> str:
    """Now, in UTC, to the second, as ISO 8601 (``2026-11-27T12:30:05+00:00``)."""
    global _SECOND  # noqa: PLW0603 - a (second, text) pair replaced whole: any thread reads a consistent one
    now = time.time()
    second, text = _SECOND
    if int(now) != second:
        second = int(now)
        text = datetime.fromtimestamp(second, UTC).isoformat(timespec="seconds")
        _SECOND = (second, text)
    return text


#: Rule plans (rules in force per document kind, DTE type and day) kept per validator.
_MAX_PLANS = 512

#: SAT's cardinalities (GT_Documento 0.2.x); rules run on a schema-invalid document only within them.
_SAT_LIMITS = {"Item": 9999, "TotalImpuesto": 20, "taxes_per_item": 2, "Frase": 100, "Complemento": 100}
#: How FEL-ENG-03 names what it counts when it is not an element name.
_LIMIT_NAMES = {"taxes_per_item": Text("sat_limit.taxes_per_item")}


#: A signed, certified invoice shipped with the rules (a base of their test cases): what :meth:`Validator.warm_up`
#: validates.
WARM_UP_SAMPLE = BUILTIN_RULES_DIR / "tests" / "bases" / "firmas-factura-compacta.xml"


class Outcome(NamedTuple):
    """A report, the facts it was computed from (``None`` when the XML could not be read) and what a ledger reads
    of the document beyond them (see :func:`~fel_rules.document.ledger.ledger_facts`)."""

    report: Report
    facts: Documento | Anulacion | None
    ledger: LedgerFacts = LedgerFacts()


class Validator:
    """Validates FEL documents with one configuration, rule catalogue and schema set. The functions its rules compile
    on their first documents, and the certificates its signatures embed, are kept in the private cache once a
    validation ends (:func:`~fel_rules.core.learnt.keep_learnt`): the next process reads them back instead."""

    def __init__(self, config: Config | None = None, *, catalog: RuleCatalog | None = None) -> None:
        self.config = config or Config()
        #: The files (and their folders) of its rules, and what they were as it read them (see :meth:`current`).
        self._owns_catalog = catalog is None
        self._watched = watched_paths(self.config.rules_dir, self.config.profile) if catalog is None else ()
        self._stamps = stamps(self._watched)
        self.catalog = catalog or load_catalog(self.config.rules_dir, self.config.profile)
        self.messages = MESSAGES.with_rules(rule.spec for rule in self.catalog.rules)
        self._schema_set: SchemaSet | None = None
        self._plans: dict[tuple[str, str | None, date], tuple] = {}
        self._prepares: dict[int, tuple[tuple, tuple]] = {}  # a plan's id → (the plan, its checks' prepare methods)
        self._evaluator = Evaluator(
            tolerance=self.config.tolerance, rounding=self.config.rounding_mode,
            catalogues=self.catalog.catalogues,
        )
        self._rulesets = [RulesetRef(id=r.id, version=r.version) for r in self.catalog.document_rulesets]
        self._said = SaidIssues()  # issues of plain findings, made once for every document that yields them

    def warm_up(self, *, until: Callable[[], bool] = lambda: False, plan_function: bool = True,
                certificates: bool = False) -> bool:
        """Validate a signed, certified invoice shipped with the rules (:data:`WARM_UP_SAMPLE`) twice, throwing its
        reports away: what a validator makes on its first documents (the schema set compiled, the signature
        verifier and the cryptography library loaded, the rules' functions made, some 60 ms of CPU) and, with
        ``plan_function``, the function of the rules' plan for an invoice (some 25–40 ms more, which a validator
        otherwise makes only once a plan has validated enough documents to pay for it) is then ready for the next
        documents. For a process that validates later and has time now (a server between ``initialize`` and its
        first call, a batch before it forks its workers). With ``certificates``, last, the X.509 parser a certificate
        no earlier run has read needs (some 30–50 ms more: the sample's certificates are usually rebuilt from the
        cache, see :mod:`fel_rules.xmldsig.certificates`). ``until()`` is asked before each step: true stops the
        warm-up there (real work has come). False when it stopped before the validations were done, or the sample
        could not be validated (the documents meet the same problem and report it)."""
        try:
            data = WARM_UP_SAMPLE.read_bytes()
            for _ in range(2):
                if until():
                    return False
                if not self._inspect(data, WARM_UP_SAMPLE.name, lines=False,
                                     plan_function=plan_function).report.complete:
                    return False
            if certificates and not until():  # (the validation is ready either way)
                from .xmldsig.certificates import load_parser

                load_parser()
        except Exception:  # noqa: BLE001 - a warm-up never fails its caller
            return False
        return True

    def current(self) -> Validator:
        """This validator while the rule, data and profile files it read are as it read them; else a new validator
        with the same configuration and the files as they are now (for a process that keeps validators between
        requests: an edited rule, profile or holiday file is never judged by its old version). The check is a
        ``stat`` of each file and of the folders they are listed from (some 25 of them, under 0.1 ms); a file written
        again with the same content keeps this validator. A validator made with a catalogue (``catalog=``) is always
        current."""
        if not self._owns_catalog or self._stamps is not None and stamps(self._watched) == self._stamps:
            return self
        watched = watched_paths(self.config.rules_dir, self.config.profile)  # (as listed now, before reading)
        now = stamps(watched)
        catalog = load_catalog(self.config.rules_dir, self.config.profile)  # (the same object for the same bytes)
        current = self if catalog is self.catalog else Validator(self.config, catalog=catalog)
        current._watched, current._stamps, current._owns_catalog = watched, now, True
        return current

    @property
    def schema_set(self) -> SchemaSet:
        """The compiled schema set (compiled on first access, cached for the process)."""
        if self._schema_set is None:
            directory = self.config.schema_dir
            self._schema_set = official_schema_set(directory) if directory else builtin_schema_set()
        return self._schema_set

    def validate_path(self, path: str | Path, *, name: str | None = None, roots: Sequence[Path] = ()) -> Report:
        """Validate the file at ``path`` (see :meth:`inspect_path`); ``name`` names it in the report (default:
        the path). A path that does not exist, or a folder, is a misuse (:class:`InputError`)."""
        return self._inspect_path(_existing(path), str(path) if name is None else name, lines=None,
                                  roots=roots).report

    def validate_many(self, paths: Iterable[str | Path], *, roots: Sequence[Path] = ()) -> list[Report]:
        """:meth:`validate_path` of each path, in order: the same reports (each named by its path), the documents
        taken through the pipeline's stages in groups (see :meth:`inspect_many`). A path that does not exist, or a
        folder, is a misuse (:class:`InputError`, before any document is validated)."""
        files = [(_existing(path), str(path)) for path in paths]
        return [outcome.report for outcome in self._many(files, lines=None, roots=roots) if outcome is not None]

    def inspect_path(self, path: str | Path, *, name: str | None = None, roots: Sequence[Path] = (),
                     lines: bool = True) -> Outcome:
        """Like :meth:`inspect_bytes` on the file at ``path``, read safely: only a regular file is read, never
        more than the size limit; anything else (a FIFO, a device, an unreadable or too large file) gives a
        report without a verdict. ``roots`` (resolved folders): the file read must be inside one of them, judged
        on the opened file (a path swapped for a symlink after an earlier check is refused all the same).
        ``lines=False``: the facts leave out what only a PDF prints (see :meth:`inspect_bytes`)."""
        return self._inspect_path(Path(path), str(path) if name is None else name, lines=lines, roots=roots)

    def _inspect_path(self, path: Path, name: str, *, lines: bool | None, roots: Sequence[Path] = ()) -> Outcome:
        return self._group([self._read(path, name, lines, roots=roots)], None)[0]  # type: ignore[return-value]

    def read_error(self, path: str | Path, exc: OSError) -> Report:
        """The report of a file that could not be read (stage ``xml`` in error: no verdict)."""
        issue = self._say(Finding(id="FEL-XML-07", values={"path": readable_name(path),
                                                           "detail": describe_read_error(exc)}))
        return self._finish(str(path), None, [issue], ["error"], None, time.perf_counter()).report

    def validate_bytes(self, data: bytes, *, path: str | None = None) -> Report:
        """Validate one document given as bytes; ``path`` only names it in the report."""
        return self._inspect(data, path, lines=None).report

    def inspect_bytes(self, data: bytes, *, path: str | None = None, lines: bool = True) -> Outcome:
        """Like :meth:`validate_bytes`, also returning the document's facts (for rendering) and its ledger facts.
        ``lines=False``: the facts leave out the lines and the complements' rows, which only a PDF prints (the
        report and the ledger facts are the same either way)."""
        return self._inspect(data, path, lines=lines)

    def inspect_many(self, items: Iterable[tuple[Path, str]], *,
                     guard: Callable[[float], AbstractContextManager[object]] | None = None,
                     roots: Sequence[Path] = (), lines: bool = True) -> list[Outcome | None]:
        """:meth:`inspect_path` of each ``(path, name)``, in order, with the same outcomes. The documents go through
        each stage of the pipeline together, in groups (:data:`GROUP_SIZE` documents or :data:`GROUP_BYTES` of
        input at most; a file over :data:`ALONE_BYTES` alone): all parsed, then all checked against the schema…,
        their checks' work done ahead for all of them before the rules run. Each stage's code and data stay in the
        processor's caches: some 15–30 % less time a document than one by one.

        ``guard(spent)``: a context manager around each stage of each document, given the seconds that document's
        stages took so far (a time limit of its own, say); one that raises :class:`Stopped` stops that document, whose
        outcome is then ``None``, and the others go on. ``roots`` and ``lines``: as for :meth:`inspect_path`, each
        file judged when it is read."""
        return list(self._many(items, lines=lines, guard=guard, roots=roots))

    def _many(self, items: Iterable[tuple[Path, str]], *, lines: bool | None,
              guard: Callable[[float], AbstractContextManager[object]] | None = None,
              roots: Sequence[Path] = ()) -> Iterator[Outcome | None]:
        group: list[_Work] = []
        size = 0
        for path, name in items:
            work = self._read(path, name, lines, guard, roots)
            alone = len(work.data) > ALONE_BYTES
            if group and (alone or len(group) == GROUP_SIZE or size + len(work.data) > GROUP_BYTES):
                yield from self._group(group, guard)
                group, size = [], 0
            group.append(work)
            size += len(work.data)
            if alone:
                yield from self._group(group, guard)
                group, size = [], 0
        if group:
            yield from self._group(group, guard)

    def _read(self, path: Path, name: str, lines: bool | None,
              guard: Callable[[float], AbstractContextManager[object]] | None = None,
              roots: Sequence[Path] = ()) -> _Work:
        """The document at ``path``, read safely (see :meth:`inspect_path`; within ``guard``, its reading counts in
        its clock): its work, or its outcome already (``None`` when the guard stopped it)."""
        started = time.perf_counter()
        try:
            if guard is None:
                data = read_input(path, self.config.max_bytes, roots=roots)
            else:
                with guard(0.0):
                    data = read_input(path, self.config.max_bytes, roots=roots)
        except InputTooLarge as exc:
            return _Work.finished(self._refused(name, exc.size))
        except OSError as exc:
            return _Work.finished(Outcome(self.read_error(name, exc), None))
        except Stopped:
            return _Work.finished(None)
        work = _Work(data, name, lines)
        work.spent = time.perf_counter() - started
        return work

    def _group(self, works: list[_Work], guard: Callable[[float], AbstractContextManager[object]] | None,
               ) -> list[Outcome | None]:
        self._run_stages(works, _GROUP_PIPELINE if len(works) > 1 else _PIPELINE, guard)
        keep_learnt()
        return [work.outcome for work in works]

    def _inspect(self, data: bytes, path: str | None, *, lines: bool | None, plan_function: bool = False) -> Outcome:
        """The pipeline on ``data``; ``plan_function``: the function of the document's rule plan is made now if it
        is not yet (a warm-up's documents), rather than once the plan has validated enough documents to pay."""
        work = _Work(data, path, lines, plan_function)
        work.started = time.perf_counter()  # alone: the document's clock runs straight through its stages
        outcome = self._through(work)
        keep_learnt()
        return outcome

    def _through(self, work: _Work) -> Outcome:
        """:meth:`_inspect`'s document taken through the pipeline to its outcome."""
        try:
            for stage in _PIPELINE:
                stage(self, work)
                if work.outcome is not None:
                    return work.outcome
        except Exception as exc:  # noqa: BLE001 - last line of defence: an engine bug is an issue, not a traceback
            return self._failed(work, exc)
        raise AssertionError("the report stage gives every document its outcome")  # pragma: no cover

    def _failed(self, work: _Work, exc: Exception) -> Outcome:
        """The outcome of a document a stage failed on: an engine failure (FEL-ENG-02) and no verdict."""
        return self._finish(work.path, work.sha256, [self._say(_engine_failure("engine", exc))], ["error"], None,
                            work.started)

    def _run_stages(self, works: Sequence[_Work], pipeline: tuple[Callable[[Validator, _Work], None], ...],
                    guard: Callable[[float], AbstractContextManager[object]] | None = None) -> None:
        """Take every document of ``works`` through the pipeline, stage by stage, until each has its outcome (or is
        stopped by ``guard``, see :meth:`inspect_many`). Each document's clock counts only its own stages; an
        exception in a stage is an engine failure of that document alone (an issue, never a traceback). What a
        document no longer needs is let go as soon as it has its outcome."""
        live = [work for work in works if not work.done]
        for stage in pipeline:
            going = []
            for work in live:
                work.started = time.perf_counter() - work.spent  # the document's clock, as if it ran alone
                try:
                    if guard is None:
                        stage(self, work)
                    else:
                        with guard(work.spent):
                            stage(self, work)
                except Stopped:
                    work.done = True
                    work.release()
                    continue
                except Exception as exc:  # noqa: BLE001 - last line of defence: an engine bug is an issue
                    work.outcome = self._failed(work, exc)
                work.spent = time.perf_counter() - work.started
                if work.outcome is None:
                    going.append(work)
                else:
                    work.done = True
                    work.release()
            live = going

    def _parse_stage(self, work: _Work) -> None:
        """Safe parse and bounded work: a document that is not XML, or is beyond the limits, is finished here."""
        data = work.data
        work.sha256 = hashlib.sha256(data).hexdigest()
        parsed = parse_xml(data, max_bytes=self.config.max_bytes)
        work.issues = [self._say(finding) for finding in parsed.findings]
        work.statuses = [parsed.status]
        if parsed.root is None:
            work.outcome = self._finish(work.path, work.sha256, work.issues, work.statuses, None, work.started)
            return
        root = parsed.root
        searchable = searchable_bytes(root, data)  # (None: names cannot be looked for in these bytes)
        refused = self._beyond_limits(root, searchable)
        if refused is not None:  # bounded work: refused before the schema and the rules
            work.outcome = self._finish(work.path, work.sha256, [self._say(refused)], ["error"], None, work.started)
            return
        if work.lines or searchable is None or b"Adenda" in searchable:  # (an element's name is in the bytes)
            work.adenda = read_adenda(root) if work.lines else None  # printed on the PDF only
            strip_adendas(root)  # free-form certifier data: neither the schema nor the rules look inside
        work.root = root

    def _schema_stage(self, work: _Work) -> None:
        schema = check_schema(self.schema_set, work.root, source=work.data, max_errors=self.config.max_schema_errors,
                              engine=self.config.schema_engine)
        work.issues += [self._say(finding) for finding in schema.findings]
        work.statuses.append(schema.status)
        work.schema_passed = schema.status == "passed"

    def _facts_stage(self, work: _Work) -> None:
        """The document's facts (those of the lines only when the caller wants them: checks read them lazily);
        a schema-invalid document beyond SAT's cardinalities is finished here, its rules skipped."""
        root, memo = work.root, work.memo
        try:
            facts = extract_facts(root, lines=work.lines, complements=work.inspected, details=work.inspected,
                                  memo=memo)
            adenda = work.adenda
            if adenda is not None and adenda.entries and isinstance(facts, Documento):
                facts = replace(facts, adenda=adenda.entries, adenda_omitted=adenda.omitted)
        except Exception as exc:  # noqa: BLE001 - never a traceback, never a silent pass
            work.issues.append(self._say(_engine_failure("facts", exc)))
            work.outcome = self._finish(work.path, work.sha256, work.issues, [*work.statuses, "error"], None,
                                        work.started)
            return
        work.facts = facts
        excess = _beyond_sat_limits(root) if not work.schema_passed else None
        if excess:
            work.issues.append(self._say(Finding(id="FEL-ENG-03", values={"detail": excess})))
            work.outcome = self._finish(work.path, work.sha256, work.issues, [*work.statuses, "skipped"], facts,
                                        work.started, root, work.memo, ledger=work.inspected)

    def _prepare_stage(self, work: _Work) -> None:
        """In a group: what the document's checks can do ahead (its signatures verified…), see the ``prepare`` of
        :class:`~fel_rules.checks.CheckKind`."""
        facts = work.facts
        assert facts is not None  # (the facts stage finished every document it could not give facts)
        preparing = self._preparing(self._plan(facts.kind, _tipo(facts), self._as_of(facts)))
        if not preparing:
            return
        doc = self._check_input(work.root, facts, work.data, work.memo, brief=not work.inspected)
        with decimal.localcontext(MONEY_CONTEXT):
            for prepare in preparing:
                try:
                    prepare(doc)
                except Exception:  # noqa: BLE001, S112 - the check meets the same failure and reports it
                    continue

    def _preparing(self, plan: tuple) -> tuple[Callable[[CheckInput], None], ...]:
        """The ``prepare`` methods of the checks of ``plan`` (kept per plan)."""
        kept = self._prepares.get(id(plan))
        if kept is None or kept[0] is not plan:
            if len(self._prepares) >= _MAX_PLANS:
                self._prepares.clear()
            kept = self._prepares[id(plan)] = (plan, tuple(
                prepare for _, _, check in plan if (prepare := getattr(check, "prepare", None)) is not None))
        return kept[1]

    def _rules_stage(self, work: _Work) -> None:
        facts = work.facts
        assert facts is not None  # (the facts stage finished every document it could not give facts)
        rule_issues, rules_status = self._run_rules(work.root, facts, work.data, work.memo,
                                                    plan_function=work.plan_function, brief=not work.inspected)
        work.issues += rule_issues
        work.statuses.append(rules_status)

    def _report_stage(self, work: _Work) -> None:
        work.outcome = self._finish(work.path, work.sha256, work.issues, work.statuses, work.facts, work.started,
                                    work.root, work.memo, ledger=work.inspected)

    def _say(self, finding: Finding, **overrides) -> Issue:
        """``finding`` as an issue in the configured language (see :func:`render_issue`)."""
        if overrides:
            return render_issue(finding, self.config.lang, self.messages, **overrides)
        return self._said.issue(finding, (), lambda: render_issue(finding, self.config.lang, self.messages))

    def _beyond_limits(self, root, source: bytes | None = None) -> Finding | None:
        """The finding refusing a document with more items, or an element with more attributes, than allowed.

        ``source``: the bytes ``root`` was parsed from, when they can be searched (see
        :func:`~fel_rules.document.schema_guard.searchable_bytes`); each attribute is written with an ``=``, so when
        the bytes hold no more of them than the limit allows, no element can be crowded and the tree is not searched.
        """
        config = self.config
        items = sum(1 for _ in root.iter(_ITEM))
        if items > config.max_items:
            return Finding(id="FEL-XML-08", values={"count": items, "limit": config.max_items})
        if source is not None and source.count(b"=") <= config.max_attributes:
            return None
        crowded = _CROWDED(root, limit=config.max_attributes)
        if crowded:
            element = crowded[0]
            return Finding(id="FEL-XML-09", xpath=element_xpath(element), line=element.sourceline,
                           values={"element": prefixed(element.tag), "line": element.sourceline,
                                   "count": len(element.attrib), "limit": config.max_attributes})
        return None

    def _check_input(self, root, facts: Documento | Anulacion, source: bytes | None, memo: dict | None, *,
                     brief: bool) -> CheckInput:
        """The document as its checks see it; ``brief``: ``facts`` leave out the details (``details=False`` of
        :func:`extract_facts`), and the header is read only if a check asks for it."""
        if brief:
            return CheckInput(root=root, brief=facts, config=self.config, evaluator=self._evaluator, source=source,
                              memo=memo)
        return CheckInput(root=root, header=facts, config=self.config, evaluator=self._evaluator, source=source,
                          memo=memo)

    def _run_rules(self, root, facts: Documento | Anulacion, source: bytes | None = None,
                   memo: dict | None = None, *, plan_function: bool = False, brief: bool = False,
                   ) -> tuple[list[Issue], str]:
        """The rules of ``facts``' plan on the document (its issues and the stage's status); ``brief``: see
        :meth:`_check_input`."""
        doc = self._check_input(root, facts, source, memo, brief=brief)
        issues: list[Issue] = []
        unreadable: dict[tuple, tuple[Unreadable, list[str]]] = {}
        status = "passed"
        currency = _currency(facts)
        plan = self._plan(facts.kind, _tipo(facts), self._as_of(facts))
        quiet = quiet_plan(plan, self._evaluator, now=plan_function)  # its expression checks in one function
        with decimal.localcontext(MONEY_CONTEXT):
            for rule, severity, check in plan if quiet is None else quiet.to_run(doc):
                try:  # most rules find nothing: their first finding is asked for before a list is made
                    found = iter(check.check(doc))
                    first = next(found, _NOTHING)
                    if first is _NOTHING:
                        continue
                    findings: list = [first, *islice(found, MAX_FINDINGS_PER_RULE)]
                except CheckError as exc:
                    issues.append(self._crash(rule, exc))
                    status = "error"
                    continue
                except Exception as exc:  # noqa: BLE001 - a crashing check is an issue, not a traceback
                    issues.append(self._crash(rule, exc, unexpected=True))
                    status = "error"
                    continue
                findings = _set_aside_unreadable(findings, rule.id, unreadable)
                if not findings:
                    continue
                issues.extend(self._rule_issue(rule.id, finding, severity, currency)
                              for finding in findings[:MAX_FINDINGS_PER_RULE])
                if len(findings) > MAX_FINDINGS_PER_RULE:
                    more = Text.of("count.more_than", count=MAX_FINDINGS_PER_RULE)
                    issues.append(self._say(Finding(id="FEL-ENG-04", values={
                        "rule": rule.id, "count": more, "shown": MAX_FINDINGS_PER_RULE})))
        issues.extend(self._unreadable(finding, rules) for finding, rules in unreadable.values())
        if status == "passed" and any(i.severity == Severity.ERROR for i in issues):
            status = "failed"
        return issues, status

    def _rule_issue(self, rule_id: str, finding: Finding, severity: Severity, currency: str | None) -> Issue:
        """The issue of rule ``rule_id`` for ``finding`` (see :func:`rule_issue`)."""
        return self._said.issue(finding, (rule_id, severity, currency), lambda: rule_issue(
            rule_id, finding, self.config.lang, self.messages, severity=severity, currency=currency))

    def _plan(self, document: str, tipo: str | None, day: date) -> tuple[tuple[LoadedRule, Severity, CheckKind], ...]:
        """The enabled rules for this kind of document, DTE type and day, with their resolved severity."""
        key = (document, tipo, day)
        plan = self._plans.get(key)
        if plan is None:
            chosen = []
            for rule in self.catalog.document_rules:
                if rule.in_force(day) and rule.applies(document, tipo):
                    enabled, severity, check = rule.resolved(day)
                    if enabled:
                        chosen.append((rule, severity, check))
            plan = tuple(chosen)
            if len(self._plans) >= _MAX_PLANS:  # bounded: emission dates of a large batch vary
                self._plans.clear()
            self._plans[key] = plan
        return plan

    def _as_of(self, facts: Documento | Anulacion) -> date:
        if self.config.as_of is not None:
            return self.config.as_of
        if isinstance(facts, Documento):
            field = facts.datos_generales.fecha_hora_emision if facts.datos_generales else None
        else:
            field = facts.fecha_hora_anulacion
        text = field.value if field is not None else ""
        try:
            return date.fromisoformat(text[:10])
        except ValueError:
            return date.today()

    def _unreadable(self, finding: Unreadable, rules: list[str]) -> Issue:
        """One FEL-DAT-01 error per unreadable value, naming every rule it kept from being evaluated."""
        kind = f"value_kind.{finding.kind}"
        return self._say(Finding(
            id="FEL-DAT-01", xpath=finding.xpath, line=finding.line, item=finding.item, field=finding.field,
            values={"field": finding.field or finding.xpath, "value": repr(finding.raw)[1:-1],
                    "kind": Text(kind) if kind in self.messages.texts else finding.kind,
                    "rules": ", ".join(sorted(set(rules)))},
        ))

    def _crash(self, rule: LoadedRule, exc: Exception, *, unexpected: bool = False) -> Issue:
        if isinstance(exc, CheckError) and not unexpected:
            reason, said = exc.reason, exc.detail
        else:
            reason, said = evaluation(exc), f"{type(exc).__name__}: {exc}"
        return self._say(Finding(id="FEL-ENG-01", values={"rule": rule.id, "detail": reason}, detail=said),
                         refs=Refs(sat_code=rule.spec.refs.sat_code_text))

    def _refused(self, path: str, size: int) -> Outcome:
        issue = self._say(Finding(id="FEL-XML-02", values={"size": size, "limit": self.config.max_bytes}))
        return self._finish(path, None, [issue], ["error"], None, time.perf_counter())

    def _finish(self, path, sha256, issues, statuses, facts, started, root=None, memo=None, *,
                ledger: bool = False) -> Outcome:
        as_of = self._as_of(facts) if facts is not None else self.config.as_of
        stages = [_STAGES[name, statuses[i] if i < len(statuses) else "skipped"] for i, name in enumerate(_STAGE_NAMES)]
        issues = sorted(issues, key=Issue.sort_key)
        counts = tally(issues)
        valid, complete = decide(stages, counts)
        with decimal.localcontext(MONEY_CONTEXT):
            totals = document_totals(root, memo)
        report = build(Report, {  # every field, in order (tests/test_report_records.py checks it)
            "report_version": REPORT_VERSION,
            "valid": valid,
            "complete": complete,
            "document": document_summary(facts, path=None if path is None else readable_name(path), sha256=sha256),
            "schema": self.schema_set.info if len(statuses) > 1 else _NO_SCHEMA,
            "rulesets": self._rulesets if len(statuses) > 2 else [],
            "stages": stages,
            "counts": counts,
            "totals": totals,
            "issues": issues,
            "run": build(RunInfo, {
                "engine_version": __version__,
                "started_at": _started_at(),
                "duration_ms": round((time.perf_counter() - started) * 1000, 3),
                "lang": self.config.lang,
                "profile": self.catalog.profile,
                "as_of": as_of.isoformat() if as_of else None,
            }),
        })
        return Outcome(report, facts, ledger_facts(facts, root, memo)) if ledger else Outcome(report, facts)


class _Work:
    """One document on its way through the pipeline: what each stage leaves for the next, and its outcome once
    it has one (an early one when a stage finishes it)."""

    __slots__ = ("adenda", "data", "done", "facts", "inspected", "issues", "lines", "memo", "outcome", "path",
                 "plan_function", "root", "schema_passed", "sha256", "spent", "started", "statuses")

    def __init__(self, data: bytes, path: str | None, lines: bool | None, plan_function: bool = False) -> None:
        """``lines``: the facts of the lines too (``True``), those of the header and the complements' own fields
        (``False``), or only what the report needs (``None``: a validation, whose outcome's facts and ledger facts
        nobody reads)."""
        self.data, self.path, self.plan_function = data, path, plan_function
        self.lines, self.inspected = bool(lines), lines is not None
        self.outcome: Outcome | None = None
        self.done = False  # it has its outcome, or was stopped (outcome None)
        self.spent = 0.0  # seconds of this document's own stages so far
        self.started = 0.0
        self.sha256: str | None = None
        self.memo: dict = {}  # the document's memo: the facts, the rules and the totals share what it keeps
        self.issues: list[Issue] = []
        self.statuses: list[str] = []
        self.root: etree._Element | None = None
        self.adenda: AdendaText | None = None
        self.facts: Documento | Anulacion | None = None
        self.schema_passed = False

    def release(self) -> None:
        """Let go of what only the pipeline needed (the bytes, the tree, the memo); the outcome stays."""
        self.data, self.root, self.adenda, self.facts, self.memo, self.issues = b"", None, None, None, {}, []

    @classmethod
    def finished(cls, outcome: Outcome | None) -> _Work:
        """A document whose outcome is known before the pipeline (unreadable, too large; ``None``: stopped)."""
        work = cls(b"", None, False)
        work.outcome, work.done = outcome, True
        return work


#: The pipeline's stages in order; each either leaves its results in the work or finishes it with an outcome.
_PIPELINE = (Validator._parse_stage, Validator._schema_stage, Validator._facts_stage, Validator._rules_stage,
             Validator._report_stage)
#: A group's: its checks' work done ahead first, for every document (see ``prepare`` of CheckKind).
_GROUP_PIPELINE = (*_PIPELINE[:3], Validator._prepare_stage, *_PIPELINE[3:])


def _set_aside_unreadable(findings: list, rule_id: str, unreadable: dict[tuple, tuple[Unreadable, list[str]]]) -> list:
    """The rule's own findings; its :class:`Unreadable` ones go to ``unreadable``, one entry per value."""
    kept = []
    for finding in findings:
        if isinstance(finding, Unreadable):
            unreadable.setdefault((finding.xpath, finding.raw, finding.kind), (finding, []))[1].append(rule_id)
        else:
            kept.append(finding)
    return kept


def _existing(path: str | Path) -> Path:
    """``path``, which must name an existing file or a link (:class:`InputError` otherwise: a misuse)."""
    file = Path(path)
    if not os.path.lexists(file):
        raise InputError(f"No existe el archivo: {file}", message_en=f"No such file: {file}")
    if file.is_dir():
        raise InputError(f"No es un archivo: {file}", message_en=f"Not a file: {file}")
    return file


def _currency(facts: Documento | Anulacion) -> str | None:
    """The document's CodigoMoneda (the amounts of its issues are said in it)."""
    general = facts.datos_generales if isinstance(facts, Documento) else None
    return general.codigo_moneda.value if general is not None and general.codigo_moneda is not None else None


def _tipo(facts: Documento | Anulacion) -> str | None:
    if isinstance(facts, Documento) and facts.datos_generales and facts.datos_generales.tipo:
        return facts.datos_generales.tipo.value
    return None


def _engine_failure(stage: str, exc: Exception) -> Finding:
    return Finding(id="FEL-ENG-02", values={"stage": stage, "detail": evaluation(exc)},
                   detail=f"{type(exc).__name__}: {exc}")


def _beyond_sat_limits(root) -> list[Text] | None:
    """Which of SAT's cardinalities a (schema-invalid) document exceeds, if any.

    Rules are written for documents of SAT's shape; a document with, say, thousands of
    TotalImpuesto would make totals rules quadratic, so rules are skipped for it.
    """
    if root.tag != f"{{{DTE}}}GTDocumento":
        return None
    emision = root.find(_EMISION)
    if emision is None:
        return None
    items = emision.findall(f"{{{DTE}}}Items/{{{DTE}}}Item")
    counts = {
        "Item": len(items),
        "TotalImpuesto": len(emision.findall(f"{{{DTE}}}Totales/{{{DTE}}}TotalImpuestos/{{{DTE}}}TotalImpuesto")),
        "taxes_per_item": max((len(item.findall(f"{{{DTE}}}Impuestos/{{{DTE}}}Impuesto")) for item in items),
                              default=0),
        "Frase": len(emision.findall(f"{{{DTE}}}Frases/{{{DTE}}}Frase")),
        "Complemento": len(emision.findall(f"{{{DTE}}}Complementos/{{{DTE}}}Complemento")),
    }
    over = [Text.of("sat_limit.exceeded", name=_LIMIT_NAMES.get(name, name), count=counts[name], limit=limit)
            for name, limit in _SAT_LIMITS.items() if counts[name] > limit]
    return over or None

"""Documents validated together (``Validator.inspect_many``, the batch's groups) get exactly the outcomes they get
one by one: the same reports, the same facts, a failure confined to its own document."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fel_rules.engine as engine
from fel_rules import Config, Validator
from fel_rules.batch import executors, worker
from fel_rules.batch.time_limit import own_time_limits
from fel_rules.batch.worker import FileTask
from fel_rules.checks.signature import SignatureCheck
from fel_rules.core.errors import InputError
from fel_rules.engine import Outcome
from fel_rules.testing.builder import Invoice, Item

from .hostile_corpus import CASES

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _corpus(folder: Path) -> list[Path]:
    """Every example, invoices the builder writes (valid, wrong totals, 100 lines), not-XML, a missing file, a
    folder, and the hostile corpus: early exits at every stage between documents that go all the way."""
    folder.mkdir()
    paths = sorted(EXAMPLES.glob("*.xml"))
    built = {
        "valid.xml": Invoice().to_xml(),
        "wrong-total.xml": Invoice(gran_total="999.99").to_xml(),
        "adenda.xml": Invoice(adenda={"OrdenCompra": "OC-77", "Vendedor": "Ana"}).to_xml(),
        "lines.xml": Invoice(items=[Item.goods("Tornillo", cantidad="3", precio_unitario="1.25")] * 100).to_xml(),
        "tampered.xml": (EXAMPLES / "factura-certificada.xml").read_bytes().replace(b"Cemento", b"Cimiento", 1),
        "not-xml.xml": b"esto no es XML",
        "empty.xml": b"",
    }
    for name, data in built.items():
        (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode())
        paths.append(folder / name)
    paths += [folder / "missing.xml", folder]
    hostile = folder / "hostile"
    hostile.mkdir()
    for case in CASES:
        made = case.make(hostile)
        paths.append(made)
        paths.append(EXAMPLES / "factura-certificada.xml")  # a full pipeline after each early exit
    return paths


def _seen(outcome: Outcome) -> tuple[dict, object]:
    report = json.loads(outcome.report.to_json(include_run=False))
    return report, outcome.facts


def test_a_group_gets_the_outcomes_each_document_gets_alone(tmp_path):
    paths = _corpus(tmp_path / "in")
    validator = Validator(Config(max_bytes=200_000))
    alone = [_seen(validator.inspect_path(path, name=path.name)) for path in paths]
    together = [_seen(outcome) for outcome in validator.inspect_many((path, path.name) for path in paths)]
    assert len(together) == len(paths)
    for path, one, many in zip(paths, alone, together, strict=True):
        assert many == one, path.name


def test_a_stage_that_fails_fails_its_own_document_only(monkeypatch, tmp_path):
    paths = [EXAMPLES / "factura-fact.xml", EXAMPLES / "factura-certificada.xml", EXAMPLES / "anulacion.xml"]
    validator = Validator()
    expected = [_seen(validator.inspect_path(path, name=path.name)) for path in paths]
    schema_stage = Validator._schema_stage

    def failing_for_the_certified(self, work):
        if work.path == "factura-certificada.xml":
            raise RuntimeError("boom")
        schema_stage(self, work)

    pipeline = engine._GROUP_PIPELINE
    monkeypatch.setattr(engine, "_GROUP_PIPELINE", tuple(
        failing_for_the_certified if stage is schema_stage else stage for stage in pipeline))
    outcomes = validator.inspect_many((path, path.name) for path in paths)
    failed = outcomes[1].report
    assert [issue.rule_id for issue in failed.issues] == ["FEL-ENG-02"] and not failed.complete
    assert "boom" in failed.issues[0].detail
    assert [_seen(outcomes[0]), _seen(outcomes[2])] == [expected[0], expected[2]]


def test_a_group_verifies_every_signature_before_any_rule_runs(monkeypatch):
    order = []
    prepare, check = SignatureCheck.prepare, SignatureCheck.check

    def recorded_prepare(self, doc):
        order.append(("prepare", doc.header.datos_generales.fecha_hora_emision.value))
        prepare(self, doc)

    def recorded_check(self, doc):
        order.append(("check", doc.header.datos_generales.fecha_hora_emision.value))
        return check(self, doc)

    monkeypatch.setattr(SignatureCheck, "prepare", recorded_prepare)
    monkeypatch.setattr(SignatureCheck, "check", recorded_check)
    path = EXAMPLES / "factura-certificada.xml"
    validator = Validator()
    validator.inspect_many([(path, "a.xml"), (path, "b.xml")])
    kinds = [kind for kind, _ in order]
    assert kinds.count("prepare") >= 2 and kinds.index("check") > max(
        index for index, kind in enumerate(kinds) if kind == "prepare")
    order.clear()
    validator.inspect_path(path)  # alone: nothing is prepared
    assert {kind for kind, _ in order} == {"check"}


def test_a_failing_preparation_changes_nothing(monkeypatch, tmp_path):
    tampered = tmp_path / "tampered.xml"
    tampered.write_bytes((EXAMPLES / "factura-certificada.xml").read_bytes().replace(b"Cemento", b"Cimiento", 1))
    paths = [EXAMPLES / "factura-certificada.xml", tampered]
    validator = Validator()
    alone = [_seen(validator.inspect_path(path, name=path.name)) for path in paths]
    assert [issue["rule_id"] for issue in alone[1][0]["issues"]] == ["FEL-FIR-01", "FEL-FIR-02"]  # both signatures

    def failing(self, doc):
        raise RuntimeError("preparation failed")

    monkeypatch.setattr(SignatureCheck, "prepare", failing)
    assert [_seen(outcome) for outcome in validator.inspect_many((path, path.name) for path in paths)] == alone


def test_each_document_of_a_group_is_timed_on_its_own_stages(monkeypatch):
    """A document's duration is its own stages' time, not the group's: here the second document's stages are made
    to take 50 ms each, the first's none."""
    clock = [0.0]
    monkeypatch.setattr("fel_rules.engine.time.perf_counter", lambda: clock[0])
    stages = []
    for stage in engine._GROUP_PIPELINE[:-1]:
        def slow(self, work, stage=stage):
            if work.path == "slow.xml":
                clock[0] += 0.05
            stage(self, work)
        stages.append(slow)
    monkeypatch.setattr(engine, "_GROUP_PIPELINE", (*stages, Validator._report_stage))
    path = EXAMPLES / "factura-fact.xml"
    fast, slow = Validator().inspect_many([(path, "fast.xml"), (path, "slow.xml")])
    assert (fast.report.run.duration_ms, slow.report.run.duration_ms) == (0, 250)


# ---- the batch's groups ------------------------------------------------------------------------------------


def _tasks(tmp_path: Path, names: Sequence[str], *, time_limit: float | None = None) -> list[FileTask]:
    source, out = tmp_path / "in", tmp_path / "out"
    source.mkdir(parents=True, exist_ok=True)
    (out / "journal").mkdir(parents=True, exist_ok=True)
    config: dict = {}
    tasks = []
    for name in names:
        if name.endswith(".xml") and (EXAMPLES / name).is_file():
            (source / name).write_bytes((EXAMPLES / name).read_bytes())
        tasks.append(FileTask(str(source / name), name, str(out), False, config, {}, str(out / "journal"), "key",
                              (str(tmp_path),), time_limit))
    return tasks


def _outputs(tmp_path: Path) -> dict[str, bytes]:
    out = tmp_path / "out"
    return {str(path.relative_to(out)): path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()}


NAMES = ["factura-fact.xml", "missing.xml", "factura-certificada.xml", "anulacion.xml", "nota-credito-ncre.xml"]


def test_a_group_writes_what_its_tasks_write_one_by_one(tmp_path):
    alone = [worker.process_and_record(task) for task in _tasks(tmp_path / "one", NAMES)]
    together = worker.process_many(_tasks(tmp_path / "many", NAMES))
    assert together == alone
    assert _outputs(tmp_path / "many") == _outputs(tmp_path / "one")


def test_a_file_whose_write_up_fails_fails_alone_in_a_group_as_alone(monkeypatch, tmp_path):
    """A group writes its files up a step at a time (results, reports, journal entries): one whose result cannot be
    made, and one whose report cannot be written, get the entries they get alone, and the others their outputs."""
    result_of = worker._result_of

    def failing(task, outcome):
        if task.rel == "anulacion.xml":
            raise RuntimeError("no result")
        return result_of(task, outcome)

    monkeypatch.setattr(worker, "_result_of", failing)
    for name in ("one", "many"):
        (tmp_path / name / "out" / "factura-fact.report.json").mkdir(parents=True)  # a folder where its report goes
    alone = [worker.process_and_record(task) for task in _tasks(tmp_path / "one", NAMES)]
    together = worker.process_many(_tasks(tmp_path / "many", NAMES))
    assert together == alone
    assert [brief.failed for brief in together] == [True, True, False, True, False]
    assert _outputs(tmp_path / "many") == _outputs(tmp_path / "one")  # (journal entries included)
    assert len(list((tmp_path / "many" / "out" / "journal").glob("*.json"))) == len(NAMES)
    assert (tmp_path / "many" / "out" / "factura-certificada.report.json").is_file()


def _slow(monkeypatch, stage_name: str, name: str, seconds: float) -> list[str]:
    """Make ``stage_name`` take ``seconds`` (an interruptible sleep) for the document named ``name``; the documents
    that reach the report stage are listed."""
    stage, reported = getattr(Validator, stage_name), []

    def slowed(self, work):
        if work.path == name:
            reported.append(f"slowed {name}")
            time.sleep(seconds)
        return stage(self, work)

    report_stage = Validator._report_stage

    def report(self, work):
        reported.append(work.path)
        return report_stage(self, work)

    pipeline = tuple(slowed if step is stage else report if step is report_stage else step
                     for step in engine._GROUP_PIPELINE)
    monkeypatch.setattr(engine, "_GROUP_PIPELINE", pipeline)
    monkeypatch.setattr(engine, "_PIPELINE", tuple(step for step in pipeline if step is not Validator._prepare_stage))
    return reported


def test_a_document_over_its_time_limit_is_stopped_and_the_others_go_on(monkeypatch, tmp_path):
    reported = _slow(monkeypatch, "_rules_stage", "factura-certificada.xml", 30)
    handler = signal.getsignal(signal.SIGALRM)
    begin = time.monotonic()
    briefs = worker.process_many(_tasks(tmp_path, NAMES, time_limit=0.5))
    assert time.monotonic() - begin < 3  # stopped at its limit
    assert signal.getsignal(signal.SIGALRM) is handler and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    by_rel = {brief.rel: brief for brief in briefs}
    assert by_rel["factura-certificada.xml"].failed and not by_rel["factura-certificada.xml"].has_report
    assert sorted(reported) == sorted([*set(NAMES) - {"factura-certificada.xml", "missing.xml"},
                                       "slowed factura-certificada.xml"])  # each once: none done again
    entry = json.loads((tmp_path / "out" / "journal" / worker.entry_name("factura-certificada.xml")).read_text())
    assert "límite de tiempo por archivo (0.5 s)" in entry["result"]["error"]
    assert not any(brief.failed for brief in briefs if brief.rel not in {"factura-certificada.xml", "missing.xml"})


def test_a_stage_that_ends_in_time_leaves_no_alarm_for_the_next_document(monkeypatch, tmp_path):
    """Each stage of the first three takes 0.3 s of a 0.5 s limit: an alarm left armed after the first would stop the
    second 0.2 s into its own stage."""
    stage = Validator._schema_stage

    def slow(self, work):
        time.sleep(0.3)
        return stage(self, work)

    monkeypatch.setattr(engine, "_GROUP_PIPELINE", tuple(slow if step is stage else step
                                                          for step in engine._GROUP_PIPELINE))
    names = ["factura-fact.xml", "anulacion.xml", "nota-credito-ncre.xml"]
    briefs = worker.process_many(_tasks(tmp_path, names, time_limit=0.5))
    assert [(brief.rel, brief.failed) for brief in briefs] == [(name, False) for name in names]


def test_a_guard_stops_at_once_a_document_with_no_time_left_and_only_with_stopped():
    with own_time_limits(1.0) as guard, pytest.raises(engine.Stopped):
        with guard(1.0):
            pytest.fail("ran with no time left")
    escaped = []
    with own_time_limits(0.05) as guard:  # alarms landing anywhere around short stages (1-60 us left)
        for left in [n * 1e-6 for n in range(1, 61)] * 30:
            try:
                with guard(0.05 - left):
                    sum(range(200))
            except engine.Stopped:
                pass
            except BaseException as exc:  # noqa: BLE001 - what must never come out of a guard
                escaped.append(type(exc).__name__)
    assert escaped == []


def test_reading_a_file_counts_in_its_own_time_limit(monkeypatch, tmp_path):
    read_input = engine.read_input

    def slow_read(path, limit, **kwargs):
        if Path(path).name == "factura-fact.xml":
            time.sleep(30)  # a stalled network folder, say: the limit must interrupt it
        return read_input(path, limit, **kwargs)

    monkeypatch.setattr(engine, "read_input", slow_read)
    names = ["factura-fact.xml", "anulacion.xml"]
    alone = [worker.process_and_record(task) for task in _tasks(tmp_path / "one", names, time_limit=0.5)]
    begin = time.monotonic()
    together = worker.process_many(_tasks(tmp_path / "many", names, time_limit=0.5))
    assert time.monotonic() - begin < 10  # interrupted at its limit, not read to the end
    assert [brief.failed for brief in alone] == [True, False]
    assert together == alone
    assert _outputs(tmp_path / "many") == _outputs(tmp_path / "one")


def test_a_documents_validation_counts_in_its_own_time_limit(monkeypatch, tmp_path):
    """0.5 s of validation and 0.5 s of writing its report: over a 0.8 s limit, in a group as alone."""
    _slow(monkeypatch, "_schema_stage", "factura-fact.xml", 0.5)
    write_output = worker.write_output

    def slow_write(path, data, *args, **kwargs):
        if Path(path).name.startswith("factura-fact"):
            time.sleep(0.5)
        return write_output(path, data, *args, **kwargs)

    monkeypatch.setattr(worker, "write_output", slow_write)
    names = ["factura-fact.xml", "anulacion.xml"]
    alone = [worker.process_and_record(task) for task in _tasks(tmp_path / "one", names, time_limit=0.8)]
    together = worker.process_many(_tasks(tmp_path / "many", names, time_limit=0.8))
    assert [brief.failed for brief in alone] == [True, False]
    assert together == alone
    assert _outputs(tmp_path / "many") == _outputs(tmp_path / "one")


def test_a_group_that_cannot_be_validated_is_said_file_by_file(monkeypatch, tmp_path):
    def broken(self, items, **kwargs):
        raise RuntimeError("no rules")

    monkeypatch.setattr(Validator, "inspect_many", broken)
    alone = [worker.process_and_record(task) for task in _tasks(tmp_path / "one", NAMES)]
    together = worker.process_many(_tasks(tmp_path / "many", NAMES))
    assert together == alone
    assert _outputs(tmp_path / "many") == _outputs(tmp_path / "one")


def test_the_pool_hands_a_batch_task_its_group(monkeypatch, tmp_path):
    groups = []
    inspect_many = Validator.inspect_many

    def counted(self, items, **kwargs):
        items = list(items)
        groups.append(len(items))
        return inspect_many(self, items, **kwargs)

    monkeypatch.setattr(Validator, "inspect_many", counted)
    _, briefs = executors._each(worker.process_and_record, _tasks(tmp_path, NAMES))
    assert groups == [len(NAMES)] and [brief.rel for brief in briefs] == NAMES


def test_an_input_outside_the_roots_is_refused_in_a_group_as_alone(tmp_path):
    outside = tmp_path / "elsewhere.xml"
    outside.write_bytes((EXAMPLES / "factura-fact.xml").read_bytes())
    tasks = _tasks(tmp_path / "run", ["factura-fact.xml", "anulacion.xml"])
    first = tasks[0]
    tasks.insert(0, FileTask(str(outside), "elsewhere.xml", first.out_dir, False, first.config, {}, first.journal,
                             "key", (str(tmp_path / "run"),)))
    briefs = worker.process_many(tasks)
    assert [(brief.rel, brief.failed) for brief in briefs] == [
        ("elsewhere.xml", True), ("factura-fact.xml", False), ("anulacion.xml", False)]
    assert briefs == [worker.process_and_record(task) for task in tasks]


@pytest.mark.parametrize("count", [1, 3])
def test_a_pool_task_hands_its_group_to_a_function_that_takes_many(count):
    calls = []

    def one(item):
        calls.append(("one", item))
        return item * 2

    def many(items):
        calls.append(("many", tuple(items)))
        return [item * 2 for item in items]

    one.many = many  # type: ignore[attr-defined]
    _, results = executors._each(one, list(range(count)))
    assert results == [item * 2 for item in range(count)]
    assert calls == ([("one", 0)] if count == 1 else [("many", (0, 1, 2))])


def test_validate_many_gives_the_reports_of_validate_path(tmp_path):
    paths = [path for path in _corpus(tmp_path / "in") if path.exists() and not path.is_dir()]
    validator = Validator(Config(max_bytes=200_000))
    assert len(paths) > engine.GROUP_SIZE  # more than one group
    alone = [json.loads(validator.validate_path(path).to_json(include_run=False)) for path in paths]
    together = [json.loads(report.to_json(include_run=False)) for report in validator.validate_many(paths)]
    assert together == alone


@pytest.mark.parametrize("name", ["missing.xml", "."])
def test_validate_many_refuses_what_is_not_a_file_before_validating(tmp_path, name, monkeypatch):
    monkeypatch.setattr(Validator, "_group", lambda *args: pytest.fail("validated"))
    with pytest.raises(InputError):
        Validator().validate_many([EXAMPLES / "factura-fact.xml", tmp_path / name])


def test_a_group_holds_at_most_its_bytes_and_a_large_file_goes_alone(monkeypatch, tmp_path):
    small = EXAMPLES / "factura-certificada.xml"
    large = tmp_path / "large.xml"
    large.write_bytes(b"<a>" + b"x" * engine.ALONE_BYTES + b"</a>")
    groups = []
    group = Validator._group

    def recorded(self, works, guard):
        groups.append([work.path for work in works])
        return group(self, works, guard)

    monkeypatch.setattr(Validator, "_group", recorded)
    items = [(small, "a"), (small, "b"), (large, "large"), (small, "c")] + [(small, f"n{n}") for n in range(40)]
    validator = Validator()
    outcomes = validator.inspect_many(items)
    assert len(outcomes) == len(items)
    assert groups[:3] == [["a", "b"], ["large"], ["c", *[f"n{n}" for n in range(engine.GROUP_SIZE - 1)]]]
    assert sum(map(len, groups)) == len(items)
    groups.clear()  # files that fit alone but not together: a group closes at GROUP_BYTES
    half = tmp_path / "half.xml"
    half.write_bytes(b"<a>" + b"x" * (engine.GROUP_BYTES // 3) + b"</a>")
    monkeypatch.setattr(engine, "ALONE_BYTES", engine.GROUP_BYTES)
    validator.inspect_many([(half, "h1"), (half, "h2"), (half, "h3"), (small, "s")])
    assert groups == [["h1", "h2"], ["h3", "s"]]


def test_a_group_verifies_each_signature_once(monkeypatch):
    from fel_rules.xmldsig import verify

    calls = []
    verify_signature = verify.verify_signature

    def counted(signature, document, role):
        calls.append(role)
        return verify_signature(signature, document, role)

    monkeypatch.setattr(verify, "verify_signature", counted)
    path = EXAMPLES / "factura-certificada.xml"
    Validator().inspect_many([(path, "a.xml"), (path, "b.xml")])
    assert sorted(calls) == sorted(["#DatosEmision", "#DatosCertificados"] * 2)


def test_a_stage_that_fails_a_document_alone_gives_an_engine_failure(monkeypatch):
    def failing(self, work):
        raise RuntimeError("boom")

    monkeypatch.setattr(engine, "_PIPELINE", (Validator._parse_stage, failing, *engine._PIPELINE[2:]))
    report = Validator().validate_bytes((EXAMPLES / "factura-fact.xml").read_bytes(), path="f.xml")
    assert [(issue.rule_id, issue.detail) for issue in report.issues] == [("FEL-ENG-02", "RuntimeError: boom")]
    assert not report.complete and not report.valid and report.document.sha256


def test_tasks_that_do_not_share_a_time_limit_are_done_one_by_one(monkeypatch, tmp_path):
    monkeypatch.setattr(Validator, "inspect_many", lambda *args, **kwargs: pytest.fail("validated together"))
    tasks = _tasks(tmp_path / "many", NAMES, time_limit=60)
    tasks[1] = FileTask(**{**tasks[1].__dict__, "time_limit": 30})
    alone = [worker.process_and_record(task) for task in _tasks(tmp_path / "one", NAMES, time_limit=60)]
    assert worker.process_many(tasks) == alone


def test_an_input_swapped_for_a_link_out_of_the_roots_while_its_group_is_read_is_refused(monkeypatch, tmp_path):
    """The group's inputs are checked against the roots first and read later; one swapped for a link to a file
    outside them in between (someone writing to the input folder during the batch) is refused as the one-by-one
    path refuses it, never validated in its place."""
    secret = tmp_path / "secret.xml"
    secret.write_bytes((EXAMPLES / "factura-certificada.xml").read_bytes())
    tasks = _tasks(tmp_path / "many", ["factura-fact.xml", "victim.xml", "nota-credito-ncre.xml"])
    victim = Path(tasks[1].source)
    victim.write_bytes((EXAMPLES / "factura-fact.xml").read_bytes())
    read = engine.read_input

    def swapping(path, limit, **kwargs):
        if Path(path).name == "factura-fact.xml":
            victim.unlink()
            victim.symlink_to(secret)
        return read(path, limit, **kwargs)

    monkeypatch.setattr(engine, "read_input", swapping)
    briefs = worker.process_many(tasks)
    assert [brief.failed for brief in briefs] == [False, True, False]
    entry = json.loads((tmp_path / "many" / "out" / "journal" / worker.entry_name("victim.xml")).read_text())
    assert entry["result"]["sha256"] is None and entry["result"]["numero_autorizacion"] is None
    assert "queda fuera de las carpetas permitidas" in entry["result"]["error"]


def test_a_file_read_with_roots_must_be_inside_them_once_open(tmp_path):
    root = (tmp_path / "root").resolve()
    root.mkdir()
    (root / "link.xml").symlink_to(EXAMPLES / "factura-fact.xml")  # resolves outside the root
    validator = Validator()
    assert validator.validate_path(root / "link.xml").valid  # no roots: anywhere
    for report in (validator.validate_path(root / "link.xml", roots=[root]),
                   validator.inspect_path(root / "link.xml", roots=[root]).report,
                   *validator.validate_many([root / "link.xml"], roots=[root])):
        assert [issue.rule_id for issue in report.issues] == ["FEL-XML-07"] and report.document.sha256 is None
        assert "fuera de las carpetas permitidas" in report.issues[0].message


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(["a", "b.xml", ".", "..", "", ".xml", "x.", "c.XML", "d.tar.xml", ".hidden.xml",
                                 "e.x", "ñ.xml"]), min_size=0, max_size=5), st.booleans())
def test_an_inputs_outputs_are_named_as_pathlib_reads_its_suffix(parts, absolute):
    from fel_rules.batch.worker import _suffix

    path = ("/" if absolute else "") + "/".join(parts)
    assert _suffix(path) == Path(path).suffix, path


def test_output_names_keep_a_suffix_that_is_not_xml_and_a_stem_that_looks_like_xml():
    assert worker.output_paths("a.xml") == ("a.report.json", "a.pdf")
    assert worker.output_paths("sub/a.XML") == ("sub/a.XML.report.json", "sub/a.XML.pdf")
    assert worker.output_paths("a.XML.xml") == ("a.XML.xml.report.json", "a.XML.xml.pdf")
    assert worker.output_paths("b.xml/..xml") == ("b.xml/..xml.report.json", "b.xml/..xml.pdf")
    assert worker.output_paths("b/.xml") == ("b/.report.json", "b/.pdf")

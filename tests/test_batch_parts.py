"""What a batch hands its workers beside the per-file work: the manifest entries, page rows and ledger rows written up
in parts (the same bytes however the inputs are split and in whatever order the parts come back), the validator
warmed up before the workers are forked, and workers forked with the inherited objects frozen for the collector."""

from __future__ import annotations

import gc
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fel_rules import Config
from fel_rules.batch import BatchOptions, overview, run_batch, worker
from fel_rules.batch import runner as batch_runner
from fel_rules.batch.executors import LocalExecutor, frozen_heap
from fel_rules.batch.worker import warm_up_validator
from fel_rules.batch.written_report import read_report
from fel_rules.engine import WARM_UP_SAMPLE
from fel_rules.outputs.formats.html import HtmlPage, PageContext
from fel_rules.outputs.formats.ledger import Ledger
from fel_rules.outputs.formats.listing import Listed

from .conftest import EXAMPLES
from .overview_folder import ANNULLED_UUID, fill
from .test_warm_up import _function_made, _plan_of

OUTPUTS = ("reporte.html", "libro.csv")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return fill(tmp_path_factory.mktemp("partes") / "entrada")


@pytest.fixture(scope="module")
def whole(folder, tmp_path_factory) -> Path:
    """The folder's batch with every input in one part."""
    out = tmp_path_factory.mktemp("entera")
    run_batch(BatchOptions(input_dir=folder, out_dir=out, workers=2, render=False, progress=False))
    return out


class _Backwards:
    """An executor whose results come back in the reverse of the order their items were given."""

    def __init__(self, inner: LocalExecutor) -> None:
        self.inner, self.name, self.workers = inner, inner.name, inner.workers

    def run(self, function, items, crashed=None, stop=None):
        return reversed(list(self.inner.run(function, items, crashed, stop)))

    def close(self, *, abort: bool = False) -> None:
        self.inner.close(abort=abort)


def _stable_manifest(out: Path) -> dict:
    data = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    data.pop("run")
    return data


@pytest.mark.parametrize(("files", "tasks"), [(1, 8), (3, 1), (4, 2)])
def test_parts_give_the_same_bytes_however_split_and_in_whatever_order_they_come(folder, whole, tmp_path,
                                                                                monkeypatch, files, tasks):
    monkeypatch.setattr(overview, "PART_FILES", files)
    monkeypatch.setattr(overview, "_WINDOW_TASKS", tasks)
    monkeypatch.setattr(batch_runner, "open_executor", lambda kind, scheduler, workers: _Backwards(LocalExecutor(1)))
    out = tmp_path / "out"
    run_batch(BatchOptions(input_dir=folder, out_dir=out, workers=2, render=False, progress=False))
    for name in OUTPUTS:
        assert (out / name).read_bytes() == (whole / name).read_bytes(), name
    assert (out / "manifest.json").read_text(encoding="utf-8").count('"path"') == len(list(folder.iterdir()))
    assert _stable_manifest(out) == _stable_manifest(whole)


class _Losing(_Backwards):
    """An executor that loses the first result of the overview's parts."""

    def run(self, function, items, crashed=None, stop=None):
        results = list(self.inner.run(function, items, crashed, stop))
        return results[1:] if function is overview._numbered else results


def test_a_part_the_executor_never_gives_back_stops_the_batch_rather_than_leave_its_rows_out(folder, tmp_path,
                                                                                           monkeypatch):
    monkeypatch.setattr(overview, "PART_FILES", 3)
    monkeypatch.setattr(batch_runner, "open_executor", lambda kind, scheduler, workers: _Losing(LocalExecutor(1)))
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="overview part"):
        run_batch(BatchOptions(input_dir=folder, out_dir=out, workers=2, render=False, progress=False))
    assert not (out / "manifest.json").exists()


def _documents(out: Path) -> list[Listed]:
    """The folder's documents as the batch's page lists them."""
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return [Listed(path=entry["path"], report=read_report(out / entry["report"]) if entry["report"] else None,
                   error=entry["error"], report_link=entry["report"], pdf_note=entry["pdf_note"])
            for entry in manifest["entries"]]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.integers(min_value=0, max_value=10), max_size=6))
def test_page_and_ledger_rows_made_in_parts_equal_those_added_one_by_one(whole, cuts):
    documents = _documents(whole)
    context = PageContext(pdfs=0, annulled=frozenset({ANNULLED_UUID}))
    one, parts = HtmlPage(lang="es", context=context), HtmlPage(lang="es", context=context)
    ledger_one, ledger_parts = Ledger(lang="es", annulled={ANNULLED_UUID}), Ledger(lang="es", annulled={ANNULLED_UUID})
    for document in documents:
        one.add(document)
        ledger_one.add(document)
    bounds = [0, *sorted(cut for cut in cuts if cut <= len(documents)), len(documents)]
    for start, end in zip(bounds, bounds[1:], strict=False):
        maker = HtmlPage(lang="es", context=context)  # (as in another process: a page of its own)
        parts.add_rows(maker.rows_of(documents[start:end], start + 1))
        ledger_parts.add_rows(Ledger(lang="es", annulled={ANNULLED_UUID}).rows_of(documents[start:end]))
    assert _written(parts) == _written(one)
    assert _written(ledger_parts) == _written(ledger_one)


def _written(page: HtmlPage | Ledger) -> bytes:
    stream = io.BytesIO()
    page.write(stream)
    return stream.getvalue()


def test_the_validator_warm_up_validates_its_packaged_sample(monkeypatch):
    """With ``plan_function`` the sample's plan function is made (and inherited by the workers), without it not."""
    config = Config().to_dict(exclude_none=True)
    for plan_function in (False, True):
        monkeypatch.setattr(worker, "_VALIDATORS", {})
        monkeypatch.setattr(worker, "_LAST", None)
        assert warm_up_validator(config, plan_function=plan_function)
        validator = worker.validator_for(config)
        assert _function_made(validator, _plan_of(validator, WARM_UP_SAMPLE)) is plan_function


@pytest.mark.parametrize(("files", "made"), [(3, False), (4, True)])
def test_a_batch_makes_the_plan_function_before_forking_when_each_worker_would(monkeypatch, tmp_path, files, made):
    """Before it forks 2 workers, a batch makes the plan function only when each worker would validate enough
    documents to make it (PLAN_FUNCTION_AFTER, here 2): for 4 files, not for 3."""
    asked = []
    monkeypatch.setattr(worker, "PLAN_FUNCTION_AFTER", 2)
    monkeypatch.setattr(batch_runner, "warm_up_validator", lambda config, *, plan_function: asked.append(plan_function))
    inputs = tmp_path / "in"
    inputs.mkdir()
    for number in range(files):
        (inputs / f"f{number}.xml").write_bytes((EXAMPLES / "factura-fact.xml").read_bytes())
    run_batch(BatchOptions(inputs, tmp_path / "out", workers=2, render=False, progress=False))
    if not asked:
        pytest.skip("workers are not forked here (no warm-up before forking)")
    assert asked == [made]


def test_a_batch_warms_up_with_what_it_loaded_left_out_of_collections_and_puts_it_back(monkeypatch, tmp_path):
    """The warm-up before forking runs with the objects loaded so far frozen (its collections never walk the rules
    and schema); the batch leaves nothing frozen."""
    seen = []
    monkeypatch.setattr(batch_runner, "warm_up_validator",
                        lambda config, *, plan_function: seen.append(gc.get_freeze_count()))
    inputs = tmp_path / "in"
    inputs.mkdir()
    for number in range(4):
        (inputs / f"f{number}.xml").write_bytes((EXAMPLES / "factura-fact.xml").read_bytes())
    run_batch(BatchOptions(inputs, tmp_path / "out", workers=2, render=False, progress=False))
    if not seen:
        pytest.skip("workers are not forked here (no warm-up before forking)")
    assert seen[0] > 0
    assert gc.get_freeze_count() == 0


def test_a_frozen_heap_is_put_back_and_one_frozen_already_is_left_as_it_is():
    with frozen_heap():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError), frozen_heap():
        raise RuntimeError
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with frozen_heap():
            pass
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def _frozen(_item) -> int:
    return gc.get_freeze_count()


def test_forked_workers_keep_what_they_inherited_frozen_and_the_batch_does_not():
    executor = LocalExecutor(2)
    if not executor.forks:
        executor.close()
        pytest.skip("workers are not forked here")
    try:
        counts = list(executor.run(_frozen, range(4)))
    finally:
        executor.close()
    assert all(count > 0 for count in counts)
    assert gc.get_freeze_count() == 0


class _Counting(_Backwards):
    """Counts the overview tasks its workers are given."""

    def __init__(self, inner: LocalExecutor) -> None:
        super().__init__(inner)
        self.parts = 0

    def run(self, function, items, crashed=None, stop=None):
        items = list(items)
        if function is overview._numbered:
            self.parts += len(items)
        return super().run(function, items, crashed, stop)


@pytest.mark.parametrize(("files", "asked"), [(32, 0), (3, 4)])
def test_a_batch_that_fits_in_one_part_is_written_up_without_the_workers(folder, tmp_path, monkeypatch, files,
                                                                           asked):
    monkeypatch.setattr(overview, "PART_FILES", files)
    executors = []

    def counting(kind, scheduler, workers):
        executors.append(_Counting(LocalExecutor(1)))
        return executors[-1]

    monkeypatch.setattr(batch_runner, "open_executor", counting)
    run_batch(BatchOptions(input_dir=folder, out_dir=tmp_path / "out", workers=1, render=False, progress=False))
    assert executors[0].parts == asked  # (10 inputs)

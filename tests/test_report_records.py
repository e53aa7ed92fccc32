"""A report's records (the report, its run, summary, totals and counts) are made with
:func:`fel_rules.core.record.build`: each must be the record its class's constructor makes from the same values,
whatever the document — valid, invalid, unreadable, refused."""

from __future__ import annotations

import pytest

from fel_rules import Config, Validator
from fel_rules.core.report import Counts, Report
from fel_rules.findings.verdict import tally
from fel_rules.testing.builder import Invoice, Item

from .conftest import EXAMPLES, FEL_REFERENCE
from .record_checks import assert_as_constructed, records


def _documents() -> list[tuple[str, bytes]]:
    documents = [(path.name, path.read_bytes()) for path in sorted(EXAMPLES.glob("*.xml"))]
    documents += [(path.name, path.read_bytes()) for path in sorted((FEL_REFERENCE / "samples").rglob("*.xml"))[:40]]
    invoice = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)],
                      items=[Item.goods("Tornillo", cantidad="3", precio_unitario="1.25")]).to_xml()
    documents += [
        ("built", invoice),
        ("wrong total", invoice.replace(b"<dte:GranTotal>3.75<", b"<dte:GranTotal>9.75<")),
        ("schema-invalid", invoice.replace(b'CodigoMoneda="GTQ"', b'CodigoMoneda="G"')),
        ("not xml", b"<dte:GTDocumento"),
        ("empty", b""),
    ]
    return documents


@pytest.mark.parametrize(("name", "data"), _documents(), ids=lambda value: value if isinstance(value, str) else "")
def test_report_records_are_what_their_constructors_make(validator, name, data):
    report = validator.validate_bytes(data, path=name)
    found = list(records(report))
    assert type(found[0]) is Report and len(found) >= 6
    for record in found:
        assert_as_constructed(record)


def test_a_refused_document_and_an_unreadable_file_too(tmp_path):
    small = Validator(Config(max_bytes=10))
    for report in (small.inspect_path(EXAMPLES / "factura-fact.xml").report,
                   small.read_error(tmp_path / "gone.xml", FileNotFoundError(2, "No such file"))):
        assert not report.complete
        for record in records(report):
            assert_as_constructed(record)


def test_tally_of_no_issues_is_zero_counts():
    assert tally([]) == Counts() and list(vars(tally([]))) == ["error", "warning", "info"]


def test_started_at_is_the_second_a_report_starts_in_utc(monkeypatch):
    from datetime import UTC, datetime

    from fel_rules import engine

    before = datetime.now(UTC).replace(microsecond=0)
    said = datetime.fromisoformat(Validator(Config()).validate_bytes(b"<x/>").run.started_at)
    assert before <= said <= datetime.now(UTC)
    # the text made once a second is that second's, and the next second's is made anew
    clock = iter([1_700_000_000.2, 1_700_000_000.9, 1_700_000_001.0, 1_700_000_061.5])
    monkeypatch.setattr(engine.time, "time", lambda: next(clock))
    assert [engine._started_at() for _ in range(4)] == [
        "2023-11-14T22:13:20+00:00", "2023-11-14T22:13:20+00:00", "2023-11-14T22:13:21+00:00",
        "2023-11-14T22:14:21+00:00"]

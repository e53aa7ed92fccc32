"""Config, Issue and Report as plain dataclasses: defaults, the conversions users rely on, clear refusals, the
escaping of control characters wherever an issue is made, and reports read back from their JSON."""

from __future__ import annotations

import dataclasses
import json
import sys
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from fel_rules import Config, Issue, Location, Report, Severity, Validator, report_json_schema
from fel_rules.core.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_ITEMS
from fel_rules.core.resources import BUILTIN_RULES_DIR
from fel_rules.document.facts import Amount, Documento, Item

from .conftest import EXAMPLES


def test_config_defaults():
    config = Config()
    assert (config.tolerance, config.rounding, config.lang, config.schema_engine) == (Decimal("0.01"), "half_up",
                                                                                        "es", "auto")
    assert (config.max_bytes, config.max_items) == (DEFAULT_MAX_BYTES, DEFAULT_MAX_ITEMS)
    assert config.rules_dir == BUILTIN_RULES_DIR and config.profile is config.as_of is config.schema_dir is None


@pytest.mark.parametrize(("given", "expected"), [
    ({"tolerance": "0.02"}, {"tolerance": Decimal("0.02")}),
    ({"tolerance": 0.02}, {"tolerance": Decimal("0.02")}),
    ({"tolerance": 0}, {"tolerance": Decimal("0")}),
    ({"rules_dir": "reglas"}, {"rules_dir": Path("reglas")}),
    ({"schema_dir": "xsd"}, {"schema_dir": Path("xsd")}),
    ({"as_of": "2026-03-01"}, {"as_of": date(2026, 3, 1)}),
    ({"max_bytes": "1000"}, {"max_bytes": 1000}),
])
def test_config_converts_what_users_give(given, expected):
    config = Config(**given)
    assert {name: getattr(config, name) for name in expected} == expected
    assert all(type(getattr(config, name)) is type(value) for name, value in expected.items())


@pytest.mark.parametrize(("given", "named"), [
    ({"tolerance": "-0.01"}, "tolerance"),
    ({"tolerance": "abc"}, "tolerance"),
    ({"tolerance": "NaN"}, "tolerance"),
    ({"tolerance": True}, "tolerance"),
    ({"lang": "fr"}, "lang"),
    ({"rounding": "down"}, "rounding"),
    ({"schema_engine": "lxml"}, "schema_engine"),
    ({"max_bytes": 0}, "max_bytes"),
    ({"max_items": -1}, "max_items"),
    ({"max_attributes": True}, "max_attributes"),
    ({"as_of": "1 de marzo"}, "as_of"),
    ({"as_of": datetime(2026, 3, 1, 12)}, "as_of"),
    ({"rules_dir": 3}, "rules_dir"),
    ({"profile": Path("p.yaml")}, "profile"),
])
def test_config_refuses_a_bad_value_naming_the_setting(given, named):
    with pytest.raises(ValueError, match=rf"^Config\.{named} must be "):
        Config(**given)


def test_config_refuses_an_unknown_setting():
    with pytest.raises(TypeError, match="tolerence"):
        Config(tolerence="0.02")  # type: ignore[call-arg]


def test_config_is_frozen_and_replace_checks_again():
    config = Config(lang="en")
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.lang = "es"  # type: ignore[misc]
    assert dataclasses.replace(config, tolerance="0.5").tolerance == Decimal("0.5")
    with pytest.raises(ValueError, match="tolerance"):
        dataclasses.replace(config, tolerance="-1")


def test_config_to_dict_makes_the_same_config_again():
    config = Config(tolerance="0.05", rules_dir="reglas", as_of="2026-01-31", profile="pruebas")
    data = config.to_dict(exclude_none=True)
    assert data["tolerance"] == "0.05" and data["as_of"] == "2026-01-31" and "schema_dir" not in data
    assert Config(**data) == config and Config(**config.to_dict()) == config


@pytest.mark.parametrize("field", ["message", "hint", "detail"])
def test_an_issue_writes_control_characters_visibly_however_it_is_made(field):
    values = {"message": "m", field: "a\nb\x1bc\u202e"}
    made = Issue(rule_id="X", severity=Severity.ERROR, stage="rules", title="t", **values)
    assert getattr(made, field) == "a\\nb\\x1bc\\u202e"
    replaced = dataclasses.replace(made, **{field: "x\ry"})
    assert getattr(replaced, field) == "x\\ry"
    read_back = Report.from_json(_report_with(made).to_json()).issues[0]
    assert getattr(read_back, field) == "a\\nb\\x1bc\\u202e"


def test_an_issue_takes_its_severity_as_text():
    assert Issue(rule_id="X", severity="warning", stage="rules", title="t", message="m").severity is Severity.WARNING


def test_a_report_reads_back_from_its_json_and_refuses_unknown_keys():
    report = Validator().validate_path(EXAMPLES / "factura-certificada.xml")
    assert Report.from_json(report.to_json()) == report
    assert Report.from_json(report.to_json(include_run=False)) == dataclasses.replace(report, run=None)
    with pytest.raises(ValueError, match="surplus"):
        Report.from_json(report.to_json().replace('"valid":', '"surplus": 1, "valid":', 1))
    data = report.to_dict()
    data["issues"] = [{"rule_id": "X", "severity": "grave", "stage": "rules", "title": "t", "message": "m"}]
    with pytest.raises(ValueError, match="severity"):
        Report.from_json(json.dumps(data))


def test_the_report_schema_says_what_to_dict_writes():
    schema = report_json_schema()
    report = Validator().validate_path(EXAMPLES / "factura-fact.xml").to_dict()
    assert list(schema["properties"]) == list(report)
    assert schema["additionalProperties"] is False and schema["properties"]["issues"]["default"] == []


def test_facts_are_frozen_and_their_lists_are_not_shared():
    one, two = Documento(xpath="/a"), Documento(xpath="/b")
    assert one.items is not two.items
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.signatures = 2  # type: ignore[misc]
    item = Item(xpath="/i", cantidad=Amount(xpath="/i/c", raw="x"))
    assert item.cantidad is not None and item.cantidad.value is None and item.impuestos == []


def _report_with(issue: Issue) -> Report:
    report = Validator().validate_path(EXAMPLES / "factura-fact.xml")
    return dataclasses.replace(report, issues=[issue])


ODD = "".join(map(chr, range(0x30))) + '"\\/ñ€😀\u2028\u2029\x7f\x85\x9f\ufeffab'


@pytest.mark.parametrize("data", [
    {}, [], "", 0, -3, 1.5, 1e-05, 1.5e16, None, True, False, ODD, Severity.ERROR,
    {"a": [], "b": {}, "c": [1, [2, {"d": None}], (3, "x")], ODD: {"e": ODD, "f": [True, False, 0.001]}},
])
def test_indented_json_is_the_text_json_dumps_writes(data):
    from fel_rules.core.jsontext import indented_json

    assert indented_json(data) == json.dumps(data, ensure_ascii=False, indent=2)


def test_to_json_writes_the_same_text_with_or_without_pydantic_core(monkeypatch):
    """A process with pydantic_core loaded (a batch) writes a report with it; any other with the standard library."""
    report = Validator().validate_path(EXAMPLES / "factura-certificada.xml")
    issue = Issue(rule_id="X", severity=Severity.ERROR, stage="rules", title=ODD, message=ODD, hint=ODD, detail=ODD,
                  location=Location(xpath=ODD, line=3))
    report = dataclasses.replace(report, issues=[issue, dataclasses.replace(issue, detail=None)])
    expected = {run: json.dumps(report.to_dict(include_run=run), ensure_ascii=False, indent=2) for run in (True, False)}
    import pydantic_core  # noqa: F401 - loaded, as in a batch
    assert {run: report.to_json(include_run=run) for run in (True, False)} == expected
    monkeypatch.delitem(sys.modules, "pydantic_core")
    assert {run: report.to_json(include_run=run) for run in (True, False)} == expected
    assert report.to_json(indent=None) == json.dumps(report.to_dict(), ensure_ascii=False)


def test_a_record_is_a_frozen_keyword_only_dataclass():
    import copy
    import pickle

    from fel_rules.document.facts import Text

    text = Text(xpath="/a/@b", value="x")
    assert dataclasses.is_dataclass(text) and [f.name for f in dataclasses.fields(text)] == ["xpath", "line", "value"]
    assert text == Text(xpath="/a/@b", line=None, value="x") != Text(xpath="/a/@b", value="y")
    assert hash(text) == hash(Text(xpath="/a/@b", value="x"))
    assert repr(text) == "Text(xpath='/a/@b', line=None, value='x')"
    assert pickle.loads(pickle.dumps(text)) == text == copy.deepcopy(text)
    assert dataclasses.replace(text, line=4) == Text(xpath="/a/@b", line=4, value="x")
    assert dataclasses.asdict(text) == {"xpath": "/a/@b", "line": None, "value": "x"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        del text.value
    with pytest.raises(TypeError, match=r"Text\(\) missing required keyword arguments: value, xpath"):
        Text()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"Text\(\) got unexpected keyword arguments: valor"):
        Text(xpath="/a", value="x", valor="y")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Text("/a", None, "x")  # type: ignore[misc]

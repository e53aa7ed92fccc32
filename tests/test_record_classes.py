"""The record base class (:class:`fel_rules.core.record.Record`): keyword and positional construction, immutability,
equality, hash, ``repr``, the dataclass helpers and pickling, like the stdlib dataclasses it replaces."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from fel_rules import RuleRow
from fel_rules.checks import Finding, RuleEnv
from fel_rules.checks.batch_input import BatchInput
from fel_rules.core.record import Record
from fel_rules.xmldsig.results import Problem, ProblemCode


class Named(Record):
    name: str
    size: int = 1
    tags: list[str] = dataclasses.field(default_factory=list)


class Point(Record, kw_only=False):
    x: int
    y: int = 0
    label: str = ""


class Labelled(Point):
    colour: str = "red"


class Tagged(Point, kw_only=True):
    tag: str = ""


def test_a_record_is_made_with_keywords_by_default():
    record = Named(name="a", size=2)
    assert (record.name, record.size, record.tags) == ("a", 2, [])
    with pytest.raises(TypeError, match="takes 0 positional arguments but 1 were given"):
        Named("a")  # type: ignore[misc]


def test_kw_only_false_takes_the_fields_positionally_in_declaration_order():
    assert Point(1, 2, "p") == Point(x=1, y=2, label="p")
    assert Point(1, label="p") == Point(x=1, y=0, label="p")
    assert Labelled(1, 2, "p", "blue") == Labelled(x=1, y=2, label="p", colour="blue")
    assert list(vars(Point(1, 2))) == ["x", "y", "label"]


def test_a_subclass_takes_positional_arguments_as_the_record_it_extends_unless_it_says_otherwise():
    assert Labelled(1, 2, "p", "blue").colour == "blue"
    assert Tagged(x=1, tag="t").tag == "t"
    with pytest.raises(TypeError, match="takes 0 positional arguments"):
        Tagged(1)  # type: ignore[misc]


@pytest.mark.parametrize(("args", "kwargs", "message"), [
    ((1, 2, "p", "extra"), {}, "takes 3 positional arguments but 4 were given"),
    ((1,), {"x": 2}, "got multiple values for argument 'x'"),
    ((), {"y": 2}, "missing required keyword arguments: x"),
    ((1,), {"z": 2}, "unexpected keyword arguments: z"),
])
def test_wrong_arguments_are_a_type_error_that_says_which(args, kwargs, message):
    with pytest.raises(TypeError, match=message):
        Point(*args, **kwargs)


def test_a_record_is_frozen_and_compares_hashes_and_prints_like_a_dataclass():
    point = Point(1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3  # type: ignore[misc]
    assert point == Point(1, 2) and point != Point(2, 1) and hash(point) == hash(Point(1, 2))
    assert point != Labelled(1, 2)  # another class is never equal
    assert repr(point) == "Point(x=1, y=2, label='')"
    assert dataclasses.replace(point, y=5) == Point(1, 5)
    assert dataclasses.asdict(Labelled(1)) == {"x": 1, "y": 0, "label": "", "colour": "red"}
    assert [field.name for field in dataclasses.fields(Named)] == ["name", "size", "tags"]


def test_default_factories_give_each_record_its_own_value():
    first, second = Named(name="a"), Named(name="b")
    assert first.tags == [] and first.tags is not second.tags


def test_a_record_survives_a_pickle():
    for record in (Named(name="a", tags=["x"]), Point(1, 2, "p"), Labelled(1, colour="blue")):
        assert pickle.loads(pickle.dumps(record)) == record


def test_public_records_keep_taking_their_fields_positionally():
    """Plug-in check kinds may make findings, rule environments and batch inputs as with the dataclasses these
    classes were: positionally, in field order."""
    assert Finding("/x", 3) == Finding(xpath="/x", line=3)
    assert RuleEnv("R-1", {"dte": "urn:x"}) == RuleEnv(rule_id="R-1", namespaces={"dte": "urn:x"})
    assert BatchInput("a.xml", None, None, 5).limit == 5  # type: ignore[arg-type]
    row = RuleRow("FEL-X-01", "error", "Título")
    assert row.to_dict() == {"id": "FEL-X-01", "severity": "error", "title": "Título"}
    problem = Problem(ProblemCode.NO_SIGNED_INFO, None, "Signature")  # type: ignore[arg-type]
    assert (problem.field, problem.values, problem.expected) == ("Signature", {}, None)

"""The quick check of tool arguments never accepts what the tool's pydantic model refuses, and hands the handler
the very values the model would; it declares what the model declares."""

from __future__ import annotations

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from mcp_server.accept import XML_TEXT_LIMIT, accept
from mcp_server.registry import TOOLS
from mcp_server.tools import ARGUMENTS, checked, input_schema

_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-3, max_value=70), st.integers(), st.floats(allow_nan=False),
    st.sampled_from(["es", "en", "fr", "clasico", "moderno", "carta", "media-carta", "ticket", "", "ES", "true",
                     "1", "yes", "a/b.xml", "\ud800", "x\udfffy", "ñandú"]),
    st.text(st.characters(codec=None, exclude_categories=())),  # surrogates included
)
_VALUES = st.one_of(_SCALARS, st.lists(_SCALARS, max_size=2), st.dictionaries(st.text(max_size=3), _SCALARS,
                                                                                max_size=2))


@st.composite
def _arguments(draw, tool: str) -> dict:
    """Arguments for ``tool``: some of its keys with right or nearly right values, and at times one value replaced
    by anything at all or a stranger key added."""
    fields = TOOLS[tool].params.fields
    names = draw(st.lists(st.sampled_from(list(fields)), unique=True, max_size=len(fields)))
    arguments = {name: draw(_right(fields[name])) for name in names}
    spoilt = draw(st.one_of(st.none(), st.sampled_from([*fields, "nope", "XML_PATH"])))
    if spoilt is not None:
        arguments[spoilt] = draw(_VALUES)
    return arguments


def _right(param) -> st.SearchStrategy:
    """Values the parameter takes, and values pydantic would coerce to them or refuse at the edges of the range."""
    if param.choices is not None:
        values = st.sampled_from(param.choices)
    elif param.kind is bool:
        values = st.one_of(st.booleans(), st.integers(0, 1), st.sampled_from([0.0, 1.0, "true", "no", "on"]))
    elif param.kind is int:
        low, high = (param.minimum or 0) - 1, (param.maximum or 100) + 1
        edges = st.one_of(st.sampled_from([low, low + 1, high - 1, high]), st.integers(low, high))
        values = st.one_of(edges, st.booleans(), edges.map(float), edges.map(str))
    else:
        values = st.text(st.characters(codec=None, exclude_categories=()), max_size=20)  # surrogates too
    return st.one_of(st.none(), values) if param.nullable else values


def _model_says(tool: str, arguments: dict) -> dict | None:
    try:
        return checked(tool, arguments)
    except ValueError:
        return None


@pytest.mark.parametrize("tool", sorted(TOOLS))
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_the_quick_check_never_accepts_what_the_model_refuses(tool, data):
    arguments = data.draw(_arguments(tool))
    quick = accept(TOOLS[tool].params, arguments)
    event("accepted" if quick is not None else "left to the model")
    if quick is None:
        return
    model = _model_says(tool, arguments)
    assert model is not None, arguments
    assert [(name, type(value), value) for name, value in quick.items()] == \
           [(name, type(value), value) for name, value in model.items()]


_BASE = {"fel_validate": {"xml_path": "a.xml"}, "fel_render": {"xml_path": "a.xml"}, "fel_batch": {"dir_xml": "d"},
         "fel_rules": {}}  # plainly right arguments, one value of which each example changes


@pytest.mark.parametrize("tool", sorted(TOOLS))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_each_parameter_alone_is_judged_as_the_model_judges_it(tool, data):
    """One parameter at a time, at the edges of what it takes: accepted only with the model's very value."""
    params = TOOLS[tool].params
    name = data.draw(st.sampled_from(list(params.fields)))
    arguments = {key: value for key, value in _BASE[tool].items() if name not in params.one_of or key == name}
    arguments[name] = data.draw(st.one_of(_right(params.fields[name]), _VALUES))
    quick = accept(params, arguments)
    event("accepted" if quick is not None else "left to the model")
    if quick is not None:
        model = _model_says(tool, arguments)
        assert model is not None, arguments
        assert quick[name] == model[name] and type(quick[name]) is type(model[name]), arguments


def test_plainly_right_arguments_are_accepted_with_the_defaults_filled_in():
    params = TOOLS["fel_validate"].params
    assert accept(params, {"xml_path": "a.xml"}) == {"xml_path": "a.xml", "xml_text": None, "lang": "es",
                                                     "profile": None, "compact": False}
    assert accept(params, {"xml_text": "<a/>", "lang": "en", "compact": True})["lang"] == "en"
    batch = TOOLS["fel_batch"].params
    assert accept(batch, {"dir_xml": "d", "workers": 64})["render"] is True
    longest = {"xml_text": "x" * XML_TEXT_LIMIT}
    assert accept(params, longest) == checked("fel_validate", longest)


@pytest.mark.parametrize(("tool", "arguments"), [
    ("fel_validate", {}),  # neither source
    ("fel_validate", {"xml_path": "a", "xml_text": "b"}),  # both
    ("fel_validate", {"xml_path": None}),
    ("fel_validate", {"xml_path": "a", "nope": 1}),  # a stranger
    ("fel_validate", {"xml_path": "a", "compact": 1}),  # pydantic would coerce it: the model decides
    ("fel_validate", {"xml_path": "a", "lang": "fr"}),
    ("fel_validate", {"xml_text": "x" * (XML_TEXT_LIMIT + 1)}),
    ("fel_validate", {"xml_text": "\ud800"}),  # the model refuses a lone surrogate where a length is limited
    ("fel_batch", {}),
    ("fel_batch", {"dir_xml": "d", "workers": 0}),
    ("fel_batch", {"dir_xml": "d", "workers": True}),
    ("fel_batch", {"dir_xml": "d", "workers": 2.0}),
    ("fel_render", {"xml_path": "a", "page": "a4"}),
])
def test_what_is_not_plainly_right_goes_to_the_model(tool, arguments):
    assert accept(TOOLS[tool].params, arguments) is None


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_the_parameters_declare_what_the_model_declares(tool):
    """Same names, types, nullability, choices, lengths, ranges, defaults and required names as the input schema."""
    schema = input_schema(tool)
    params = TOOLS[tool].params
    assert list(params.fields) == list(schema["properties"])
    assert sorted(name for name, param in params.fields.items() if param.required) == sorted(
        schema.get("required", []))
    json_type = {str: "string", bool: "boolean", int: "integer"}
    for name, param in params.fields.items():
        declared = schema["properties"][name]
        options = declared.get("anyOf", [declared])
        types = {option.get("type") for option in options}
        assert types == {json_type[param.kind], *(["null"] if param.nullable else [])}, name
        kept = next(option for option in options if option.get("type") != "null")
        assert (tuple(kept["enum"]) if "enum" in kept else None) == param.choices, name
        assert (kept.get("maxLength"), kept.get("minimum"), kept.get("maximum")) == (
            param.max_length, param.minimum, param.maximum), name
        if not param.required:
            assert declared["default"] == param.default, name
            assert type(ARGUMENTS[tool].model_fields[name].default) is type(param.default), name
    assert "oneOf" not in schema  # (hosts refuse a combinator at the root: the description says it)
    if params.one_of:
        assert f"exactamente uno de {' o '.join(params.one_of)}" in schema["description"]

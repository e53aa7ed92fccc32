"""Rules and messages read back from the user's cache are plain values: no pydantic model is stored, and a run
that reads them imports none of the models that validate rule files, kinds' params, profiles or messages.yaml.

Reports, configuration and document facts are plain too: the tests below name the module that imports pydantic
(none) and every module holding something of pydantic (none), so that a change bringing it back says where.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from pydantic import BaseModel

from fel_rules.checks import PlainParams, get_check_kind, registered_kinds
from fel_rules.core import cache, catalogue
from fel_rules.core.resources import BUILTIN_RULES_DIR
from fel_rules.core.yamlfile import load_yaml
from fel_rules.ruleset import RuleSpec, loader
from fel_rules.ruleset.spec import EXPRESSION_KEYS, Rule, as_written

from .conftest import EXAMPLES, ROOT, spy

#: Modules that may import pydantic on the warm path: none.
NOT_YET_PLAIN: set[str] = set()

#: The modules that validate what comes from YAML: a catalogue read back from the cache never imports them.
VALIDATING = ["fel_rules.ruleset.model", "fel_rules.ruleset.reading", "fel_rules.core.catalogue_file",
              "fel_rules.checks.kind_params", "fel_rules.checks.cross_document_params",
              "fel_rules.checks.expression_params", "fel_rules.checks.identity_params",
              "fel_rules.checks.required_params", "fel_rules.checks.signature_params"]

#: Run in a fresh interpreter: records which module first imports pydantic (an import hook that only looks), loads
#: the shipped rules (with a profile too) and the message catalogue, runs every document check on an example, and
#: prints what it saw as JSON.
_WARM_RUN = f"""
import importlib.abc, json, sys

first = []

class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "pydantic" and not first:
            frame = sys._getframe(1)
            while frame is not None and frame.f_globals.get("__name__", "").startswith(("importlib", "_frozen")):
                frame = frame.f_back
            first.append(frame.f_globals.get("__name__") if frame is not None else None)
        return None  # the usual finders import it

sys.meta_path.insert(0, Watch())

from lxml import etree
from fel_rules.checks import CheckInput
from fel_rules.core.catalogue import MESSAGES
from fel_rules.core.resources import BUILTIN_RULES_DIR
from fel_rules.ruleset.loader import load_catalog

catalog = load_catalog(BUILTIN_RULES_DIR)
profiled = load_catalog(BUILTIN_RULES_DIR, "estricto")
doc = CheckInput(etree.parse({str(EXAMPLES / "factura-fact.xml")!r}).getroot())
findings = sum(len(list(rule.check.check(doc))) for rule in catalog.document_rules)

def holds_pydantic(module):
    return any(getattr(value, "__name__", None) == "pydantic"
               or str(getattr(value, "__module__", None) or "").partition(".")[0] in ("pydantic", "pydantic_core")
               for value in list(vars(module).values()))

print(json.dumps({{
    "rules": len(catalog.rules), "profile": profiled.profile, "texts": len(MESSAGES.texts), "findings": findings,
    "first": first[0] if first and "pydantic" in sys.modules else None,  # a look (find_spec) is no import
    "holders": sorted(name for name, module in list(sys.modules.items())
                      if name.startswith("fel_rules") and module is not None and holds_pydantic(module)),
    "validating": sorted(name for name in {VALIDATING!r} if name in sys.modules),
    "yaml": "yaml" in sys.modules,
}}))
"""


def _warm_run(env: dict) -> dict:
    result = subprocess.run([sys.executable, "-c", _WARM_RUN], cwd=ROOT, env=env, capture_output=True, text=True,
                            check=True)
    return json.loads(result.stdout.splitlines()[-1])


def test_a_catalogue_read_back_from_the_cache_imports_no_validating_model(tmp_path):
    env = {**os.environ, cache.CACHE_DIR_VARIABLE: str(tmp_path / "cache")}
    env.pop(cache.NO_CACHE_VARIABLE, None)
    cold = _warm_run(env)  # fills the cache: the rule files and messages.yaml are read and validated
    assert cold["yaml"] and set(cold["validating"]) == set(VALIDATING)
    warm = _warm_run(env)
    assert warm["validating"] == [] and not warm["yaml"]  # read back: nothing validated, no YAML read
    assert warm["first"] is None or warm["first"] in NOT_YET_PLAIN, warm["first"]
    assert set(warm["holders"]) <= NOT_YET_PLAIN, warm["holders"]
    for key in ("rules", "profile", "texts", "findings"):
        assert warm[key] == cold[key], key
    assert warm["rules"] > 100 and warm["profile"] == "estricto"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.CACHE_DIR_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.delenv(cache.NO_CACHE_VARIABLE, raising=False)
    loader._cached_catalog.cache_clear()
    yield tmp_path / "cache"
    loader._cached_catalog.cache_clear()


def test_cache_entries_name_no_pydantic_model(cache_dir, monkeypatch):
    loader.load_catalog(BUILTIN_RULES_DIR, "estricto")  # written
    catalogue._package_catalogue()
    named: set[tuple[str, str]] = set()
    spy(monkeypatch, cache._Unpickler, "find_class", lambda unpickler, module, name: named.add((module, name)))
    loader._cached_catalog.cache_clear()
    assert loader.load_catalog(BUILTIN_RULES_DIR, "estricto").rules  # read back
    assert catalogue._package_catalogue().texts
    classes = {(module, name): getattr(sys.modules[module], name) for module, name in named}
    models = sorted(key for key, found in classes.items() if isinstance(found, type) and issubclass(found, BaseModel))
    assert {module for module, _ in models} <= NOT_YET_PLAIN, models
    assert {("fel_rules.checks.plain", "PlainParams"), ("fel_rules.ruleset.spec", "Rule"),
            ("fel_rules.core.catalogue", "Catalogue")} <= named


def _shipped_rules():
    for path in sorted(BUILTIN_RULES_DIR.glob("*.yaml")):
        yield from load_yaml(path)["rules"]


def test_a_rule_is_kept_as_its_model_validated_it():
    """The plain rule says what the validated model says: ``rules show`` prints the same JSON."""
    for raw in _shipped_rules():
        model = RuleSpec.model_validate(raw)
        rule = model.plain()
        assert isinstance(rule, Rule)
        dumped = model.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)
        assert as_written(rule) == dumped and list(as_written(rule)) == list(dumped)


def test_a_checks_params_are_kept_as_their_model_validated_them():
    """Each shipped rule's check keeps plain params, which give back what the rule wrote (a profile's changed params
    are merged into that) and read as the validated model's fields."""
    catalog = loader._load_catalog(BUILTIN_RULES_DIR, None)
    for rule, raw in zip(catalog.rules, _shipped_rules(), strict=True):
        params = rule.check.params
        assert isinstance(params, PlainParams), rule.id
        written = {key: raw[key] for key in EXPRESSION_KEYS if key in raw} if rule.spec.check == "expression" \
            else {}
        model = type(rule.check).Params.model_validate(written or raw.get("params", {}))
        assert params.as_written() == model.model_dump(by_alias=True, exclude_unset=True), rule.id
        for name in type(model).model_fields:
            value = getattr(model, name)
            if not isinstance(value, (BaseModel, dict)):
                assert getattr(params, name) == value, (rule.id, name)


def test_plain_params_are_read_only():
    params = PlainParams({"at": "emision"}, ("at",))
    with pytest.raises(AttributeError):
        params.at = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del params.at
    assert params == PlainParams({"at": "emision"}, ("at",)) and params.as_written() == {"at": "emision"}


def test_every_built_in_kind_names_a_params_model():
    for name, kind in registered_kinds().items():
        if kind.__module__.startswith("fel_rules."):
            assert issubclass(kind.Params, BaseModel) and kind.Params.__module__.endswith("_params"), name
    assert get_check_kind("expression").Let.__name__ == "LetSpec"

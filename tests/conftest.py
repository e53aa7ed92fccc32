"""Shared fixtures: paths, one validator per configuration, JSON snapshots without volatile data, documents in other
encodings."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from lxml import etree
from syrupy.extensions.json import JSONSnapshotExtension

from fel_rules import Config, Validator
from fel_rules.authoring.rule_cases import CaseFile, load_case_file

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
RULES = ROOT / "rules"
SHARED = ROOT.parent / "shared"
FEL_REFERENCE = SHARED / "fel-reference"


@cache
def rule_case_files() -> tuple[tuple[Path, CaseFile], ...]:
    """Every shipped rule case file (rules/tests/*.yaml) with its path, read once per test run: several
    modules build their parameters from them at collection."""
    return tuple((path, load_case_file(path)) for path in sorted((RULES / "tests").glob("*.yaml")))


requires_shared = pytest.mark.skipif(
    not FEL_REFERENCE.is_dir(), reason="../shared/fel-reference (SAT reference data) is not present"
)


def spy(monkeypatch, owner: object, name: str, seen: Callable[..., object]) -> None:
    """``owner.name`` (a module's function or a class's method) still runs, and ``seen`` is given the arguments of
    each call first (a method's ``self`` included)."""
    original = getattr(owner, name)

    def spied(*args, **kwargs):
        seen(*args, **kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, spied)


def own_cache_env(folder: Path) -> dict[str, str]:
    """The environment of a child process whose private cache is on, in ``folder`` (empty at first)."""
    env = {**os.environ, "FEL_RULES_CACHE_DIR": str(folder)}
    env.pop("FEL_RULES_NO_CACHE", None)
    return env


@pytest.fixture
def own_cache(tmp_path, monkeypatch) -> Path:
    """This process's private cache on, in a folder of this test's own (the run's shared one is left alone)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("FEL_RULES_CACHE_DIR", str(folder))
    monkeypatch.delenv("FEL_RULES_NO_CACHE", raising=False)
    return folder


@pytest.fixture(scope="session")
def validator() -> Validator:
    """The default validator (project rules, project schema set, Spanish)."""
    return Validator(Config())


@pytest.fixture(scope="session")
def validator_en() -> Validator:
    """The default validator with English messages."""
    return Validator(Config(lang="en"))


@pytest.fixture(scope="session")
def official_validator() -> Validator:
    """A validator on SAT's official XSD folder (repaired in memory), as ``--schema-dir`` does."""
    if not FEL_REFERENCE.is_dir():
        pytest.skip("../shared/fel-reference (SAT reference data) is not present")
    return Validator(Config(schema_dir=FEL_REFERENCE / "xsd"))


@pytest.fixture
def snapshot_json(snapshot):
    """syrupy snapshot stored as one .json file per assertion."""
    return snapshot.use_extension(JSONSnapshotExtension)


def report_data(report) -> dict:
    """A report as snapshot data: no ``run`` section (time, duration, version)."""
    return report.to_dict(include_run=False)


def encoded_forms(data: bytes) -> dict[str, bytes]:
    """``data`` (a UTF-8 document) written in other encodings, as real files come: UTF-16 with its encoding
    declared, UTF-16 with a byte order mark and no ``encoding`` (libxml2 then says "UTF-8" of it), in either byte
    order, with and without an XML declaration, and Latin-1."""
    body = re.sub(rb"^(?:\xef\xbb\xbf)?<\?xml[^>]*\?>\s*", b"", data).decode("utf-8")
    return {
        "UTF-16 declared": etree.tostring(etree.fromstring(data), encoding="UTF-16", xml_declaration=True),
        "UTF-16LE mark, no declaration": b"\xff\xfe" + body.encode("utf-16-le"),
        "UTF-16BE mark, no declaration": b"\xfe\xff" + body.encode("utf-16-be"),
        "UTF-16LE mark, no encoding declared": b"\xff\xfe" + ('<?xml version="1.0"?>\n' + body).encode("utf-16-le"),
        "Latin-1": etree.tostring(etree.fromstring(data), encoding="ISO-8859-1", xml_declaration=True),
    }

"""Every hostile input: a precise issue or error, and never a green verdict for something a stage
could not check. (Time and memory figures, not asserted here: benchmarks/hostile.py → SECURITY.md.)"""

from __future__ import annotations

import pytest

from fel_rules import Validator
from fel_rules.batch import BatchOptions, run_batch
from fel_rules.cli.app import main

from .hostile_corpus import CASES

_SLOW = {"9999-items"}  # SAT's maximum, validated in full: the one case whose size is its point and costs seconds
_FILE_CASES = [pytest.param(case, id=case.name, marks=[pytest.mark.slow] if case.name in _SLOW else [])
               for case in CASES if case.name not in ("directory", "symlink-loop")]


@pytest.mark.parametrize("case", _FILE_CASES)
def test_hostile_file(validator: Validator, tmp_path, case):
    path = case.make(tmp_path)
    report = validator.validate_path(path)
    ids = {issue.rule_id for issue in report.issues}
    if case.rule is None:
        assert report.valid, [i.message for i in report.issues]
    else:
        assert case.rule in ids
        assert report.valid is False
    if not report.complete:
        assert report.valid is False  # never green when a stage did not run
    assert report.exit_code() == case.exit


def test_directory_named_xml(tmp_path, capsys):
    path = next(c for c in CASES if c.name == "directory").make(tmp_path)
    assert main(["validate", str(path)]) == 2
    assert "no contiene archivos .xml" in capsys.readouterr().err


def test_symlink_loop(tmp_path, capsys):
    folder = tmp_path / "entrada"
    folder.mkdir()
    path = next(c for c in CASES if c.name == "symlink-loop").make(folder)
    assert main(["validate", str(path)]) == 2
    assert "No existe" in capsys.readouterr().err
    result = run_batch(BatchOptions(folder, tmp_path / "salida", workers=1, render=False, progress=False))
    assert result.exit_code == 2
    entries = result.manifest.entries
    assert {e.path for e in entries} == {"bucle-a.xml", "bucle-b.xml"}
    assert all(e.error and e.error.startswith("FEL-XML-07") for e in entries)

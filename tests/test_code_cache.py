"""The code objects of the source the checks write are kept between runs: a later run reads them back instead of
compiling them, validates exactly as before, and a damaged or foreign entry, or a cache that is off, only means
compiling again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fel_rules.core import code_cache
from fel_rules.core.cache import read_entry, write_entry

from .conftest import own_cache_env

ROOT = Path(__file__).resolve().parent.parent
SIGNED = ROOT / "examples" / "factura-certificada.xml"
SOURCE = "def twice(x):\n    return 2 * x\n"


@pytest.fixture
def fresh_process(own_cache, monkeypatch):
    """The module as a new process finds it, with a cache folder of its own."""
    _next_process(monkeypatch)
    return monkeypatch


def _run(code) -> int:
    space: dict = {}
    exec(code, space)  # noqa: S102 - the test's own source
    return space["twice"](21)


def _next_process(monkeypatch) -> None:
    """The module's state as a new process starts with it (nothing read yet, nothing compiled)."""
    monkeypatch.setattr(code_cache, "_kept", {})
    monkeypatch.setattr(code_cache, "_fresh", {})


def _refuse_compiling(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(code_cache, "compile", refuse, raising=False)  # (a module global shadows the builtin)


def test_a_source_kept_by_one_run_is_read_back_by_the_next(fresh_process):
    assert _run(code_cache.compiled(SOURCE, "<test>")) == 42
    code_cache.keep_compiled()
    _next_process(fresh_process)
    _refuse_compiling(fresh_process)
    code = code_cache.compiled(SOURCE, "<test>")
    assert _run(code) == 42 and code.co_filename == "<test>"
    with pytest.raises(AssertionError, match="compiled again"):  # (another file name is another code object)
        code_cache.compiled(SOURCE, "<other>")


def test_nothing_is_kept_until_keep_compiled_and_keeping_twice_writes_once(fresh_process, monkeypatch):
    code_cache.compiled(SOURCE, "<test>")
    assert read_entry(*code_cache.entry()) is None
    writes = []
    monkeypatch.setattr(code_cache, "write_entry", lambda *args: writes.append(args) or write_entry(*args))
    code_cache.keep_compiled()
    code_cache.keep_compiled()  # (nothing new: nothing written)
    assert len(writes) == 1 and set(writes[0][2]) == {("<test>", SOURCE)}


def test_a_plans_function_is_kept_apart_and_read_only_by_a_run_that_makes_one(fresh_process):
    """A plan's function (large, made only by a process that validates many documents) has an entry of its own: a
    run that compiles other code never reads it, and one that makes a plan's function reads only that entry."""
    plan = "def quiet(doc):\n    return []\n"
    code_cache.compiled(SOURCE, "<test>")
    code_cache.compiled(plan, "<rule plan>")
    code_cache.keep_compiled()
    assert read_entry(*code_cache.entry()).keys() == {("<test>", SOURCE)}
    assert read_entry(*code_cache.entry("plans")).keys() == {("<rule plan>", plan)}
    for source, filename, expected in ((SOURCE, "<test>", code_cache.entry()[0]),
                                       (plan, "<rule plan>", code_cache.entry("plans")[0])):
        _next_process(fresh_process)
        _refuse_compiling(fresh_process)
        read: list[str] = []
        fresh_process.setattr(code_cache, "read_entry",
                              lambda slot, key, read=read: read.append(slot) or read_entry(slot, key))
        code_cache.compiled(source, filename)
        assert read == [expected]


@pytest.mark.parametrize("failure", [None, EOFError, ValueError, TypeError, SystemError])
def test_a_damaged_value_is_compiled_again_and_kept_again(fresh_process, failure):
    """Whatever reading a damaged value back raises (marshal says SystemError for some), or when it reads back as
    something else than code."""
    write_entry(*code_cache.entry(), {("<test>", SOURCE): b"\x00not marshal data"})

    def damaged(data):
        if failure is None:
            return "not code"
        raise failure("bad marshal data")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(code_cache.marshal, "loads", damaged)
        assert _run(code_cache.compiled(SOURCE, "<test>")) == 42
    code_cache.keep_compiled()
    _next_process(fresh_process)
    _refuse_compiling(fresh_process)
    assert _run(code_cache.compiled(SOURCE, "<test>")) == 42


@pytest.mark.parametrize("stored", [["not", "a", "mapping"], {"a key": b"data"}, {("<test>", SOURCE): "text"}])
def test_an_entry_of_another_shape_is_ignored(fresh_process, stored):
    write_entry(*code_cache.entry(), stored)
    assert _run(code_cache.compiled(SOURCE, "<test>")) == 42
    code_cache.keep_compiled()
    assert read_entry(*code_cache.entry()).keys() == {("<test>", SOURCE)}


def test_with_the_cache_off_nothing_is_read_or_kept(fresh_process, tmp_path):
    fresh_process.setenv("FEL_RULES_NO_CACHE", "1")
    assert _run(code_cache.compiled(SOURCE, "<test>")) == 42
    assert code_cache._fresh == {}
    code_cache.keep_compiled()
    assert not (tmp_path / "cache").exists()


def test_the_entry_keeps_the_newest_code_objects_up_to_its_bounds(fresh_process):
    fresh_process.setattr(code_cache, "MAX_KEPT", 3)
    sources = [f"def twice(x):\n    return 2 * x + {n}\n" for n in range(5)]
    for source in sources[:2]:
        code_cache.compiled(source, "<test>")
    code_cache.keep_compiled()
    for source in sources[2:]:
        code_cache.compiled(source, "<test>")
    code_cache.keep_compiled()
    kept = read_entry(*code_cache.entry())
    assert list(kept) == [("<test>", source) for source in sources[2:]]
    fresh_process.setattr(code_cache, "MAX_KEPT", 10)
    fresh_process.setattr(code_cache, "MAX_KEPT_BYTES", sum(len(value) + len(key[0]) + len(key[1])
                                                           for key, value in kept.items()))  # (three of them)
    code_cache._fresh[("<test>", sources[0])] = kept[("<test>", sources[2])]  # (any marshalled code: one more)
    code_cache.keep_compiled()
    assert list(read_entry(*code_cache.entry())) == [("<test>", source)
                                                                          for source in (*sources[3:], sources[0])]


def test_a_value_too_big_for_the_entry_leaves_the_others_in_it(fresh_process):
    small = [f"def twice(x):\n    return 2 * x + {n}\n" for n in range(3)]
    for source in small:
        code_cache.compiled(source, "<test>")
    code_cache.keep_compiled()
    kept = read_entry(*code_cache.entry())
    fresh_process.setattr(code_cache, "MAX_KEPT_BYTES", sum(len(v) + len(k[0]) + len(k[1]) for k, v in kept.items()))
    big = "def twice(x):\n    return 2 * x  # " + "x" * 10_000 + "\n"
    code_cache.compiled(big, "<test>")  # (the newest, bigger than the whole bound)
    code_cache.keep_compiled()
    assert list(read_entry(*code_cache.entry())) == [("<test>", source) for source in small]


def test_the_entry_is_the_interpreters_and_the_versions(monkeypatch):
    """One entry for every checkout and process of a version on one Python (a code object depends on its source
    alone); another version, Python or ``-O`` level has an entry of its own."""
    slot, key = code_cache.entry()
    assert slot.startswith("code-") and code_cache.entry() == (slot, key)
    monkeypatch.setattr(code_cache, "__version__", "99.0")
    assert code_cache.entry.__wrapped__()[0] != slot
    monkeypatch.undo()
    monkeypatch.setattr(code_cache.sys, "version", "3.99")
    assert code_cache.entry.__wrapped__()[0] != slot


#: Runs a one-shot validation in-process; prints how many generated sources it compiled and its report.
_ONE_SHOT = """
import builtins, contextlib, io, json, sys
compiled = []
real = builtins.compile
def counting(source, filename, *args, **kwargs):
    if isinstance(source, str) and filename.startswith(("<predicate", "<rule plan", "<expression check")):
        compiled.append(filename)
    return real(source, filename, *args, **kwargs)
builtins.compile = counting
from fel_rules.cli.app import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["validate", "--format", "json", sys.argv[1]])
report = json.loads(out.getvalue())
report.pop("run", None)
print(json.dumps({"code": code, "compiled": len(compiled), "report": report}))
"""


def _one_shot(env: dict) -> dict:
    result = subprocess.run([sys.executable, "-c", _ONE_SHOT, str(SIGNED)], cwd=ROOT, env=env, capture_output=True,
                            text=True, check=True)
    return json.loads(result.stdout.splitlines()[-1])


def test_a_second_one_shot_validation_compiles_no_generated_source_and_reports_the_same(tmp_path):
    env = own_cache_env(tmp_path / "cache")
    first, second = _one_shot(env), _one_shot(env)
    uncached = _one_shot({**env, "FEL_RULES_NO_CACHE": "1"})
    assert first["compiled"] > 20 and second["compiled"] == 0 and uncached["compiled"] == first["compiled"]
    assert first["code"] == second["code"] == uncached["code"] == 0
    assert first["report"] == second["report"] == uncached["report"]

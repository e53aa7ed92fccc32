"""The cache of loaded rules and messages between runs: used when nothing changed, never when anything did, and
never when it is damaged, foreign or not private to the user."""

from __future__ import annotations

import ast
import io
import json
import os
import pickle
import shutil
import stat
import subprocess
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from fel_rules import Config, Validator
from fel_rules.checks.expression import _SHARED_KEYS, ExpressionCheck
from fel_rules.core import cache
from fel_rules.core.resources import BUILTIN_RULES_DIR
from fel_rules.expressions.language import ExpressionError, recheck
from fel_rules.ruleset import loader, stored

from .conftest import EXAMPLES, ROOT, spy
from .fault_injection import stale_fstat

VALID = EXAMPLES / "factura-fact.xml"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    """A cache folder of this test alone (created by the first entry written), and no catalogue kept in memory."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(cache.CACHE_DIR_VARIABLE, str(folder))
    monkeypatch.delenv(cache.NO_CACHE_VARIABLE, raising=False)
    loader._cached_catalog.cache_clear()
    yield folder
    loader._cached_catalog.cache_clear()


@pytest.fixture
def rules_dir(tmp_path) -> Path:
    """A copy of the shipped rules, to edit."""
    folder = tmp_path / "rules"
    shutil.copytree(BUILTIN_RULES_DIR, folder, ignore=shutil.ignore_patterns("tests", "__pycache__", "*.py"))
    return folder


class Loads:
    """Counts the catalogues loaded from their files (a catalogue read back from the cache is not counted)."""

    def __init__(self, monkeypatch) -> None:
        self.count = 0
        spy(monkeypatch, loader, "_load_catalog", self._seen)

    def _seen(self, directory, profile) -> None:
        self.count += 1


def fresh(directory: Path, profile: str | None = None):
    """The catalogue as a new process gets it: nothing kept in memory."""
    loader._cached_catalog.cache_clear()
    return loader.load_catalog(directory, profile)


def report(directory: Path, document: Path = VALID, **settings) -> dict:
    loader._cached_catalog.cache_clear()
    validator = Validator(Config(rules_dir=directory, **settings))
    return validator.validate_path(document).to_dict(include_run=False)


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("rules-*.pickle"))


def test_a_second_run_reads_the_rules_from_the_cache(cache_dir, rules_dir, monkeypatch):
    loads = Loads(monkeypatch)
    first = fresh(rules_dir)
    assert loads.count == 1 and len(entries(cache_dir)) == 1
    second = fresh(rules_dir)
    assert loads.count == 1, "the second load came from the cache"
    assert [(rule.id, rule.severity, rule.path, rule.line) for rule in second.rules] == \
           [(rule.id, rule.severity, rule.path, rule.line) for rule in first.rules]


def test_rules_from_the_cache_judge_every_example_as_rules_loaded_from_their_files(cache_dir, monkeypatch):
    monkeypatch.setenv(cache.NO_CACHE_VARIABLE, "1")
    loader._cached_catalog.cache_clear()
    without = Validator(Config())
    monkeypatch.delenv(cache.NO_CACHE_VARIABLE)
    fresh(BUILTIN_RULES_DIR)  # written
    loads = Loads(monkeypatch)
    loader._cached_catalog.cache_clear()
    cached = Validator(Config())
    assert loads.count == 0
    for example in sorted(EXAMPLES.glob("*.xml")):
        assert cached.validate_path(example).to_dict(include_run=False) == \
               without.validate_path(example).to_dict(include_run=False), example.name


def test_checks_read_back_take_this_process_memo_keys(cache_dir, rules_dir):
    fresh(rules_dir)
    _SHARED_KEYS[("context", "an earlier rule of this process", ())] = len(_SHARED_KEYS)
    checks = [rule.check for rule in fresh(rules_dir).rules if isinstance(rule.check, ExpressionCheck)]
    assert checks
    for check in checks:
        assert _SHARED_KEYS[check.context_described] == check.context_key
        for binding in check.bindings:
            assert binding.described is None or _SHARED_KEYS[binding.described] == binding.key


def test_an_edited_rule_file_is_seen_on_the_next_run(cache_dir, rules_dir):
    assert fresh(rules_dir).get("FEL-IVA-01").severity == "error"
    path = rules_dir / "impuestos.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(
        "  - id: FEL-IVA-01\n", "  - id: FEL-IVA-01\n    severity: warning\n", 1), encoding="utf-8")
    assert fresh(rules_dir).get("FEL-IVA-01").severity == "warning"
    assert len(entries(cache_dir)) == 1, "the entry of the folder was replaced"


def test_an_edited_data_file_is_seen_on_the_next_run(cache_dir, rules_dir):
    assert report(rules_dir)["valid"]
    path = rules_dir / "data" / "impuestos.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace('factor: "0.12"', 'factor: "0.13"', 1), encoding="utf-8")
    after = report(rules_dir)
    assert not after["valid"] and "FEL-IVA-01" in {issue["rule_id"] for issue in after["issues"]}


def test_an_edited_profile_is_seen_on_the_next_run(cache_dir, rules_dir):
    profile = rules_dir / "profiles" / "mio.yaml"
    profile.write_text("schema_version: 1\nprofile: {id: mio, title: Mío}\noverrides:\n"
                       "  FEL-IVA-01: {severity: warning, reason: por ahora}\n", encoding="utf-8")
    assert fresh(rules_dir, "mio").get("FEL-IVA-01").override.severity == "warning"
    profile.write_text(profile.read_text(encoding="utf-8").replace("severity: warning", "enabled: false"),
                       encoding="utf-8")
    override = fresh(rules_dir, "mio").get("FEL-IVA-01").override
    assert override.severity is None and override.enabled is False


def test_dates_and_changed_params_of_a_profile_are_read_back(cache_dir, rules_dir, monkeypatch):
    profile = rules_dir / "profiles" / "fechas.yaml"
    profile.write_text("schema_version: 1\nprofile: {id: fechas, title: Fechas}\noverrides:\n"
                       "  FEL-IVA-01: {severity: warning, until: 2099-12-31, reason: hasta entonces}\n"
                       "  FEL-CF-01: {params: {constants: {limite: '10000'}}, reason: otro límite}\n", encoding="utf-8")
    written = fresh(rules_dir, "fechas")
    loads = Loads(monkeypatch)
    again = fresh(rules_dir, "fechas")
    assert loads.count == 0
    assert again.get("FEL-IVA-01").override.until == date(2099, 12, 31)
    assert again.get("FEL-CF-01").overridden_check.constants == written.get("FEL-CF-01").overridden_check.constants
    assert report(rules_dir, profile="fechas") == report(rules_dir, profile="fechas")


def test_an_added_rule_file_is_seen_on_the_next_run(cache_dir, rules_dir):
    fresh(rules_dir)
    (rules_dir / "mias.yaml").write_text(
        "schema_version: 1\nruleset: {id: mias, version: '1', title: Mías}\nrules:\n"
        "  - id: MIA-01\n    title: Siempre\n    context: emision\n    assert: 'True'\n    message: Nunca\n",
        encoding="utf-8")
    assert fresh(rules_dir).get("MIA-01") is not None


def test_the_built_in_places_a_folder_falls_back_on_are_watched(cache_dir, rules_dir):
    (rules_dir / "data" / "lugares.yaml").unlink()
    assert BUILTIN_RULES_DIR / "data" / "lugares.yaml" in loader.catalog_files(rules_dir)
    assert fresh(rules_dir).rules


def test_a_relative_rules_folder_names_the_files_of_the_working_folder(cache_dir, tmp_path, monkeypatch):
    for name, severity in (("a", "error"), ("b", "warning")):
        folder = tmp_path / name / "reglas"
        folder.mkdir(parents=True)
        (folder / "r.yaml").write_text(
            f"schema_version: 1\nruleset: {{id: r, version: '1', title: R}}\ndefaults: {{severity: {severity}}}\n"
            "rules:\n  - id: R-01\n    title: T\n    context: emision\n    assert: 'True'\n    message: M\n",
            encoding="utf-8")
    for name, severity in (("a", "error"), ("b", "warning"), ("a", "error")):
        monkeypatch.chdir(tmp_path / name)
        assert fresh(Path("reglas")).get("R-01").severity == severity


@pytest.mark.parametrize("damage", ["truncated", "flipped", "garbage", "empty", "other key"])
def test_a_damaged_entry_is_ignored_and_written_again(cache_dir, rules_dir, damage, monkeypatch):
    fresh(rules_dir)
    (entry,) = entries(cache_dir)
    data = entry.read_bytes()
    damaged = {"truncated": data[: len(data) // 2], "flipped": data[:-100] + bytes([data[-100] ^ 1]) + data[-99:],
               "garbage": os.urandom(len(data)), "empty": b"",
               "other key": data[:len(cache._MAGIC)] + bytes(32) + data[len(cache._MAGIC) + 32:]}[damage]
    entry.write_bytes(damaged)
    loads = Loads(monkeypatch)
    assert fresh(rules_dir).get("FEL-IVA-01") is not None
    assert loads.count == 1
    assert entry.read_bytes() == data, "the entry was written again"


def test_an_entry_that_names_anything_else_is_never_read_back(cache_dir):
    class Call:
        def __reduce__(self):
            return (os.getcwd, ())

    cache.write_entry("probe", b"k" * 32, [1, Decimal("2")])
    assert cache.read_entry("probe", b"k" * 32) == [1, Decimal("2")]
    cache.write_entry("probe", b"k" * 32, Call())
    assert cache.read_entry("probe", b"k" * 32) is None


@pytest.mark.parametrize(("module", "name"), [
    ("fel_rules.core.cache", "os"),  # a module fel-rules imports, not a class it defines
    ("fel_rules.core.cache", "os.getcwd"),  # a dotted name reaching through it
    ("fel_rules.core.cache", "pickle.loads"),
])
def test_an_entry_cannot_reach_past_fel_rules_through_its_modules(cache_dir, module, name):
    entry = b"\x80\x04" + b"\x8c" + bytes([len(module)]) + module.encode() + b"\x94\x8c" + bytes([len(name)])
    entry += name.encode() + b"\x94\x93\x94."  # SHORT_BINUNICODE module, name, STACK_GLOBAL, STOP
    with pytest.raises(pickle.UnpicklingError):
        cache._Unpickler(io.BytesIO(entry)).load()


def test_an_expression_tree_outside_the_language_is_never_read_back(cache_dir, rules_dir, monkeypatch):
    catalog = fresh(rules_dir)
    check = catalog.get("FEL-IVA-01").check
    object.__setattr__(check.expected, "node", ast.parse("impuesto.__class__", mode="exec").body[0])
    contents = loader._contents(rules_dir, None)
    key = stored._key(rules_dir, None, "", contents)
    slot = entries(cache_dir)[0].name.removesuffix(".pickle")
    cache.write_entry(slot, key, catalog)
    assert cache.read_entry(slot, key) is None
    loads = Loads(monkeypatch)
    assert fresh(rules_dir).get("FEL-IVA-01").check.expected.source == check.expected.source
    assert loads.count == 1


def _entry_and_folder(cache_dir: Path, rules_dir: Path) -> Path:
    fresh(rules_dir)
    (entry,) = entries(cache_dir)
    return entry


def test_a_folder_others_may_write_to_is_not_used(cache_dir, rules_dir, monkeypatch):
    _entry_and_folder(cache_dir, rules_dir)
    cache_dir.chmod(0o777)
    loads = Loads(monkeypatch)
    fresh(rules_dir)
    assert loads.count == 1, "not read"
    for entry in entries(cache_dir):
        entry.unlink()
    fresh(rules_dir)
    assert entries(cache_dir) == [], "not written"


def test_a_folder_of_another_user_is_not_used(cache_dir, rules_dir, monkeypatch):
    _entry_and_folder(cache_dir, rules_dir)
    monkeypatch.setattr(cache.os, "geteuid", lambda: os.getuid() + 1)  # the folder and its files are not "ours"
    loads = Loads(monkeypatch)
    fresh(rules_dir)
    assert loads.count == 1


@pytest.mark.parametrize("change", ["group-writable", "symlink", "folder"])
def test_an_entry_that_is_not_a_private_regular_file_is_not_read(cache_dir, rules_dir, change, monkeypatch):
    entry = _entry_and_folder(cache_dir, rules_dir)
    if change == "group-writable":
        entry.chmod(0o620)
    elif change == "symlink":
        real = cache_dir / "elsewhere.bin"
        entry.rename(real)
        entry.symlink_to(real)
    else:
        entry.unlink()
        entry.mkdir()
    loads = Loads(monkeypatch)
    assert fresh(rules_dir).rules
    assert loads.count == 1


def test_entries_are_private_and_the_folder_too(cache_dir, rules_dir):
    entry = _entry_and_folder(cache_dir, rules_dir)
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert not list(cache_dir.glob(".*.tmp")), "no temporary file left"


def test_no_cache_variable_turns_it_off(cache_dir, rules_dir, monkeypatch):
    monkeypatch.setenv(cache.NO_CACHE_VARIABLE, "1")
    loads = Loads(monkeypatch)
    fresh(rules_dir)
    fresh(rules_dir)
    assert loads.count == 2 and not cache_dir.exists()


def test_old_entries_are_removed_beyond_the_limit(cache_dir, monkeypatch):
    monkeypatch.setattr(cache, "MAX_ENTRIES", 3)
    for number in range(5):
        cache.write_entry(f"slot{number}", bytes(32), number)
        os.utime(cache_dir / f"slot{number}.pickle", ns=(number * 10**9, number * 10**9))
    assert sorted(path.name for path in cache_dir.glob("*.pickle")) == ["slot2.pickle", "slot3.pickle",
                                                                         "slot4.pickle"]


@pytest.mark.parametrize(("variables", "expected"), [
    ({"FEL_RULES_CACHE_DIR": "/x/c"}, "/x/c"),
    ({"XDG_CACHE_HOME": "/x/xdg"}, "/x/xdg/fel-rules"),
    ({"XDG_CACHE_HOME": "relativo"}, "HOME/.cache/fel-rules"),
    ({}, "HOME/.cache/fel-rules"),
    ({"FEL_RULES_CACHE_DIR": "/x/c", "FEL_RULES_NO_CACHE": "1"}, None),
    ({"FEL_RULES_NO_CACHE": "0"}, "HOME/.cache/fel-rules"),
])
def test_where_the_cache_lives(monkeypatch, tmp_path, variables, expected):
    for name in ("FEL_RULES_CACHE_DIR", "XDG_CACHE_HOME", "FEL_RULES_NO_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    folder = cache.cache_folder()
    assert (None if folder is None else str(folder)) == (
        None if expected is None else expected.replace("HOME", str(tmp_path)))


def _validate(folder: Path, *arguments: str) -> subprocess.CompletedProcess:
    env = {**os.environ, cache.CACHE_DIR_VARIABLE: str(folder)}
    env.pop(cache.NO_CACHE_VARIABLE, None)  # these tests are about the cache: on, even when the suite runs without
    return subprocess.run([sys.executable, "-m", "fel_rules", "validate", *arguments, "--format", "json"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def _without_run(output: str) -> dict:
    data = json.loads(output)
    data.pop("run")
    return data


def test_one_shot_runs_write_the_cache_then_read_it(tmp_path):
    folder = tmp_path / "cache"
    first = _validate(folder, str(VALID))
    written = sorted(path.name for path in folder.iterdir())
    assert first.returncode == 0 and first.stderr == ""
    assert "messages.pickle" in written and any(name.startswith("rules-") for name in written)
    stamps = {path.name: path.stat().st_mtime_ns for path in folder.iterdir()}
    second = _validate(folder, str(VALID))
    assert second.returncode == 0 and _without_run(second.stdout) == _without_run(first.stdout)
    assert {path.name: path.stat().st_mtime_ns for path in folder.iterdir()} == stamps, "read, not rewritten"


def test_one_shot_runs_see_an_edited_rule_file(tmp_path, rules_dir):
    folder = tmp_path / "cache"
    assert _validate(folder, str(VALID), "--rules-dir", str(rules_dir)).returncode == 0
    path = rules_dir / "data" / "impuestos.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace('factor: "0.12"', 'factor: "0.13"', 1), encoding="utf-8")
    after = _validate(folder, str(VALID), "--rules-dir", str(rules_dir))
    assert after.returncode == 1 and "FEL-IVA-01" in after.stdout


def test_an_unpicklable_value_is_simply_not_kept(cache_dir):
    cache.write_entry("probe", bytes(32), lambda: None)
    assert cache.read_entry("probe", bytes(32)) is None


def test_entries_pickle_nothing_but_what_fel_rules_allows(cache_dir, rules_dir):
    fresh(rules_dir)
    (entry,) = entries(cache_dir)
    names = set()

    class Spy(pickle.Unpickler):
        def find_class(self, module, name):
            names.add(module)
            return super().find_class(module, name)

    header = len(cache._MAGIC) + 64
    Spy(io.BytesIO(entry.read_bytes()[header:])).load()
    assert {module for module in names if not module.startswith("fel_rules.")} <= {"ast", "decimal", "functools",
                                                                                   "datetime"}


@pytest.mark.parametrize("source", ["a.b", "a[0]", "(lambda: 1)()", "abs(a, key=a)", "__import__('os')", "x + a",
                                    "[i for i in a]", "a ** 2", "{'k': a}", "(b := a)", "f'{a}'"])
def test_a_tree_read_back_is_refused_outside_the_language(source):
    with pytest.raises(ExpressionError):
        recheck(ast.parse(source).body[0], frozenset({"a"}))


def test_every_shipped_expression_passes_the_check_it_gets_when_read_back():
    expressions = []
    for rule in loader._load_catalog(BUILTIN_RULES_DIR, None).rules:
        check = rule.check
        expressions += [getattr(check, name, None) for name in ("when", "assertion", "expected", "actual", "tolerance")]
        expressions += [binding.value for binding in getattr(check, "bindings", ())]
    expressions = [expression for expression in expressions if expression is not None]
    assert len(expressions) > 100
    for expression in expressions:
        recheck(expression.node, expression.names)


def test_a_library_is_stamped_without_being_imported(tmp_path, monkeypatch):
    library = tmp_path / "biblioteca_de_prueba"
    library.mkdir()
    (library / "__init__.py").write_text("VERSION = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    origin = cache._origin("biblioteca_de_prueba")
    before = cache._stamp(origin)
    assert origin == str(library / "__init__.py") and "biblioteca_de_prueba" not in sys.modules
    (library / "__init__.py").write_text("VERSION = 22\n", encoding="utf-8")
    assert cache._stamp(origin) != before
    assert cache._stamp(None) == cache._stamp(str(tmp_path / "nada.py")) == "-"


def test_an_entry_is_read_with_room_for_its_size_and_refused_past_the_cap(tmp_path, monkeypatch):
    import tracemalloc

    entry = tmp_path / "entry"
    entry.write_bytes(b"e" * 1000)
    entry.chmod(0o600)
    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        tracemalloc.start()
        try:
            assert cache._read_private("entry", folder) == b"e" * 1000
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 1024 * 1024  # a read of "cap + 1" bytes reserved 64 MB for this entry
        monkeypatch.setattr(cache, "_MAX_ENTRY_BYTES", 999)
        assert cache._read_private("entry", folder) is None  # larger than the cap, as its size says
        monkeypatch.setattr(cache.os, "fstat", stale_fstat(10))
        assert cache._read_private("entry", folder) is None  # it grew past the cap after fstat
        monkeypatch.setattr(cache, "_MAX_ENTRY_BYTES", 1000)
        assert cache._read_private("entry", folder) == b"e" * 1000
    finally:
        os.close(folder)


def test_the_schema_sets_decision_guard_is_kept_and_read_back(cache_dir, monkeypatch):
    """The guard of the built-in schema set is read from the schema documents once, then from the cache (the same
    guard); other documents make another key."""
    from fel_rules.document import schema
    from fel_rules.document.schema_guard import DecisionGuard

    built = schema._builtin_guard()
    assert built.texts and built.attributes
    read = []
    monkeypatch.setattr(DecisionGuard, "of_schema", classmethod(lambda cls, documents: read.append(1) or built))
    assert schema._builtin_guard() == built and read == []
    monkeypatch.setattr(schema, "_XMLSCHEMA_DSIG", None)  # other schema documents: another key
    schema._builtin_guard()
    assert read == [1]

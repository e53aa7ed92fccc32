"""The names of the path finders' generated code: those a process makes stay unique, and a name always reaches its
own value, when several threads build finders at once (the MCP server runs tool calls in threads); the text of a
generated function is the same whatever was built before it, so that its cached code object is found again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from fel_rules.checks import _finders
from fel_rules.core.namespaces import DTE

NAMESPACES = {"dte": DTE}


@pytest.fixture
def frequent_switches():
    """Threads switched as often as the interpreter allows, so that a race shows in a short test."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _in_threads(work, count: int = 8) -> list:
    results: list = [None] * count
    start = threading.Barrier(count)

    def run(index: int) -> None:
        start.wait()
        results[index] = work(index)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_each_constant_name_reaches_its_own_value_across_threads(frequent_switches):
    def work(index: int) -> list[tuple[str, str]]:
        values = [f"finder-names-{index}-{n}" for n in range(5_000)]
        return [(value, _finders._constant(value)) for value in values]

    for pairs in _in_threads(work):
        for value, name in pairs:
            assert _finders._NAMESPACE[name] == value


def test_the_same_constant_has_one_name_across_threads(frequent_switches):
    shared = [f"finder-shared-{n}" for n in range(2_000)]
    made = _in_threads(lambda _: [_finders._constant(value) for value in shared])
    assert all(names == made[0] for names in made)


@pytest.fixture
def generated(monkeypatch):
    """``generated(paths)``: the texts of the functions generated for ``paths``' finders, in the order compiled."""
    texts: list[str] = []
    real = _finders.compiled
    monkeypatch.setattr(_finders, "compiled", lambda text, name: texts.append(text) or real(text, name))

    def build(paths: list[str]) -> list[str]:
        texts.clear()
        for path in paths:
            assert _finders.path_finder(path, NAMESPACES) is not None
        return list(texts)

    return build


def test_a_generated_function_reads_its_names_in_its_own_numbering(generated):
    first = generated(["/dte:A/dte:B[dte:C = 'numbering-one'][@d != 3]/dte:E"])
    generated([f"/dte:A/dte:F[dte:G = 'other-{n}']" for n in range(20)])  # more names made meanwhile
    again = generated(["/dte:A/dte:B[dte:C = 'numbering-two'][@d != 4]/dte:E"])
    assert first and again == first  # (other values, the same text: one code object for both)
    assert not any(_finders._MADE_NAME.search(text) for text in first)  # (no name of the process's numbering)


_TEXTS_OF = """
import json, sys
from fel_rules.checks import _finders
texts = []
real = _finders.compiled
_finders.compiled = lambda text, name: texts.append(text) or real(text, name)
for path in json.loads(sys.argv[1]):
    _finders.path_finder(path, {"dte": sys.argv[2]})
print(json.dumps(sorted(set(texts))))
"""


def test_the_texts_do_not_depend_on_what_the_process_built_first():
    paths = ["/dte:A/dte:B[dte:C = 'x' or dte:D]/dte:E", "/dte:A/dte:B[@n = 1]", "count(/dte:A/dte:G[dte:H != 2])",
             "/dte:A/dte:B[not(dte:I = /dte:A/dte:J)]/dte:K"]

    def texts(order: list[str]) -> list[str]:
        run = subprocess.run([sys.executable, "-c", _TEXTS_OF, json.dumps(order), DTE], capture_output=True,
                             text=True, check=True, env={**os.environ, "FEL_RULES_NO_CACHE": "1"})
        return json.loads(run.stdout)

    forward = texts(paths)
    assert forward and texts(paths[::-1]) == forward

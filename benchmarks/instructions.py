"""Benchmark of in-process validation counted in machine instructions: the same on a quiet machine and a busy one.

Run from the repository root: ``python -m benchmarks.instructions [--documents 1,10,cert]``. Needs ``valgrind``
(Debian's package). For a FACT with 1 and 10 lines and for the signed certified example, it prints the
instructions a validation takes (``validate_bytes`` in a validator's steady state, as :mod:`benchmarks.validate`
times it) and the floor's (lxml parse + libxml2 validation of the same bytes), and their ratio. Each figure is
the difference between two runs of the same process under valgrind's cachegrind, one validating
:data:`MORE` documents more than the other, divided by :data:`MORE`: start-up and warm-up cancel out. The rule
cache is filled first, and hashing is seeded, so a figure repeats to within a few tenths of a percent.

Instructions are not time: the interpreter runs fewer of them per cycle than libxml2's loops, so the ratio of times
(:mod:`benchmarks.validate`) is about twice this one. What this shows, free of a shared machine's noise, is
whether a change makes a document's work smaller, and by how much. Nothing here asserts anything.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: Documents the larger run validates beyond the smaller one's.
MORE = 100
_FEWER = 20
_ROOT = Path(__file__).resolve().parent.parent
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", default="1,10,cert",
                        help="which documents: 1 and 10 (FACT lines), cert (signed certified); comma-separated")
    parser.add_argument("--child", nargs=3, metavar=("DOCUMENT", "MODE", "COUNT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        document, mode, count = args.child
        _run(document, mode, int(count))
        return
    if shutil.which("valgrind") is None:
        sys.exit("benchmarks.instructions needs valgrind (apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="fel-rules-instructions-") as cache:
        environment = {**os.environ, "FEL_RULES_CACHE_DIR": cache, "PYTHONHASHSEED": "0"}
        print(f"{'document':>18} {'pipeline':>12} {'floor':>10} {'pipeline/floor':>15}")
        for document in args.documents.split(","):
            subprocess.run([sys.executable, "-m", "benchmarks.instructions", "--child", document, "pipeline", "1"],
                           cwd=_ROOT, env=environment, check=True)  # (the rule cache filled, outside valgrind)
            pipeline = _per_document(document, "pipeline", environment)
            floor = _per_document(document, "floor", environment)
            print(f"{_NAMES[document]:>18} {pipeline:>12,} {floor:>10,} {pipeline / floor:>14.2f}×")
    print(f"\ninstructions a document, valgrind --tool=cachegrind: (run of {_FEWER + MORE} − run of {_FEWER}) / "
          f"{MORE}; floor = lxml parse + libxml2 validation of the same bytes.")


_NAMES = {"1": "FACT 1 line", "10": "FACT 10 lines", "cert": "signed certified"}


def _per_document(document: str, mode: str, environment: dict[str, str]) -> int:
    fewer = _instructions(document, mode, _FEWER, environment)
    more = _instructions(document, mode, _FEWER + MORE, environment)
    return (more - fewer) // MORE


def _instructions(document: str, mode: str, count: int, environment: dict[str, str]) -> int:
    """Instructions of a whole child process validating ``count`` documents (after its warm-up)."""
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, "-m", "benchmarks.instructions", "--child", document, mode, str(count)],
        cwd=_ROOT, env=environment, capture_output=True, text=True, check=True)
    found = _REFS.search(done.stderr)
    if found is None:
        raise RuntimeError(f"valgrind printed no instruction count:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def _run(document: str, mode: str, count: int) -> None:
    """In the child: warm up as :mod:`benchmarks.validate` does, then validate (or parse and validate with libxml2
    alone) ``count`` times."""
    from lxml import etree

    from benchmarks.validate import EXAMPLES_DIR, invoice
    from fel_rules import Config, Validator
    from fel_rules.checks import PLAN_FUNCTION_AFTER

    data = (EXAMPLES_DIR / "factura-certificada.xml").read_bytes() if document == "cert" else invoice(int(document))
    validator = Validator(Config(schema_engine="auto"))
    for _ in range(PLAN_FUNCTION_AFTER + 20):
        validator.validate_bytes(data)
    if mode == "floor":
        decider = validator.schema_set.decider
        for _ in range(count):
            decider.validate(etree.fromstring(data))
    else:
        for _ in range(count):
            validator.validate_bytes(data)


if __name__ == "__main__":
    main()

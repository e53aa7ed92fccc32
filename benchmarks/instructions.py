"""Benchmark of in-process validation in instructions per document: figures a busy machine does not move.

Run from the repository root: ``python -m benchmarks.instructions [--documents 1,10,100,cert] [--count 40]
[--stages pipeline,floor] [--against CHECKOUT]``. Needs Valgrind (Debian's ``valgrind``). For a FACT with 1, 10
and 100 lines and for the signed certified example it prints the instructions (thousands, counted by Valgrind's
cachegrind) one document costs in a validator's steady state: the whole pipeline, each stage (parse, schema, facts,
rules) and the floor (lxml parse + libxml2 validation of the same bytes), with the ratio pipeline/floor.

Each figure is a difference of two runs of a child process under Valgrind that do the same warm-up (the
document validated until its rule plan's function is made, every stage run once) and then run the measured
stage ``--count`` times or not at all: start-up and warm-up cancel out, and with a fixed hash seed and the
same bytes a checkout's count repeats to within some 0.3 %. Between checkouts, even the floor (the same
library calls) can differ by a few percent (where the interpreter happens to place its memory): read a change in the
pipeline against the change in the floor. Instructions are not time: the interpreter runs fewer of them
a cycle than libxml2's loops, so a ratio of times (:mod:`benchmarks.validate`, what users wait for) is about
twice the ratio of instructions. What these figures show, free of a shared machine's noise, is whether a change
makes a document's work smaller, and by how much. ``--against`` measures other checkouts (each with its own
``.venv`` if it has one) on the same documents, side by side. Nothing asserts figures.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks.validate import EXAMPLES_DIR, invoice

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("pipeline", "parse", "schema", "facts", "rules", "floor")

#: The child: ``python -c CHILD document stage count rules_dir``. Warms the validator up on the document (with the
#: checkout's own rules), runs every stage once, then ``stage`` ``count`` times. Reaches the engine's stages as
#: :mod:`benchmarks.validate` does; a checkout without one of them reports it missing (``-``) rather than failing.
CHILD = """
import sys
from pathlib import Path
from lxml import etree
from fel_rules import Config, Validator
data, stage, count = Path(sys.argv[1]).read_bytes(), sys.argv[2], int(sys.argv[3])
validator = Validator(Config(schema_engine="auto", rules_dir=Path(sys.argv[4])))
try:
    for _ in range(3):
        validator._inspect(data, "bench.xml", lines=False, plan_function=True)
except (AttributeError, TypeError):  # (a checkout without plan functions on demand: as many as make one)
    for _ in range(300):
        validator.validate_bytes(data)
actions = {"pipeline": lambda: validator.validate_bytes(data)}
try:
    from fel_rules.document.facts import extract_facts
    from fel_rules.document.parse import parse_xml
    from fel_rules.document.schema import check_schema
    max_bytes, schema_set = validator.config.max_bytes, validator.schema_set
    root = parse_xml(data, max_bytes=max_bytes).root
    header = extract_facts(root, lines=False)
    floor = schema_set.decider
    actions.update({
        "parse": lambda: parse_xml(data, max_bytes=max_bytes),
        "schema": lambda: check_schema(schema_set, root, source=data),
        "facts": lambda: extract_facts(root, lines=False),
        "rules": lambda: validator._run_rules(root, header, data, {}),
        "floor": lambda: floor.validate(etree.fromstring(data)),
    })
except (ImportError, AttributeError, TypeError):
    pass
if stage not in actions:
    sys.exit(3)
for action in actions.values():
    action()
for _ in range(count):
    actions[stage]()
"""

_REFS = re.compile(rb"I\s+refs:\s+([\d,]+)")
DOCUMENTS = {"1": "FACT 1 line", "10": "FACT 10 lines", "100": "FACT 100 lines", "cert": "signed certified"}


def _document(name: str) -> bytes:
    return (EXAMPLES_DIR / "factura-certificada.xml").read_bytes() if name == "cert" else invoice(int(name))


class Checkout:
    """A checkout to measure: its root, its interpreter, and a cache folder of its own (warmed before counting)."""

    def __init__(self, root: Path, scratch: Path, number: int) -> None:
        self.root = root
        venv = root / ".venv" / "bin" / "python"
        self.python = str(venv) if venv.exists() else sys.executable
        #: Its own rules, named: with another checkout's interpreter, the import system would find that one's.
        self.rules = root / "rules"
        self.environment = {**os.environ, "FEL_RULES_CACHE_DIR": str(scratch / f"cache-{number}"),
                            "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
        subprocess.run([self.python, "-m", "compileall", "-q", "fel_rules", "mcp_server"], cwd=root,
                       stdout=subprocess.DEVNULL, check=False)

    def warm(self, document: Path) -> None:
        """One run outside Valgrind: the caches on disk (rules, code) written before anything is counted."""
        subprocess.run([self.python, "-c", CHILD, str(document), "pipeline", "0", str(self.rules)], cwd=self.root,
                       env=self.environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)

    def instructions(self, document: Path, stage: str, count: int) -> int | None:
        """Instructions of a child run under Valgrind (``None``: the stage is missing in this checkout)."""
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                   self.python, "-c", CHILD, str(document), stage, str(count), str(self.rules)]
        run = subprocess.run(command, cwd=self.root, env=self.environment, capture_output=True, check=False)
        found = _REFS.search(run.stderr)
        if run.returncode == 3:
            return None
        if run.returncode != 0 or found is None:
            said = run.stderr.decode(errors="replace")[-2000:]
            raise SystemExit(f"{self.root}: the child failed on {stage}:\n{said}")
        return int(found.group(1).replace(b",", b""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", default="1,10,100,cert",
                        help="which documents: 1, 10, 100 (FACT lines), cert (signed certified); comma-separated")
    parser.add_argument("--count", type=int, default=40, help="documents counted per figure")
    parser.add_argument("--stages", default=",".join(STAGES), help=f"comma-separated, among {', '.join(STAGES)}")
    parser.add_argument("--against", type=Path, action="append", default=[], metavar="CHECKOUT",
                        help="another checkout to measure alongside (repeatable)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="Valgrind runs at once")
    args = parser.parse_args()
    stages = [stage.strip() for stage in args.stages.split(",") if stage.strip()]
    unknown = sorted(set(stages) - set(STAGES))
    if unknown:
        parser.error(f"unknown stage(s): {', '.join(unknown)}")
    chosen = [name.strip() for name in args.documents.split(",") if name.strip()]
    if not chosen or not set(chosen) <= set(DOCUMENTS):
        parser.error(f"--documents: among {', '.join(DOCUMENTS)}")
    if shutil.which("valgrind") is None:
        raise SystemExit("Valgrind is not installed (Debian: apt-get install valgrind); nothing measured.")
    scratch = Path(tempfile.mkdtemp(prefix="fel-rules-instructions-"))
    try:
        _run(args, stages, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run(args: argparse.Namespace, stages: list[str], scratch: Path) -> None:
    checkouts = [Checkout(ROOT, scratch, 0),
                 *(Checkout(path.resolve(), scratch, number) for number, path in enumerate(args.against, start=1))]
    names = [part.strip() for part in args.documents.split(",") if part.strip()]
    documents = [(DOCUMENTS[name], _document(name)) for name in names]
    files = []
    for number, (_, data) in enumerate(documents):
        files.append(scratch / f"document-{number}.xml")
        files[-1].write_bytes(data)
    for checkout in checkouts:  # every document: a signed one fills the certificate cache on its first run
        for file in files:
            checkout.warm(file)
    runs = [(c, f, stage, count) for c in checkouts for f in files
            for stage, count in [("pipeline", 0), *((stage, args.count) for stage in stages)]]
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        counted = dict(zip(runs, pool.map(lambda run: run[0].instructions(*run[1:]), runs), strict=True))

    def per_document(checkout: Checkout, file: Path, stage: str) -> float | None:
        measured, base = counted[(checkout, file, stage, args.count)], counted[(checkout, file, "pipeline", 0)]
        return None if measured is None or base is None else (measured - base) / args.count / 1000

    names = ["this checkout", *(str(path) for path in args.against)]
    for checkout, name in zip(checkouts, names, strict=True):
        print(f"\n{name}: thousands of instructions per document")
        ratio = "pipeline" in stages and "floor" in stages
        header = f"{'document':>18}" + "".join(f"{stage:>10}" for stage in stages)
        print(header + (f"{'pipe/floor':>12}" if ratio else ""))
        for (label, _), file in zip(documents, files, strict=True):
            figures = {stage: per_document(checkout, file, stage) for stage in stages}
            cells = "".join(f"{'-' if value is None else f'{value:,.0f}':>10}" for value in figures.values())
            if ratio and figures["pipeline"] and figures["floor"]:
                cells += f"{figures['pipeline'] / figures['floor']:>11.1f}×"
            print(f"{label:>18}{cells}")
    if len(checkouts) > 1 and "pipeline" in stages:
        print("\npipeline, against this checkout (instructions of each / this one's):")
        for (label, _), file in zip(documents, files, strict=True):
            here = per_document(checkouts[0], file, "pipeline")
            others = [per_document(checkout, file, "pipeline") for checkout in checkouts[1:]]
            print(f"{label:>18}" + "".join(f"{'-' if not (here and other) else f'{other / here:.3f}':>12}"
                                           for other in others))
    print("\ninstructions counted by Valgrind (cachegrind) in the difference of two runs; the floor is lxml parse +"
          "\nlibxml2 validation of the same bytes. Repeats to some 0.3 % in a checkout; memory stalls not weighed.")


if __name__ == "__main__":
    main()

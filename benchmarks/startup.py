"""Benchmark of the time to a first answer: the MCP server from spawn, and a one-shot CLI validation.

Run from the repository root: ``python -m benchmarks.startup [--runs 10] [--against CHECKOUT]``. Prints medians
(ms) of

* ``fel-rules serve`` (and ``python -m mcp_server``): spawn → ``initialize`` response, and spawn → the first
  ``fel_validate`` result on the signed certified example (what an AI host waits for), and the server's resident
  memory (VmRSS) once it answered;
* ``fel-rules validate examples/factura-certificada.xml``: the whole process;
* where a one-shot run spends its time, measured inside one process: importing the CLI and the engine, loading the
  rules, compiling the schema set, validating;
* references measured in the same run: ``python -c pass`` (the interpreter alone), ``python -c "import lxml.etree"``
  and the floor of the libraries a validation of a signed document cannot do without (lxml, PyYAML, cryptography's
  X.509 and a first pydantic model), with each figure's ratio to the bare interpreter.

``--against`` measures other checkouts (with its own ``.venv``) in the same run, interleaved, for a before/after
comparison. Nothing here asserts timings.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = "examples/factura-certificada.xml"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "benchmark", "version": "1"}}}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "fel_validate", "arguments": {"xml_path": DOCUMENT}}}
#: Run inside one process of the measured checkout: prints the milliseconds of each phase of a one-shot run.
#: The libraries a one-shot validation of a signed document needs, and pydantic's one-time cost of a first model.
FLOOR = ("import lxml.etree, yaml, cryptography.x509\nfrom pydantic import BaseModel\n"
         "class First(BaseModel):\n    x: int\n")
PHASES = """
import json, sys, time
marks = [("start", time.perf_counter())]
def mark(name): marks.append((name, time.perf_counter()))
import fel_rules.cli.app; mark("import CLI")
from fel_rules.engine import Validator; from fel_rules.core.config import Config; mark("import engine")
validator = Validator(Config()); mark("load rules")
validator.schema_set; mark("schema set (libxml2 where the checkout has it)")
validator.validate_path(sys.argv[1]); mark("validate")
print(json.dumps({name: (at - before) * 1000 for (_, before), (name, at) in zip(marks, marks[1:])}))
"""


class Checkout:
    """A checkout to measure: its root and the interpreter of its ``.venv``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        venv = root / ".venv" / "bin" / "python"
        self.python = str(venv) if venv.exists() else sys.executable

    def process_ms(self, command: list[str]) -> float:
        """Wall time of running ``command`` (after this checkout's interpreter) to its end."""
        start = time.perf_counter()
        subprocess.run([self.python, *command], cwd=self.root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False)
        return (time.perf_counter() - start) * 1000

    def phases(self) -> dict[str, float]:
        """Milliseconds of each phase of a one-shot validation, inside one process."""
        result = subprocess.run([self.python, "-c", PHASES, DOCUMENT], cwd=self.root, capture_output=True,
                                text=True, check=True)
        return json.loads(result.stdout)

    def server_run(self, module: str) -> tuple[float, float, float]:
        """(spawn → initialize, spawn → first fel_validate result, VmRSS in MB once answered) for one fresh
        server started as ``python -m module [serve]``."""
        command = [self.python, "-m", module, *(["serve"] if module == "fel_rules" else []), "--root", str(self.root)]
        start = time.perf_counter()
        server = subprocess.Popen(command, cwd=self.root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(json.dumps(INITIALIZE).encode() + b"\n" + json.dumps(CALL).encode() + b"\n")
        server.stdin.flush()
        server.stdout.readline()
        initialized = (time.perf_counter() - start) * 1000
        reply = json.loads(server.stdout.readline())
        answered = (time.perf_counter() - start) * 1000
        assert reply["result"]["structuredContent"]["valid"], reply
        rss = _rss_mb(server.pid)
        server.stdin.close()
        server.wait(timeout=30)
        return initialized, answered, rss


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(checkout: Checkout, samples: dict[str, list[float]]) -> None:
    """One round of every measurement of ``checkout``, appended to ``samples``."""
    def add(name: str, value: float) -> None:
        samples.setdefault(name, []).append(value)

    add("fel-rules validate one.xml (one shot)", checkout.process_ms(["-m", "fel_rules", "validate", DOCUMENT]))
    for module, label in (("fel_rules", "fel-rules serve"), ("mcp_server", "python -m mcp_server")):
        initialized, answered, rss = checkout.server_run(module)
        add(f"{label}: spawn → initialize", initialized)
        add(f"{label}: spawn → first fel_validate", answered)
        add(f"{label}: VmRSS after the first call (MB)", rss)
    for phase, ms in checkout.phases().items():
        add(f"  one shot, in process: {phase}", ms)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per measurement (median is printed)")
    parser.add_argument("--against", type=Path, action="append", default=[], metavar="CHECKOUT",
                        help="another checkout to measure alongside (repeatable)")
    args = parser.parse_args()

    here = Checkout(ROOT)
    others = [Checkout(path.resolve()) for path in args.against]
    references: dict[str, list[float]] = {}
    results: list[dict[str, list[float]]] = [{} for _ in [here, *others]]
    for _ in range(args.runs):  # interleaved, so a noisy moment touches every figure alike
        references.setdefault("python -c pass (reference)", []).append(here.process_ms(["-c", "pass"]))
        references.setdefault("python -c 'import lxml.etree' (reference)", []).append(
            here.process_ms(["-c", "import lxml.etree"]))
        references.setdefault("lxml+yaml+cryptography+pydantic model (floor)", []).append(
            here.process_ms(["-c", FLOOR]))
        for checkout, samples in zip([here, *others], results, strict=True):
            measure(checkout, samples)
    base = statistics.median(references["python -c pass (reference)"])
    columns = ["this checkout", *(str(other.root) for other in others)]
    print(f"{'measurement':<52}" + "".join(f"{name[-24:]:>26}" for name in columns))
    for name, samples in references.items():
        median = statistics.median(samples)
        print(f"{name:<52}{_cell(name, median, base):>26}")
    for name in results[0]:
        print(f"{name:<52}" + "".join(f"{_cell(name, statistics.median(r[name]), base):>26}" for r in results))


def _cell(name: str, median: float, base: float) -> str:
    if name.endswith("(MB)"):
        return f"{median:.1f} MB"
    return f"{median:.0f} ms" if name.startswith("  ") else f"{median:.0f} ms ({median / base:.1f}×)"


if __name__ == "__main__":
    main()

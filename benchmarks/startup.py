"""Benchmark of the time to a first answer: the MCP server from spawn, and a one-shot CLI validation.

Run from the repository root: ``python -m benchmarks.startup [--runs 10] [--against CHECKOUT]``. Prints medians
(ms) of

* ``fel-rules validate examples/factura-certificada.xml``: the whole process, with a cold cache (a new, empty cache
  folder: what the first run after an install or an edit of the rules pays) and with a warm one (the same
  folder as the run before: every later run), in wall time and in the CPU time the process spent (steadier on a
  busy machine);
* ``fel-rules serve`` (and ``python -m mcp_server``), driven as an AI host drives it (``initialize``; then
  ``notifications/initialized`` and ``tools/list``; then the call, each sent once the answer before it came): spawn
  → ``initialize`` response, spawn → ``tools/list`` response, and spawn → the first ``fel_validate`` result on the
  signed certified example (what the host waits for), with a warm cache (and ``serve`` with a cold one too), the
  server's CPU time by then, and its resident memory (VmRSS) once it answered; and, for a server left idle for a
  second after ``initialize`` (as a host leaves it while its model decides: the server uses that time to warm up),
  its VmRSS then and the round trips of its first two ``fel_validate`` calls and of a ``fel_render`` after them;
* where a one-shot run with a warm cache spends its time, measured inside one process: importing the CLI and the
  engine, loading the rules, compiling the schema set, validating;
* references measured in the same run: ``python -c pass`` (the interpreter alone), ``python -c "import lxml.etree"``
  and the floor of the libraries a validation of a signed document cannot do without (lxml, PyYAML, cryptography's
  X.509 and a first pydantic model), with each figure's ratio to the bare interpreter.

``--against`` measures other checkouts (with its own ``.venv``) in the same run, interleaved, for a before/after
comparison (a checkout without the cache shows the same figure cold and warm). Every run uses cache folders of
this benchmark (``FEL_RULES_CACHE_DIR``), never the user's. Each checkout's modules are byte-compiled first, as an
installed package's are, so that no figure includes compiling them from source (as it would under
``PYTHONDONTWRITEBYTECODE``). Nothing here asserts timings.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = "examples/factura-certificada.xml"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "benchmark", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "fel_validate", "arguments": {"xml_path": DOCUMENT}}}
#: Run inside one process of the measured checkout: prints the milliseconds of each phase of a one-shot run (with
#: the garbage collector paused, as the console script runs ``validate``).
#: The libraries a one-shot validation of a signed document needs, and pydantic's one-time cost of a first model.
FLOOR = ("import lxml.etree, yaml, cryptography.x509\nfrom pydantic import BaseModel\n"
         "class First(BaseModel):\n    x: int\n")
PHASES = """
import gc, json, sys, time
gc.disable()
marks = [("start", time.perf_counter())]
def mark(name): marks.append((name, time.perf_counter()))
import fel_rules.cli.app; mark("import CLI")
from fel_rules.engine import Validator; from fel_rules.core.config import Config; mark("import engine")
validator = Validator(Config()); mark("load rules")
validator.schema_set; mark("schema set (libxml2 where the checkout has it)")
validator.validate_path(sys.argv[1]); mark("validate (+ cryptography where deferred)")
print(json.dumps({name: (at - before) * 1000 for (_, before), (name, at) in zip(marks, marks[1:])}))
"""


class Checkout:
    """A checkout to measure: its root, the interpreter of its ``.venv`` and a warm cache folder of its own."""

    def __init__(self, root: Path, scratch: Path, number: int) -> None:
        self.root = root
        venv = root / ".venv" / "bin" / "python"
        self.python = str(venv) if venv.exists() else sys.executable
        self.scratch = scratch
        self.warm = scratch / f"warm-{number}"
        subprocess.run([self.python, "-m", "compileall", "-q", "fel_rules", "mcp_server"], cwd=root,
                       stdout=subprocess.DEVNULL, check=False)
        self.process_ms(["-m", "fel_rules", "validate", DOCUMENT])  # fills the warm cache

    def environment(self, cache: str) -> dict[str, str]:
        """The environment of a run with the ``warm`` cache folder, or a ``cold`` (new, empty) one."""
        folder = self.warm if cache == "warm" else Path(tempfile.mkdtemp(dir=self.scratch))
        return {**os.environ, "FEL_RULES_CACHE_DIR": str(folder)}

    def process_ms(self, command: list[str], cache: str = "warm") -> float:
        """Wall time of running ``command`` (after this checkout's interpreter) to its end."""
        return self.process(command, cache)[0]

    def process(self, command: list[str], cache: str = "warm") -> tuple[float, float]:
        """(wall time, CPU time: user + system) of running ``command`` (after this checkout's interpreter) to its
        end. The CPU time is what the process itself spent, whatever else the machine was running meanwhile."""
        env = self.environment(cache)
        start = time.perf_counter()
        child = subprocess.Popen([self.python, *command], cwd=self.root, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, env=env)
        _, _, usage = os.wait4(child.pid, 0)
        child.returncode = 0  # reaped here
        return (time.perf_counter() - start) * 1000, (usage.ru_utime + usage.ru_stime) * 1000

    def phases(self) -> dict[str, float]:
        """Milliseconds of each phase of a one-shot validation with a warm cache, inside one process."""
        result = subprocess.run([self.python, "-c", PHASES, DOCUMENT], cwd=self.root, capture_output=True,
                                text=True, check=True, env=self.environment("warm"))
        return json.loads(result.stdout)

    def server_run(self, module: str, cache: str = "warm") -> tuple[float, float, float, float, float]:
        """(spawn → initialize, spawn → tools/list, spawn → first fel_validate result, the server's CPU time by then,
        VmRSS in MB once answered) for one fresh server started as ``python -m module [serve]``, driven as an AI
        host drives it: ``initialize``, then ``notifications/initialized`` and ``tools/list``, then the call, each
        sent once the answer before it came."""
        command = [self.python, "-m", module, *(["serve"] if module == "fel_rules" else []), "--root", str(self.root)]
        env = self.environment(cache)
        start = time.perf_counter()
        server = subprocess.Popen(command, cwd=self.root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env)
        assert server.stdin is not None and server.stdout is not None
        marks = []
        for messages in ((INITIALIZE,), (INITIALIZED, LIST), (CALL,)):
            server.stdin.write(b"".join(json.dumps(message).encode() + b"\n" for message in messages))
            server.stdin.flush()
            reply = json.loads(server.stdout.readline())
            marks.append((time.perf_counter() - start) * 1000)
        assert reply["result"]["structuredContent"]["valid"], reply
        cpu, rss = _cpu_ms(server.pid), _rss_mb(server.pid)
        server.stdin.close()
        server.wait(timeout=30)
        return marks[0], marks[1], marks[2], cpu, rss


    def idle_round_trips(self, idle_s: float = 1.0) -> tuple[float, float, float, float]:
        """Round trips of the first and second fel_validate calls, then of a fel_render call (its PDF written in a
        temporary folder), to a fresh ``fel-rules serve`` (warm cache) that was left idle for ``idle_s`` seconds
        after ``initialize``, as an AI host leaves it while its model decides; and the server's VmRSS (MB) after that
        idle second, before the calls (once its warm-up is done)."""
        with tempfile.TemporaryDirectory(prefix="fel-bench-pdf-") as out:
            command = [self.python, "-m", "fel_rules", "serve", "--root", str(self.root), "--root", out]
            server = subprocess.Popen(command, cwd=self.root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, env=self.environment("warm"))
            assert server.stdin is not None and server.stdout is not None
            server.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
            server.stdin.flush()
            server.stdout.readline()
            time.sleep(idle_s)
            rss = _rss_mb(server.pid)
            render = {"name": "fel_render", "arguments": {"xml_path": DOCUMENT, "out_path": f"{out}/"}}
            trips = []
            for number, call in ((2, CALL), (3, CALL), (4, {**CALL, "params": render})):
                start = time.perf_counter()
                server.stdin.write(json.dumps({**call, "id": number}).encode() + b"\n")
                server.stdin.flush()
                reply = json.loads(server.stdout.readline())
                trips.append((time.perf_counter() - start) * 1000)
                assert reply["result"]["structuredContent"]["valid"], reply
            server.stdin.close()
            server.wait(timeout=30)
        return trips[0], trips[1], trips[2], rss


def _cpu_ms(pid: int) -> float:
    """User + system CPU time of a live process so far (Linux /proc; clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(checkout: Checkout, samples: dict[str, list[float]]) -> None:
    """One round of every measurement of ``checkout``, appended to ``samples``."""
    def add(name: str, value: float) -> None:
        samples.setdefault(name, []).append(value)

    for cache in ("cold", "warm"):
        wall, cpu = checkout.process(["-m", "fel_rules", "validate", DOCUMENT], cache)
        add(f"fel-rules validate one.xml ({cache} cache)", wall)
        add(f"fel-rules validate one.xml ({cache} cache), CPU", cpu)
    for module, label, cache in (("fel_rules", "fel-rules serve", "warm"), ("fel_rules", "fel-rules serve", "cold"),
                                 ("mcp_server", "python -m mcp_server", "warm")):
        initialized, listed, answered, cpu, rss = checkout.server_run(module, cache)
        add(f"{label}: spawn → initialize ({cache})", initialized)
        add(f"{label}: spawn → tools/list ({cache})", listed)
        add(f"{label}: spawn → first fel_validate ({cache})", answered)
        add(f"{label}: first fel_validate ({cache}), CPU", cpu)
        add(f"{label}: VmRSS after the first call ({cache}, MB)", rss)
    first, second, render, rss = checkout.idle_round_trips()
    add("fel-rules serve: VmRSS after 1 s idle (warm-up done, MB)", rss)
    add("fel-rules serve: 1st fel_validate round trip after 1 s idle (warm)", first)
    add("fel-rules serve: 2nd fel_validate round trip after 1 s idle (warm)", second)
    add("fel-rules serve: then 1st fel_render round trip (warm)", render)
    for phase, ms in checkout.phases().items():
        add(f"  one shot, in process: {phase}", ms)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per measurement (median is printed)")
    parser.add_argument("--against", type=Path, action="append", default=[], metavar="CHECKOUT",
                        help="another checkout to measure alongside (repeatable)")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="fel-rules-startup-"))
    try:
        _run(args, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run(args: argparse.Namespace, scratch: Path) -> None:
    here = Checkout(ROOT, scratch, 0)
    others = [Checkout(path.resolve(), scratch, number) for number, path in enumerate(args.against, start=1)]
    references: dict[str, list[float]] = {}
    results: list[dict[str, list[float]]] = [{} for _ in [here, *others]]
    for _ in range(args.runs):  # interleaved, so a noisy moment touches every figure alike
        wall, cpu = here.process(["-c", "pass"])
        references.setdefault("python -c pass (reference)", []).append(wall)
        references.setdefault("python -c pass (reference), CPU", []).append(cpu)
        references.setdefault("python -c 'import lxml.etree' (reference)", []).append(
            here.process_ms(["-c", "import lxml.etree"]))
        references.setdefault("lxml+yaml+cryptography+pydantic model (floor)", []).append(
            here.process_ms(["-c", FLOOR]))
        for checkout, samples in zip([here, *others], results, strict=True):
            measure(checkout, samples)
    base = (statistics.median(references["python -c pass (reference)"]),
            statistics.median(references["python -c pass (reference), CPU"]))
    columns = ["this checkout", *(str(other.root) for other in others)]
    print(f"{'measurement':<62}" + "".join(f"{name[-24:]:>26}" for name in columns))
    for name, samples in references.items():
        median = statistics.median(samples)
        print(f"{name:<62}{_cell(name, median, base):>26}")
    for name in results[0]:
        print(f"{name:<62}" + "".join(f"{_cell(name, statistics.median(r[name]), base):>26}" for r in results))


def _cell(name: str, median: float, base: tuple[float, float]) -> str:
    """A median as printed: MB, ms, or ms and its ratio to the bare interpreter's (wall to wall, CPU to CPU)."""
    if name.endswith("MB)"):
        return f"{median:.1f} MB"
    if name.startswith("  "):
        return f"{median:.0f} ms"
    return f"{median:.0f} ms ({median / base[1 if name.endswith('CPU') else 0]:.1f}×)"


if __name__ == "__main__":
    main()

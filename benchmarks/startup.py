"""Benchmark of the time to a first answer: the MCP server from spawn, and a one-shot CLI validation.

Run from the repository root: ``python -m benchmarks.startup [--runs 10]``. Prints medians (ms) of

* ``fel-rules serve``: spawn → ``initialize`` response, and spawn → the first ``fel_validate`` result on the
  signed certified example (what an AI host waits for), and the server's resident memory once warm;
* ``fel-rules validate examples/factura-certificada.xml``: the whole process;
* references measured in the same run: ``python -c pass`` (the interpreter alone) and
  ``python -c "import lxml.etree"``, with each figure's ratio to the bare interpreter.

Nothing here asserts timings.
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
SERVE = [sys.executable, "-m", "mcp_server", "--root", str(ROOT)]
VALIDATE = [sys.executable, "-m", "fel_rules", "validate", DOCUMENT]
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "benchmark", "version": "1"}}}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "fel_validate", "arguments": {"xml_path": DOCUMENT}}}


def process_ms(command: list[str]) -> float:
    """Wall time of running ``command`` to its end."""
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def server_run() -> tuple[float, float, float]:
    """(spawn → initialize, spawn → first fel_validate result, RSS in MB once answered) for one fresh server."""
    start = time.perf_counter()
    server = subprocess.Popen(SERVE, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per measurement (median is printed)")
    args = parser.parse_args()

    bare, lxml_import, one_shot, initialized, answered, memory = [], [], [], [], [], []
    for _ in range(args.runs):  # interleaved, so a noisy moment touches every figure alike
        bare.append(process_ms([sys.executable, "-c", "pass"]))
        lxml_import.append(process_ms([sys.executable, "-c", "import lxml.etree"]))
        one_shot.append(process_ms(VALIDATE))
        first, result, rss = server_run()
        initialized.append(first)
        answered.append(result)
        memory.append(rss)
    base = statistics.median(bare)
    rows = [
        ("python -c pass (reference)", bare),
        ("python -c 'import lxml.etree' (reference)", lxml_import),
        ("fel-rules validate one.xml (one shot)", one_shot),
        ("serve: spawn → initialize", initialized),
        ("serve: spawn → first fel_validate result", answered),
    ]
    print(f"{'measurement':<44} {'median':>9} {'× python':>9}")
    for name, samples in rows:
        median = statistics.median(samples)
        print(f"{name:<44} {median:>7.0f}ms {median / base:>8.1f}×")
    print(f"{'serve: resident memory after the first call':<44} {statistics.median(memory):>7.1f}MB")


if __name__ == "__main__":
    main()

"""Benchmark of the MCP server against the official SDK server, side by side in one run.

Run from the repository root: ``python -m benchmarks.mcp [--starts 10] [--calls 400]``. For each server
(a fresh process per cold start, one connection for the call series) it prints: cold start to the
``initialize`` response, ``tools/list`` round-trip p50, and ``fel_validate`` round-trip p50 minus the
in-process validation time of the same document measured in this process. Nothing asserts figures.
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

DOCUMENT = "examples/factura-fact.xml"
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}}}
SERVERS = {
    "fel-rules (hand-written)": [sys.executable, "-m", "mcp_server", "--root", str(ROOT)],
    "official SDK (mcp MCPServer)": [sys.executable, str(ROOT / "benchmarks" / "reference" / "sdk_server.py")],
}


class Connection:
    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, cwd=ROOT)
        self.next_id = 1

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def wait(self, request_id: int) -> dict:
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("server closed its output")
            message = json.loads(line)
            if message.get("id") == request_id:
                return message

    def call(self, method: str, params: dict | None = None) -> tuple[float, dict]:
        request_id, self.next_id = self.next_id, self.next_id + 1
        start = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, **({"params": params} if params else {})})
        reply = self.wait(request_id)
        return time.perf_counter() - start, reply

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


def cold_start(command: list[str]) -> float:
    start = time.perf_counter()
    connection = Connection(command)
    connection.send(INIT)
    connection.wait(0)
    elapsed = time.perf_counter() - start
    connection.close()
    return elapsed


def series(command: list[str], calls: int) -> tuple[float, float]:
    connection = Connection(command)
    connection.send(INIT)
    connection.wait(0)
    connection.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    arguments = {"name": "fel_validate", "arguments": {"xml_path": DOCUMENT}}
    for _ in range(20):  # warm-up: imports, schema compile
        connection.call("tools/list", {})
        _, reply = connection.call("tools/call", arguments)
        assert "result" in reply, reply
    listing = sorted(connection.call("tools/list", {})[0] for _ in range(calls))
    validating = sorted(connection.call("tools/call", arguments)[0] for _ in range(calls))
    connection.close()
    return statistics.median(listing), statistics.median(validating)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--calls", type=int, default=400)
    args = parser.parse_args()

    from fel_rules import Validator

    validator = Validator()
    validator.validate_path(ROOT / DOCUMENT)
    samples = []
    for _ in range(args.calls):
        start = time.perf_counter()
        validator.validate_path(ROOT / DOCUMENT)
        samples.append(time.perf_counter() - start)
    in_process = statistics.median(samples)
    print(f"in-process validation of {DOCUMENT}: p50 {in_process * 1000:.3f} ms\n")
    print(f"{'server':<30} {'cold start':>11} {'tools/list p50':>15} {'fel_validate p50':>17} {'overhead p50':>13}")
    for label, command in SERVERS.items():
        starts = sorted(cold_start(command) for _ in range(args.starts))
        listing, validating = series(command, args.calls)
        print(f"{label:<30} {statistics.median(starts) * 1000:>9.1f}ms {listing * 1000:>13.3f}ms "
              f"{validating * 1000:>15.3f}ms {(validating - in_process) * 1000:>11.3f}ms")
    print("\noverhead = fel_validate round trip p50 − in-process validation p50 (JSON-RPC, pipes, serialisation).")


if __name__ == "__main__":
    main()

"""Time and peak memory of fel-rules on every hostile input (the table in SECURITY.md).

Run from the repository root: ``python -m benchmarks.hostile``. Each case is validated in a fresh
process (so peak RSS is that case's), after the schema was compiled in the same process, and timed
around ``validate_path`` only. "growth" is the peak RSS above the process's size once warmed up (imports
and the compiled schema). The first row is a normal invoice, the reference.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.hostile_corpus import CASES

ROOT = Path(__file__).resolve().parent.parent

_MEASURE = r"""
import json, resource, sys, time
from fel_rules import Validator
validator = Validator()
validator.schema_set  # compile first: the case is timed alone
warm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
try:
    report = validator.validate_path(sys.argv[1])
    outcome = {"valid": report.valid, "exit": report.exit_code(),
               "rules": sorted({i.rule_id for i in report.issues if i.severity.value == "error"})}
except Exception as exc:  # e.g. a missing path: the CLI turns it into exit 2
    outcome = {"valid": False, "exit": 2, "rules": [type(exc).__name__]}
elapsed = time.perf_counter() - start
outcome.update(ms=elapsed * 1000, peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
               warm_mb=warm / 1024)
print(json.dumps(outcome))
"""


def measure(path: Path) -> dict:
    output = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], capture_output=True, text=True,
                            cwd=ROOT, timeout=600).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows = [("normal invoice (reference)", ROOT / "examples" / "factura-fact.xml", "valid")]
        for case in CASES:
            rows.append((case.what, case.make(folder), case.answer))
        print("| input | what happens | result | time | peak RSS | growth |")
        print("|---|---|---|---:|---:|---:|")
        for what, path, answer in rows:
            result = measure(path)
            verdict = "valid" if result["valid"] else ", ".join(result["rules"]) + f" (exit {result['exit']})"
            growth = result["peak_mb"] - result["warm_mb"]
            print(f"| {what} | {answer} | {verdict} | {result['ms']:.1f} ms | {result['peak_mb']:.0f} MB "
                  f"| +{growth:.0f} MB |")


if __name__ == "__main__":
    main()

"""Benchmark of batch processing: throughput with 1 and 2 workers, with and without rendering, and peak
memory for 1,000 vs 10,000 files without rendering.

Run from the repository root: ``python -m benchmarks.batch [--files 1000] [--many 10000]``. Invoices are
generated into a temporary folder first (not timed). Each measurement runs in a fresh process so peak
memory (ru_maxrss of the coordinator and of its largest worker) is per run. Nothing asserts figures.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_MEASURE = r"""
import json, resource, sys, time
from pathlib import Path
from fel_rules.batch import BatchOptions, run_batch
from fel_rules.outputs.render import RenderSettings
folder, out, workers, render = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
settings = RenderSettings.from_env({}, logo=Path(sys.argv[5]))
start = time.perf_counter()
result = run_batch(BatchOptions(folder, out, workers=workers, render=render, render_settings=settings, progress=False))
elapsed = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": elapsed, "files": result.summary.files,
                  "coordinator_cpu": usage.ru_utime + usage.ru_stime,
                  "self_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "children_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def generate(folder: Path, count: int) -> None:
    from fel_rules.testing.builder import Invoice, Item

    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        items = [Item.goods(f"Material de construcción {n}-{k}", str(1 + k % 4), f"{20 + (n + k) % 90}.75")
                 for k in range(1, 4 + n % 5)]
        invoice = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items)
        invoice.certify(f"{n:08X}-1111-4222-8333-444455556666", "2026-03-02T09:15:27-06:00")
        (folder / f"factura-{n:05d}.xml").write_bytes(invoice.to_xml())


def measure(folder: Path, workers: int, render: bool) -> dict:
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-c", _MEASURE, str(folder), out, str(workers), "1" if render else "0",
                   str(ROOT / "examples" / "logo.png")]
        output = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--many", type=int, default=10000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        few, many = Path(tmp) / "few", Path(tmp) / "many"
        start = time.perf_counter()
        generate(few, args.files)
        generate(many, args.many)
        print(f"generated {args.files} + {args.many} invoices in {time.perf_counter() - start:.1f} s\n")

        for render in (False, True):
            one = measure(few, 1, render)
            two = measure(few, 2, render)
            print(f"{'validate + render' if render else 'validate only'}, {args.files} files:")
            print(f"  1 worker : {one['files'] / one['seconds']:7.1f} files/s ({one['seconds']:.1f} s)")
            print(f"  2 workers: {two['files'] / two['seconds']:7.1f} files/s ({two['seconds']:.1f} s)"
                  f"  speed-up {one['seconds'] / two['seconds']:.2f}x")
            print(f"  coordinator CPU: {one['coordinator_cpu']:.1f} s (1 worker), "
                  f"{two['coordinator_cpu']:.1f} s (2 workers)\n")

        small = measure(few, 2, False)
        large = measure(many, 2, False)
        print("\nvalidate only, 2 workers, peak memory (coordinator / largest worker):")
        print(f"  {args.files:>6} files: {small['self_mb']:6.1f} MB / {small['children_mb']:6.1f} MB"
              f"  ({small['files'] / small['seconds']:.0f} files/s)")
        print(f"  {args.many:>6} files: {large['self_mb']:6.1f} MB / {large['children_mb']:6.1f} MB"
              f"  ({large['files'] / large['seconds']:.0f} files/s)")
        print(f"  ratio {args.many} / {args.files}: coordinator {large['self_mb'] / small['self_mb']:.2f}x, "
              f"worker {large['children_mb'] / small['children_mb']:.2f}x")


if __name__ == "__main__":
    main()

"""Benchmark of batch processing: files per second with and without PDFs, on 1 and 2 workers, and what the
batch itself costs per file beside the validation; peak memory for few vs many files without rendering.

Run from the repository root: ``python -m benchmarks.batch [--files 400] [--many 0] [--rounds 1]``. Invoices are
generated into a temporary folder first (not timed): certified ones, with their issuer's and certifier's signatures
(what an accountant's folder holds), and the same before certification, unsigned (the last row: what signature checks
cost a batch). Each measurement runs in a fresh process, one after the other in this run, so the ratios compare like
with like; with ``--rounds N`` each row is N pairs of runs (1 and 2 workers, in alternating order) and its medians
are printed: a ratio from one pair moves with the machine's load between the two runs. The "overhead" rows replace
each file's validation with its report computed beforehand (in this benchmark only): what is left is the batch's
own work per file (tasks sent to the workers, reports and journal written, cross-document rules, manifest). With
``--many N`` the peak memory (ru_maxrss of the coordinator and of its largest worker) is compared for ``--files`` vs
N files. Each run's wall time is also split into its phases (plan, warm-up, per-file work, end), timed where the runner
looks them up: the fixed costs that more workers do not shrink. Last, the CPU time of validation alone (each of 2
workers' validation of its share of the inputs, warmed up as the batch warms it) gives the most 2 workers could do
with these files if the batch cost nothing else, and with the run's own plan and warm-up; and the file system's
own cost of an atomic write of a new small file in the run's temporary folder, a reference that varies from one
machine, and one moment, to another. Nothing asserts figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
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
from fel_rules.engine import Validator
from fel_rules.outputs.render import RenderSettings
folder, out, workers, render = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
settings = RenderSettings.from_env({}, logo=Path(sys.argv[5]))
if sys.argv[6] == "1":  # the validation replaced by reports computed beforehand (forked workers inherit them)
    validator = Validator()
    known = {path.name: validator.inspect_path(path, name=path.name) for path in folder.glob("*.xml")}
    Validator.inspect_path = lambda self, path, *, name=None, **_: known[name]
    Validator.inspect_many = lambda self, items, **_: [known[name] for _, name in items]
def cpu(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime
from fel_rules.batch import runner  # the run's phases, timed where the runner looks them up
phases = {}
def timed(name, function):
    def run(*args, **kwargs):
        begin = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            phases[name] = phases.get(name, 0.0) + time.perf_counter() - begin
    return run
for name in ("plan", "warm_up_validator", "process_files"):
    setattr(runner, name, timed(name, getattr(runner, name)))
before = cpu(resource.RUSAGE_SELF)
start = time.perf_counter()
result = run_batch(BatchOptions(folder, out, workers=workers, render=render, render_settings=settings, progress=False))
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "files": result.summary.files, "rendered": result.summary.rendered,
                  "phases": phases,
                  "coordinator_cpu": cpu(resource.RUSAGE_SELF) - before, "workers_cpu": cpu(resource.RUSAGE_CHILDREN),
                  "self_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "children_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""

#: Validation alone of every input, as each of 2 workers validates its share (a validator warmed up as the batch
#: warms it, its plan function made before only when the batch makes it, then each file of the share once, in groups
#: of 24 as the pool's tasks carry them; three rounds): the median CPU time a file, which bounds any batch of these
#: files on that many cores.
_VALIDATION = r"""
import json, statistics, sys, time
from pathlib import Path
from fel_rules.batch import worker
from fel_rules.core.config import Config
files = sorted(Path(sys.argv[1]).glob("*.xml"))
config = Config().to_dict(exclude_none=True)  # (what a batch without options gives its workers)
workers = 2
spent = []
for _ in range(3):
    for share in (files[number::workers] for number in range(workers)):
        worker._VALIDATORS.clear()
        worker._LAST = None
        worker.warm_up_validator(config, plan_function=worker.plan_function_pays(len(files), workers))
        validator = worker.validator_for(config)
        for start in range(0, len(share), 24):  # in groups, as a pool's tasks carry them (some 50 ms of work)
            group = [(path, path.name) for path in share[start:start + 24]]
            begin = time.process_time()
            validator.inspect_many(group, lines=False)  # (a batch without PDFs reads no facts of the lines)
            spent.append((time.process_time() - begin) / len(group))
print(json.dumps({"median": statistics.median(spent)}))
"""


def generate(folder: Path, count: int, *, certified: bool = True) -> None:
    """``count`` invoices of 3 to 7 lines: certified (issuer's and certifier's signatures, some 10 KB) or, with
    ``certified=False``, as an issuer sends them to be certified (no signature, some 5 KB)."""
    from fel_rules.testing.builder import Invoice, Item

    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        items = [Item.goods(f"Material de construcción {n}-{k}", str(1 + k % 4), f"{20 + (n + k) % 90}.75")
                 for k in range(1, 4 + n % 5)]
        invoice = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items)
        if certified:
            invoice.certify(f"{n:08X}-1111-4222-8333-444455556666", "2026-03-02T09:15:27-06:00")
        (folder / f"factura-{n:05d}.xml").write_bytes(invoice.to_xml())


def measure(folder: Path, workers: int, render: bool, precomputed: bool = False) -> dict:
    """One run in a fresh process, its outputs in a new folder beside the inputs, kept until the benchmark ends (the
    temporary folder is removed once, last). Removing each run's outputs before the next made creating files in the
    next runs several times slower on this machine's ext4: the reference write measured after the runs
    (:func:`_file_system`) took 228–414 µs with those removals and 42–43 µs without them. A user's batch does not
    follow thousands of removals in its own output folder's file system, so no run is charged for another's."""
    out = tempfile.mkdtemp(prefix="out-", dir=folder.parent)
    return _last_json(_MEASURE, str(folder), out, str(workers), "1" if render else "0",
                      str(ROOT / "examples" / "logo.png"), "1" if precomputed else "0")


def validation_cost(folder: Path) -> float:
    """Median CPU seconds a worker's validation of one input of ``folder`` takes, in a fresh process."""
    return _last_json(_VALIDATION, str(folder))["median"]


def _last_json(script: str, *args: str) -> dict:
    """The JSON object ``script`` prints last, run in a fresh process from the repository root."""
    command = [sys.executable, "-c", script, *args]
    output = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return json.loads(output.strip().splitlines()[-1])


def _rate(run: dict) -> float:
    return run["files"] / run["seconds"]


def _median_run(runs: list[dict]) -> dict:
    """The run of median speed among ``runs``."""
    return sorted(runs, key=_rate)[len(runs) // 2]


def _phases(run: dict) -> tuple[float, float, float, float]:
    """Milliseconds of the run in plan, warm-up, per-file work and the rest (the end phase)."""
    phases = run["phases"]
    plan, warm_up, files = (phases.get(name, 0.0) * 1000 for name in ("plan", "warm_up_validator", "process_files"))
    return plan, warm_up, files, run["seconds"] * 1000 - plan - warm_up - files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--many", type=int, default=0, help="also compare peak memory with this many files")
    parser.add_argument("--rounds", type=int, default=1,
                        help="pairs of runs (1 worker, 2 workers) per row; the medians are printed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        certified, unsigned = Path(tmp) / "certified", Path(tmp) / "unsigned"
        start = time.perf_counter()
        generate(certified, args.files)
        generate(unsigned, args.files, certified=False)
        print(f"generated {args.files} certified invoices (3 to 7 lines, two signatures each) and {args.files} of the"
              f" same before certification, in {time.perf_counter() - start:.1f} s\n")
        print(f"{'':>34} {'1 worker':>10} {'2 workers':>10} {'2w/1w':>6} {'CPU/file: coord.':>17} {'workers':>8}")
        rows = (("validate", certified, False, False), ("validate + PDF", certified, True, False),
                ("overhead (validation precomputed)", certified, False, True),
                ("overhead + PDF", certified, True, True), ("validate, before certification", unsigned, False, False))
        timelines = []
        for label, inputs, render, precomputed in rows:
            pairs = []
            for round_number in range(max(1, args.rounds)):  # (alternating order: a drifting machine favours neither)
                counts = (1, 2) if round_number % 2 == 0 else (2, 1)
                runs = {workers: measure(inputs, workers, render, precomputed) for workers in counts}
                pairs.append((runs[1], runs[2]))
            one, two = _median_run([one for one, _ in pairs]), _median_run([two for _, two in pairs])
            ratio = statistics.median(_rate(two) / _rate(one) for one, two in pairs)
            coordinator, workers = (two[key] / two["files"] * 1000 for key in ("coordinator_cpu", "workers_cpu"))
            print(f"{label:>34} {_rate(one):>8.0f}/s {_rate(two):>8.0f}/s {ratio:>6.2f} "
                  f"{coordinator:>14.2f} ms {workers:>5.2f} ms")
            timelines.append((label, one, two))
        if args.rounds > 1:
            print(f"\nmedians of {args.rounds} rounds: files/s and CPU/file of the median run, 2w/1w the median of the"
                  " rounds' ratios")
        print("\nfiles/s = files / wall time of run_batch (process start-up and worker warm-up included);"
              "\nCPU/file = CPU time of the coordinating process and of the workers (2 workers, warm-up included)"
              "\nover the files: what a file costs whatever else the machine runs.")
        print(f"\nwall time by phase, ms (1 worker / 2 workers):\n{'':>34} {'plan':>11} {'warm-up':>11} "
              f"{'files':>11} {'end':>11}")
        for label, one, two in timelines:
            print(f"{label:>34} " + " ".join(f"{a:>5.0f}/{b:<5.0f}" for a, b in zip(_phases(one), _phases(two),
                                                                                  strict=True)))
        print("plan: inputs listed, rules and schema loaded; warm-up: the packaged sample validated before the"
              "\nworkers are forked (2 workers only); files: per-file work in the workers; end: cross-document rules,"
              "\nPDFs rendered once verdicts are final, page, ledger and manifest written, outputs flushed to disk.")
        _bound(certified, args.files, timelines[0][2])
        _file_system(Path(tmp) / "writes")
        if args.many:
            _memory(certified, Path(tmp) / "many", args.files, args.many)


def _file_system(folder: Path, count: int = 200) -> None:
    """The reference of the output folder's file system, measured after the runs in the same temporary folder: the
    median wall time of an atomic write of a new 3 KB file (temporary file, then rename), as a report or a journal
    entry is written. It varies between machines, and between moments of a busy one, beyond the program's own
    work: each input of a batch gets two."""
    from fel_rules.core.atomic import write_atomic

    folder.mkdir()
    data = b"x" * 3000
    spent = []
    for number in range(count):
        begin = time.perf_counter()
        write_atomic(folder / f"f{number}.json", data, durable=False)
        spent.append(time.perf_counter() - begin)
    print(f"\nfile system (reference): an atomic write of a new 3 KB file in this run's temporary folder takes"
          f" {statistics.median(spent) * 1e6:.0f} µs (median of {count}); each input gets two (report, journal entry)")


def _bound(folder: Path, count: int, two: dict) -> None:
    """What validation alone allows on 2 workers: the per-file bound, and with the 2-worker run's fixed costs."""
    each = validation_cost(folder)
    plan, warm_up, _, _ = _phases(two)
    fixed = (plan + warm_up) / 1000
    print(f"\nvalidation alone (what a worker's validation of a file of its share costs, CPU median):"
          f" {each * 1000:.2f} ms a file"
          f"\n  bound on 2 workers with nothing else: {2 / each:.0f} files/s;"
          f" with this run's plan and warm-up ({fixed * 1000:.0f} ms) and no other cost: "
          f"{count / (count * each / 2 + fixed):.0f} files/s for {count} files")


def _memory(few: Path, many: Path, count: int, more: int) -> None:
    """Peak memory without rendering: ``count`` files against ``more``."""
    generate(many, more)
    small, large = measure(few, 2, False), measure(many, 2, False)
    print("\nvalidate only, 2 workers, peak memory (coordinator / largest worker):")
    for files, run in ((count, small), (more, large)):
        print(f"  {files:>6} files: {run['self_mb']:6.1f} MB / {run['children_mb']:6.1f} MB ({_rate(run):.0f} files/s)")
    print(f"  ratio {more} / {count}: coordinator {large['self_mb'] / small['self_mb']:.2f}x, "
          f"worker {large['children_mb'] / small['children_mb']:.2f}x")


if __name__ == "__main__":
    main()

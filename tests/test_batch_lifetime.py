"""A batch never outlives itself: killed (SIGKILL), terminated (SIGTERM) or interrupted (Ctrl-C), its worker
processes end with it; SIGTERM and Ctrl-C stop it with one line and the status of the signal, keeping the
journal so that ``--resume`` continues; and a cancelled run stops while a file is still being worked on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fel_rules.batch import BatchCancelled, BatchOptions, run_batch, worker
from fel_rules.outputs.render import RenderSettings
from fel_rules.testing.builder import Invoice, Item

from .conftest import EXAMPLES, ROOT

pytestmark = [pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process groups from /proc"),
              pytest.mark.slow]  # real batch processes stopped by signals

DEADLINE_S = 60  # far above what stopping takes; only leftovers reach it


def living(group: int) -> list[int]:
    """Processes of ``group`` that still run (zombies waiting to be reaped do not count)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # not a process, or gone meanwhile
            continue
        fields = stat.rpartition(")")[2].split()
        if fields[0] != "Z" and int(fields[2]) == group:
            found.append(int(entry.name))
    return found


def wait_until_gone(group: int) -> list[int]:
    """The processes of ``group`` still running at the deadline (killed then, so nothing is left either way)."""
    deadline = time.monotonic() + DEADLINE_S
    while (left := living(group)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("lote") / "entrada"
    folder.mkdir()
    for n in range(60):
        items = [Item.goods(f"Producto {n}-{k}", str(1 + k), f"{10 + n}.50") for k in range(1, 30)]
        (folder / f"f{n:03d}.xml").write_bytes(Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items)
                                               .to_xml())
    return folder


def start_batch(folder: Path, out: Path) -> tuple[subprocess.Popen, Path]:
    """A CLI batch in its own process group, once it has finished a few files (so its workers are busy)."""
    command = [sys.executable, "-m", "fel_rules", "batch", str(folder), "--out", str(out), "--workers", "2",
               "--logo", str(EXAMPLES / "logo.png")]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
                               start_new_session=True)
    journal = out / ".fel-rules" / "journal"
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline and (not journal.is_dir() or len(list(journal.glob("*.json"))) < 4):
        time.sleep(0.02)
    assert len(living(process.pid)) >= 3, "the batch and its two workers are running"
    return process, journal


def stop(process: subprocess.Popen, how: str) -> tuple[int, str]:
    """Send the signal as a user would; the exit status and what was said on stderr."""
    if how == "SIGINT":
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole foreground group
    else:
        os.kill(process.pid, getattr(signal, how))  # kill/systemd: the main process only
    code = process.wait(timeout=DEADLINE_S)
    stderr: list[bytes] = []
    stderr_reader = threading.Thread(target=lambda: stderr.append(process.stderr.read()), daemon=True)
    stderr_reader.start()  # leftovers holding the pipe open must not hang the test
    stderr_reader.join(5)
    return code, (stderr[0] if stderr else b"").decode()


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM", "SIGINT"])
def test_batch_leaves_no_workers_behind(folder, tmp_path, how):
    process, journal = start_batch(folder, tmp_path / "salida")
    code, stderr = stop(process, how)
    left = wait_until_gone(process.pid)
    assert not left, f"{len(left)} worker processes outlived the batch ({how})"
    assert not (tmp_path / "salida" / "manifest.json").exists()
    done = len(list(journal.glob("*.json")))
    assert done >= 4  # the journal is kept…
    if how != "SIGKILL":
        assert code == {"SIGTERM": 143, "SIGINT": 130}[how]
        assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr
        assert "--resume" in stderr
    settings = RenderSettings.from_env({}, logo=EXAMPLES / "logo.png")  # as the command had it
    resumed = run_batch(BatchOptions(input_dir=folder, out_dir=tmp_path / "salida", resume=True, workers=2,
                                     progress=False, render_settings=settings))  # …and --resume finishes
    assert resumed.summary.files == 60 and resumed.exit_code == 0
    assert resumed.manifest.run.reused >= done - 2  # the last journal entries may race the signal


def _slow_process_and_record(task):
    time.sleep(30)  # a file that takes long…
    (Path(task.out_dir) / f"terminado-{task.rel}").touch()  # …and says when it was done
    return worker.process_and_record(task)


def test_a_cancelled_batch_stops_while_a_file_is_still_running(folder, tmp_path, monkeypatch):
    monkeypatch.setattr("fel_rules.batch.runner.process_and_record", _slow_process_and_record)
    cancel = threading.Event()
    threading.Timer(2, cancel.set).start()
    with pytest.raises(BatchCancelled):
        run_batch(BatchOptions(input_dir=folder, out_dir=tmp_path / "salida", workers=2, render=False,
                               progress=False, cancel=cancel))
    assert not list((tmp_path / "salida").glob("terminado-*")), \
        "the batch waited for the files in progress instead of stopping"


def test_a_sigterm_handler_inherited_by_a_forked_worker_ends_it_quietly():
    """A worker forked while the batch's SIGTERM handler is installed, and signalled before it resets its
    handlers, ends as SIGTERM would end it: no `Terminated` traceback from inside the pool's initializer."""
    from fel_rules.cli.app import _raise_terminated

    child = os.fork()
    if child == 0:
        try:
            _raise_terminated(os.getppid(), signal.SIGTERM, None)
        finally:
            os._exit(3)  # reached only when the handler raised or returned
    _, status = os.waitpid(child, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM


def _collector_thresholds(_item) -> tuple[int, ...]:
    import gc

    return gc.get_threshold()


def test_workers_collect_garbage_less_often_than_python_does_and_the_batch_keeps_its_own():
    import gc

    from fel_rules.batch.executors import WORKER_GC_THRESHOLDS, LocalExecutor

    own = gc.get_threshold()
    executor = LocalExecutor(2)
    try:
        seen = set(executor.run(_collector_thresholds, range(4)))
    finally:
        executor.close()
    assert seen == {WORKER_GC_THRESHOLDS}
    assert WORKER_GC_THRESHOLDS[0] > 700 and gc.get_threshold() == own

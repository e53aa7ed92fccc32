"""Faults for tests/test_faults.py, in a module batch workers can import (forked or spawned alike).

* :func:`faulty_io` gives a stand-in for the ``os`` module used by :mod:`fel_rules.core.atomic`:
  writes to matching paths fail like a full disk (``ENOSPC`` half-way through the data, so a partial
  temporary file really exists), a read-only file system (``EROFS`` when the file is created) or a
  folder without write permission (``EACCES`` at the final rename). The tests run as root, where
  ``chmod 0o555`` stops nothing, hence the simulation.
* :func:`stale_fstat` gives a stand-in for ``os.fstat`` that tells a file's size as it was before the file grew.
* The per-file batch functions below replace ``fel_rules.batch.runner.process_and_record``: they install
  a fault in the worker process, kill it, or delete the output folder, depending on the file's name.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path

import fel_rules.core.atomic as atomic
from fel_rules.batch import runner, worker

_render_task = runner._render_task  # the original, kept before a test replaces it

KILL_MARK = "mata-al-proceso"  # the worker processing this file always dies (SIGKILL)
KILL_ONCE_MARK = "muere-una-vez"  # ... dies the first time only
DELETE_OUT_MARK = "borra-la-salida"  # processing this file first deletes the whole output folder (once)
DELETE_SUB_MARK = "borra-subcarpeta"  # ... deletes the output subfolder "marzo" (once)
STUCK_MARK = "a-medio-escribir"  # the worker processing this file stops half-way through writing its report


class _Module:
    """A module with some functions replaced."""

    def __init__(self, module, **overrides) -> None:
        self._module = module
        self.__dict__.update(overrides)

    def __getattr__(self, name: str):
        return getattr(self._module, name)


class _FullDisk:
    """A file stream on a disk that fills up: half the data lands, then ``ENOSPC``."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        self._stream.write(data[: len(data) // 2])
        self._stream.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name: str):
        return getattr(self._stream, name)

    def __enter__(self) -> _FullDisk:
        return self

    def __exit__(self, *exc_info) -> None:
        self._stream.close()


def stale_fstat(size: int) -> Callable[[int], os.stat_result]:
    """A stand-in for ``os.fstat`` that says every file holds ``size`` bytes (what it held before it grew)."""
    real = os.fstat

    def measured_before_it_grew(descriptor: int) -> os.stat_result:
        seen = real(descriptor)
        return os.stat_result((seen.st_mode, seen.st_ino, seen.st_dev, seen.st_nlink, seen.st_uid, seen.st_gid, size,
                               seen.st_atime, seen.st_mtime, seen.st_ctime))

    return measured_before_it_grew


def faulty_io(kind: str, match: Callable[[Path], bool] = lambda target: True) -> _Module:
    """An ``os`` stand-in for :mod:`fel_rules.core.atomic`: writes whose target ``match`` fail with ``kind``
    (``ENOSPC``, ``EROFS`` or ``EACCES``). Paths are names relative to the folder's descriptor."""
    doomed: set[int] = set()

    def open(name, flags, mode=0o777, *, dir_fd=None):  # noqa: A001 - os.open's name
        target = Path(name[1:].rsplit(".fel-", 1)[0])  # atomic_writer's temporary is ".<name>.fel-<random>.tmp"
        creating = flags & os.O_CREAT
        if creating and kind == "EROFS" and match(target):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), name)
        handle = os.open(name, flags, mode, dir_fd=dir_fd)
        if creating and kind == "ENOSPC" and match(target):
            doomed.add(handle)
        return handle

    def fdopen(handle: int, *args, **kwargs):
        stream = os.fdopen(handle, *args, **kwargs)
        if handle in doomed:
            doomed.discard(handle)
            return _FullDisk(stream)
        return stream

    def replace(source, target, **kwargs) -> None:
        if kind == "EACCES" and match(Path(target)):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(target))
        os.replace(source, target, **kwargs)

    return _Module(os, open=open, fdopen=fdopen, replace=replace)


def _install(kind: str, suffix: str) -> None:
    """Put the fault into this (worker) process for writes whose name ends with ``suffix``."""
    if getattr(atomic, "_test_fault", None) != (kind, suffix):
        atomic.os = faulty_io(kind, lambda target: target.name.endswith(suffix))
        atomic._test_fault = (kind, suffix)


# --- per-file batch functions (stand-ins for fel_rules.batch.worker.process_and_record) ------------------


def pdf_disk_full(task: worker.FileTask) -> worker.Brief:
    """The disk is full for PDFs (they are the big files); reports and the journal still fit."""
    _install("ENOSPC", ".pdf")
    return worker.process_and_record(task)


def pdf_disk_full_render(task: worker.FileTask) -> tuple[str, str | None, str | None]:
    """The same fault for the PDFs the batch renders after the cross-document rules."""
    _install("ENOSPC", ".pdf")
    return _render_task(task)


def disk_full(task: worker.FileTask) -> worker.Brief:
    """Nothing can be written any more."""
    _install("ENOSPC", "")
    return worker.process_and_record(task)


def read_only(task: worker.FileTask) -> worker.Brief:
    """The output folder is on a read-only file system."""
    _install("EROFS", "")
    return worker.process_and_record(task)


def stuck_or_disk_full(task: worker.FileTask) -> worker.Brief:
    """The marked file hangs half-way through an atomic write (its temporary file exists); any other file
    waits until that is so, then finds the disk full, which stops the batch with the first worker still writing."""
    out = Path(task.out_dir)
    if STUCK_MARK in task.rel:
        with atomic.atomic_writer(out / f"{task.rel}.json") as stream:
            stream.write(b"{")
            stream.flush()
            time.sleep(120)  # never reached the end: the batch stops this worker
    deadline = time.monotonic() + 30
    while not any(out.glob("*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.01)
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(out / f"{task.rel}.json"))


def kill_worker(task: worker.FileTask) -> worker.Brief:
    """The worker dies (SIGKILL, as the out-of-memory killer does) on the marked files."""
    if KILL_MARK in task.rel:
        os.kill(os.getpid(), signal.SIGKILL)
    if KILL_ONCE_MARK in task.rel and _first_time(task, "murio"):
        os.kill(os.getpid(), signal.SIGKILL)
    return worker.process_and_record(task)


def delete_output(task: worker.FileTask) -> worker.Brief:
    """Someone deletes the output folder (or one of its subfolders) while the batch runs."""
    if DELETE_OUT_MARK in task.rel and _first_time(task, "borro"):
        shutil.rmtree(task.out_dir)
    if DELETE_SUB_MARK in task.rel and _first_time(task, "borro"):
        shutil.rmtree(Path(task.out_dir) / "marzo")
    return worker.process_and_record(task)


def _first_time(task: worker.FileTask, what: str) -> bool:
    """True the first time only (a flag next to the input, not an .xml file: never an input itself)."""
    flag = Path(f"{task.source}.{what}")
    if flag.exists():
        return False
    flag.touch()
    return True

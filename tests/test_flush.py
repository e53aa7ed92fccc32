"""Outputs written without a flush each are flushed with one call for the output folder's file system."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from fel_rules.core import atomic
from fel_rules.core.atomic import flush_to_disk, write_atomic


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="syncfs is Linux's")
def test_the_output_folders_file_system_is_flushed_not_every_one(tmp_path, monkeypatch):
    """``syncfs`` on the folder (through a descriptor it accepts), never a machine-wide ``sync``, which would also
    wait for every other program's unwritten data."""
    write_atomic(tmp_path / "out" / "a.json", b"{}", durable=False)
    flushed, syncs = [], []
    syncfs = atomic._syncfs

    def recorded_syncfs(handle):
        flushed.append(os.path.samestat(os.fstat(handle), (tmp_path / "out").stat()))
        return syncfs(handle)

    monkeypatch.setattr(atomic, "_syncfs", recorded_syncfs)
    monkeypatch.setattr(os, "sync", lambda: syncs.append(True))
    flush_to_disk(tmp_path / "out", [tmp_path])
    assert flushed == [True] and syncs == []


def test_everything_is_flushed_when_the_file_system_alone_cannot_be(tmp_path, monkeypatch):
    (tmp_path / "out").mkdir()
    syncs = []
    monkeypatch.setattr(atomic, "_syncfs", lambda handle: -1)
    monkeypatch.setattr(os, "sync", lambda: syncs.append(True))
    flush_to_disk(tmp_path / "out")
    assert syncs == [True]
    flush_to_disk(tmp_path / "missing")  # deleted meanwhile: nothing to flush
    assert syncs == [True]


def test_a_folder_that_cannot_be_read_is_flushed_with_everything(tmp_path, monkeypatch):
    if os.geteuid() == 0:
        pytest.skip("root reads any folder")
    folder = Path(tmp_path / "out")
    folder.mkdir(mode=0o311)
    syncs = []
    monkeypatch.setattr(os, "sync", lambda: syncs.append(True))
    try:
        flush_to_disk(folder)
    finally:
        folder.chmod(0o755)
    assert syncs == [True]

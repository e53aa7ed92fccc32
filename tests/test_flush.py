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


@pytest.fixture
def other_file_system(tmp_path):
    """A folder on a file system other than ``tmp_path``'s (``/dev/shm``), removed afterwards."""
    import shutil
    import tempfile

    if not os.path.isdir("/dev/shm") or os.stat("/dev/shm").st_dev == tmp_path.stat().st_dev:
        pytest.skip("no second file system at hand")
    folder = Path(tempfile.mkdtemp(dir="/dev/shm"))
    yield folder
    shutil.rmtree(folder)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="syncfs is Linux's")
def test_a_batch_flushes_each_file_system_its_outputs_went_to(tmp_path, other_file_system, monkeypatch):
    """``OUT/2024`` a link to another disk: the reports and PDFs written there are flushed with that file system,
    not left behind while the manifest (flushed) lists them."""
    from fel_rules.batch.options import BatchOptions
    from fel_rules.batch.runner import run_batch
    from fel_rules.testing.builder import Invoice, Item

    (tmp_path / "in" / "2024").mkdir(parents=True)
    document = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=[Item.goods("Producto", "1", "20.00")])
    (tmp_path / "in" / "2024" / "a.xml").write_bytes(document.to_xml())
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "2024").symlink_to(other_file_system, target_is_directory=True)
    flushed, syncfs = [], atomic._syncfs

    def recorded_syncfs(handle):
        flushed.append(os.fstat(handle).st_dev)
        return syncfs(handle)

    monkeypatch.setattr(atomic, "_syncfs", recorded_syncfs)
    monkeypatch.setattr(os, "sync", lambda: flushed.append("everything"))
    run_batch(BatchOptions(input_dir=tmp_path / "in", out_dir=tmp_path / "out", recursive=True, workers=1,
                           progress=False))
    assert (other_file_system / "a.report.json").is_file()
    assert sorted(flushed) == sorted([tmp_path.stat().st_dev, other_file_system.stat().st_dev])


def test_a_subfolder_that_cannot_be_opened_now_is_flushed_with_everything(tmp_path, monkeypatch):
    (tmp_path / "out").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out" / "moved").symlink_to(tmp_path / "elsewhere")  # out of the roots now
    syncs = []
    monkeypatch.setattr(os, "sync", lambda: syncs.append(True))
    flush_to_disk(tmp_path / "out", [tmp_path / "out"], subfolders=["gone", "moved"])
    assert syncs == [True]


def test_a_batch_flushes_the_folders_its_outputs_are_in(tmp_path, monkeypatch):
    """An input folder whose name is not UTF-8 gets an output folder with a readable name (``\\xNN``): that is the
    folder whose file system is flushed, not the input's name, which does not exist under the output folder."""
    from fel_rules.batch import runner
    from fel_rules.batch.options import BatchOptions
    from fel_rules.testing.builder import Invoice, Item

    folder = os.fsencode(tmp_path / "in") + b"/a\xf1o"
    os.makedirs(folder)
    document = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=[Item.goods("Producto", "1", "20.00")])
    with open(folder + b"/f.xml", "wb") as stream:
        stream.write(document.to_xml())
    asked = []
    monkeypatch.setattr(runner, "flush_to_disk", lambda out, roots, subfolders=(): asked.extend(subfolders))
    runner.run_batch(BatchOptions(input_dir=tmp_path / "in", out_dir=tmp_path / "out", recursive=True, workers=1,
                                  progress=False))
    assert asked == ["a\\xf1o"]
    assert (tmp_path / "out" / "a\\xf1o" / "f.report.json").is_file()

"""Reading to the end, never more than a cap (:func:`fel_rules.core.capped.read_capped`): a file that grew since it
told its size is read up to the cap and one byte more (the caller's sign that it is too large), and reads that give
less than asked for are followed by more, to the end."""

from __future__ import annotations

import os
import threading

from fel_rules.core.capped import read_capped


def _reading(path, size: int, limit: int) -> bytes:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        return read_capped(descriptor, size, limit)
    finally:
        os.close(descriptor)


def test_a_file_is_read_whole_when_it_holds_what_it_said(tmp_path):
    path = tmp_path / "a.xml"
    path.write_bytes(b"<a/>" * 1000)
    assert _reading(path, 4000, 4000) == b"<a/>" * 1000
    assert _reading(path, 4000, 1 << 30) == b"<a/>" * 1000


def test_a_file_that_grew_is_read_to_the_cap_and_one_byte_more(tmp_path):
    path = tmp_path / "a.xml"
    path.write_bytes(b"x" * 3_000_000)  # (more than one megabyte read at a time once it grew)
    assert _reading(path, 10, 5_000_000) == b"x" * 3_000_000
    assert _reading(path, 10, 2_500_000) == b"x" * 2_500_001
    assert _reading(path, 0, 4) == b"xxxxx"  # (a file that tells no size, as in /proc)


def test_reads_that_give_less_than_asked_go_on_to_the_end():
    reader, writer = os.pipe()
    data = bytes(range(256)) * 2000  # more than a pipe holds: the reader gets it in pieces

    def write() -> None:
        with os.fdopen(writer, "wb") as stream:
            stream.write(data)

    thread = threading.Thread(target=write)
    thread.start()
    try:
        assert read_capped(reader, len(data), len(data)) == data
    finally:
        thread.join()
        os.close(reader)

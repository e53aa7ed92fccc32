"""Reading a file to its end, never more than a cap: with room reserved for what the file holds, not for the cap.

A module of the standard library only, so that the input reader and the rule cache both use it without an import
cycle (the input reader's messages come from the catalogue, which the rule cache loads).
"""

from __future__ import annotations

from typing import BinaryIO

__all__ = ["read_capped"]


def read_capped(stream: BinaryIO, size: int, limit: int) -> bytes:
    """What ``stream`` holds to its end, or its first ``limit + 1`` bytes when it holds more than ``limit``;
    ``size``: what the file said it holds (its ``st_size``, at most ``limit``). A read first reserves room for all
    it asks for, so the file's size is asked for (a read of ``limit + 1`` bytes reserved megabytes for a file of a
    few kilobytes), and one more byte: when it comes, the file grew since (or its size is not told, as in /proc)
    and the rest is read up to the limit."""
    data = stream.read(size + 1)
    if len(data) > size:
        data += stream.read(limit + 1 - len(data))
    return data

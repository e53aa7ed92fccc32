"""Reading a file to its end, never more than a cap: with room reserved for what the file holds, not for the cap.

A module of the standard library only, so that the input reader and the rule cache both use it without an import
cycle (the input reader's messages come from the catalogue, which the rule cache loads).
"""

from __future__ import annotations

import os

__all__ = ["read_capped"]

#: What one read asks for once the file holds more than it said: room is reserved for that much at a time.
_MORE = 1 << 20


def read_capped(descriptor: int, size: int, limit: int) -> bytes:
    """What the file open at ``descriptor`` holds from where it stands to its end, or its first ``limit + 1`` bytes
    when it holds more than ``limit``; ``size``: what the file said it holds (its ``st_size``, at most ``limit``).
    Read with :func:`os.read`, no stream made. A read reserves room for all it asks for, so the file's size is asked
    for (not the limit: megabytes reserved for a file of a few kilobytes), and one more byte: when it comes, the
    file grew since (or its size is not told, as in /proc) and the rest is read up to the limit, a megabyte at a
    time. A read that gives less than asked (a pipe-like file system) is followed by another, to the end."""
    parts: list[bytes] = []
    done, goal, grew = 0, size + 1, False
    while done < goal:
        part = os.read(descriptor, min(goal - done, _MORE) if grew else goal - done)
        if not part:
            break
        parts.append(part)
        done += len(part)
        if done == goal and not grew:  # one byte more than the file said it held: it grew since
            goal, grew = limit + 1, True
    return b"".join(parts)  # (one part, the usual case: the bytes themselves, no copy)

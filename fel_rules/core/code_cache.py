"""Code objects of the Python source the checks write, kept between runs.

The checks write small functions for the rules (the predicates of the XPath subset, each check's quick function, a
plan's function) and compile them on a process's first documents: compiling them is more than half of what a
warm-up costs. :func:`compiled` compiles a source once per process and, once a run has kept it, not at all in the
next ones: the code objects live in the private cache (:mod:`.cache`, see :func:`entry`), marshalled and keyed by
their file name and source text. A source compiles to the same code object whatever namespace it later runs in (its
names are looked up there when it runs), so a code object read back behaves exactly as one compiled now.
:func:`keep_compiled` adds those compiled since it last ran to the entry (the engine calls it once a validation
ends, see :mod:`.learnt`); with the cache off, nothing is read or kept.

An entry is read whole, on first use: the plans' functions, large and made only by a process that validates many
documents (a batch, a server), are kept in an entry of their own (:data:`_SHELVES`), which a run that makes none (a
one-shot command) never reads.
"""

from __future__ import annotations

import marshal
import sys
import threading
from functools import cache
from types import CodeType

from .cache import cache_folder, digest, read_entry, write_entry
from .learnt import keeper
from .version import __version__

__all__ = ["MAX_KEPT", "MAX_KEPT_BYTES", "compiled", "entry", "keep_compiled"]

#: The most code objects an entry keeps, and their most bytes, marshalled code and source (a document type's checks
#: make some 130 objects, a plan's function some 330 KB of it; a busy server meets more): a run reads it whole.
MAX_KEPT = 4096
MAX_KEPT_BYTES = 4 * 1024 * 1024

_Key = tuple[str, str]  # (file name, source)

#: The shelf (entry) of the code objects of a file name, when not :data:`_MAIN`: a plan's function is some 330 KB of
#: source and code, made once a plan has validated enough documents or by a warm-up.
_SHELVES = {"<rule plan>": "plans"}
_MAIN = "code"

_kept: dict[str, dict[_Key, bytes]] = {}  # shelf → what its entry holds, read on the shelf's first use
_fresh: dict[_Key, bytes] = {}  # compiled here since the last keep_compiled
_keeping = threading.Lock()


def compiled(source: str, filename: str) -> CodeType:
    """``compile(source, filename, "exec")`` (no ``__future__`` flags of the caller), read back from the cache when a
    run kept it."""
    key = (filename, source)
    known = _known(_SHELVES.get(filename, _MAIN))
    data = known.get(key)
    if data is not None:
        try:
            code = marshal.loads(data)
        except Exception:  # noqa: BLE001 - a damaged value (marshal raises SystemError too): compiled again, kept again
            code = None
        if type(code) is CodeType:
            return code
    code = compile(source, filename, "exec", dont_inherit=True)
    if known is not _OFF:
        _fresh[key] = marshal.dumps(code)
    return code


@keeper
def keep_compiled() -> None:
    """Add the code objects compiled in this process since the last call to their cache entries (best effort: a
    cache that cannot be written keeps nothing, and nothing fails); the oldest go first past the bounds of an entry
    (:func:`_newest`)."""
    if not _fresh:
        return
    with _keeping:
        shelves: dict[str, dict[_Key, bytes]] = {}
        for key, value in list(_fresh.items()):
            shelves.setdefault(_SHELVES.get(key[0], _MAIN), {})[key] = value
        for shelf, fresh in shelves.items():
            slot, entry_key = entry(shelf)
            merged = _newest({**_valid(read_entry(slot, entry_key)), **fresh})  # (and what other processes kept)
            write_entry(slot, entry_key, merged)
            _kept[shelf] = merged
            for key in fresh:
                _fresh.pop(key, None)


def _newest(kept: dict[_Key, bytes]) -> dict[_Key, bytes]:
    """``kept`` (oldest first: a dict keeps the order its keys came in), the newest first, as many as fit in
    :data:`MAX_KEPT` values and :data:`MAX_KEPT_BYTES` bytes (source and file name counted)."""
    newest: list[tuple[_Key, bytes]] = []
    size = 0
    for key, value in reversed(kept.items()):
        if len(newest) == MAX_KEPT:
            break
        more = len(value) + len(key[0]) + len(key[1])
        if size + more <= MAX_KEPT_BYTES:  # (one too big for what is left: the older, smaller ones may still fit)
            newest.append((key, value))
            size += more
    return dict(reversed(newest))


#: What :func:`_known` gives when the cache is off: nothing is looked up, nothing is kept.
_OFF: dict[_Key, bytes] = {}


def _known(shelf: str) -> dict[_Key, bytes]:
    """The code objects the entry of ``shelf`` holds, read once per process (:data:`_OFF` when the cache is off)."""
    known = _kept.get(shelf)
    if known is None:
        known = _kept[shelf] = _valid(read_entry(*entry(shelf))) if cache_folder() is not None else _OFF
    return known


def _valid(stored: object) -> dict[_Key, bytes]:
    """``stored`` when it is what :func:`keep_compiled` writes, else nothing."""
    if not isinstance(stored, dict):
        return {}
    return {key: value for key, value in stored.items()
            if isinstance(key, tuple) and len(key) == 2 and all(type(part) is str for part in key)
            and type(value) is bytes}


@cache
def entry(shelf: str = _MAIN) -> tuple[str, bytes]:
    """The cache slot and key of the code objects of ``shelf``: the interpreter that compiles them, its ``-O`` level
    (which drops ``assert`` statements) and fel-rules' version (an upgrade starts a new entry; the cache drops the
    old one in time). Every checkout and process of one version on one Python shares it: a code object depends on
    its source alone, never on the code that wrote the source."""
    key = digest("code objects", shelf, sys.version, sys.implementation.cache_tag or "", str(sys.flags.optimize),
                 __version__)
    return f"{shelf}-{key[:12].hex()}", key

"""What one run learns that the next runs need not learn again: the code the checks compile (:mod:`.code_cache`),
the certificates signatures embed (:mod:`fel_rules.xmldsig.certificates`). Each keeper registers itself as its
module loads; the engine asks them all to write what is new to the private cache (:mod:`.cache`) once a validation
ends, never while a document is being judged (:func:`keep_learnt`)."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["keep_learnt", "keeper"]

_KEEPERS: list[Callable[[], None]] = []


def keeper(keep: Callable[[], None]) -> Callable[[], None]:
    """Register ``keep`` (which writes what its module learnt since it last ran; best effort, never raising) with
    :func:`keep_learnt`; returned as it is, so it decorates."""
    if keep not in _KEEPERS:
        _KEEPERS.append(keep)
    return keep


def keep_learnt() -> None:
    """Run every registered keeper (those of the modules loaded so far)."""
    for keep in tuple(_KEEPERS):
        keep()

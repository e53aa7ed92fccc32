"""One object per thread, made on first use there: for what may be used by one thread at a time only (an lxml
parser) and costs more to make than to use again."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["PerThread"]

_T = TypeVar("_T")


class PerThread(threading.local, Generic[_T]):
    """``make()``'s object for the calling thread (:meth:`get`), made the first time that thread asks."""

    def __init__(self, make: Callable[[], _T]) -> None:
        self._make = make
        self._made: _T | None = None

    def get(self) -> _T:
        made = self._made
        if made is None:
            made = self._made = self._make()
        return made

"""A one-line progress bar on a terminal; silent otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """``[██████░░░░] 600/1000  42 archivos/s`` redrawn at most ten times a second."""

    def __init__(self, total: int, *, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total, self.done = total, 0
        self._start = self._last = time.monotonic()

    def advance(self, count: int = 1) -> None:
        """Count finished files and redraw when due."""
        self.done += count
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.1 or self.done == self.total):
            self._last = now
            width = 30
            filled = int(width * self.done / self.total) if self.total else width
            rate = self.done / max(now - self._start, 1e-9)
            bar = f"{'█' * filled}{'░' * (width - filled)}"
            self.stream.write(f"\r[{bar}] {self.done}/{self.total}  {rate:.0f} archivos/s")
            self.stream.flush()

    def close(self) -> None:
        """End the line."""
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()

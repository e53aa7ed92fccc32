"""Allowed roots: every path a tool reads or writes must resolve (symlinks followed) inside one."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["Roots", "SandboxError"]


class SandboxError(ValueError):
    """A path outside the allowed roots (the message names them)."""


class Roots:
    """The folders tools may touch; default: the working directory."""

    def __init__(self, roots: Iterable[str | Path] = ()) -> None:
        paths = [Path(root).expanduser().resolve() for root in roots]
        self.paths = paths or [Path.cwd().resolve()]

    @classmethod
    def from_env(cls, extra: Iterable[str | Path] = (), environ: dict | None = None) -> Roots:
        """``--root`` values plus ``FEL_MCP_ROOTS`` (``os.pathsep``-separated)."""
        environ = os.environ if environ is None else environ
        from_env = [p for p in environ.get("FEL_MCP_ROOTS", "").split(os.pathsep) if p]
        return cls([*extra, *from_env])

    def check(self, raw: str, *, must_exist: bool = True) -> Path:
        """The resolved path, or ``SandboxError``; relative paths are taken from the first root."""
        candidate = Path(raw).expanduser()
        if not candidate.is_absolute():
            candidate = self.paths[0] / candidate
        resolved = candidate.resolve()
        if not any(resolved == root or root in resolved.parents for root in self.paths):
            allowed = ", ".join(str(root) for root in self.paths)
            raise SandboxError(f"La ruta {raw} queda fuera de las carpetas permitidas ({allowed}). "
                               f"Use una ruta dentro de ellas o inicie el servidor con --root.")
        if must_exist and not resolved.exists():
            raise SandboxError(f"No existe: {raw}")
        return resolved

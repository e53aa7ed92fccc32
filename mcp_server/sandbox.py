"""Allowed roots: every path a tool reads or writes must resolve (symlinks followed) inside one."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import fel_rules

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
        """The resolved path, or ``SandboxError``; relative paths are taken from the first root. An empty path is
        refused: it would otherwise be the first root itself (a batch of the whole working folder, say)."""
        if not raw.strip():
            raise SandboxError("Ruta vacía: indique un archivo o una carpeta.")
        try:
            candidate = Path(raw).expanduser()
            if not candidate.is_absolute():
                candidate = self.paths[0] / candidate
            resolved = candidate.resolve()
        except (OSError, ValueError, RuntimeError) as exc:  # NUL byte, "~nobody", a name too long, a symlink loop
            raise SandboxError(_invalid(raw, exc)) from exc
        if not any(resolved == root or root in resolved.parents for root in self.paths):
            allowed = ", ".join(str(root) for root in self.paths)
            raise SandboxError(f"La ruta {raw} queda fuera de las carpetas permitidas ({allowed}). "
                               f"Use una ruta dentro de ellas o inicie el servidor con --root.")
        try:
            exists = resolved.exists()
        except OSError as exc:  # e.g. ENAMETOOLONG, which exists() (and is_dir(), is_file()…) do not swallow
            raise SandboxError(_invalid(raw, exc)) from exc
        if must_exist and not exists:
            raise SandboxError(_missing(raw, resolved, self.paths[0]))
        return resolved


def _missing(raw: str, resolved: Path, first_root: Path) -> str:
    """A missing path, said with where it was looked for (a relative path starts at the first root)."""
    if Path(raw).expanduser().is_absolute():
        return f"No existe: {raw}."
    return (f"No existe: {raw} (se buscó en {resolved}; las rutas relativas parten de la carpeta permitida "
            f"{first_root}).")


def _invalid(raw: str, exc: Exception) -> str:
    """A short message for a path the operating system refuses (the path cut to 200 characters)."""
    shown = raw if len(raw) <= 200 else raw[:200] + "…"
    reason = fel_rules.render_text(fel_rules.describe_os_error(exc)) if isinstance(exc, OSError) else str(exc)
    return f"Ruta inválida: {shown!r} ({reason})."

"""Before any file is touched: the inputs to process, the configuration workers get, and the fingerprint
their results are recorded under — gathered in one :class:`BatchRun` every phase reads."""

from __future__ import annotations

import os
import time
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from numbers import Real
from pathlib import Path

from ..core.config import Config
from ..core.confine import confine
from ..core.errors import InputError
from ..core.report import SchemaInfo
from ..outputs.render.settings import RenderSettings
from .fingerprint import fingerprint, logo_dir_digest
from .journal import Journal
from .options import MAX_FILE_TIME_LIMIT, BatchOptions
from .worker import FileTask, validator_for_run

__all__ = ["BatchRun", "plan"]


@dataclass(frozen=True)
class BatchRun:
    """One batch run, worked out by :func:`plan`: what it was asked (``options``, folders and roots resolved),
    the inputs (relative POSIX paths, sorted), the configuration and render settings as the workers get them
    (plain data), what the manifest's header names, the journal of the results (with their fingerprint), and
    when the run began."""

    options: BatchOptions
    files: tuple[str, ...]
    config: dict
    rendering: dict
    rulesets: tuple[dict, ...]
    schema: SchemaInfo
    journal: Journal
    started: datetime
    clock: float  # time.perf_counter() when the run began

    @property
    def input_dir(self) -> Path:
        """The folder of the inputs."""
        return self.options.input_dir

    @property
    def out_dir(self) -> Path:
        """The output folder."""
        return self.options.out_dir

    @property
    def roots(self) -> tuple[Path, ...]:
        """Every file read or written must resolve inside these (when there are any)."""
        return self.options.roots

    @property
    def lang(self) -> str:
        """The language of the notes the batch itself writes."""
        return self.options.config.lang

    @property
    def manifest_path(self) -> Path:
        """Where the manifest goes."""
        return self.out_dir / "manifest.json"

    def task(self, rel: str, entries: Collection[str] | None = None) -> FileTask:
        """The worker's task for the input at ``rel``; ``entries``: the journal's entries listed a moment ago
        (:meth:`Journal.entries`), so an input without one is not looked up."""
        return FileTask(str(self.input_dir / rel), rel, str(self.out_dir), self.options.render, self.config,
                        self.rendering, str(self.journal.folder), self.journal.fingerprint,
                        tuple(map(str, self.roots)), self.options.file_time_limit, self.journal.written(rel, entries),
                        durable=self.options.executor == "dask")  # a local run flushes once (runner)

    def cancelled(self) -> bool:
        """True once the caller asked the run to stop."""
        return self.options.cancel is not None and self.options.cancel.is_set()


def plan(options: BatchOptions) -> BatchRun:
    """The run ``options`` ask for; :class:`InputError` (or a logo's error) before any work when they cannot be
    met. Rules and schema are compiled here, so forked workers inherit them."""
    started, clock = datetime.now(UTC), time.perf_counter()
    options = replace(options, input_dir=options.input_dir.resolve(), out_dir=options.out_dir.resolve(),
                      roots=tuple(Path(root).resolve() for root in options.roots))
    _check_time_limit(options.file_time_limit)
    files = _collect(options.input_dir, options.out_dir, options.recursive)
    if len(files) > options.max_files:
        raise InputError(f"El lote tiene {len(files)} archivos y el límite es {options.max_files} (--max-files)",
                         message_en=f"The batch has {len(files)} files and the limit is {options.max_files} "
                                    "(--max-files)")
    settings = _render_settings(options)
    logo = _logo(settings, options.roots) if options.render else None  # a bad logo stops the run before any work
    logos = logo_dir_digest(settings) if options.render else None
    config = _absolute_paths(options.config).to_dict(exclude_none=True)
    validator = validator_for_run(config)  # (the rule files as they are now, see validator_for_run)
    schema = validator.schema_set.info
    key = fingerprint(config, validator.config, schema.sha256, options.render, settings, logo, logos)
    validator = validator_for_run(config, key)
    return BatchRun(options, tuple(files), config, settings.model_dump(mode="json"),
                    tuple({"id": r.id, "version": r.version} for r in validator.catalog.rulesets), schema,
                    Journal(options.out_dir, key, options.roots), started, clock)


def _check_time_limit(seconds: float | None) -> None:
    """:class:`InputError` unless ``seconds`` is ``None`` (no limit) or a number of seconds above 0 and up to
    :data:`MAX_FILE_TIME_LIMIT` (the system's timer takes no more, nor infinity or NaN)."""
    if seconds is None:
        return
    if isinstance(seconds, bool) or not isinstance(seconds, Real) or not 0 < seconds <= MAX_FILE_TIME_LIMIT:
        most = int(MAX_FILE_TIME_LIMIT)
        raise InputError(f"El límite de tiempo por archivo debe ser un número de segundos mayor que 0 y de a lo sumo "
                         f"{most} (o ninguno): {seconds!r}",
                         message_en=f"The time limit per file must be a number of seconds above 0 and at most {most} "
                                    f"(or none): {seconds!r}")


def _logo(settings: RenderSettings, roots: tuple[Path, ...]) -> bytes | None:
    """The default logo of the PDFs, read and checked (:func:`~fel_rules.outputs.render.api.load_logo`, inside the
    roots when there are any); the PDF machinery (reportlab, qrcode, Pillow) loads here, for a run that renders: a
    run that only validates never imports it."""
    from ..outputs.render.api import load_logo

    return load_logo(settings.logo, settings, roots=roots)


def _render_settings(options: BatchOptions) -> RenderSettings:
    settings = options.render_settings or RenderSettings.from_env(lang=options.config.lang)
    if settings.logo is not None:  # workers may run elsewhere (another cwd, a Dask node): absolute paths only
        settings = settings.model_copy(update={"logo": settings.logo.resolve()})
    if settings.logo_dir is not None and options.render:
        if not settings.logo_dir.is_dir():
            raise InputError(f"No existe la carpeta de logos: {settings.logo_dir}",
                             message_en=f"No such logo folder: {settings.logo_dir}")
        settings = settings.model_copy(update={"logo_dir": settings.logo_dir.resolve()})
    return settings


def _absolute_paths(config: Config) -> Config:
    changes = {name: getattr(config, name).resolve() for name in ("rules_dir", "schema_dir")
               if getattr(config, name) is not None}
    if config.profile and (config.profile.endswith((".yaml", ".yml")) or "/" in config.profile):
        changes["profile"] = str(Path(config.profile).resolve())
    return replace(config, **changes)


def _collect(input_dir: Path, out_dir: Path, recursive: bool) -> list[str]:
    """Relative POSIX paths of the inputs, sorted (strings: far lighter than Path objects)."""
    if not input_dir.is_dir():
        raise InputError(f"No existe el directorio: {input_dir}", message_en=f"No such directory: {input_dir}")
    if recursive:
        files = sorted(
            p.relative_to(input_dir).as_posix()
            for p in _walked(input_dir)
            if p.suffix.lower() == ".xml" and not p.is_dir() and not _inside(p, out_dir)
        )
    else:
        files = sorted(_listed(input_dir, out_dir))
    if not files:
        raise InputError(f"El directorio no contiene archivos .xml: {input_dir}",
                         message_en=f"The directory contains no .xml files: {input_dir}")
    return files


def _walked(input_dir: Path) -> Iterator[Path]:
    """Every entry under ``input_dir`` but its folders (symbolic links to folders are entries, not descended);
    ``OSError`` naming the first folder that cannot be listed: a recursive batch never leaves one out unsaid."""
    def refuse(exc: OSError) -> None:
        raise exc

    for folder, folders, names in os.walk(input_dir, onerror=refuse):
        base = Path(folder)
        for name in (*names, *(name for name in folders if (base / name).is_symlink())):
            yield base / name


def _listed(input_dir: Path, out_dir: Path) -> Iterator[str]:
    """The names of the inputs directly in ``input_dir`` (resolved): what ``input_dir.iterdir()`` filtered as in
    :func:`_collect` gives, with one listing (no ``stat``, no path object per file that is not a symlink)."""
    within = input_dir == out_dir or out_dir in input_dir.parents  # then every file not a symlink is inside it
    with os.scandir(input_dir) as entries:
        for entry in entries:
            dot = entry.name.rfind(".")
            if not 0 < dot < len(entry.name) - 1 or entry.name[dot:].lower() != ".xml" or _is_dir(entry):
                continue
            if _is_link(entry):
                if not _inside(input_dir / entry.name, out_dir):
                    yield entry.name
            elif not within:
                yield entry.name


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_link(entry: os.DirEntry) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return True  # resolved, as any link


def _inside(path: Path, folder: Path) -> bool:
    try:
        confine(path).relative_to(folder)  # (resolved as Path.resolve does, in fewer system calls)
    except (ValueError, OSError):  # OSError: a symlink loop (reported per file later)
        return False
    return True

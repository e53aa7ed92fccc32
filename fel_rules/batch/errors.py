"""How a batch stops early: cancelled, or an output folder that cannot be written."""

from __future__ import annotations

from pathlib import Path

from ..core.atomic import describe_os_error
from ..core.catalogue import render_text
from ..core.errors import FelRulesError

__all__ = ["BatchCancelled", "BatchError", "output_error"]


class BatchCancelled(Exception):
    """The run was cancelled; finished files are in the journal, so ``resume`` continues from there."""


class BatchError(FelRulesError):
    """The output folder could not be written (disk full, read-only…): the run stopped without a manifest.
    Finished files are in the journal, so ``resume`` continues once the problem is fixed."""


def output_error(out_dir: Path, exc: OSError) -> BatchError:
    """``No se pudo completar el lote: OUT/a.pdf: no queda espacio en el disco…``"""
    where = Path(exc.filename) if isinstance(exc.filename, (str, Path)) else out_dir
    if where.name.startswith(".") and where.name.endswith(".tmp"):  # a temporary file: name its folder
        where = where.parent
    return BatchError(
        f"No se pudo completar el lote: {where}: {render_text(describe_os_error(exc))}. "
        "Los archivos terminados quedan registrados; corrija el problema y repita con --resume para continuar.",
        message_en=f"Could not complete the batch: {where}: {render_text(describe_os_error(exc), 'en')}. "
                   "Finished files are recorded; fix the problem and run again with --resume to continue.",
    )

"""Render a FEL document to PDF: validate, refuse what must not be printed, lay out, write atomically."""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from functools import lru_cache
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib.utils import ImageReader

from ..atomic import UnsafeTarget, describe_os_error, write_atomic
from ..config import Config
from ..engine import Validator
from ..errors import RenderError
from ..facts import Anulacion
from ..owned import own_pdf
from ..report import Report
from .pdf import render_view
from .settings import RenderSettings
from .view import InvoiceView, build_view

__all__ = ["RenderResult", "load_logo", "render_bytes", "render_file"]

_SHOWN_ERRORS = 5


@dataclass(frozen=True)
class RenderResult:
    """What a render produced."""

    pdf: bytes
    view: InvoiceView
    report: Report
    path: Path | None = None


def render_bytes(data: bytes, *, settings: RenderSettings | None = None, force: bool = False,
                 validator: Validator | None = None, name: str | None = None) -> RenderResult:
    """Validate ``data`` and lay it out as a PDF (nothing is written)."""
    settings = settings or RenderSettings.from_env()
    validator = validator or Validator(Config(lang=settings.lang))
    report, facts = validator.inspect_bytes(data, path=name)
    english = settings.lang == "en"
    if facts is None:
        raise RenderError(
            "No se puede imprimir: el archivo no es un documento FEL legible. " + _errors(report),
            message_en="Cannot render: the file is not a readable FEL document. " + _errors(report),
            report=report,
        )
    if isinstance(facts, Anulacion):
        raise RenderError(
            "Una anulación (GTAnulacionDocumento) no tiene representación impresa de factura; imprima el DTE anulado.",
            message_en="An annulment (GTAnulacionDocumento) has no invoice printout; render the annulled DTE instead.",
            report=report,
        )
    invalid = not report.valid
    if invalid and not force:
        raise RenderError(
            "El documento no es válido y no se imprime (use --force para imprimirlo marcado NO VÁLIDO). "
            + _errors(report),
            message_en="The document is not valid and is not rendered (use --force to render it marked NO VÁLIDO). "
            + _errors(report),
            report=report,
        )
    logo = load_logo(settings.logo)
    view = build_view(facts, report, lang="en" if english else "es", invalid=invalid)
    pdf = render_view(view, theme_name=settings.theme, logo=logo, qr_size_mm=settings.qr_size_mm,
                      header_mm=settings.header_mm)
    return RenderResult(pdf=pdf, view=view, report=report)


def render_file(source: str | Path, out: str | Path | None = None, *, settings: RenderSettings | None = None,
                force: bool = False, validator: Validator | None = None, roots: Sequence[Path] = ()) -> RenderResult:
    """Render the XML at ``source`` to ``out``, atomically. ``out`` is a file, or a folder (an existing one, or
    a name ending in ``/``) that gets ``<name>.pdf``; default ``<output_dir>/<name>.pdf``. Only a PDF
    fel-rules rendered is replaced: never the input, a non-regular file or another program's file. With
    ``roots``, the PDF must land inside them (checked when it is written, symlinks resolved)."""
    settings = settings or RenderSettings.from_env()
    source = Path(source)
    if not source.is_file():
        raise RenderError(f"No existe el archivo: {source}", message_en=f"No such file: {source}")
    target = _pdf_target(source, out, settings.output_dir)
    validator = validator or Validator(Config(lang=settings.lang))
    size, limit = source.stat().st_size, validator.config.max_bytes
    if size > limit:
        raise RenderError(f"No se puede imprimir {source}: mide {size} bytes y el límite es {limit}",
                          message_en=f"Cannot render {source}: it is {size} bytes and the limit is {limit}")
    result = render_bytes(source.read_bytes(), settings=settings, force=force, validator=validator, name=str(source))
    try:
        if target.exists() and os.path.samefile(target, source):
            raise UnsafeTarget(target, "input")
        write_atomic(target, result.pdf, roots=roots, owned=own_pdf)
    except OSError as exc:
        raise RenderError(  # nothing is left behind: the temporary file was removed
            f"No se pudo escribir {target}: {describe_os_error(exc)}",
            message_en=f"Could not write {target}: {describe_os_error(exc, 'en')}",
        ) from exc
    return RenderResult(pdf=result.pdf, view=result.view, report=result.report, path=target)


def _pdf_target(source: Path, out: str | Path | None, output_dir: Path) -> Path:
    """Where the PDF of ``source`` goes (see :func:`render_file`)."""
    if out is None:
        return output_dir / f"{source.stem}.pdf"
    text = os.fspath(out)
    folder = text.endswith(("/", os.sep)) or Path(text).is_dir()
    return Path(text) / f"{source.stem}.pdf" if folder else Path(text)


def load_logo(path: Path | None) -> bytes | None:
    """The logo's bytes, checked to be a readable PNG/JPEG; ``RenderError`` otherwise (cached per file version)."""
    if path is None:
        return None
    try:
        stat = Path(path).stat()
    except OSError as exc:
        raise RenderError(f"No se pudo leer el logo {path}: {exc.strerror or exc}",
                          message_en=f"Could not read the logo {path}: {exc.strerror or exc}") from exc
    return _checked_logo(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _checked_logo(path: str, _mtime_ns: int, _size: int) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise RenderError(f"No se pudo leer el logo {path}: {exc.strerror or exc}",
                          message_en=f"Could not read the logo {path}: {exc.strerror or exc}") from exc
    try:
        width, height = ImageReader(io.BytesIO(data)).getSize()
    except Exception as exc:  # noqa: BLE001 - PIL raises many types for a bad image
        raise RenderError(f"El logo {path} no es una imagen PNG o JPEG válida",
                          message_en=f"The logo {path} is not a valid PNG or JPEG image") from exc
    if width <= 0 or height <= 0:
        raise RenderError(f"El logo {path} está vacío", message_en=f"The logo {path} is empty")
    return data


def _errors(report: Report) -> str:
    errors = [issue for issue in report.issues if issue.severity.value == "error"]
    shown = "; ".join(f"{i.rule_id}: {i.message}" for i in errors[:_SHOWN_ERRORS])
    more = f" (+{len(errors) - _SHOWN_ERRORS})" if len(errors) > _SHOWN_ERRORS else ""
    return shown + more

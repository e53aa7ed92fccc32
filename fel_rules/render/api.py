"""Render a FEL document to PDF: validate, refuse what must not be printed, lay out, write atomically."""

from __future__ import annotations

import io
from functools import lru_cache
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib.utils import ImageReader

from ..atomic import describe_os_error, write_atomic
from ..config import Config
from ..engine import Validator
from ..errors import RenderError
from ..facts import Anulacion
from ..inputs import InputTooLarge, describe_read_error, read_input, readable_name
from ..report import Report
from .pdf import render_view
from .settings import DEFAULT_LOGO_MAX_BYTES, RenderSettings
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
    logo = load_logo(settings.logo, settings.logo_max_bytes)
    view = build_view(facts, report, lang="en" if english else "es", invalid=invalid)
    pdf = render_view(view, theme_name=settings.theme, logo=logo, qr_size_mm=settings.qr_size_mm,
                      header_mm=settings.header_mm)
    return RenderResult(pdf=pdf, view=view, report=report)


def render_file(source: str | Path, out: str | Path | None = None, *, settings: RenderSettings | None = None,
                force: bool = False, validator: Validator | None = None) -> RenderResult:
    """Render the XML at ``source`` to ``out`` (default: ``<output_dir>/<name>.pdf``), atomically."""
    settings = settings or RenderSettings.from_env()
    source = Path(source)
    validator = validator or Validator(Config(lang=settings.lang))
    data = _read_source(source, validator.config.max_bytes)
    name = f"{readable_name(source.stem)}.pdf"  # valid UTF-8 whatever the input's name
    target = Path(out) if out is not None else settings.output_dir / name
    if target.is_dir():
        target = target / name
    result = render_bytes(data, settings=settings, force=force, validator=validator, name=str(source))
    try:
        write_atomic(target, result.pdf)
    except OSError as exc:
        raise RenderError(  # nothing is left behind: the temporary file was removed
            f"No se pudo escribir {target}: {describe_os_error(exc)}",
            message_en=f"Could not write {target}: {describe_os_error(exc, 'en')}",
        ) from exc
    return RenderResult(pdf=result.pdf, view=result.view, report=result.report, path=target)


def _read_source(source: Path, limit: int) -> bytes:
    """The XML to render: a regular file of at most ``limit`` bytes (never a FIFO or a device)."""
    try:
        return read_input(source, limit)
    except InputTooLarge as exc:
        raise RenderError(f"No se puede imprimir {source}: mide {exc.size} bytes y el límite es {limit}",
                          message_en=f"Cannot render {source}: it is {exc.size} bytes and the limit is {limit}",
                          ) from None
    except FileNotFoundError:
        raise RenderError(f"No existe el archivo: {source}", message_en=f"No such file: {source}") from None
    except OSError as exc:
        raise RenderError(f"No se pudo leer {source}: {describe_read_error(exc)}",
                          message_en=f"Could not read {source}: {describe_read_error(exc, 'en')}") from exc


def load_logo(path: Path | None, max_bytes: int = DEFAULT_LOGO_MAX_BYTES) -> bytes | None:
    """The logo's bytes, checked to be a readable PNG/JPEG; ``RenderError`` otherwise. Only a regular file of at
    most ``max_bytes`` is read (never a FIFO or a device)."""
    if path is None:
        return None
    try:
        data = read_input(path, max_bytes)
    except InputTooLarge as exc:
        raise RenderError(f"El logo {path} mide {exc.size} bytes y el límite es {max_bytes} "
                          "(FEL_RULES_LOGO_MAX_BYTES)",
                          message_en=f"The logo {path} is {exc.size} bytes and the limit is {max_bytes} "
                                     "(FEL_RULES_LOGO_MAX_BYTES)") from None
    except OSError as exc:
        raise RenderError(f"No se pudo leer el logo {path}: {describe_read_error(exc)}",
                          message_en=f"Could not read the logo {path}: {describe_read_error(exc, 'en')}") from exc
    _check_logo(str(path), data)
    return data


@lru_cache(maxsize=8)
def _check_logo(path: str, data: bytes) -> None:
    try:
        width, height = ImageReader(io.BytesIO(data)).getSize()
    except Exception as exc:  # noqa: BLE001 - PIL raises many types for a bad image
        raise RenderError(f"El logo {path} no es una imagen PNG o JPEG válida",
                          message_en=f"The logo {path} is not a valid PNG or JPEG image") from exc
    if width <= 0 or height <= 0:
        raise RenderError(f"El logo {path} está vacío", message_en=f"The logo {path} is empty")


def _errors(report: Report) -> str:
    errors = [issue for issue in report.issues if issue.severity.value == "error"]
    shown = "; ".join(f"{i.rule_id}: {i.message}" for i in errors[:_SHOWN_ERRORS])
    more = f" (+{len(errors) - _SHOWN_ERRORS})" if len(errors) > _SHOWN_ERRORS else ""
    return shown + more

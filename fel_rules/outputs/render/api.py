"""Render a FEL document to PDF: validate (with the caller's validator), refuse what must not be printed, lay out
with the catalogue of the rules in force, write atomically."""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image as PILImage

from ...core.atomic import UnsafeTarget, describe_os_error, write_atomic
from ...core.catalogue import error_texts, render_text
from ...core.config import Config
from ...core.errors import RenderError
from ...core.foreign import evaluation
from ...core.inputs import InputTooLarge, describe_read_error, read_input, readable_name
from ...core.owned import own_pdf
from ...core.report import Report
from ...core.text import Text
from ...document.facts import Anulacion, Documento
from ...engine import WARM_UP_SAMPLE, Validator
from ...expressions.catalogues import FraseEntry
from ..formats.text import errors_in_brief
from .notices import missing_glyphs_warnings
from .pdf import render_view
from .settings import DEFAULT_LOGO_MAX_BYTES, DEFAULT_LOGO_MAX_PIXELS, RenderSettings, logo_for
from .view import InvoiceView, build_view

__all__ = ["RenderResult", "load_logo", "render_bytes", "render_document", "render_failure", "render_file",
           "render_xml", "warm_up_rendering"]

_SHOWN_ERRORS = 5
_DEFAULT_LIMITS = (DEFAULT_LOGO_MAX_BYTES, DEFAULT_LOGO_MAX_PIXELS)


@dataclass(frozen=True)
class RenderResult:
    """What a render produced."""

    pdf: bytes
    view: InvoiceView
    report: Report
    path: Path | None = None
    missing_glyphs: tuple[str, ...] = ()

    @property
    def warnings(self) -> list[Text]:
        """What the reader of the PDF should know: the characters printed as ``[U+XXXX]`` for want of a glyph."""
        return missing_glyphs_warnings(self.missing_glyphs)


def warm_up_rendering(validator: Validator, settings: RenderSettings | None = None, *, roots: Sequence[Path] = (),
                      until: Callable[[], bool] = lambda: False) -> bool:
    """Lay out the signed invoice shipped with the rules (:data:`~fel_rules.engine.WARM_UP_SAMPLE`) in memory and
    throw it away: what a process's first PDF makes (the fonts registered and their first subsets, the logo of
    ``settings`` read, the layout's and the QR's code run once, some 40 ms of CPU beside the libraries' import) is
    then ready for the next PDF. For a process that renders later and has time now (a server between its first
    calls). The logo is read inside ``roots`` when they are given, as the process's PDFs will read it. ``until()`` is
    asked before each step: true stops the warm-up there (real work has come). True when it was done; a failure is
    met again, and said, by the first PDF."""
    from .fonts import register_fonts

    try:
        if until():
            return False
        register_fonts()
        if until():
            return False
        settings = settings or RenderSettings.from_env()
        outcome = validator.inspect_bytes(WARM_UP_SAMPLE.read_bytes(), path=WARM_UP_SAMPLE.name)
        if until():
            return False
        render_document(outcome.report, outcome.facts, frases=validator.catalog.catalogues.frases,
                        settings=settings, roots=roots)
    except Exception:  # noqa: BLE001 - a warm-up never fails its caller
        return False
    return True


def render_bytes(data: bytes, *, settings: RenderSettings | None = None, force: bool = False,
                 validator: Validator | None = None, name: str | None = None,
                 roots: Sequence[Path] = ()) -> RenderResult:
    """Validate ``data`` with ``validator`` (default: the built-in rules) and lay it out with
    :func:`render_document` and the frases catalogue of the validator's rules (nothing is written)."""
    settings = settings or RenderSettings.from_env()
    validator = validator or Validator(Config(lang=settings.lang))
    outcome = validator.inspect_bytes(data, path=name)
    report, facts = outcome.report, outcome.facts
    return render_document(report, facts, frases=validator.catalog.catalogues.frases, settings=settings, force=force,
                           roots=roots)


def render_document(report: Report, facts: Documento | Anulacion | None, *,
                    frases: Mapping[tuple[str, str], FraseEntry], settings: RenderSettings,
                    force: bool = False, roots: Sequence[Path] = ()) -> RenderResult:
    """Lay out a validated document as a PDF: ``report`` and ``facts`` are what validation produced, ``frases``
    the catalogue of the rules in force. What must not be printed (no readable document, an annulment, an
    invalid document without ``force``) raises :class:`RenderError`; nothing is validated here, and only the logo
    is read (inside ``roots`` when they are given, see :func:`load_logo`)."""
    if facts is None:
        raise RenderError(**error_texts(Text.of("render.unreadable", errors=_errors(report))), report=report,
                          reason="unreadable")
    if isinstance(facts, Anulacion):
        raise RenderError(
            "Una anulación (GTAnulacionDocumento) no tiene representación impresa de factura; imprima el DTE anulado.",
            message_en="An annulment (GTAnulacionDocumento) has no invoice printout; render the annulled DTE instead.",
            report=report, reason="annulment",
        )
    invalid = not report.valid
    if invalid and not force:
        raise RenderError(**error_texts(Text.of("render.invalid", errors=_errors(report))), report=report,
                          reason="invalid")
    logo = load_logo(logo_for(settings, _emisor_nit(facts)), settings, roots=roots)
    try:
        view = build_view(facts, report, frases=frases, lang=settings.lang, invalid=invalid)
        rendered = render_view(view, theme_name=settings.theme, logo=logo, qr_size_mm=settings.qr_size_mm,
                               header_mm=settings.header_mm, page=settings.page)
    except Exception as exc:  # noqa: BLE001 - a layout failure is one clear line, and the verdict stands
        failure = render_failure(exc)
        raise RenderError(failure.message, message_en=failure.message_en, report=report, reason="layout",
                          detail=failure.detail) from exc
    return RenderResult(pdf=rendered.pdf, view=view, report=report, missing_glyphs=rendered.missing)


def _emisor_nit(facts: Documento) -> str | None:
    return facts.emisor.nit.value if facts.emisor is not None and facts.emisor.nit is not None else None


def render_failure(exc: Exception) -> RenderError:
    """The renderer's own failure (reportlab, Pillow…) as one line; it says nothing about the document's validity."""
    lines = f"{type(exc).__name__}: {exc}".splitlines()
    said = " ".join(line.strip() for line in lines)[:300]
    reason = Text("render.does_not_fit") if type(exc).__name__ == "LayoutError" else evaluation(exc)
    return RenderError(**error_texts(Text.of("render.layout_failed", reason=reason)), reason="layout", detail=said)


def render_file(source: str | Path, out: str | Path | None = None, *, settings: RenderSettings | None = None,
                force: bool = False, validator: Validator | None = None, roots: Sequence[Path] = ()) -> RenderResult:
    """Render the XML at ``source`` to ``out``, atomically. ``out`` is a file, or a folder (an existing one, or
    a name ending in ``/``) that gets ``<name>.pdf``; default ``<output_dir>/<name>.pdf``. Only a PDF
    fel-rules rendered is replaced: never the input, a non-regular file or another program's file. With
    ``roots``, the XML and the logo read must be inside them (judged on the opened file) and the PDF must land
    inside them (checked when it is written, symlinks resolved)."""
    settings = settings or RenderSettings.from_env()
    source = Path(source)
    validator = validator or Validator(Config(lang=settings.lang))
    data = _read_source(source, validator.config.max_bytes, roots)
    target = _pdf_target(source, out, settings.output_dir)
    result = render_bytes(data, settings=settings, force=force, validator=validator, name=str(source), roots=roots)
    return _written(result, target, roots, source)


def render_xml(data: bytes, out: str | Path, *, settings: RenderSettings | None = None, force: bool = False,
               validator: Validator | None = None, roots: Sequence[Path] = (), name: str | None = None) -> RenderResult:
    """Render the XML ``data`` (not read from a file) to the PDF ``out``, atomically, as :func:`render_file`
    does (the logo read and the PDF inside ``roots``); ``name`` is how the report calls the document."""
    settings = settings or RenderSettings.from_env()
    result = render_bytes(data, settings=settings, force=force, validator=validator, name=name, roots=roots)
    return _written(result, Path(out), roots)


def _written(result: RenderResult, target: Path, roots: Sequence[Path], source: Path | None = None) -> RenderResult:
    """``result`` with its PDF written to ``target`` (never over ``source``, never over another program's file)."""
    try:
        if source is not None and target.exists() and os.path.samefile(target, source):
            raise UnsafeTarget(target, "input")
        write_atomic(target, result.pdf, roots=roots, owned=own_pdf)
    except OSError as exc:
        raise RenderError(  # nothing is left behind: the temporary file was removed
            f"No se pudo escribir {target}: {render_text(describe_os_error(exc))}",
            message_en=f"Could not write {target}: {render_text(describe_os_error(exc), 'en')}", reason="write",
        ) from exc
    return RenderResult(pdf=result.pdf, view=result.view, report=result.report, path=target,
                        missing_glyphs=result.missing_glyphs)


def _pdf_target(source: Path, out: str | Path | None, output_dir: Path) -> Path:
    """Where the PDF of ``source`` goes (see :func:`render_file`); its name is valid UTF-8 whatever the input's."""
    name = f"{readable_name(source.stem)}.pdf"
    if out is None:
        return output_dir / name
    text = os.fspath(out)
    folder = text.endswith(("/", os.sep)) or Path(text).is_dir()
    return Path(text) / name if folder else Path(text)


def _read_source(source: Path, limit: int, roots: Sequence[Path] = ()) -> bytes:
    """The XML to render: a regular file of at most ``limit`` bytes (never a FIFO or a device), inside ``roots``
    when they are given."""
    try:
        return read_input(source, limit, roots=roots)
    except InputTooLarge as exc:
        raise RenderError(f"No se puede imprimir {source}: mide {exc.size} bytes y el límite es {limit}",
                          message_en=f"Cannot render {source}: it is {exc.size} bytes and the limit is {limit}",
                          ) from None
    except FileNotFoundError:
        raise RenderError(f"No existe el archivo: {source}", message_en=f"No such file: {source}") from None
    except OSError as exc:
        raise RenderError(f"No se pudo leer {source}: {render_text(describe_read_error(exc))}",
                          message_en=f"Could not read {source}: {render_text(describe_read_error(exc), 'en')}") from exc


def load_logo(path: Path | None, limits: RenderSettings | None = None, *, roots: Sequence[Path] = ()) -> bytes | None:
    """The logo's bytes, checked to be a readable PNG/JPEG within the limits of ``limits`` (default settings when
    not given): only a regular file of at most ``logo_max_bytes`` is read (never a FIFO or a device), inside
    ``roots`` when they are given (judged on the opened file), and its pixels are counted from the image's header
    before it is decoded, whole (a truncated file is refused here); ``RenderError`` otherwise."""
    if path is None:
        return None
    max_bytes, max_pixels = (limits.logo_max_bytes, limits.logo_max_pixels) if limits else _DEFAULT_LIMITS
    try:
        data = read_input(path, max_bytes, roots=roots)
    except InputTooLarge as exc:
        raise RenderError(f"El logo {path} mide {exc.size} bytes y el límite es {max_bytes} "
                          "(FEL_RULES_LOGO_BYTES)",
                          message_en=f"The logo {path} is {exc.size} bytes and the limit is {max_bytes} "
                                     "(FEL_RULES_LOGO_BYTES)") from None
    except OSError as exc:
        raise RenderError(f"No se pudo leer el logo {path}: {render_text(describe_read_error(exc))}",
                          message_en=f"Could not read the logo {path}: "
                                     f"{render_text(describe_read_error(exc), 'en')}") from exc
    _check_logo(str(path), data, max_pixels)
    return data


@lru_cache(maxsize=8)
def _check_logo(path: str, data: bytes, max_pixels: int) -> None:
    width, height = _logo_size(path, data, max_pixels)
    if width <= 0 or height <= 0:
        raise RenderError(f"El logo {path} está vacío", message_en=f"The logo {path} is empty")
    if width * height > max_pixels:
        raise _too_many_pixels(path, f"{width} × {height}", max_pixels)
    _decode_logo(path, data)


def _decode_logo(path: str, data: bytes) -> None:
    """Decode the whole image once (its pixels are within the limit by now): a truncated or damaged file is said
    here, before any work, not met by each PDF as a failure of its own."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PILImage.DecompressionBombWarning)
            with PILImage.open(io.BytesIO(data), formats=("PNG", "JPEG")) as image:
                image.load()
    except Exception as exc:  # noqa: BLE001 - PIL raises many types for a damaged image
        raise RenderError(f"El logo {path} está dañado o incompleto: su imagen no se puede leer entera",
                          message_en=f"The logo {path} is damaged or truncated: its image cannot be read whole",
                          ) from exc


def _logo_size(path: str, data: bytes, max_pixels: int) -> tuple[int, int]:
    """Width and height from the image's header (nothing is decoded)."""
    try:
        with warnings.catch_warnings():  # Pillow warns above 89 megapixels; the limit here says it better
            warnings.simplefilter("ignore", PILImage.DecompressionBombWarning)
            with PILImage.open(io.BytesIO(data), formats=("PNG", "JPEG")) as image:
                return image.size
    except PILImage.DecompressionBombError as exc:  # Pillow's own guard, far above ours
        raise _too_many_pixels(path, None, max_pixels) from exc
    except Exception as exc:  # noqa: BLE001 - PIL raises many types for a bad image
        raise RenderError(f"El logo {path} no es una imagen PNG o JPEG válida",
                          message_en=f"The logo {path} is not a valid PNG or JPEG image") from exc


def _too_many_pixels(path: str, size: str | None, limit: int) -> RenderError:
    size_es = f"mide {size} píxeles" if size else "tiene demasiados píxeles"
    size_en = f"is {size} pixels" if size else "has too many pixels"
    return RenderError(f"El logo {path} {size_es} y el límite es {limit} píxeles (FEL_RULES_LOGO_PIXELS); "
                       "use una imagen más pequeña",
                       message_en=f"The logo {path} {size_en} and the limit is {limit} pixels "
                                  "(FEL_RULES_LOGO_PIXELS); use a smaller image")


def _errors(report: Report) -> str:
    """The report's first errors, in the report's language, for a refusal to print."""
    return errors_in_brief(report, report.run.lang if report.run else "es", _SHOWN_ERRORS)

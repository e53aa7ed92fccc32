"""Rendering defaults, from environment variables, overridable per call.

=====================  =========================================  ==========
variable               meaning                                    default
=====================  =========================================  ==========
FEL_RULES_LOGO         logo printed in the header (PNG/JPEG)      none
FEL_RULES_LOGO_DIR     logos by emisor: ``<NIT>.png`` or ``.jpg`` none
FEL_RULES_OUTPUT_DIR   folder for PDFs when no output path given  ``out``
FEL_RULES_THEME        ``clasico`` or ``moderno``                 ``clasico``
FEL_RULES_PAGE         ``carta``, ``media-carta`` or ``ticket``   ``carta``
FEL_RULES_QR_SIZE      side of the verifier QR, millimetres       ``30``
FEL_RULES_HEADER_MM    least height of the header, millimetres    ``28``
FEL_RULES_LOGO_BYTES   largest logo file accepted, bytes          ``5242880``
FEL_RULES_LOGO_PIXELS  largest logo accepted, width × height      ``16777216``
=====================  =========================================  ==========
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...core.catalogue import error_texts
from ...core.errors import FelRulesError
from ...core.foreign import pydantic_error
from ...core.text import Text

__all__ = ["DEFAULT_LOGO_MAX_BYTES", "DEFAULT_LOGO_MAX_PIXELS", "LOGO_SUFFIXES", "PageName", "RenderSettings",
           "ThemeName", "logo_for"]

ThemeName = Literal["clasico", "moderno"]
PageName = Literal["carta", "media-carta", "ticket"]

#: The names a logo of ``logo_dir`` may have after the emisor's NIT, in the order they are looked for.
LOGO_SUFFIXES = (".png", ".jpg", ".jpeg", ".PNG", ".JPG", ".JPEG")

#: A logo file larger than this is refused before it is read (5 MiB; a header logo is a few kB).
DEFAULT_LOGO_MAX_BYTES = 5 * 1024 * 1024
#: A logo with more pixels than this (4096 × 4096) is refused before it is decoded: a few hundred kB of
#: PNG can declare 12000 × 12000 pixels, 2 GB once decoded.
DEFAULT_LOGO_MAX_PIXELS = 4096 * 4096

_ENV = {
    "logo": "FEL_RULES_LOGO",
    "logo_dir": "FEL_RULES_LOGO_DIR",
    "page": "FEL_RULES_PAGE",
    "output_dir": "FEL_RULES_OUTPUT_DIR",
    "theme": "FEL_RULES_THEME",
    "qr_size_mm": "FEL_RULES_QR_SIZE",
    "header_mm": "FEL_RULES_HEADER_MM",
    "logo_max_bytes": "FEL_RULES_LOGO_BYTES",
    "logo_max_pixels": "FEL_RULES_LOGO_PIXELS",
}


class RenderSettings(BaseModel):
    """How PDFs look and where they go."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    logo: Path | None = Field(default=None, description="Logo image (PNG or JPEG).")
    logo_dir: Path | None = Field(default=None, description="Logos by emisor: <NIT>.png or <NIT>.jpg; the emisors "
                                                             "without one get `logo`.")
    output_dir: Path = Field(default=Path("out"), description="Folder for PDFs when no output path is given.")
    theme: ThemeName = "clasico"
    page: PageName = "carta"
    qr_size_mm: float = Field(default=30, ge=15, le=60)
    header_mm: float = Field(default=28, ge=15, le=60)
    lang: Literal["es", "en"] = "es"
    logo_max_bytes: int = Field(default=DEFAULT_LOGO_MAX_BYTES, gt=0, description="Largest logo file, in bytes.")
    logo_max_pixels: int = Field(default=DEFAULT_LOGO_MAX_PIXELS, gt=0,
                                 description="Largest logo, in pixels (width × height), checked before decoding.")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> RenderSettings:
        """Settings from ``FEL_RULES_*`` variables, then ``overrides`` (``None`` values are ignored)."""
        environ = os.environ if environ is None else environ
        values: dict[str, object] = {key: environ[var] for key, var in _ENV.items() if environ.get(var)}
        values.update({key: value for key, value in overrides.items() if value is not None})
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            error = exc.errors(include_url=False)[0]
            field = str(error["loc"][0]) if error["loc"] else "?"
            variable = _ENV.get(field, field)
            said = Text.of("render.bad_setting", reason=pydantic_error(error, variable))
            raise FelRulesError(**error_texts(said), detail=error["msg"]) from None


_NIT = re.compile(r"[0-9A-Za-z]{1,20}")


def logo_for(settings: RenderSettings, nit: str | None) -> Path | None:
    """The logo of the emisor ``nit``: ``<NIT>.png`` (or ``.jpg``, ``.jpeg``) of ``logo_dir`` when there is one,
    else ``settings.logo``. A NIT that is not letters and digits never names a file."""
    folder = settings.logo_dir
    if folder is not None and nit and _NIT.fullmatch(nit):
        for suffix in LOGO_SUFFIXES:
            candidate = folder / f"{nit}{suffix}"
            if candidate.is_file():
                return candidate
    return settings.logo

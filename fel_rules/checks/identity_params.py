"""Params of the identifier kinds ``nit`` and ``cui`` (pydantic): validated when a rule file loads."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .kind_params import KindParams

__all__ = ["CuiParams", "NitParams"]


class NitParams(KindParams):
    """Which party's NIT to check, and which literal values are accepted as they are."""

    party: Literal["emisor", "receptor", "certificador"] = Field(description="emisor, receptor or certificador.")
    allow: list[str] = Field(default_factory=list, description="Values accepted without a check digit (e.g. CF).")


class CuiParams(KindParams):
    """Which aspect of the receptor's CUI to check when TipoEspecial is CUI."""

    aspect: Literal["format", "check_digit", "place"] = Field(
        description="format: 13 digits (RCP307); check_digit: verifier digit (RCP308); "
        "place: department 01–22 and a municipality that exists in it."
    )

"""Params of the signature kinds (pydantic): validated when a rule file loads."""

from __future__ import annotations

from pydantic import Field

from .kind_params import KindParams

__all__ = ["ReformattedParams", "SignatureParams"]

_URI = r"^#[A-Za-z_][A-Za-z0-9_.\-]*$"


class SignatureParams(KindParams):
    """Which signature the rule judges: the one whose ds:Reference has this URI."""

    reference: str = Field(
        pattern=_URI,
        description="URI of the ds:Reference that identifies the signer's role: #DatosEmision (issuer), "
        "#DatosCertificados (certifier), #DatosAnulacion (issuer of an annulment).",
    )


class ReformattedParams(KindParams):
    """The signatures looked at: those whose ds:Reference has one of these URIs."""

    references: list[str] = Field(
        min_length=1, description="URIs of the ds:Reference of each signer's role (see the signature kind).")

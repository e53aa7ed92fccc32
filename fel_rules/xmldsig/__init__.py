"""Verification of XML signatures (XMLDSig with XAdES-BES properties) as FEL documents carry them.

Pure verification: canonicalisation, reference digests, the RSA signature value, the embedded
certificate and the XAdES signing certificate and signing time. Results are :class:`Problem` values
with a :class:`ProblemCode` and the values involved; turning them into user texts is the caller's job.

The verifier and the cryptography library it needs load on first use (:class:`SignedDocument`,
:func:`role_uris`, :func:`verify_signature`): a process that only meets unsigned documents never imports them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from .results import (
    MAX_REFERENCES,
    MAX_SIGNATURES,
    PROBLEM_VALUES,
    REFORMATTED,
    Problem,
    ProblemCode,
    SignatureVerdict,
)

if TYPE_CHECKING:
    from .verify import SignedDocument, role_uris, verify_signature

__all__ = [
    "MAX_REFERENCES", "MAX_SIGNATURES", "PROBLEM_VALUES", "REFORMATTED", "Problem", "ProblemCode", "SignatureVerdict",
    "SignedDocument", "role_uris", "verify_signature",
]

#: The names of the verifier, loaded on first use.
_VERIFIER = frozenset({"SignedDocument", "role_uris", "verify_signature"})


def __getattr__(name: str) -> object:
    """Import the verifier the first time one of its names is asked for."""
    if name not in _VERIFIER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(".verify", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

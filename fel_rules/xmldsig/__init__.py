"""Verification of XML signatures (XMLDSig with XAdES-BES properties) as FEL documents carry them.

Pure verification: canonicalisation, reference digests, the RSA signature value, the embedded
certificate and the XAdES signing certificate and signing time. Results are :class:`Problem` values
with a :class:`ProblemCode` and the values involved; turning them into user texts is the caller's job.
"""

from .results import (
    MAX_REFERENCES,
    MAX_SIGNATURES,
    PROBLEM_VALUES,
    REFORMATTED,
    Problem,
    ProblemCode,
    SignatureVerdict,
)
from .verify import SignedDocument, role_uris, verify_signature

__all__ = [
    "MAX_REFERENCES", "MAX_SIGNATURES", "PROBLEM_VALUES", "REFORMATTED", "Problem", "ProblemCode", "SignatureVerdict",
    "SignedDocument", "role_uris", "verify_signature",
]

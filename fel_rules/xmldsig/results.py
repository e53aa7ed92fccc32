"""What verifying a signature can find: a code, the element concerned and the values involved."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field as dataclass_field
from enum import StrEnum

from lxml import etree

from ..core.record import Record

__all__ = ["MAX_REFERENCES", "MAX_SIGNATURES", "PROBLEM_VALUES", "REFORMATTED", "Problem", "ProblemCode",
           "SignatureVerdict"]

#: Bounded work on hostile input: FEL signatures carry 2 references, documents 1–2 signatures.
MAX_REFERENCES = 8
MAX_SIGNATURES = 8


class ProblemCode(StrEnum):
    """Every way a signature can fail verification (the values each carries: :data:`PROBLEM_VALUES`)."""

    TOO_MANY_SIGNATURES = "too_many_signatures"
    NO_SIGNED_INFO = "no_signed_info"
    TOO_MANY_REFERENCES = "too_many_references"
    REFERENCE_NOT_FOUND = "reference_not_found"
    REFERENCE_AMBIGUOUS = "reference_ambiguous"
    REFERENCE_OUTSIDE_CONTENT = "reference_outside_content"
    REFERENCE_URI_UNSUPPORTED = "reference_uri_unsupported"
    UNSUPPORTED_TRANSFORM = "unsupported_transform"
    UNSUPPORTED_DIGEST = "unsupported_digest"
    DIGEST_VALUE_INVALID = "digest_value_invalid"
    REFERENCE_C14N_FAILED = "reference_c14n_failed"
    DIGEST_MISMATCH = "digest_mismatch"
    DIGEST_MISMATCH_REINDENTED = "digest_mismatch_reindented"  # it matches without indentation
    NO_CERTIFICATE = "no_certificate"
    CERTIFICATE_UNREADABLE = "certificate_unreadable"
    UNSUPPORTED_C14N = "unsupported_c14n"
    UNSUPPORTED_SIGNATURE_METHOD = "unsupported_signature_method"
    NO_SIGNATURE_VALUE = "no_signature_value"
    SIGNATURE_VALUE_INVALID = "signature_value_invalid"
    KEY_NOT_RSA = "key_not_rsa"
    SIGNED_INFO_C14N_FAILED = "signed_info_c14n_failed"
    SIGNATURE_MISMATCH = "signature_mismatch"
    SIGNATURE_MISMATCH_REINDENTED = "signature_mismatch_reindented"  # it verifies without indentation
    NO_XADES_PROPERTIES = "no_xades_properties"
    SIGNED_PROPERTIES_UNREFERENCED = "signed_properties_unreferenced"
    SIGNING_CERTIFICATE_UNSUPPORTED_DIGEST = "signing_certificate_unsupported_digest"
    SIGNING_CERTIFICATE_MISMATCH = "signing_certificate_mismatch"
    NO_SIGNING_TIME = "no_signing_time"
    SIGNING_TIME_INVALID = "signing_time_invalid"
    SIGNED_BEFORE_VALIDITY = "signed_before_validity"
    SIGNED_AFTER_VALIDITY = "signed_after_validity"


#: The values each problem carries (``uri`` is ``None`` for a reference without one).
PROBLEM_VALUES: dict[ProblemCode, tuple[str, ...]] = {
    ProblemCode.TOO_MANY_SIGNATURES: ("limit", "role"),
    ProblemCode.NO_SIGNED_INFO: (),
    ProblemCode.TOO_MANY_REFERENCES: ("count", "limit"),
    ProblemCode.REFERENCE_NOT_FOUND: ("uri",),
    ProblemCode.REFERENCE_AMBIGUOUS: ("uri", "count"),
    ProblemCode.REFERENCE_OUTSIDE_CONTENT: ("uri",),
    ProblemCode.REFERENCE_URI_UNSUPPORTED: ("uri",),
    ProblemCode.UNSUPPORTED_TRANSFORM: ("uri", "algorithm"),
    ProblemCode.UNSUPPORTED_DIGEST: ("uri", "algorithm"),
    ProblemCode.DIGEST_VALUE_INVALID: ("uri",),
    ProblemCode.REFERENCE_C14N_FAILED: ("uri", "error"),
    ProblemCode.DIGEST_MISMATCH: ("uri",),
    ProblemCode.DIGEST_MISMATCH_REINDENTED: ("uri",),
    ProblemCode.NO_CERTIFICATE: (),
    ProblemCode.CERTIFICATE_UNREADABLE: (),
    ProblemCode.UNSUPPORTED_C14N: ("algorithm",),
    ProblemCode.UNSUPPORTED_SIGNATURE_METHOD: ("algorithm",),
    ProblemCode.NO_SIGNATURE_VALUE: (),
    ProblemCode.SIGNATURE_VALUE_INVALID: (),
    ProblemCode.KEY_NOT_RSA: ("key_type",),
    ProblemCode.SIGNED_INFO_C14N_FAILED: ("error",),
    ProblemCode.SIGNATURE_MISMATCH: (),
    ProblemCode.SIGNATURE_MISMATCH_REINDENTED: (),
    ProblemCode.NO_XADES_PROPERTIES: (),
    ProblemCode.SIGNED_PROPERTIES_UNREFERENCED: (),
    ProblemCode.SIGNING_CERTIFICATE_UNSUPPORTED_DIGEST: (),
    ProblemCode.SIGNING_CERTIFICATE_MISMATCH: (),
    ProblemCode.NO_SIGNING_TIME: (),
    ProblemCode.SIGNING_TIME_INVALID: ("time",),
    ProblemCode.SIGNED_BEFORE_VALIDITY: ("time", "not_before", "not_after"),
    ProblemCode.SIGNED_AFTER_VALIDITY: ("time", "not_before", "not_after"),
}


#: Problems that vanish once the whitespace between elements is removed: the file was re-indented after signing.
REFORMATTED = frozenset({ProblemCode.DIGEST_MISMATCH_REINDENTED, ProblemCode.SIGNATURE_MISMATCH_REINDENTED})


class Problem(Record, kw_only=False):
    """One verification failure: its code, the element it concerns (and that element's local name as
    ``field``), the values involved (``uri`` is ``None`` for a reference without one) and, where it
    applies, what was expected and what was found."""

    code: ProblemCode
    element: etree._Element
    field: str
    values: Mapping[str, str | int | None] = dataclass_field(default_factory=dict)
    expected: str | None = None
    actual: str | None = None


class SignatureVerdict(Record, kw_only=False):
    """What verifying one ``ds:Signature`` found (no problems: it verifies)."""

    signature: etree._Element
    problems: tuple[Problem, ...]

    @property
    def reformatted_only(self) -> bool:
        """True when the only problems are digests that match once the whitespace between elements is removed:
        the file was re-indented after signing, and the signed data itself (and the signature value) is intact."""
        return bool(self.problems) and all(problem.code in REFORMATTED for problem in self.problems)

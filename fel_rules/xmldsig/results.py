"""What verifying a signature can find: a code, the element concerned and the values involved."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from lxml import etree

__all__ = ["MAX_REFERENCES", "MAX_SIGNATURES", "Problem", "ProblemCode"]

#: Bounded work on hostile input: FEL signatures carry 2 references, documents 1–2 signatures.
MAX_REFERENCES = 8
MAX_SIGNATURES = 8


class ProblemCode(str, Enum):
    """Every way a signature can fail verification (values each code carries in brackets)."""

    TOO_MANY_SIGNATURES = "too_many_signatures"  # [limit, role]
    NO_SIGNED_INFO = "no_signed_info"
    TOO_MANY_REFERENCES = "too_many_references"  # [count, limit]
    REFERENCE_NOT_FOUND = "reference_not_found"  # [uri]
    REFERENCE_AMBIGUOUS = "reference_ambiguous"  # [uri, count]
    REFERENCE_OUTSIDE_CONTENT = "reference_outside_content"  # [uri]
    REFERENCE_URI_UNSUPPORTED = "reference_uri_unsupported"  # [uri]
    UNSUPPORTED_TRANSFORM = "unsupported_transform"  # [uri, algorithm]
    UNSUPPORTED_DIGEST = "unsupported_digest"  # [uri, algorithm]
    DIGEST_VALUE_INVALID = "digest_value_invalid"  # [uri]
    REFERENCE_C14N_FAILED = "reference_c14n_failed"  # [uri, error]
    DIGEST_MISMATCH = "digest_mismatch"  # [uri]
    DIGEST_MISMATCH_REINDENTED = "digest_mismatch_reindented"  # [uri]: it matches without indentation
    NO_CERTIFICATE = "no_certificate"
    CERTIFICATE_UNREADABLE = "certificate_unreadable"
    UNSUPPORTED_C14N = "unsupported_c14n"  # [algorithm]
    UNSUPPORTED_SIGNATURE_METHOD = "unsupported_signature_method"  # [algorithm]
    NO_SIGNATURE_VALUE = "no_signature_value"
    SIGNATURE_VALUE_INVALID = "signature_value_invalid"
    KEY_NOT_RSA = "key_not_rsa"  # [key_type]
    SIGNED_INFO_C14N_FAILED = "signed_info_c14n_failed"  # [error]
    SIGNATURE_MISMATCH = "signature_mismatch"
    NO_XADES_PROPERTIES = "no_xades_properties"
    SIGNED_PROPERTIES_UNREFERENCED = "signed_properties_unreferenced"
    SIGNING_CERTIFICATE_UNSUPPORTED_DIGEST = "signing_certificate_unsupported_digest"
    SIGNING_CERTIFICATE_MISMATCH = "signing_certificate_mismatch"
    NO_SIGNING_TIME = "no_signing_time"
    SIGNING_TIME_INVALID = "signing_time_invalid"  # [time]
    SIGNED_BEFORE_VALIDITY = "signed_before_validity"  # [time, not_before, not_after]
    SIGNED_AFTER_VALIDITY = "signed_after_validity"  # [time, not_before, not_after]


@dataclass(frozen=True)
class Problem:
    """One verification failure: its code, the element it concerns (and that element's local name as
    ``field``), the values involved (``uri`` is ``None`` for a reference without one) and, where it
    applies, what was expected and what was found."""

    code: ProblemCode
    element: etree._Element
    field: str
    values: Mapping[str, str | int | None] = field(default_factory=dict)
    expected: str | None = None
    actual: str | None = None

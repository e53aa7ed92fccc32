"""The facts of the certificates signatures embed are kept between runs: a later run rebuilds an RSA certificate's key
and validity from them without cryptography's X.509 parser, judges every signature exactly as with the parser, and
kept facts that are damaged, of another shape or that make no key, or a cache that is off, only mean parsing
again."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import Encoding
from lxml import etree

from fel_rules import Validator
from fel_rules.core.cache import read_entry, write_entry
from fel_rules.core.learnt import keep_learnt
from fel_rules.core.namespaces import DS
from fel_rules.testing.signing import Signer, make_certificate, sign_certified, utc
from fel_rules.xmldsig import certificates

from .conftest import own_cache_env, spy

ROOT = Path(__file__).resolve().parent.parent
SIGNED = ROOT / "examples" / "factura-certificada.xml"


@pytest.fixture
def fresh_process(own_cache, monkeypatch):
    """The module as a new process finds it, with a cache folder of its own."""
    _next_process(monkeypatch)
    yield monkeypatch
    certificates._read_cached.cache_clear()  # (nothing read here stays for the other tests)


def _next_process(monkeypatch) -> None:
    """The module's state as a new process starts with it: nothing read, nothing learnt."""
    monkeypatch.setattr(certificates, "_kept", None)
    monkeypatch.setattr(certificates, "_fresh", {})
    certificates._read_cached.cache_clear()


def _parses(monkeypatch) -> list[bytes]:
    """The DER each later call of the parser reads (it still parses)."""
    parsed: list[bytes] = []
    spy(monkeypatch, x509, "load_der_x509_certificate", lambda der, *args, **kwargs: parsed.append(der))
    return parsed


def _texts(document: bytes) -> list[str]:
    return [element.text for element in etree.fromstring(document).iter(f"{{{DS}}}X509Certificate")]


def _facts(certificate: certificates.Certificate) -> tuple:
    numbers = certificate.public_key().public_numbers()
    return numbers.n, numbers.e, certificate.validity(), certificate.digest("sha256"), certificate.der


def test_a_certificate_read_by_one_run_is_rebuilt_by_the_next_without_the_parser(fresh_process):
    text = _texts(SIGNED.read_bytes())[0]
    parsed = _parses(fresh_process)
    read = certificates.read_certificate(text)
    assert len(parsed) == 1
    certificates.keep_certificates()
    _next_process(fresh_process)
    rebuilt = certificates.read_certificate(text)
    assert len(parsed) == 1  # (not parsed again)
    assert isinstance(rebuilt.public_key(), rsa.RSAPublicKey)
    assert _facts(rebuilt) == _facts(read)
    assert rebuilt.der == base64.b64decode("".join(text.split()))
    assert rebuilt.x509.serial_number == read.x509.serial_number  # (parsed when asked for)
    assert len(parsed) == 2


def test_every_verdict_is_the_same_with_certificates_rebuilt_from_kept_facts(fresh_process):
    """The signed example; a document signed by a certificate expired at signing time; one whose signature value,
    and one whose signed content, was altered after signing: the same reports with the parser and without it."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    expired = Signer(key, make_certificate(key, utc("2020-01-01T00:00:00"), utc("2020-12-31T23:59:59"),
                                           name="CADUCADO"))
    signed = SIGNED.read_bytes()
    root = etree.fromstring(signed)
    value = root.find(f"{{{DS}}}Signature/{{{DS}}}SignatureValue")
    value.text = value.text[:-6] + ("AAAA==" if not value.text.endswith("AAAA==") else "BBBB==")
    documents = [signed, sign_certified(_without_signatures(signed), expired), etree.tostring(root),
                 signed.replace(b"NombreReceptor=\"", b"NombreReceptor=\"X", 1)]
    parsed = _parses(fresh_process)

    def reports() -> list[dict]:
        validator = Validator()
        found = [validator.validate_bytes(document).to_dict(include_run=False) for document in documents]
        keep_learnt()
        return found

    with_parser = reports()
    assert parsed and sum(1 for report in with_parser if not report["valid"]) == 3
    _next_process(fresh_process)
    parsed.clear()
    assert reports() == with_parser
    assert parsed == []  # every certificate rebuilt from its facts


def test_a_certificate_whose_key_cannot_be_loaded_is_unreadable_and_never_kept(fresh_process):
    """An RSA certificate whose public exponent is even (cryptography refuses the key, not the DER): the signature
    check says the certificate is unreadable, it is no engine failure, and nothing is kept of it."""
    document = SIGNED.read_bytes()
    root = etree.fromstring(document)
    for element in root.iter(f"{{{DS}}}X509Certificate"):
        der = base64.b64decode("".join(element.text.split()))
        assert der.count(b"\x02\x03\x01\x00\x01") == 1  # (the exponent 65537)
        element.text = base64.b64encode(der.replace(b"\x02\x03\x01\x00\x01", b"\x02\x03\x01\x00\x02")).decode()
    report = Validator().validate_bytes(etree.tostring(root))
    keep_learnt()
    found = {(issue.rule_id, issue.location.field) for issue in report.issues}
    assert not any(rule.startswith("FEL-ENG") for rule, _ in found), found
    assert ("FEL-FIR-01", "X509Certificate") in found and ("FEL-FIR-02", "X509Certificate") in found
    assert read_entry(*certificates.entry()) is None


def test_facts_another_process_kept_meanwhile_are_kept_too(fresh_process):
    texts = _texts(SIGNED.read_bytes())
    certificates.read_certificate(texts[0])  # learnt here…
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    other = make_certificate(key, utc("2026-01-01T00:00:00"), utc("2026-12-31T23:59:59")).public_bytes(Encoding.DER)
    write_entry(*certificates.entry(), {hashlib.sha256(other).digest(): (2**2047 + 1, 65537, utc(
        "2026-01-01T00:00:00"), utc("2026-12-31T23:59:59"))})  # …while another process kept another certificate
    certificates.keep_certificates()
    first = base64.b64decode("".join(texts[0].split()))
    assert list(read_entry(*certificates.entry())) == [hashlib.sha256(other).digest(), hashlib.sha256(first).digest()]


def test_the_kept_facts_belong_to_one_version_of_cryptography(fresh_process):
    entry = certificates.entry()
    fresh_process.setattr(certificates, "cryptography_version", "0.0.0")
    certificates.entry.cache_clear()
    try:
        assert certificates.entry()[0] != entry[0] and certificates.entry()[1] != entry[1]
    finally:
        fresh_process.undo()
        certificates.entry.cache_clear()
    assert certificates.entry() == entry


def _without_signatures(document: bytes) -> bytes:
    root = etree.fromstring(document)
    for signature in root.findall(f"{{{DS}}}Signature"):
        root.remove(signature)
    return etree.tostring(root)


@pytest.mark.parametrize("facts", [
    ("not", "facts"),
    (3, 65537, utc("2026-01-01T00:00:00"), utc("2026-12-31T23:59:59")),  # a modulus no RSA key has
    (2**2047 + 1, 65537, "2026-01-01", "2026-12-31"),  # dates of another type
    (2**2047 + 1, 65537, utc("2026-01-01T00:00:00").replace(tzinfo=None), utc("2026-12-31T23:59:59")),  # naive
    (2**2047 + 1, 65537, utc("2026-01-01T00:00:00"), datetime.fromisoformat("2026-12-31T23:59:59+01:00")),  # not UTC
])
def test_kept_facts_of_another_shape_or_that_make_no_key_mean_parsing_again(fresh_process, facts):
    text = _texts(SIGNED.read_bytes())[0]
    der = base64.b64decode("".join(text.split()))
    write_entry(*certificates.entry(), {hashlib.sha256(der).digest(): facts, b"short": facts})
    parsed = _parses(fresh_process)
    certificate = certificates.read_certificate(text)
    assert parsed == [der]
    assert _facts(certificate)[:2] == _facts_of(der)


def _facts_of(der: bytes) -> tuple[int, int]:
    numbers = x509.load_der_x509_certificate(der).public_key().public_numbers()
    return numbers.n, numbers.e


def test_the_facts_of_one_certificate_are_never_those_of_another(fresh_process):
    """Facts are keyed by the whole DER: a certificate of another key, or the same key with another validity, is
    parsed and gets its own."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    first = make_certificate(key, utc("2026-01-01T00:00:00"), utc("2026-12-31T23:59:59"))
    later = make_certificate(key, utc("2027-01-01T00:00:00"), utc("2027-12-31T23:59:59"))
    other_key = rsa.generate_private_key(public_exponent=3, key_size=2048)
    other = make_certificate(other_key, utc("2026-01-01T00:00:00"), utc("2026-12-31T23:59:59"))
    texts = [base64.b64encode(certificate.public_bytes(Encoding.DER)).decode() for certificate in (first, later, other)]
    certificates.read_certificate(texts[0])
    certificates.keep_certificates()
    _next_process(fresh_process)
    parsed = _parses(fresh_process)
    read = [certificates.read_certificate(text) for text in texts]
    assert len(parsed) == 2
    assert read[1].validity() == (utc("2027-01-01T00:00:00"), utc("2027-12-31T23:59:59"))
    assert read[2].public_key().public_numbers().e == 3
    assert read[0].public_key().public_numbers() == key.public_key().public_numbers()


def test_a_certificate_of_another_kind_of_key_is_not_kept(fresh_process):
    key = ec.generate_private_key(ec.SECP256R1())
    text = base64.b64encode(make_certificate(key, utc("2026-01-01T00:00:00"), utc("2026-12-31T23:59:59"))
                            .public_bytes(Encoding.DER)).decode()
    assert isinstance(certificates.read_certificate(text).public_key(), ec.EllipticCurvePublicKey)
    certificates.keep_certificates()
    assert read_entry(*certificates.entry()) is None


def test_the_kept_facts_are_bounded_the_most_recent_kept(fresh_process):
    fresh_process.setattr(certificates, "KEPT_CERTIFICATES", 2)
    keys = [rsa.generate_private_key(public_exponent=65537, key_size=1024) for _ in range(3)]
    ders = [make_certificate(key, utc("2026-01-01T00:00:00"), utc("2026-12-31T23:59:59")).public_bytes(Encoding.DER)
            for key in keys]
    for der in ders:
        certificates.read_certificate(base64.b64encode(der).decode())
        certificates.keep_certificates()
    kept = read_entry(*certificates.entry())
    assert list(kept) == [hashlib.sha256(der).digest() for der in ders[1:]]


def test_nothing_is_kept_or_read_with_the_cache_off(fresh_process):
    text = _texts(SIGNED.read_bytes())[0]
    certificates.read_certificate(text)
    certificates.keep_certificates()
    assert read_entry(*certificates.entry()) is not None
    fresh_process.setenv("FEL_RULES_NO_CACHE", "1")
    _next_process(fresh_process)
    parsed = _parses(fresh_process)
    certificates.read_certificate(text)
    certificates.keep_certificates()
    assert len(parsed) == 1 and certificates._fresh == {}


def test_a_later_one_shot_validation_of_a_signed_document_does_not_load_the_x509_parser(tmp_path):
    code = ("import contextlib, io, json, sys\n"
            "from fel_rules.cli.app import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    code = main(['validate', {str(SIGNED)!r}])\n"
            "print(json.dumps([code, 'cryptography.x509' in sys.modules]))\n")
    env = own_cache_env(tmp_path / "cache")
    runs = [subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                           check=True) for _ in range(2)]
    assert [json.loads(run.stdout.splitlines()[-1]) for run in runs] == [[0, True], [0, False]]


def test_a_warm_up_loads_the_x509_parser_only_when_asked_to(tmp_path):
    """A server's warm-up (``certificates=True``) leaves the parser ready for a certificate no run has read yet; a
    batch's does not load it (its workers may well not need it)."""
    code = ("import json, sys\n"
            "from fel_rules import Validator\n"
            "done = Validator().warm_up(certificates=sys.argv[1] == '1')\n"
            "print(json.dumps([done, 'cryptography.x509' in sys.modules]))\n")
    env = own_cache_env(tmp_path / "cache")
    found = [json.loads(subprocess.run([sys.executable, "-c", code, flag], cwd=ROOT, env=env, capture_output=True,
                                       text=True, check=True).stdout.splitlines()[-1]) for flag in "0011"]
    assert found == [[True, True], [True, False], [True, True], [True, True]]  # (the first run reads the sample's)

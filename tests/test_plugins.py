"""Third-party check kinds arrive through the entry-point group ``fel_rules.checks``."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib.metadata import EntryPoint

import pytest
from lxml import etree

from fel_rules import CheckKindError, Config, Validator
from fel_rules.checks import registry
from fel_rules.document.facts import extract_facts

from .conftest import EXAMPLES

PLUGIN = '''
"""A tiny third-party check kind: the document's GranTotal must not exceed a limit."""
from fel_rules.checks import Finding, KindParams


class LimitParams(KindParams):
    limit: str


class GranTotalLimit:
    Params = LimitParams

    def __init__(self, params, env):
        from decimal import Decimal
        self.limit = Decimal(params.limit)

    def check(self, doc):
        total = doc.facts.totales.gran_total
        if total is not None and total.value is not None and total.value > self.limit:
            yield Finding(xpath=total.xpath, line=total.line, field="GranTotal",
                          values={"value": total.raw, "limit": str(self.limit)})
'''

RULES = """\
schema_version: 1
ruleset: {id: externas, version: "1", title: Reglas con un tipo de terceros}
rules:
  - id: EXT-01
    title: Gran total bajo el límite interno
    check: gran_total_limit
    params: {limit: "1000.00"}
    message: "GranTotal {value} supera el límite {limit}"
"""


def _install(tmp_path, monkeypatch, package: str, source: str, kind: str, value: str) -> None:
    """``source`` as the package ``package`` (in ``tmp_path``), whose ``value`` is the entry point of check kind
    ``kind``, the only one the registry finds."""
    folder = tmp_path / package
    folder.mkdir()
    (folder / "__init__.py").write_text(textwrap.dedent(source), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, package, raising=False)
    entry = EntryPoint(name=kind, value=value, group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [entry] if group == registry.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    monkeypatch.setattr(registry, "_KINDS", dict(registry._KINDS))


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    _install(tmp_path, monkeypatch, "felext", PLUGIN, "gran_total_limit", "felext:GranTotalLimit")
    yield
    sys.modules.pop("felext", None)


def test_a_yaml_rule_uses_a_plugin_kind(plugin, tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "externas.yaml").write_text(RULES, encoding="utf-8")
    report = Validator(Config(rules_dir=rules)).validate_path(EXAMPLES / "factura-fact.xml")
    (issue,) = [i for i in report.issues if i.rule_id == "EXT-01"]
    assert issue.message == "GranTotal 1911.50 supera el límite 1000.00" and issue.location.line == 85


HEADER_PLUGIN = '''
"""A check kind that keeps what it was given of each document (it finds nothing)."""
from fel_rules.checks import KindParams

SEEN = []
PREPARED = []


class NoParams(KindParams):
    pass


class KeepsHeader:
    Params = NoParams

    def __init__(self, params, env):
        pass

    def prepare(self, doc):
        PREPARED.append(doc.header)

    def check(self, doc):
        SEEN.append((doc.header, doc.brief))
        return iter(())
'''


def test_a_plugin_kind_reads_the_whole_header_of_a_document_only_validated(tmp_path, monkeypatch):
    """Validation reads its own facts without the parties' addresses and the frases (``brief``); a kind that asks
    for ``header`` gets all of it all the same, as the engine read it before."""
    _install(tmp_path, monkeypatch, "felheader", HEADER_PLUGIN, "keeps_header", "felheader:KeepsHeader")
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "cabecera.yaml").write_text(textwrap.dedent("""\
        schema_version: 1
        ruleset: {id: cabecera, version: "1", title: Lee la cabecera}
        rules:
          - id: CAB-01
            title: Lee la cabecera
            check: keeps_header
            message: "Nunca"
        """), encoding="utf-8")
    path = EXAMPLES / "factura-fact.xml"
    report = Validator(Config(rules_dir=rules)).validate_path(path)
    import felheader  # (the module the entry point loaded)

    ((header, brief),) = felheader.SEEN
    root = etree.fromstring(path.read_bytes())
    assert report.valid and header == extract_facts(root, lines=False, complements=False)
    assert header.emisor.direccion is not None and header.receptor.direccion is not None and header.frases
    assert brief.emisor.direccion is None and brief.receptor.direccion is None and brief.frases == []
    assert brief.emisor.nit == header.emisor.nit and brief.totales == header.totales
    felheader.SEEN.clear()
    reports = Validator(Config(rules_dir=rules)).validate_many([path, EXAMPLES / "factura-certificada.xml"])
    assert [report.valid for report in reports] == [True, True]
    # (in a group, the prepare stage asked first: the rules stage finds the same header, not read again)
    assert [id(header) for header, _ in felheader.SEEN] == [id(header) for header in felheader.PREPARED]
    assert felheader.SEEN[0][0] == header


def test_a_broken_plugin_is_named(tmp_path, monkeypatch):
    entry = EntryPoint(name="roto", value="no_existe_este_modulo:Clase", group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [entry])
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    monkeypatch.setattr(registry, "_KINDS", dict(registry._KINDS))
    with pytest.raises(CheckKindError) as info:
        registry.get_check_kind("roto")
    assert "'roto'" in info.value.message and "no_existe_este_modulo" in info.value.message


def test_a_kind_without_params_model_is_refused(monkeypatch):
    monkeypatch.setattr(registry, "_KINDS", dict(registry._KINDS))
    with pytest.raises(CheckKindError):
        registry.check_kind("sin_params")(type("SinParams", (), {"check": lambda self, doc: iter(())}))


def test_the_built_in_kinds_are_known_to_a_fresh_registry():
    code = ("from fel_rules.checks.registry import _KINDS, get_check_kind; "
            "print(' '.join(sorted(_KINDS)), get_check_kind('signature').__name__)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    document_kinds = ["cui", "expression", "nit", "required", "signature", "signature_reformatted",
                      "signatures_verified"]
    batch_kinds = [  # the cross-document rules of rules/lote.yaml
        "annulled_once", "credit_note_taxes", "credit_note_total", "exempt_within_origin_tax",
        "final_invoice_deadline", "no_active_constancia", "referenced_not_annulled", "referenced_phrase",
        "referenced_type", "repeated_authorization", "same_as_referenced"
    ]
    assert result.stdout.split() == [*sorted(document_kinds + batch_kinds), "SignatureCheck"]

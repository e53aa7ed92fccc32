"""The message catalogue: one bilingual text per id, and every id the code says exists with its placeholders.

Texts reach users only through the catalogue (``fel_rules/core/messages.yaml``, plus the rule files' own
texts): the code yields ids and values, and one renderer says them in the report's language. These tests
keep it that way: no language branch and no hand-made Spanish/English pair in the code.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from fel_rules.batch.worker import PdfNote
from fel_rules.checks.signature import _detail_values
from fel_rules.core.catalogue import LANGUAGES, MESSAGES, load_catalogue, render_text
from fel_rules.core.report import Severity
from fel_rules.core.templates import template_fields
from fel_rules.core.text import Text
from fel_rules.document.parse import _LIMITS
from fel_rules.engine import Validator
from fel_rules.findings.model import Finding
from fel_rules.findings.render import render_issue
from fel_rules.ruleset.model import DTE_TYPES
from fel_rules.xmldsig import PROBLEM_VALUES, ProblemCode

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*(ROOT / "fel_rules").rglob("*.py"), *(ROOT / "mcp_server").rglob("*.py")])
#: Keywords of Finding(...) that are not template values.
_FINDING_FIELDS = {"id", "xpath", "line", "item", "field", "values", "expected", "actual", "difference"}
#: Schema texts that are parts of a schema error's text, not the text itself.
_XSD_PARTS = {"xsd.what.attribute", "xsd.what.field", "xsd.the_document", "xsd.unreadable"}
#: Keywords of the helpers that build findings (a location, not a value).
_LOCATION = {"xpath", "line"}
_SPANISH = re.compile(r"[áéíóúñ¿¡]|\b(el|la|los|las|de|del|no|es|una?|que|se|por)\b", re.I)
_ENGLISH = re.compile(r"\b(the|of|is|not|an?|was|were|could|cannot|file|rule)\b", re.I)


def _trees():
    for path in SOURCES:
        yield path.relative_to(ROOT), ast.parse(path.read_text(encoding="utf-8"))


# ---- the catalogue -------------------------------------------------------------------------------


def test_every_entry_has_both_languages_and_only_name_placeholders():
    wordings = [*MESSAGES.texts.items()]
    for id, entry in MESSAGES.issues.items():
        wordings += [(f"{id}.{part}", getattr(entry, part)) for part in ("title", "message", "hint")
                     if getattr(entry, part) is not None]
    for id, wording in wordings:
        assert set(wording) == set(LANGUAGES), id
        for lang in LANGUAGES:
            assert wording[lang].strip(), (id, lang)
            template_fields(wording[lang])  # raises for anything but {name}


def test_an_issue_placeholder_is_the_same_in_both_languages():
    for id, entry in MESSAGES.issues.items():
        for part in ("title", "message", "hint"):
            wording = getattr(entry, part)
            if wording is not None:
                assert template_fields(wording["es"]) == template_fields(wording["en"]), (id, part)


@pytest.mark.parametrize(("text", "problem"), [
    ("issues: {}\ntexts:\n  a: {es: hola}\n", "en"),
    ("issues: {}\ntexts:\n  a: {es: '{x!r}', en: '{x}'}\n", "marcador"),
    ("issues:\n  X-01: {stage: xml, severity: fatal, title: {es: a, en: a}, message: {es: a, en: a}}\ntexts: {}\n",
     "severity"),
])
def test_a_broken_catalogue_is_refused_when_it_loads(text, problem):
    with pytest.raises(ValueError, match=problem):
        load_catalogue(text)


def test_a_text_is_said_in_each_language_with_its_values_said_too():
    more = Text.of("count.more_than", count=200)
    assert render_text(more, "es") == "más de 200" and render_text(more, "en") == "more than 200"
    listed = Text.of("list.and_more", shown=["a.xml", "b.xml"], more=3)
    assert render_text(listed, "es") == "a.xml, b.xml y 3 más"
    assert render_text(listed, "en") == "a.xml, b.xml and 3 more"


def test_one_function_renders_an_issue_from_a_finding():
    finding = Finding(id="FEL-ENG-04", xpath="/a", values={"rule": "X-01", "count": Text.of("count.more_than", count=2),
                                                          "shown": 2})
    spanish, english = render_issue(finding, "es"), render_issue(finding, "en")
    assert spanish.message == "La regla X-01 encontró más de 2 problemas; el reporte muestra los primeros 2."
    assert english.message == "Rule X-01 found more than 2 problems; the report shows the first 2."
    assert (spanish.severity, spanish.stage, spanish.location.xpath) == (Severity.INFO, "rules", "/a")
    assert render_issue(finding, "es", rule_id="X-01", severity=Severity.ERROR).rule_id == "X-01"


def test_rules_and_engine_messages_share_one_lookup():
    validator = Validator()
    assert set(MESSAGES.issues) < set(validator.messages.issues)
    rule = validator.catalog.rules[0]
    entry = validator.messages.entry(rule.id)
    assert entry.title == {"es": rule.spec.title, "en": rule.spec.title_en or rule.spec.title}


# ---- every id the code says ----------------------------------------------------------------------


def _literal_uses():
    """(where, id, given value names or None when not known statically) of each catalogue id written in code."""
    known = set(MESSAGES.issues) | set(MESSAGES.texts)
    for path, tree in _trees():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            args = [*node.args, *(k.value for k in node.keywords if k.arg == "id")]
            ids = [a.value for a in args if isinstance(a, ast.Constant) and a.value in known]
            if not ids:
                continue
            called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            skipped = _FINDING_FIELDS if called == "Finding" else _LOCATION
            names: set[str] | None = {k.arg for k in node.keywords if k.arg not in skipped}
            if any(k.arg is None for k in node.keywords):
                names = None  # **values
            literal = [a for a in [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "values")]
                       if isinstance(a, ast.Dict)]
            for table in literal:
                if any(key is None for key in table.keys):
                    names = None
                elif names is not None:
                    names |= {key.value for key in table.keys}
            yield f"{path}:{node.lineno}", ids[0], names


def _placeholders(id: str) -> set[str]:
    if id in MESSAGES.issues:
        entry = MESSAGES.issues[id]
        wordings = [w for w in (entry.title, entry.message, entry.hint) if w is not None]
        return set().union(*(template_fields(w[lang]) for w in wordings for lang in LANGUAGES)) - {"item"}
    return set().union(*(template_fields(MESSAGES.texts[id][lang]) for lang in LANGUAGES))


def test_ids_written_in_the_code_are_given_every_placeholder():
    uses = list(_literal_uses())
    assert len(uses) > 40  # the scan sees the code's texts
    for where, id, names in uses:
        if names is not None:
            if id.startswith("xsd.") and id not in _XSD_PARTS:
                names |= {"where", "reason"}  # describe_error adds them to every schema error's text
            assert _placeholders(id) <= names, (where, id, _placeholders(id) - names)


def test_every_engine_issue_is_said_somewhere():
    said = {id for _, id, _ in _literal_uses()}
    assert set(MESSAGES.issues) <= said


@pytest.mark.parametrize("code", list(ProblemCode))
def test_every_signature_problem_has_its_text_with_the_values_it_carries(code):
    said = _detail_values({name: "x" for name in PROBLEM_VALUES[code]})
    assert _placeholders(f"signature.{code.value}") <= set(said)


def test_every_id_built_from_a_code_exists():
    texts = MESSAGES.texts
    assert {f"batch.pdf_note.{note.value}" for note in PdfNote} <= set(texts)
    assert {f"dte_type.{tipo}" for tipo in DTE_TYPES} <= set(texts)
    assert {f"report.severity.{level.value}" for level in Severity} <= set(texts)
    assert {f"report.verdict.{v}" for v in ("valid", "invalid", "unknown")} <= set(texts)
    assert {f"value_kind.{kind}" for kind in ("decimal", "int", "date")} <= set(texts)
    assert {f"os_error.unsafe_{kind}" for kind in ("special", "foreign", "input")} <= set(texts)
    assert {f"file_kind.{kind}" for kind in ("fifo", "character_device", "block_device", "directory", "socket",
                                              "special")} <= set(texts)
    assert set(_LIMITS.values()) <= set(texts)


# ---- no language in the code -----------------------------------------------------------------------


def test_no_branch_on_the_language():
    """``lang == "en"`` and the like: the language is chosen once, by the catalogue."""
    found = []
    for path, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                if any(isinstance(o, ast.Constant) and o.value in LANGUAGES for o in operands):
                    found.append(f"{path}:{node.lineno}")
    assert found == []


def test_no_hand_made_spanish_english_pair():
    """A tuple of a Spanish and an English text, or a ``{"es": …, "en": …}`` literal of texts, belongs in the
    catalogue."""
    found = []
    for path, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Tuple) and len(node.elts) == 2:
                texts = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                if len(texts) == 2 and _SPANISH.search(texts[0]) and _ENGLISH.search(texts[1]) \
                        and not _ENGLISH.search(texts[0]):
                    found.append(f"{path}:{node.lineno}: {texts}")
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                literal = all(isinstance(v, (ast.Constant, ast.JoinedStr)) for v in node.values)
                if keys == set(LANGUAGES) and literal:
                    found.append(f"{path}:{node.lineno}")
    assert found == []

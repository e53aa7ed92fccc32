"""Per-rule YAML test cases: a base document, small XPath patches, and the expected verdict.

A case file (``rules/tests/FEL-IVA-01.yaml``)::

    rule: FEL-IVA-01
    base: ../../examples/factura-fact.xml        # relative to the case file
    cases:
      - name: iva_correcto
        expect: pass
      - name: iva_alterado
        patch:
          - set: "(//dte:Impuesto[dte:NombreCorto='IVA'])[1]/dte:MontoImpuesto"
            value: "99.00"
        expect: [FEL-IVA-01]

``expect: pass`` means the rule reports nothing; a list is exactly the set of rule ids the rules
stage reports (the rule under test among them). Either way no check may crash. Patches: ``set``
(element text or attribute value), ``remove``, ``append`` (an XML fragment added as the last child
of the matched element; prefixes of the fragment are those of :data:`fel_rules.core.namespaces.PREFIXES`),
and ``reindent`` (the matched element's content indented again with ``value``, four spaces by default: what
an editor or a portal does to a file; the rest of the file keeps its bytes).

An entry of the list may also pin down one finding: where it points (``at``: the end of its XPath,
whole steps) and the values it reports (``values``: any of ``expected``, ``actual``, ``difference``,
quoted, exactly as the report writes them). Some finding of that rule must match::

    expect:
      - FEL-IVA-03
      - id: FEL-IVA-01
        at: "dte:Item[1]/dte:Impuestos/dte:Impuesto/dte:MontoImpuesto"
        values: {expected: "91.07", actual: "99.00", difference: "7.93"}

A case of a batch rule (``scope: batch``) describes a small batch instead: ``documents``, each a file
name, a base (default: the case's, then the file's) and patches. The documents are validated and put
through the batch's cross-document rules (:func:`fel_rules.batch.cross.cross_issues`), and ``expect``
says, per document name, ``pass`` or exactly the set of batch rules it gets (a document left out
must not get the rule under test); ``expect: pass`` means no document gets it::

    rule: FEL-LOT-03
    base: ../../examples/factura-certificada.xml
    cases:
      - name: nota_en_otra_moneda
        documents:
          - name: origen.xml
          - name: nota.xml
            base: ../../examples/nota-credito-ncre.xml
            patch:
              - set: "//dte:DatosGenerales/@CodigoMoneda"
                value: USD
        expect: {nota.xml: [FEL-LOT-03]}
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from lxml import etree
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..core.atomic import describe_os_error
from ..core.catalogue import error_texts
from ..core.errors import RuleFileError
from ..core.foreign import pydantic_error, xml_syntax, xpath_error
from ..core.namespaces import DS, DTE, PREFIXES
from ..core.report import Issue, Report
from ..core.text import Text
from ..core.yamlfile import load_yaml, position

__all__ = [
    "CaseDocument", "CaseError", "CaseFile", "CaseResult", "ExpectedFinding", "FindingValues", "RuleCase",
    "apply_patches", "build_document", "load_case_file", "run_case",
]

_NAMESPACES = {"dte": DTE, "ds": DS, **{prefix: uri for uri, prefix in PREFIXES.items() if prefix != "dte"}}


class Patch(BaseModel):
    """One edit of the base document."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    set: str | None = None
    value: str | None = None
    remove: str | None = None
    append: str | None = None
    xml: str | None = None
    reindent: str | None = None

    @model_validator(mode="after")
    def _one_operation(self) -> Patch:
        ops = [name for name in ("set", "remove", "append", "reindent") if getattr(self, name) is not None]
        if len(ops) != 1:
            raise ValueError("cada parche usa exactamente una operación: set, remove, append o reindent")
        if self.reindent is not None and self.value is not None and self.value.strip(" \t"):
            raise ValueError("'reindent' solo admite espacios o tabuladores en 'value'")
        if self.set is not None and self.value is None:
            raise ValueError("'set' necesita 'value'")
        if self.append is not None and self.xml is None:
            raise ValueError("'append' necesita 'xml'")
        return self


class CaseDocument(BaseModel):
    """One document of a batch case: its file name in the batch, its base and its patches."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9_-]+\.xml$")
    base: str | None = None
    patch: list[Patch] = []


class FindingValues(BaseModel):
    """Values an expected finding reports (only those given are compared, as text)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    expected: str | None = None
    actual: str | None = None
    difference: str | None = None


class ExpectedFinding(BaseModel):
    """A finding the case requires: its rule id and, optionally, where it points and what it reports."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    at: str | None = Field(default=None, description="the end of the finding's XPath, in whole steps")
    values: FindingValues | None = None

    def matches(self, issue: Issue) -> bool:
        """True when ``issue`` is this finding."""
        if issue.rule_id != self.id:
            return False
        xpath = issue.location.xpath or ""
        if self.at is not None and xpath != self.at and not xpath.endswith("/" + self.at):
            return False
        wanted = self.values.model_dump(exclude_none=True) if self.values else {}
        return all(getattr(issue, name) == value for name, value in wanted.items())

    def describe(self) -> str:
        """The expectation in one line, for a failure message."""
        parts = [self.id] + ([f"en {self.at}"] if self.at else [])
        if self.values:
            parts += [f"{name}={value}" for name, value in self.values.model_dump(exclude_none=True).items()]
        return " ".join(parts)


Expectation = Literal["pass"] | list[str | ExpectedFinding]


def expected_ids(expected: Expectation) -> list[str]:
    """Rule ids an expectation requires, in the order it lists them (none for ``pass``)."""
    if expected == "pass":
        return []
    return list(dict.fromkeys(entry if isinstance(entry, str) else entry.id for entry in expected))


def expected_findings(expected: Expectation) -> list[ExpectedFinding]:
    """The entries of an expectation that pin down a finding's location or values."""
    return [] if expected == "pass" else [entry for entry in expected if isinstance(entry, ExpectedFinding)]


class RuleCase(BaseModel):
    """One case: patches to apply (or the documents of a batch) and what the rule must say."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9_]+$")
    description: str | None = None
    base: str | None = None
    patch: list[Patch] = []
    documents: list[CaseDocument] | None = Field(default=None, min_length=1)
    expect: Expectation | dict[str, Expectation] | None = None
    fires: list[str] | None = Field(default=None, min_length=1,
                                    description="rules that must fire (others may fire too)")
    not_: list[str] | None = Field(default=None, min_length=1, alias="not", description="rules that must not fire")

    @model_validator(mode="after")
    def _documents_and_expectations(self) -> RuleCase:
        if self.expect is None and self.fires is None and self.not_ is None:
            raise ValueError("el caso necesita 'expect', 'fires' o 'not'")
        if self.documents is None:
            if isinstance(self.expect, dict):
                raise ValueError("'expect' por documento necesita 'documents'")
            return self
        if self.fires is not None or self.not_ is not None:
            raise ValueError("'fires' y 'not' son para casos de un documento; con 'documents' use 'expect'")
        if self.patch:
            raise ValueError("un caso con 'documents' lleva los parches en cada documento")
        names = [document.name for document in self.documents]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"documento repetido: {repeated[0]}")
        if isinstance(self.expect, list):
            raise ValueError("con 'documents', 'expect' es pass o un mapeo documento → pass | [reglas]")
        unknown = sorted(set(self.expect) - set(names)) if isinstance(self.expect, dict) else []
        if unknown:
            raise ValueError(f"'expect' nombra un documento que el caso no tiene: {unknown[0]}")
        return self

    def expected(self, document: str | None = None) -> Expectation | None:
        """What the rule must say on ``document`` (of a batch case), or on the case's one document (``None``: the
        case says only what fires and what does not)."""
        if isinstance(self.expect, dict):
            return self.expect.get(document, "pass")
        return self.expect

    def fails_for(self, rule: str) -> bool:
        """True when ``rule`` (the rule under test) must report something."""
        if isinstance(self.expect, dict):
            return any(expected != "pass" for expected in self.expect.values())
        if self.expect is not None and self.expect != "pass":
            return True
        return rule in (self.fires or [])


class CaseFile(BaseModel):
    """All cases of one rule."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: str
    base: str
    cases: list[RuleCase] = Field(min_length=1)

    @property
    def has_pass_and_fail(self) -> bool:
        """True when some case expects the rule to stay silent and some case expects it to report (what every
        shipped rule's file has; ``rules lint`` asks for it)."""
        fails = [case.fails_for(self.rule) for case in self.cases]
        return any(fails) and not all(fails)


def load_case_file(path: Path) -> CaseFile:
    """Read and validate a case file."""
    data = load_yaml(path)
    try:
        return CaseFile.model_validate(data)
    except ValidationError as exc:
        # ``expect`` is a union: report the error of the branch that got furthest into the data.
        error = max(exc.errors(include_url=False), key=lambda e: len(_data_path(e["loc"])))
        loc = _data_path(error["loc"])
        line, column = position(data, loc)
        reason = pydantic_error(error, ".".join(map(str, loc)) or "(raíz)")
        raise RuleFileError(**error_texts(Text.of("cases.invalid_file", reason=reason)), path=str(path), line=line,
                            column=column, detail=error["msg"]) from None


def case_file_problems(path: Path, case_file: CaseFile) -> list[RuleFileError]:
    """What would keep a case of ``case_file`` (read from ``path``) from running, found without running it: a base
    document that is not there, a patch whose XPath is not valid. Each names its line."""
    data = load_yaml(path)
    problems = []
    for index, case in enumerate(case_file.cases):
        documents = case.documents or [None]
        for number, document in enumerate(documents):
            where: tuple = ("cases", index) if document is None else ("cases", index, "documents", number)
            base = (document.base if document is not None else None) or case.base or case_file.base
            base_at = next((loc for loc in ((*where, "base"), ("cases", index, "base")) if _has(data, loc)), ("base",))
            if not (path.parent / base).is_file():
                line, column = position(data, base_at)
                problems.append(RuleFileError(**error_texts(Text.of("cases.base_missing", base=base)),
                                              path=str(path), line=line, column=column))
            patches = document.patch if document is not None else case.patch
            for order, patch in enumerate(patches):
                problem = _patch_xpath_problem(patch)
                if problem is not None:
                    line, column = position(data, (*where, "patch", order))
                    problems.append(RuleFileError(**error_texts(problem[0]), path=str(path), line=line, column=column,
                                                  detail=problem[1]))
    return problems


def _has(data: Any, loc: tuple) -> bool:
    for key in loc:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            return False
    return True


def _patch_xpath_problem(patch: Patch) -> tuple[Text, str] | None:
    """(why, lxml's words) when the patch's XPath cannot be compiled."""
    path = patch.set or patch.remove or patch.append or patch.reindent or ""
    try:
        etree.XPath(path, namespaces=_NAMESPACES)
    except etree.XPathSyntaxError as exc:
        return Text.of("cases.patch_bad_xpath", patch=path, reason=xpath_error(str(exc))), str(exc)
    return None


def _data_path(loc: tuple) -> tuple:
    """An error location without pydantic's union branch labels (``str``, ``ExpectedFinding``, ``list[...]``)."""
    return tuple(key for key in loc if isinstance(key, int) or not ("[" in key or key[:1].isupper() or key == "str"))


def build_document(folder: Path, base: str, patches: list[Patch]) -> bytes:
    """The base document (relative to ``folder``) with ``patches`` applied; :class:`CaseError` when it cannot be
    built."""
    try:
        data = (folder / base).read_bytes()
    except OSError as exc:
        raise CaseError(Text.of("cases.base_unreadable", base=base, reason=describe_os_error(exc)), str(exc)) from None
    try:
        return apply_patches(data, patches)
    except etree.XMLSyntaxError as exc:
        reason = xml_syntax(etree.ErrorTypes._getName(exc.code, ""), exc.msg or str(exc))
        raise CaseError(Text.of("cases.base_not_xml", base=base, reason=reason), str(exc)) from None
    except _PatchXPathError as exc:
        raise CaseError(Text.of("cases.patch_bad_xpath", patch=exc.path, reason=xpath_error(exc.said)),
                        exc.said) from None
    except _PatchXmlError as exc:
        error = exc.error
        reason = xml_syntax(etree.ErrorTypes._getName(error.code, ""), error.msg or str(error))
        raise CaseError(Text.of("cases.patch_bad_xml", reason=reason), str(error)) from None
    except _PatchFindsNothing as exc:
        raise CaseError(Text.of("cases.patch_finds_nothing", patch=str(exc))) from None
    except ValueError as exc:
        raise CaseError(Text.of("cases.patch_failed", reason=str(exc))) from None


class _PatchFindsNothing(ValueError):
    """A patch's XPath that selects nothing in the base document."""


class _PatchXmlError(ValueError):
    """An ``append`` fragment that is not well-formed XML."""

    def __init__(self, error: etree.XMLSyntaxError) -> None:
        super().__init__(str(error))
        self.error = error


class _PatchXPathError(ValueError):
    """A patch's XPath that lxml refused (``said``: its words)."""

    def __init__(self, path: str, said: str) -> None:
        super().__init__(path)
        self.path, self.said = path, said


def apply_patches(document: bytes, patches: list[Patch]) -> bytes:
    """The document with every patch applied (each XPath must match at least one node)."""
    root = etree.fromstring(document, etree.XMLParser(resolve_entities=False, no_network=True))
    namespaces = {**_NAMESPACES, "dte": etree.QName(root).namespace or DTE}
    for patch in patches:
        path = patch.set or patch.remove or patch.append or patch.reindent
        try:
            found = root.xpath(path, namespaces=namespaces)
        except etree.XPathError as exc:
            raise _PatchXPathError(path, str(exc)) from None
        if not isinstance(found, list) or not found:
            raise _PatchFindsNothing(path)
        for node in found:
            _apply(patch, node, namespaces)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def _apply(patch: Patch, node: Any, namespaces: dict[str, str]) -> None:
    if isinstance(node, str) and getattr(node, "is_attribute", False):
        parent = node.getparent()
        if patch.set is not None:
            parent.set(node.attrname, patch.value)
        elif patch.remove is not None:
            del parent.attrib[node.attrname]
        else:
            raise ValueError("'append' necesita un elemento, no un atributo")
        return
    if not isinstance(node, etree._Element):
        raise ValueError("el parche debe apuntar a un elemento o atributo")
    if patch.set is not None:
        node.text = patch.value
    elif patch.reindent is not None:
        depth = sum(1 for _ in node.iterancestors())
        etree.indent(node, space=patch.value if patch.value is not None else "    ", level=depth)
    elif patch.remove is not None:
        node.getparent().remove(node)
    else:
        declarations = " ".join(f'xmlns:{p}="{u}"' for p, u in namespaces.items())
        try:
            wrapper = etree.fromstring(f"<wrap {declarations}>{patch.xml}</wrap>")
        except etree.XMLSyntaxError as exc:
            raise _PatchXmlError(exc) from None
        for child in wrapper:
            node.append(child)


@dataclass(frozen=True)
class CaseResult:
    """Outcome of one case: each document's report and the rules that count for its expectation (every
    rule of the rules stage; in a batch case, the batch rules)."""

    case: RuleCase
    reports: dict[str, Report]
    fired: dict[str, frozenset[str]]
    rule: str

    @property
    def report(self) -> Report:
        """The report of a one-document case."""
        (report,) = self.reports.values()
        return report

    @property
    def fired_ids(self) -> set[str]:
        """Rule ids reported, on any document."""
        return set().union(*self.fired.values())

    @property
    def crashed(self) -> bool:
        """True when a check failed to run (the verdict would not be conclusive)."""
        return any(report.could_not_validate or any(i.stage == "engine" for i in report.issues)
                   for report in self.reports.values())

    @property
    def passed(self) -> bool:
        """True when the rules behaved exactly as the case expects, on every document."""
        return not self.crashed and all(self._as_expected(name) for name in self.reports)

    def findings(self, name: str) -> list[Issue]:
        """The issues of ``name`` that count for its expectation."""
        return [issue for issue in self.reports[name].issues if issue.rule_id in self.fired[name]]

    def unmatched(self, name: str | None = None) -> list[ExpectedFinding]:
        """Expected findings of ``name`` (default: the one document) that no reported finding matches."""
        name = name if name is not None else next(iter(self.reports))
        found = self.findings(name)
        expected = self.case.expected(name)
        return [wanted for wanted in expected_findings(expected if expected is not None else "pass")
                if not any(map(wanted.matches, found))]

    def _as_expected(self, name: str) -> bool:
        expected, fired = self.case.expected(name), self.fired[name]
        if not set(self.case.fires or ()) <= fired or set(self.case.not_ or ()) & fired:
            return False
        if expected is None:
            return True
        if expected == "pass":
            return self.rule not in fired
        ids = set(expected_ids(expected))
        return self.rule in ids and fired == ids and not self.unmatched(name)


class CaseError(Exception):
    """A case that cannot run (its base is missing or not XML, a patch finds nothing or is not valid XPath);
    ``reason`` says why, in the catalogue's words."""

    def __init__(self, reason: Text, detail: str | None = None) -> None:
        super().__init__(reason.id)
        self.reason = reason
        self.detail = detail


def run_case(validator: Any, case_file: CaseFile, case: RuleCase, folder: Path) -> CaseResult:
    """Build the case's document (or documents), validate, and compare with the expectation (:class:`CaseError`
    when the case cannot run)."""
    if case.documents is not None:
        return _run_batch_case(validator, case_file, case, folder)
    document = build_document(folder, case.base or case_file.base, case.patch)
    name = f"{case_file.rule}/{case.name}"
    report = validator.validate_bytes(document, path=name)
    fired = frozenset(issue.rule_id for issue in report.issues if issue.stage == "rules")
    return CaseResult(case, {name: report}, {name: fired}, case_file.rule)


def _run_batch_case(validator: Any, case_file: CaseFile, case: RuleCase, folder: Path) -> CaseResult:
    """Validate each document, then run the batch's cross-document rules over them, as ``fel-rules batch`` does."""
    from ..batch.cross import cross_issues, with_cross_issues
    from ..checks.batch_input import cross_facts

    outcomes = {}
    for document in case.documents or ():
        data = build_document(folder, document.base or case.base or case_file.base, document.patch)
        outcomes[document.name] = validator.inspect_bytes(data, path=document.name, lines=False)
    catalog, config = validator.catalog, validator.config
    found = cross_issues(((name, cross_facts(outcome.facts)) for name, outcome in outcomes.items()), catalog,
                         lang=config.lang, as_of=config.as_of)
    batch_rules = {rule.id for rule in catalog.batch_rules}
    reports = {name: with_cross_issues(outcome.report, found.get(name, []), batch_rules)
               for name, outcome in outcomes.items()}
    fired = {name: frozenset(i.rule_id for i in report.issues if i.rule_id in batch_rules)
             for name, report in reports.items()}
    return CaseResult(case, reports, fired, case_file.rule)

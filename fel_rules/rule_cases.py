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
(element text or attribute value), ``remove``, and ``append`` (an XML fragment added as the last
child of the matched element; prefixes of the fragment are those of
:data:`fel_rules.namespaces.PREFIXES`).

An entry of the list may also pin down one finding: where it points (``at``: the end of its XPath,
whole steps) and the values it reports (``values``: any of ``expected``, ``actual``, ``difference``,
quoted, exactly as the report writes them). Some finding of that rule must match::

    expect:
      - FEL-IVA-03
      - id: FEL-IVA-01
        at: "dte:Item[1]/dte:Impuestos/dte:Impuesto/dte:MontoImpuesto"
        values: {expected: "91.07", actual: "99.00", difference: "7.93"}
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from lxml import etree
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import RuleFileError
from .namespaces import DS, DTE, PREFIXES
from .report import Issue, Report
from .ruleset.yamlfile import load_yaml, position

__all__ = [
    "CaseFile", "CaseResult", "ExpectedFinding", "FindingValues", "RuleCase", "apply_patches", "load_case_file",
    "run_case",
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

    @model_validator(mode="after")
    def _one_operation(self) -> Patch:
        ops = [name for name in ("set", "remove", "append") if getattr(self, name) is not None]
        if len(ops) != 1:
            raise ValueError("cada parche usa exactamente una operación: set, remove o append")
        if self.set is not None and self.value is None:
            raise ValueError("'set' necesita 'value'")
        if self.append is not None and self.xml is None:
            raise ValueError("'append' necesita 'xml'")
        return self


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


class RuleCase(BaseModel):
    """One case: patches to apply and what the rule must say."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9_]+$")
    description: str | None = None
    base: str | None = None
    patch: list[Patch] = []
    expect: Literal["pass"] | list[str | ExpectedFinding]

    @property
    def expected_ids(self) -> list[str]:
        """Rule ids the rules stage must report, in the order the case lists them (none for ``pass``)."""
        if self.expect == "pass":
            return []
        ids = [entry if isinstance(entry, str) else entry.id for entry in self.expect]
        return list(dict.fromkeys(ids))

    @property
    def expected_findings(self) -> list[ExpectedFinding]:
        """The entries that pin down a finding's location or values."""
        return [] if self.expect == "pass" else [e for e in self.expect if isinstance(e, ExpectedFinding)]


class CaseFile(BaseModel):
    """All cases of one rule."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: str
    base: str
    cases: list[RuleCase] = Field(min_length=2)

    @model_validator(mode="after")
    def _pass_and_fail(self) -> CaseFile:
        if not any(case.expect == "pass" for case in self.cases):
            raise ValueError("se necesita al menos un caso 'pass'")
        if not any(case.expect != "pass" for case in self.cases):
            raise ValueError("se necesita al menos un caso que falle")
        return self


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
        raise RuleFileError(
            f"caso de prueba inválido en '{'.'.join(map(str, loc))}': {error['msg']}",
            message_en=f"invalid test case at '{'.'.join(map(str, loc))}': {error['msg']}",
            path=str(path), line=line, column=column,
        ) from None


def _data_path(loc: tuple) -> tuple:
    """An error location without pydantic's union branch labels (``str``, ``ExpectedFinding``, ``list[...]``)."""
    return tuple(key for key in loc if isinstance(key, int) or not ("[" in key or key[:1].isupper() or key == "str"))


def apply_patches(document: bytes, patches: list[Patch]) -> bytes:
    """The document with every patch applied (each XPath must match at least one node)."""
    root = etree.fromstring(document, etree.XMLParser(resolve_entities=False, no_network=True))
    namespaces = {**_NAMESPACES, "dte": etree.QName(root).namespace or DTE}
    for patch in patches:
        path = patch.set or patch.remove or patch.append
        found = root.xpath(path, namespaces=namespaces)
        if not isinstance(found, list) or not found:
            raise ValueError(f"el parche no encuentra nada: {path}")
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
    elif patch.remove is not None:
        node.getparent().remove(node)
    else:
        declarations = " ".join(f'xmlns:{p}="{u}"' for p, u in namespaces.items())
        wrapper = etree.fromstring(f"<wrap {declarations}>{patch.xml}</wrap>")
        for child in wrapper:
            node.append(child)


@dataclass(frozen=True)
class CaseResult:
    """Outcome of one case."""

    case: RuleCase
    report: Report
    rule: str

    @property
    def findings(self) -> list[Issue]:
        """Issues reported by the rules stage."""
        return [issue for issue in self.report.issues if issue.stage == "rules"]

    @property
    def fired_ids(self) -> set[str]:
        """Rule ids reported by the rules stage."""
        return {issue.rule_id for issue in self.findings}

    @property
    def unmatched(self) -> list[ExpectedFinding]:
        """Expected findings that no reported finding matches."""
        return [wanted for wanted in self.case.expected_findings if not any(map(wanted.matches, self.findings))]

    @property
    def crashed(self) -> bool:
        """True when a check failed to run (the verdict would not be conclusive)."""
        return self.report.could_not_validate or any(i.stage == "engine" for i in self.report.issues)

    @property
    def passed(self) -> bool:
        """True when the rules behaved exactly as the case expects."""
        if self.crashed:
            return False
        if self.case.expect == "pass":
            return self.rule not in self.fired_ids
        expected = set(self.case.expected_ids)
        return self.rule in expected and self.fired_ids == expected and not self.unmatched


def run_case(validator: Any, case_file: CaseFile, case: RuleCase, folder: Path) -> CaseResult:
    """Build the case's document, validate it, and compare with the expectation."""
    base = folder / (case.base or case_file.base)
    document = apply_patches(base.read_bytes(), case.patch)
    report = validator.validate_bytes(document, path=f"{case_file.rule}/{case.name}")
    return CaseResult(case, report, case_file.rule)

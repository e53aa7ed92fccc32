"""Tools for rule authors: list, show, test and lint rules; generate ``rules/schema.json`` and ``docs/RULES.md``.

Everything here works on YAML alone: an accountant writes a rule and its test cases, then runs
``fel-rules rules lint`` and ``fel-rules rules test``; ``fel-rules rules docs`` regenerates the docs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..core.catalogue import render_text, say
from ..core.config import Config
from ..core.errors import FelRulesError, RuleFileError
from ..core.text import Text
from ..engine import Validator
from ..ruleset import LoadedRule, RuleCatalog
from ..ruleset.loader import check_catalog
from ..ruleset.model import RuleFile, RuleSpec
from .rule_cases import CaseError, CaseFile, CaseResult, case_file_problems, load_case_file, run_case

__all__ = [
    "CaseOutcome", "LintProblem", "case_files", "lint", "render_rules_markdown", "rule_file_json_schema",
    "run_cases",
]


def rule_file_json_schema() -> dict:
    """JSON Schema of a rule file (for editors: completion and validation while typing)."""
    from ..checks.expression_params import LetSpec

    schema = RuleFile.model_json_schema(by_alias=True)
    rule = RuleSpec.model_json_schema(by_alias=True)
    definitions = {**schema.pop("$defs", {}), **rule.pop("$defs", {})}
    let = LetSpec.model_json_schema()
    let["oneOf"] = [{"required": ["path"]}, {"required": ["value"]}]
    definitions["LetSpec"] = let
    rule["properties"]["let"] = {
        "anyOf": [{"type": "object", "additionalProperties": {"anyOf": [{"type": "string"},
                                                                        {"$ref": "#/$defs/LetSpec"}]}},
                  {"type": "null"}],
        "description": "Bindings: name → XPath (read as a decimal), {path, type, many, default}, "
                       "or {value: expression}.",
    }
    definitions["RuleSpec"] = rule
    schema["properties"]["rules"] = {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/RuleSpec"}}
    schema["$defs"] = dict(sorted(definitions.items()))
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "fel-rules rule file"
    return schema


def case_files(folder: Path) -> list[Path]:
    """Case files in ``folder`` (``*.yaml``, sorted)."""
    return sorted(folder.glob("*.yaml"))


@dataclass(frozen=True)
class CaseOutcome:
    """One case run: its file, the case file and the result; or, when the case (or its whole file) could not
    run, ``problem`` says why (``case_name`` is then the case, or ``None`` for the file)."""

    path: Path
    case_file: CaseFile | None
    result: CaseResult | None
    case_name: str | None = None
    problem: Text | str | None = None

    @property
    def label(self) -> str:
        """``file: rule/case`` (or just the file) for a line of output."""
        rule = self.case_file.rule if self.case_file is not None else None
        case = self.case_name or (self.result.case.name if self.result is not None else None)
        named = f"{rule}/{case}" if rule and case else (rule or "")
        return f"{self.path.name}: {named}" if named else self.path.name


def run_cases(location: Path, validator: Validator | None = None, *, rule: str | None = None) -> list[CaseOutcome]:
    """Run every case of one case file, or of every case file in a folder (only those of ``rule`` when given).
    Nothing raises for a broken case or file: its outcome carries the problem."""
    validator = validator or Validator(Config())
    known = {loaded.id for loaded in validator.catalog.rules}
    outcomes = []
    for path in case_files(location) if location.is_dir() else [location]:
        try:
            case_file = load_case_file(path)
        except FelRulesError as exc:
            outcomes.append(CaseOutcome(path, None, None, problem=exc.message))
            continue
        if rule is not None and case_file.rule != rule:
            continue
        if case_file.rule not in known:
            outcomes.append(CaseOutcome(path, case_file, None, problem=Text.of("cases.unknown_rule",
                                                                               rule=case_file.rule)))
            continue
        for case in case_file.cases:
            try:
                outcomes.append(CaseOutcome(path, case_file, run_case(validator, case_file, case, path.parent)))
            except CaseError as exc:
                outcomes.append(CaseOutcome(path, case_file, None, case.name, exc.reason))
    return outcomes


@dataclass(frozen=True)
class LintProblem:
    """Something a rule author should fix (``error``) or consider (``warning``): where (``file:line:column [ID]``)
    and what, said in either language (:meth:`said`)."""

    severity: str
    where: str
    message: Text | Mapping[str, str]
    line: int | None = None

    def said(self, lang: str = "es") -> str:
        """The problem in ``lang``."""
        if isinstance(self.message, Text):
            return render_text(self.message, lang)
        return say(self.message, lang)

    @classmethod
    def of(cls, exc: RuleFileError) -> LintProblem:
        """A loading error as an ``error`` problem."""
        return cls("error", exc.where, {"es": exc.reason, "en": exc.reason_en}, exc.line)


def lint(rules_dir: Path, cases_dir: Path | None = None) -> list[LintProblem]:
    """Every problem of the rules folder in one pass: each rule file, each rule and each case file is checked, a
    problem in one never hides the others. Then what a good rule has: test cases, an English message, references.
    Sorted by file and line."""
    catalog, errors = check_catalog(rules_dir)
    problems = [LintProblem.of(exc) for exc in errors]
    if catalog is None:
        return problems
    cases_dir = cases_dir or rules_dir / "tests"
    covered: dict[str, Path] = {}
    for path in case_files(cases_dir) if cases_dir.is_dir() else []:
        try:
            case_file = load_case_file(path)
        except RuleFileError as exc:
            problems.append(LintProblem.of(exc))
            covered.setdefault(path.stem, path)  # its rule has a case file, one that must be fixed
            continue
        covered.setdefault(case_file.rule, path)
        problems += [LintProblem.of(exc) for exc in case_file_problems(path, case_file)]
        if not case_file.has_pass_and_fail:
            problems.append(LintProblem("warning", str(path), Text.of("cases.no_pass_and_fail", rule=case_file.rule)))
    known = {rule.id for rule in catalog.rules} | {exc.rule_id for exc in errors if exc.rule_id}
    for rule in catalog.rules:
        where = f"{rule.path}:{rule.line} [{rule.id}]"
        if rule.id not in covered:
            problems.append(LintProblem("error", where, Text.of("lint.no_cases", path=cases_dir / f"{rule.id}.yaml"),
                                        rule.line))
        if not rule.spec.message_en:
            problems.append(LintProblem("warning", where, Text("lint.no_message_en"), rule.line))
        if not rule.spec.refs.sat_code and not rule.spec.refs.law:
            problems.append(LintProblem("warning", where, Text("lint.no_refs"), rule.line))
    for rule_id in sorted(set(covered) - known):
        problems.append(LintProblem("error", str(covered[rule_id]), Text.of("cases.unknown_rule", rule=rule_id)))
    return sorted(problems, key=_place)


def _place(problem: LintProblem) -> tuple:
    """File, then line (a problem of a whole file first), then the problem's order of discovery."""
    return problem.where.split(":", 1)[0].split(" [", 1)[0], problem.line or 0


def render_rules_markdown(catalog: RuleCatalog, cases_dir: Path) -> str:
    """``docs/RULES.md``: one section per rule, generated from the rule files and their test cases."""
    cases = {}
    for path in case_files(cases_dir):
        case_file = load_case_file(path)
        cases[case_file.rule] = case_file
    lines = ["# Reglas de fel-rules", "",
             "Generado por `fel-rules rules docs` a partir de `rules/*.yaml` y `rules/tests/*.yaml`; "
             "no lo edite a mano.",
             "", "| id | título | severidad | código SAT |", "|---|---|---|---|"]
    for rule in catalog.rules:
        lines.append(f"| [{rule.id}](#{rule.id.lower()}) | {rule.spec.title} | {rule.severity.value} | "
                     f"{rule.spec.refs.sat_code_text or '—'} |")
    for ruleset in catalog.rulesets:
        lines += ["", f"## {ruleset.title} (`{ruleset.id}` {ruleset.version})"]
        for rule in ruleset.rules:
            lines += _rule_section(rule, cases.get(rule.id))
    return "\n".join(lines) + "\n"


def _rule_section(rule: LoadedRule, case_file: CaseFile | None) -> list[str]:
    spec = rule.spec
    out = ["", f"### {rule.id}", "", f"**{spec.title}**" + (f" — {spec.title_en}" if spec.title_en else ""), ""]
    facts = [f"severidad: `{rule.severity.value}`", f"documento: {rule.document}"]
    if rule.scope == "batch":
        facts.append("alcance: lote (solo `fel-rules batch`, con los demás documentos del lote)")
    if spec.refs.sat_code_text:
        facts.append(f"código SAT: {spec.refs.sat_code_text}")
    if spec.refs.law:
        facts.append(f"norma: {spec.refs.law}")
    if rule.applies_to:
        facts.append("tipos: " + ", ".join(sorted(rule.applies_to)))
    if rule.effective:
        window = [f"desde {rule.effective.from_}" if rule.effective.from_ else "",
                  f"hasta {rule.effective.until}" if rule.effective.until else ""]
        facts.append("vigencia: " + " ".join(w for w in window if w))
    out.append("- " + "\n- ".join(facts))
    out += ["", "Qué verifica:", "", "```yaml", _what(rule), "```", "", f"Mensaje: {spec.message}"]
    if spec.hint:
        out.append(f"\nSugerencia: {spec.hint}")
    if case_file is not None:
        passing = next((c for c in case_file.cases if not c.fails_for(case_file.rule)), None)
        failing = next((c for c in case_file.cases if c.fails_for(case_file.rule)), None)
        for label, case in (("Pasa", passing), ("Falla", failing)):
            if case is not None:
                out.append(f"\n{label}: `{case.name}` — {_case_text(case, case_file)}")
    return out


def _case_text(case, case_file: CaseFile) -> str:
    """The case's document (base and patches), or each document of its batch."""
    base = case.base or case_file.base
    if case.documents is None:
        return f"`{Path(base).name}`: {_patches_text(case.patch)}"
    return "; ".join(f"`{doc.name}` (`{Path(doc.base or base).name}`: {_patches_text(doc.patch)})"
                     for doc in case.documents)


def _patches_text(patches) -> str:
    return "; ".join(_patch_text(p) for p in patches) or "el documento base sin cambios"


def _what(rule: LoadedRule) -> str:
    spec = rule.spec
    if spec.check != "expression":
        return json.dumps({"check": spec.check, "params": spec.params}, ensure_ascii=False)
    parts = [f"context: {spec.context}"]
    for key, entries in (("constants", spec.constants), ("let", spec.let)):
        for name, value in (entries or {}).items():
            parts.append(f"{key} {name}: {value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}")
    for key in ("when", "assert_", "expected", "actual", "tolerance"):
        value = getattr(spec, key)
        if value:
            parts.append(f"{key.rstrip('_')}: {value}")
    return "\n".join(parts)


def _patch_text(patch) -> str:
    if patch.set is not None:
        return f"`{patch.set}` = `{patch.value}`"
    if patch.remove is not None:
        return f"se quita `{patch.remove}`"
    return f"se agrega a `{patch.append}`: `{patch.xml}`"



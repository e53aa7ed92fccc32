"""``fel-rules rules list | show ID | test [PATH] | lint [PATH] | docs [--check]``: rule authoring from YAML alone."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..core.printable import escape_controls
from ..core.resources import BUILTIN_RULES_DIR
from ..core.text import Text

__all__ = ["register"]

DOCS = Path("docs") / "RULES.md"  # relative to where the author runs it: the project's root


def render_text(value: object, lang: str = "es") -> str:
    """:func:`fel_rules.core.catalogue.render_text`, imported with the first text said: the catalogue loads pydantic
    and YAML, which registering the sub-commands (done for every command) does not need."""
    from ..core.catalogue import render_text as said

    return said(value, lang)


def register(commands) -> None:
    """Add ``rules`` and its sub-commands to the ``fel-rules`` parser."""
    rules = commands.add_parser("rules", help="listar, probar, revisar y documentar reglas",
                                description="Herramientas para quien escribe reglas YAML.")
    rules.add_argument("--rules-dir", type=Path, default=BUILTIN_RULES_DIR, metavar="DIR", help="carpeta de reglas")
    rules.add_argument("--lang", choices=("es", "en"), default="es", help="idioma de los mensajes")
    actions = rules.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="las reglas en vigor")
    listing.add_argument("--profile", metavar="NAME", help="perfil a aplicar (severidades y reglas desactivadas)")
    listing.add_argument("--id-prefix", metavar="PREFIJO", help="solo las reglas cuyo id empieza así (FEL-IVA)")
    listing.add_argument("--sat-code", metavar="CODIGO", help="solo las reglas que citan este código SAT")
    listing.add_argument("--detail", action="store_true", help="con código SAT, tipos de DTE, documento y alcance")
    listing.add_argument("--format", choices=("text", "json"), default="text",
                         help="text (una línea por regla) o json (los mismos datos que la herramienta MCP fel_rules)")
    show = actions.add_parser("show", help="una regla en detalle")
    show.add_argument("rule_id", metavar="ID")
    test = actions.add_parser("test", help="ejecutar los casos de prueba YAML")
    test.add_argument("path", nargs="?", type=Path, metavar="PATH", help="carpeta o archivo de casos (rules/tests)")
    test.add_argument("--rule", metavar="ID", help="solo los casos de esta regla")
    test.add_argument("--all", action="store_true", help="mostrar también los casos correctos (por defecto: solo "
                                                         "los que fallan o no se pudieron ejecutar, y el resumen)")
    lint = actions.add_parser("lint", help="revisar archivos de reglas y de casos: todos los problemas a la vez "
                                           "(código 2 si hay errores)")
    lint.add_argument("path", nargs="?", type=Path, metavar="PATH", help="carpeta de reglas (por defecto --rules-dir)")
    docs = actions.add_parser("docs", help="generar docs/RULES.md, docs/SAT_COVERAGE.md y rules/schema.json")
    docs.add_argument("--check", action="store_true", help="solo comprobar que están al día (código 1 si no)")
    docs.add_argument("--out", type=Path, default=DOCS, metavar="FILE",
                      help="Markdown de salida (docs/RULES.md en la carpeta actual)")


def run(args: argparse.Namespace) -> int:
    """Handler of ``fel-rules rules``."""
    return {"list": _list, "show": _show, "test": _test, "lint": _lint, "docs": _docs}[args.action](args)


def _catalog(args: argparse.Namespace, profile: str | None = None):
    from ..ruleset import load_catalog

    return load_catalog(args.rules_dir, profile)


def _list(args: argparse.Namespace) -> int:
    from ..ruleset import list_rules, rules_listing

    catalog = _catalog(args, args.profile)
    rows = list_rules(catalog, lang=args.lang, id_prefix=args.id_prefix, sat_code=args.sat_code)
    if args.format == "json":
        print(json.dumps(rules_listing(catalog, rows, detail=args.detail), ensure_ascii=False, indent=2))
        return 0
    for row in rows:
        severity = render_text(Text(f"report.severity.{row.severity}"), args.lang)
        print(f"{row.id:<12} {severity:<11} {row.sat_code or '—':<24} {row.title}")
    print(render_text(Text.of("cli.rule_count", count=len(rows)), args.lang))
    return 0



def _show(args: argparse.Namespace) -> int:
    catalog = _catalog(args)
    rule = catalog.get(args.rule_id)
    if rule is None:
        message = render_text(Text.of("cli.unknown_rule", rule=args.rule_id), args.lang)
        print(f"fel-rules: error: {message}", file=sys.stderr)
        return 2
    from ..ruleset.spec import as_written

    data = as_written(rule.spec)
    data = {"id": rule.id, "severity": rule.severity.value, "document": rule.document, "scope": rule.scope,
            "applies_to": sorted(rule.applies_to) if rule.applies_to else None, "file": f"{rule.path}:{rule.line}",
            **data}
    print(json.dumps(data, ensure_ascii=False, indent=2))
    return 0


def _test(args: argparse.Namespace) -> int:
    from ..authoring.tools import run_cases
    from ..core.config import Config
    from ..engine import Validator

    path = args.path or args.rules_dir / "tests"
    outcomes = run_cases(path, Validator(Config(rules_dir=args.rules_dir, lang=args.lang)), rule=args.rule)
    counts = {"passed": 0, "failed": 0, "broken": 0}
    for outcome in outcomes:
        line, state = _case_line(outcome, args.lang)
        counts[state] += 1
        if state != "passed" or args.all:
            print(escape_controls(line))
    print(render_text(Text.of("cases.summary", count=len(outcomes), **counts), args.lang))
    return 2 if counts["broken"] else (1 if counts["failed"] else 0)


def _case_line(outcome, lang: str) -> tuple[str, str]:
    """One line of ``rules test`` output, and the case's state (passed, failed or broken)."""
    if outcome.result is None:
        broken = render_text(Text("cases.broken"), lang)
        return f"{broken} {outcome.label}: {render_text(outcome.problem, lang)}", "broken"
    result, case = outcome.result, outcome.result.case
    said = render_text(Text.of("cases.expected", expected=_expected_text(case), fired=_fired_text(result)), lang)
    missing = "".join(f"; {render_text(Text.of('cases.missing_finding', finding=wanted.describe()), lang)}"
                      for name in result.reports for wanted in result.unmatched(name))
    state = "passed" if result.passed else "failed"
    label = render_text(Text("cases.ok" if state == "passed" else "cases.failed"), lang)
    return f"{label} {outcome.label}: {said}{missing}", state


def _expected_text(case) -> str:
    """``pass``, ``FEL-X-01, FEL-Y-02``, per document ``nota.xml: FEL-LOT-03; otra.xml: pass``, and the
    ``fires`` / ``not`` forms."""
    parts = []
    if isinstance(case.expect, dict):
        parts.append("; ".join(f"{name}: {_expectation_text(expected)}" for name, expected in case.expect.items()))
    elif case.expect is not None:
        parts.append(_expectation_text(case.expect))
    if case.fires:
        parts.append(f"fires: {', '.join(case.fires)}")
    if case.not_:
        parts.append(f"not: {', '.join(case.not_)}")
    return "; ".join(parts)


def _expectation_text(expect) -> str:
    from ..authoring.rule_cases import expected_ids

    return expect if expect == "pass" else ", ".join(expected_ids(expect))


def _fired_text(result) -> str:
    """The rule ids reported (per document, for a batch case)."""
    if result.case.documents is None:
        return ", ".join(sorted(result.fired_ids)) or "—"
    return "; ".join(f"{name}: {', '.join(sorted(ids))}" for name, ids in result.fired.items() if ids) or "—"


def _lint(args: argparse.Namespace) -> int:
    from ..authoring.tools import lint

    folder = args.path or args.rules_dir
    problems = lint(folder)
    for problem in problems:
        where = f"{problem.where}: " if problem.where else ""
        severity = render_text(Text(f"report.severity.{problem.severity}"), args.lang)
        print(escape_controls(f"{where}{severity}: {problem.said(args.lang)}"))
    errors = sum(1 for p in problems if p.severity == "error")
    print(render_text(Text.of("lint.summary", count=len(problems), errors=errors, warnings=len(problems) - errors),
                      args.lang))
    return 2 if errors else 0


def _coverage_markdown(catalog, decisions: Path) -> str:
    from ..authoring.coverage import (
        code_coverage,
        implementing_rules,
        load_decisions,
        render_coverage_markdown,
    )
    from ..core.yamlfile import load_yaml

    source = load_yaml(decisions).get("source", str(decisions))
    return render_coverage_markdown(code_coverage(load_decisions(decisions), implementing_rules(catalog)), source)


def _docs(args: argparse.Namespace) -> int:
    from ..authoring.tools import render_rules_markdown, rule_file_json_schema
    from ..core.atomic import write_atomic

    catalog = _catalog(args)
    markdown = render_rules_markdown(catalog, args.rules_dir / "tests")
    schema = json.dumps(rule_file_json_schema(), ensure_ascii=False, indent=2) + "\n"
    targets = {args.out: markdown, args.rules_dir / "schema.json": schema}
    decisions = args.rules_dir / "data" / "sat_coverage.yaml"
    if decisions.is_file():  # a rules folder of one's own may not classify SAT's catalogue
        targets[args.out.with_name("SAT_COVERAGE.md")] = _coverage_markdown(catalog, decisions)
    stale = [path for path, text in targets.items() if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"desactualizado: {path} (ejecute fel-rules rules docs)")
        return 1 if stale else 0
    for path in stale:
        write_atomic(path, targets[path].encode("utf-8"))
        print(f"escrito: {path}")
    return 0

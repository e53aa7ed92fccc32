"""Coverage of SAT's rule catalogue: the project's decision per code, joined with the rules citing it.

``rules/data/sat_coverage.yaml`` says, for every code of SAT's message catalogue, whether it can be
decided from the document alone (``decidable``), only with other documents of a batch (``batch``),
or not at all without SAT's registers (``not_decidable``, with the reason). Which rules implement a
code is never written by hand: it is read from the rules' ``refs.sat_code`` (batch rules included) and
the engine's own checks, so the generated ``docs/SAT_COVERAGE.md`` cannot drift from the rules.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import RuleFileError
from ..core.yamlfile import load_yaml, position
from ..ruleset.loaded import RuleCatalog

__all__ = ["STATUSES", "CodeCoverage", "code_coverage", "implementing_rules", "load_decisions",
           "render_coverage_markdown"]

#: Decision statuses, in the order the report lists them.
STATUSES = ("decidable", "batch", "needs_table", "not_decidable")
_STATUS_ES = {"decidable": "con el documento", "batch": "con el lote", "needs_table": "falta tabla de SAT",
              "not_decidable": "no decidible"}
_DECIDED = ("decidable", "batch")  # the codes the project can implement today

#: SAT codes that the engine's own stages (not a YAML rule) implement.
ENGINE_CODES: Mapping[str, tuple[str, ...]] = {"FEL_GEN102": ("FEL-XSD-01",)}


@dataclass(frozen=True)
class CodeCoverage:
    """One SAT code: the project's decision and the rules that cite it."""

    code: str
    status: str
    check: str | None
    reason: str | None
    note: str | None
    rules: tuple[str, ...]
    related_rules: tuple[str, ...] = ()

    @property
    def implemented(self) -> bool:
        """A decidable or batch code with at least one rule citing it."""
        return self.status in _DECIDED and bool(self.rules)


def load_decisions(path: Path) -> dict[str, dict]:
    """The decision table, checked: every entry has a known status and the text that status needs."""
    data = load_yaml(path)
    codes = data.get("codes") if isinstance(data, dict) else None
    if not isinstance(codes, dict):
        raise RuleFileError("falta la clave 'codes'", message_en="missing key 'codes'", path=str(path), line=1)
    for code, entry in codes.items():
        status = entry.get("status") if isinstance(entry, dict) else None
        needed = "check" if status in _DECIDED else "reason"
        if status not in STATUSES or not (isinstance(entry.get(needed), str) and entry[needed].strip()):
            line, column = position(data, ("codes", code))
            raise RuleFileError(
                f"{code}: se esperaba status ({' | '.join(STATUSES)}) con su '{needed}'",
                message_en=f"{code}: expected a status ({' | '.join(STATUSES)}) with its '{needed}'",
                path=str(path), line=line, column=column,
            )
    return codes


def implementing_rules(catalog: RuleCatalog) -> dict[str, list[str]]:
    """SAT code → ids of the rules citing it (document and batch rules of the catalogue, engine checks), sorted."""
    found: dict[str, set[str]] = defaultdict(set)
    for rule in catalog.rules:
        codes = rule.spec.refs.sat_code
        for code in [codes] if isinstance(codes, str) else codes or []:
            found[code].add(rule.id)
    for code, rule_ids in ENGINE_CODES.items():
        found[code].update(rule_ids)
    return {code: sorted(ids) for code, ids in found.items()}


def code_coverage(decisions: Mapping[str, dict], implemented: Mapping[str, list[str]]) -> list[CodeCoverage]:
    """Every code of the decision table with the rules citing it, sorted by code."""
    return [
        CodeCoverage(
            code=code,
            status=entry["status"],
            check=entry.get("check"),
            reason=entry.get("reason"),
            note=entry.get("note"),
            rules=tuple(implemented.get(code, ())),
            related_rules=tuple(entry.get("related_rules") or ()),
        )
        for code, entry in sorted(decisions.items())
    ]


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ").strip()


def render_coverage_markdown(entries: list[CodeCoverage], source: str) -> str:
    """``docs/SAT_COVERAGE.md``: counts per status, then one row per code."""
    lines = [
        "# Cobertura del catálogo de reglas de SAT",
        "",
        "Generado por `fel-rules rules docs` a partir de `rules/data/sat_coverage.yaml` (la decisión del proyecto "
        "para cada código) y de las reglas que citan cada código (`refs.sat_code` en `rules/*.yaml`, reglas de lote "
        "`FEL-LOT-*` y el esquema); no lo edite a mano.",
        "",
        f"Fuente: {source}.",
        "",
        "- **con el documento** (*decidable*): se decide con el XML y los catálogos públicos de SAT.",
        "- **con el lote** (*batch*): necesita otro documento del mismo lote (documento origen, anulación…); "
        "lo revisa `fel-rules batch`.",
        "- **falta tabla de SAT** (*needs_table*): se decidiría con el documento, pero la tabla de SAT que hace "
        "falta no está publicada en sus catálogos; se indica cuál.",
        "- **no decidible** (*not_decidable*): necesita registros o servicios de SAT (RTU, DTE registrados, "
        "credenciales…); se indica el motivo.",
        "",
        "| estado | códigos | implementados | pendientes |",
        "|---|---:|---:|---:|",
    ]
    for status in STATUSES:
        group = [e for e in entries if e.status == status]
        if status not in _DECIDED:
            lines.append(f"| {_STATUS_ES[status]} | {len(group)} | — | — |")
        else:
            done = sum(1 for e in group if e.implemented)
            lines.append(f"| {_STATUS_ES[status]} | {len(group)} | {done} | {len(group) - done} |")
    decidable = [e for e in entries if e.status in _DECIDED]
    done = sum(1 for e in decidable if e.implemented)
    waiting = sum(1 for e in entries if e.status == "needs_table")
    share = f"{done * 100 / len(decidable):.1f} %" if decidable else "—"
    lines += [
        f"| **total** | **{len(entries)}** | **{done}** | **{len(decidable) - done}** |",
        "",
        f"**Implementados / decidibles (documento + lote): {done} / {len(decidable)} ({share}).**",
        "",
        f"Además, {waiting} códigos se decidirían con el documento si SAT publicara la tabla que necesitan; "
        "varios códigos decidibles se implementan con la parte de su tabla que SAT sí publica "
        "(ver la nota de cada uno).",
        "",
    ]
    pending = [e for e in decidable if not e.implemented]
    if pending:
        lines += ["## Decidibles sin implementar", "",
                  "| código | estado | qué se revisaría | nota |", "|---|---|---|---|"]
        lines += [f"| {e.code} | {_STATUS_ES[e.status]} | {_cell(e.check)} | {_cell(e.note)} |" for e in pending]
        lines.append("")
    lines += ["## Todos los códigos", "", "| código | estado | reglas | qué se revisa / por qué no | nota |",
              "|---|---|---|---|---|"]
    for e in entries:
        if e.status not in _DECIDED:
            related = sorted(set(e.rules) | set(e.related_rules))
            rules = f"relacionadas: {', '.join(related)}" if related else "—"
            what = e.reason
        else:
            rules = ", ".join(e.rules) if e.rules else "**pendiente**"
            what = e.check
        lines.append(f"| {e.code} | {_STATUS_ES[e.status]} | {rules} | {_cell(what)} | {_cell(e.note)} |")
    return "\n".join(lines) + "\n"

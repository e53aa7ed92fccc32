"""The four tools: pydantic input/output models (the schemas clients see) and handlers that call
fel_rules' public API only. Loaded on the first ``tools/list`` or ``tools/call``."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from fel_rules import (
    BatchCancelled,
    BatchOptions,
    Config,
    Counts,
    FelRulesError,
    RenderSettings,
    Report,
    RulesetRef,
    Summary,
    Text,
    Validator,
    output_paths,
    render_file,
    render_text,
    run_batch,
)

from .sandbox import Roots, SandboxError
from .schemas import self_contained

__all__ = ["TOOLS", "Tool", "ToolContext", "ToolFailure"]

XML_TEXT_LIMIT = int(os.environ.get("FEL_MCP_MAX_XML_TEXT", 2 * 1024 * 1024))  # characters of inline XML
FLOW = ("Flujo recomendado: fel_validate primero; si el reporte dice valid: true, fel_render para el PDF. "
        "Recommended flow: fel_validate first; when the report says valid: true, fel_render for the PDF.")


class ToolFailure(Exception):
    """A failure the model should see and can act on (returned with ``isError: true``)."""


@dataclass
class ToolContext:
    """What a handler may use besides its arguments."""

    roots: Roots
    progress: Callable[[float, float | None, str | None], None] | None = None
    cancel: threading.Event | None = None


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- fel_validate ---------------------------------------------------------------------------------


class ValidateArgs(_Args):
    """Arguments of fel_validate."""

    xml_path: str | None = Field(default=None, description="Path of the FEL XML (inside the allowed roots).")
    xml_text: str | None = Field(default=None, max_length=XML_TEXT_LIMIT,
                                 description=f"The FEL XML itself, instead of xml_path "
                                             f"(at most {XML_TEXT_LIMIT // 1024} KiB of text).")
    lang: Literal["es", "en"] = Field(default="es", description="Language of the messages.")
    profile: str | None = Field(default=None, description="Rule profile name (rules/profiles/NAME.yaml).")

    @model_validator(mode="after")
    def _one_source(self) -> ValidateArgs:
        if (self.xml_path is None) == (self.xml_text is None):
            raise ValueError("give exactly one of xml_path or xml_text")
        return self


_VALIDATORS: dict[tuple[str, str | None], Validator] = {}
_VALIDATORS_LOCK = threading.Lock()


def _validator(lang: str, profile: str | None) -> Validator:
    with _VALIDATORS_LOCK:
        key = (lang, profile)
        if key not in _VALIDATORS:
            _VALIDATORS[key] = Validator(Config(lang=lang, profile=profile))
        return _VALIDATORS[key]


def _profile(profile: str | None, ctx: ToolContext) -> str | None:
    """A profile name (rules/profiles/NAME.yaml) as given; a profile given as a file, like every path a tool
    reads, must be inside the allowed roots."""
    if profile and (Path(profile).suffix in (".yaml", ".yml") or "/" in profile):
        return str(ctx.roots.check(profile))
    return profile


def _validate(args: ValidateArgs, ctx: ToolContext) -> tuple[dict, str]:
    validator = _validator(args.lang, _profile(args.profile, ctx))
    if args.xml_path is not None:
        report = validator.validate_path(ctx.roots.check(args.xml_path), name=args.xml_path)
    else:
        report = validator.validate_bytes(args.xml_text.encode("utf-8"), path="xml_text")
    return report.to_dict(), _summary_text(report, args.lang)


def _summary_text(report: Report, lang: str) -> str:
    verdict = "valid" if report.valid else ("unknown" if report.could_not_validate else "invalid")
    counts = report.counts.model_dump()
    return render_text(Text("mcp.summary", {"verdict": Text(f"report.verdict.{verdict}"), **counts}), lang)


# --- fel_render -------------------------------------------------------------------------------------


class RenderArgs(_Args):
    """Arguments of fel_render."""

    xml_path: str = Field(description="Path of the FEL XML to print (inside the allowed roots).")
    logo_path: str | None = Field(default=None, description="PNG or JPEG logo for the header.")
    theme: Literal["clasico", "moderno"] | None = Field(default=None, description="Visual theme.")
    out_path: str | None = Field(default=None, description="PDF to write, or a folder (ending in /) for <name>.pdf "
                                                       "(default: out/<path of the XML in the first root>.pdf).")
    force: bool = Field(default=False, description="Render an invalid document anyway, marked NO VÁLIDO.")
    lang: Literal["es", "en"] = Field(default="es", description="Language of the labels.")


class RenderOutput(BaseModel):
    """What fel_render produced."""

    pdf_path: str = Field(description="The PDF written.")
    valid: bool = Field(description="Verdict of the validation run before printing.")
    counts: Counts
    watermarks: list[str] = Field(description="Watermarks printed on the PDF (uncertified, not valid).")
    errors: list[str] = Field(description="Error messages of the report (empty for a valid document).")


def _render(args: RenderArgs, ctx: ToolContext) -> tuple[dict, str]:
    source = ctx.roots.check(args.xml_path)
    logo = ctx.roots.check(args.logo_path) if args.logo_path else None
    settings = RenderSettings.from_env(logo=logo, theme=args.theme, lang=args.lang)
    default = settings.output_dir / output_paths(_default_name(source, ctx.roots).as_posix())[1]
    target = ctx.roots.check(args.out_path or str(default), must_exist=False)
    out = f"{target}/" if (args.out_path or "").endswith("/") else target  # a folder, even a missing one
    result = render_file(source, out, settings=settings, force=args.force, validator=_validator(args.lang, None),
                         roots=ctx.roots.paths)  # checked again when written: a folder swapped meanwhile is refused
    errors = [f"{i.rule_id}: {i.message}" for i in result.report.issues if i.severity.value == "error"]
    output = RenderOutput(pdf_path=str(result.path), valid=result.report.valid, counts=result.report.counts,
                          watermarks=result.view.watermarks, errors=errors)
    return output.model_dump(mode="json"), f"PDF: {result.path}"


def _default_name(path: Path, roots: Roots) -> Path:
    """A default output name for the resolved ``path`` that no other input shares: its path inside the first
    root (``2024/enero``), else its name with a digest of the full path (``enero-1f2e3d4c5b6a``)."""
    first = roots.paths[0]
    if first in path.parents:
        return path.relative_to(first)
    digest = hashlib.sha256(os.fsencode(path)).hexdigest()[:12]
    return Path(f"{path.stem}-{digest}{path.suffix}")


# --- fel_batch --------------------------------------------------------------------------------------


class BatchArgs(_Args):
    """Arguments of fel_batch."""

    dir_xml: str = Field(description="Folder with the XML files (inside the allowed roots).")
    out_dir: str | None = Field(default=None, description="Output folder (default: out/<path of the folder in the "
                                                      "first root>).")
    workers: int | None = Field(default=None, ge=1, le=64, description="Worker processes (default and maximum: "
                                                                       "the cores available; more are clamped).")
    render: bool = Field(default=True, description="Also render a PDF for every valid document.")
    recursive: bool = Field(default=False, description="Include subfolders.")
    resume: bool = Field(default=False, description="Skip files already processed and unchanged.")


class BatchOutput(BaseModel):
    """What fel_batch produced."""

    manifest_path: str = Field(description="manifest.json with one entry per input file.")
    summary: Summary
    exit_code: int = Field(description="0 all valid, 1 some invalid, 2 some could not be processed.")


def _batch(args: BatchArgs, ctx: ToolContext) -> tuple[dict, str]:
    folder = ctx.roots.check(args.dir_xml)
    out = ctx.roots.check(args.out_dir or str(Path("out") / _default_name(folder, ctx.roots)), must_exist=False)
    on_progress = None
    if ctx.progress is not None:
        on_progress = lambda done, total: ctx.progress(done, total, f"{done}/{total}")  # noqa: E731
    options = BatchOptions(input_dir=folder, out_dir=out, workers=args.workers, render=args.render,
                           recursive=args.recursive, resume=args.resume, progress=False, on_progress=on_progress,
                           cancel=ctx.cancel, roots=tuple(ctx.roots.paths))
    try:
        result = run_batch(options)
    except BatchCancelled as exc:
        raise ToolFailure(str(exc)) from exc
    output = BatchOutput(manifest_path=str(result.path), summary=result.summary, exit_code=result.exit_code)
    s = result.summary
    return output.model_dump(mode="json"), (f"{s.files} archivos: {s.valid} válidos, {s.invalid} inválidos, "
                                            f"{s.errors} con error, {s.rendered} PDFs. Manifiesto: {result.path}")


# --- fel_rules --------------------------------------------------------------------------------------


class RulesArgs(_Args):
    """fel_rules takes no arguments besides an optional profile."""

    profile: str | None = Field(default=None, description="Rule profile name.")


class RuleInfo(BaseModel):
    """One rule in force."""

    id: str
    title: str
    severity: str
    sat_code: str | None
    applies_to: list[str] | None
    document: str


class RulesOutput(BaseModel):
    """The rules in force."""

    rulesets: list[RulesetRef]
    rules: list[RuleInfo]


def _rules(args: RulesArgs, ctx: ToolContext) -> tuple[dict, str]:
    catalog = _validator("es", _profile(args.profile, ctx)).catalog
    rules = [RuleInfo(id=r.id, title=r.spec.title, severity=r.severity.value, sat_code=r.spec.refs.sat_code_text,
                      applies_to=sorted(r.applies_to) if r.applies_to else None, document=r.document)
             for r in catalog.rules]
    output = RulesOutput(rulesets=[RulesetRef(id=s.id, version=s.version) for s in catalog.rulesets], rules=rules)
    return output.model_dump(mode="json"), f"{len(rules)} reglas en vigor"


# --- registry -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    """A tool: its definition pieces and its handler."""

    name: str
    title: str
    description: str
    args: type[BaseModel]
    output: type[BaseModel]
    handler: Callable[[Any, ToolContext], tuple[dict, str]]
    annotations: dict

    def definition(self, version: str | None, at_least: Callable[[str | None, str], bool]) -> dict:
        """The ``Tool`` object for ``tools/list``, with only the fields ``version`` defines."""
        tool: dict[str, Any] = {"name": self.name, "description": self.description,
                                "inputSchema": _input_schema(self.args)}
        if at_least(version, "2025-03-26"):
            tool["annotations"] = {"title": self.title, **self.annotations}
        if at_least(version, "2025-06-18"):
            tool["title"] = self.title
            tool["outputSchema"] = _output_schema(self.output)
        return tool

    def call(self, arguments: dict, ctx: ToolContext) -> tuple[dict, str]:
        """Validate ``arguments`` and run; ``ToolFailure`` for anything the model should read."""
        try:
            args = self.args.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
            raise ToolFailure(f"Argumentos inválidos para {self.name}: {problems}") from exc
        try:
            return self.handler(args, ctx)
        except SandboxError as exc:
            raise ToolFailure(str(exc)) from exc
        except FelRulesError as exc:
            raise ToolFailure(exc.message) from exc


def _input_schema(model: type[BaseModel]) -> dict:
    schema = self_contained(model.model_json_schema())
    schema.pop("title", None)
    schema["additionalProperties"] = False
    return schema


def _output_schema(model: type[BaseModel]) -> dict:
    schema = self_contained(model.model_json_schema(by_alias=True))
    schema.pop("title", None)
    return schema


TOOLS: dict[str, Tool] = {tool.name: tool for tool in [
    Tool("fel_validate", "Validar factura FEL",
         "Valida un documento FEL de SAT Guatemala (XML): XML seguro, esquema XSD, reglas (IVA 12 %, totales, NIT, "
         "CUI, número de autorización) y devuelve el reporte: valid, issues con regla, código SAT, línea y mensaje. "
         "Un documento inválido es una llamada exitosa con valid: false. " + FLOW,
         ValidateArgs, Report, _validate,
         {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}),
    Tool("fel_render", "Imprimir factura FEL a PDF",
         "Valida y luego imprime un documento FEL a PDF (logo, líneas, impuestos, total en letras, frases, QR al "
         "verificador de SAT). Rechaza un documento inválido salvo con force. Llame antes a fel_validate. " + FLOW,
         RenderArgs, RenderOutput, _render,
         {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}),
    Tool("fel_batch", "Procesar una carpeta de facturas",
         "Valida (y por defecto imprime) cada XML de una carpeta en paralelo; escribe reportes, PDFs y "
         "manifest.json, con reglas entre documentos (notas contra su origen, UUID repetidos). Envía "
         "notifications/progress si la solicitud trae progressToken y se detiene con notifications/cancelled.",
         BatchArgs, BatchOutput, _batch,
         {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}),
    Tool("fel_rules", "Reglas en vigor",
         "Lista las reglas que aplica fel_validate (id, título, severidad, código SAT, tipos de DTE), para explicar "
         "un issue del reporte.",
         RulesArgs, RulesOutput, _rules,
         {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}),
]}

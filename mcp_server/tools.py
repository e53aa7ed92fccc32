"""The four tools: pydantic input/output models (the schemas clients see) and handlers that call
fel_rules' public API only. Loaded on the first ``tools/list`` or ``tools/call``."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from fel_rules import Config, FelRulesError, Report, Validator
from fel_rules.batch import BatchCancelled, BatchOptions, run_batch
from fel_rules.batch.manifest import Summary
from fel_rules.render import RenderSettings, render_file
from fel_rules.report import Counts, RulesetRef

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
                                 description=f"The FEL XML itself, instead of xml_path (at most {XML_TEXT_LIMIT // 1024} KiB of text).")
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
    return report.to_dict(), _summary_text(report)


def _summary_text(report: Report) -> str:
    verdict = "VÁLIDO" if report.valid else ("NO SE PUDO VALIDAR" if report.could_not_validate else "INVÁLIDO")
    return f"{verdict}: {report.counts.error} errores, {report.counts.warning} advertencias, {report.counts.info} informativos"


# --- fel_render -------------------------------------------------------------------------------------


class RenderArgs(_Args):
    """Arguments of fel_render."""

    xml_path: str = Field(description="Path of the FEL XML to print (inside the allowed roots).")
    logo_path: str | None = Field(default=None, description="PNG or JPEG logo for the header.")
    theme: Literal["clasico", "moderno"] | None = Field(default=None, description="Visual theme.")
    out_path: str | None = Field(default=None, description="PDF to write (default: out/<name>.pdf in the first root).")
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
    if args.out_path:
        target = ctx.roots.check(args.out_path, must_exist=False)
    else:
        target = ctx.roots.check(str(settings.output_dir / f"{source.stem}.pdf"), must_exist=False)
    if target.is_dir():
        target = ctx.roots.check(str(target / f"{source.stem}.pdf"), must_exist=False)
    result = render_file(source, target, settings=settings, force=args.force, validator=_validator(args.lang, None))
    errors = [f"{i.rule_id}: {i.message}" for i in result.report.issues if i.severity.value == "error"]
    output = RenderOutput(pdf_path=str(result.path), valid=result.report.valid, counts=result.report.counts,
                          watermarks=result.view.watermarks, errors=errors)
    return output.model_dump(mode="json"), f"PDF: {result.path}"


# --- fel_batch --------------------------------------------------------------------------------------


class BatchArgs(_Args):
    """Arguments of fel_batch."""

    dir_xml: str = Field(description="Folder with the XML files (inside the allowed roots).")
    out_dir: str | None = Field(default=None, description="Output folder (default: out/<folder name> in the first root).")
    workers: int | None = Field(default=None, ge=1, le=64, description="Worker processes (default: all cores).")
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
    out = ctx.roots.check(args.out_dir or str(Path("out") / folder.name), must_exist=False)
    on_progress = None
    if ctx.progress is not None:
        on_progress = lambda done, total: ctx.progress(done, total, f"{done}/{total}")  # noqa: E731
    options = BatchOptions(input_dir=folder, out_dir=out, workers=args.workers, render=args.render,
                           recursive=args.recursive, resume=args.resume, progress=False, on_progress=on_progress,
                           cancel=ctx.cancel)
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
    quick: Callable[[dict, Roots], bool] | None = None

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

    def is_quick(self, arguments: dict, roots: Roots) -> bool:
        """True when the call will take milliseconds, so the server may run it without a thread hop."""
        try:
            return self.quick is not None and self.quick(arguments, roots)
        except Exception:  # noqa: BLE001 - any doubt: run it on a worker thread
            return False

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


_QUICK_BYTES = 256 * 1024


def _small_document(arguments: dict, roots: Roots) -> bool:
    """A document under 256 KiB validates in a few milliseconds."""
    text, path = arguments.get("xml_text"), arguments.get("xml_path")
    if isinstance(text, str):
        return len(text) <= _QUICK_BYTES
    if isinstance(path, str):
        return roots.check(path).stat().st_size <= _QUICK_BYTES
    return True


TOOLS: dict[str, Tool] = {tool.name: tool for tool in [
    Tool("fel_validate", "Validar factura FEL",
         "Valida un documento FEL de SAT Guatemala (XML): XML seguro, esquema XSD, reglas (IVA 12 %, totales, NIT, "
         "CUI, número de autorización) y devuelve el reporte: valid, issues con regla, código SAT, línea y mensaje. "
         "Un documento inválido es una llamada exitosa con valid: false. " + FLOW,
         ValidateArgs, Report, _validate,
         {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
         quick=_small_document),
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
         {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
         quick=lambda arguments, roots: True),
]}

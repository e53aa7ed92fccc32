"""The four tools: pydantic input/output models (the schemas clients see) and handlers that call
fel_rules' public API only. Loaded on the first ``tools/list`` or ``tools/call``; rendering (reportlab) and
batches load with their first call, so a server that only validates never imports them."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

import fel_rules
from fel_rules import (
    BatchCancelled,
    BatchOptions,
    Config,
    Counts,
    FelRulesError,
    Manifest,
    RenderError,
    RenderSettings,
    Report,
    RuleRow,
    Summary,
    Text,
    Validator,
    first_error,
    list_rules,
    render_text,
    report_json_schema,
    rules_listing,
)

from .arguments import argument_problems
from .sandbox import Roots, SandboxError
from .schemas import self_contained

__all__ = ["TOOLS", "Tool", "ToolContext", "ToolFailure", "warm_up"]

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


_ONE_SOURCE = {"oneOf": [{"required": ["xml_path"]}, {"required": ["xml_text"]}]}  # exactly one, in the schema


class ValidateArgs(_Args):
    """Arguments of fel_validate."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "description": "Argumentos de fel_validate: exactamente uno de xml_path o xml_text.", **_ONE_SOURCE})

    xml_path: str | None = Field(default=None, description="Ruta del XML FEL (dentro de las carpetas permitidas; "
                                                         "una ruta relativa parte de la primera).")
    xml_text: str | None = Field(default=None, max_length=XML_TEXT_LIMIT,
                                 description=f"El XML FEL mismo, en lugar de xml_path "
                                             f"(como máximo {XML_TEXT_LIMIT // 1024} KiB de texto).")
    lang: Literal["es", "en"] = Field(default="es", description="Idioma de los mensajes: es (español) o en (inglés).")
    profile: str | None = Field(default=None, description="Perfil de reglas (rules/profiles/NOMBRE.yaml), p. ej. "
                                                        "pruebas o estricto.")
    compact: bool = Field(default=False, description="Resultado compacto: sin la lista de conjuntos de reglas, la "
                                                     "huella del esquema ni la sección run.")

    @model_validator(mode="after")
    def _one_source(self) -> ValidateArgs:
        if (self.xml_path is None) == (self.xml_text is None):
            raise ValueError("dé exactamente uno de xml_path o xml_text")
        return self


class ValidateOutput(Report):
    """The report, with ``ok`` (= valid) first for clients of the original FEL server."""

    ok: Annotated[bool, Field(description="Igual a valid (la clave del servidor FEL original).")]


_COMPACT_DROPS = ("rulesets", "schema", "run")
_SHOWN_ERRORS = 5
_SHOWN_PROBLEMS = 20


_VALIDATORS: dict[tuple[str, str | None], Validator] = {}
_VALIDATORS_LOCK = threading.Lock()


def _validator(lang: str, profile: str | None) -> Validator:
    with _VALIDATORS_LOCK:
        key = (lang, profile)
        if key not in _VALIDATORS:
            _VALIDATORS[key] = Validator(Config(lang=lang, profile=profile))
        return _VALIDATORS[key]


def warm_up() -> None:
    """Build the default validator (rules loaded, schema set compiled) before the first call needs it."""
    _validator("es", None).schema_set  # noqa: B018 - compiled now


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
    data = {"ok": report.valid, **report.to_dict()}
    if args.compact:
        for key in _COMPACT_DROPS:
            data.pop(key, None)
    return data, _summary_text(report, args.lang)


def _summary_text(report: Report, lang: str) -> str:
    """A one-line verdict, then the first errors (rule, line, message) and how many more there are."""
    verdict = "valid" if report.valid else ("unknown" if report.could_not_validate else "invalid")
    counts = report.counts.to_dict()
    lines = [render_text(Text("mcp.summary", {"verdict": Text(f"report.verdict.{verdict}"), **counts}), lang)]
    errors = [issue for issue in report.issues if issue.severity.value == "error"]
    for issue in errors[:_SHOWN_ERRORS]:
        where = Text.of("mcp.line", number=issue.location.line) if issue.location.line else None
        lines.append(f"- {issue.rule_id}" + (f" ({render_text(where, lang)})" if where else "") + f": {issue.message}")
    if len(errors) > _SHOWN_ERRORS:
        lines.append(render_text(Text.of("mcp.more_errors", count=len(errors) - _SHOWN_ERRORS), lang))
    return "\n".join(lines)


# --- fel_render -------------------------------------------------------------------------------------


class RenderArgs(_Args):
    """Arguments of fel_render."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "description": "Argumentos de fel_render: exactamente uno de xml_path o xml_text.", **_ONE_SOURCE})

    xml_path: str | None = Field(default=None, description="Ruta del XML FEL a imprimir (dentro de las carpetas "
                                                         "permitidas).")
    xml_text: str | None = Field(default=None, max_length=XML_TEXT_LIMIT,
                                 description="El XML FEL mismo, en lugar de xml_path.")
    logo_path: str | None = Field(default=None, description="Logo PNG o JPEG para el encabezado.")
    theme: Literal["clasico", "moderno"] | None = Field(default=None, description="Tema visual.")
    page: Literal["carta", "media-carta", "ticket"] | None = Field(
        default=None, description="Tamaño de página: carta (por defecto), media-carta o ticket (rollo de 80 mm).")
    out_path: str | None = Field(default=None, description="PDF a escribir, o una carpeta (terminada en /) para "
                                                         "<nombre>.pdf (por defecto: out/<ruta del XML en la primera "
                                                         "carpeta>.pdf; con xml_text, out/xml_text-<huella>.pdf).")
    force: bool = Field(default=False, description="Imprimir aunque el documento no sea válido, marcado NO VÁLIDO.")
    lang: Literal["es", "en"] = Field(default="es", description="Idioma de las etiquetas.")

    @model_validator(mode="after")
    def _one_source(self) -> RenderArgs:
        if (self.xml_path is None) == (self.xml_text is None):
            raise ValueError("dé exactamente uno de xml_path o xml_text")
        return self


class RenderOutput(BaseModel):
    """What fel_render produced."""

    ok: bool = Field(description="true si el documento es válido (el PDF se escribió sin force).")
    pdf_path: str = Field(description="El PDF escrito.")
    valid: bool = Field(description="Veredicto de la validación hecha antes de imprimir.")
    counts: Counts
    watermarks: list[str] = Field(description="Marcas de agua impresas en el PDF (no certificado, no válido).")
    errors: list[str] = Field(description="Mensajes de error del reporte (vacío para un documento válido).")
    warnings: list[str] = Field(default=[], description="Avisos de la impresión (caracteres sin glifo en la fuente, "
                                                        "impresos como [U+código]).")


def _render(args: RenderArgs, ctx: ToolContext) -> tuple[dict, str]:
    logo = ctx.roots.check(args.logo_path) if args.logo_path else None
    settings = RenderSettings.from_env(logo=logo, theme=args.theme, lang=args.lang, page=args.page)
    validator = _validator(args.lang, None)
    try:
        if args.xml_path is not None:
            source = ctx.roots.check(args.xml_path)
            default = settings.output_dir / fel_rules.output_paths(_default_name(source, ctx.roots).as_posix())[1]
            result = fel_rules.render_file(source, _out(args, default, ctx), settings=settings, force=args.force,
                                 validator=validator, roots=ctx.roots.paths)  # checked again when written
        else:
            data = args.xml_text.encode("utf-8")
            default = settings.output_dir / f"xml_text-{hashlib.sha256(data).hexdigest()[:12]}.pdf"
            target = _out(args, default, ctx)
            if isinstance(target, str):  # a folder
                target = f"{target}{default.name}"
            result = fel_rules.render_xml(data, target, settings=settings, force=args.force, validator=validator,
                                roots=ctx.roots.paths, name="xml_text")
    except RenderError as exc:
        if exc.reason == "invalid" and isinstance(exc.report, Report):
            raise ToolFailure(_refusal(exc.report, args.lang)) from exc
        raise
    errors = [f"{i.rule_id}: {i.message}" for i in result.report.issues if i.severity.value == "error"]
    output = RenderOutput(ok=result.report.valid, pdf_path=str(result.path), valid=result.report.valid,
                          counts=result.report.counts, watermarks=result.view.watermarks, errors=errors,
                          warnings=[render_text(warning, args.lang) for warning in result.warnings])
    return output.model_dump(mode="json"), "\n".join([f"PDF: {result.path}", *output.warnings])


def _out(args: RenderArgs, default: Path, ctx: ToolContext) -> Path | str:
    """Where the PDF goes: ``out_path`` (a folder when it ends in ``/``, even a missing one) or ``default``."""
    target = ctx.roots.check(args.out_path or str(default), must_exist=False)
    return f"{target}/" if (args.out_path or "").endswith("/") else target


def _refusal(report: Report, lang: str) -> str:
    """An invalid document is not printed: said for an MCP client (the argument is force: true, not --force)."""
    return render_text(Text.of("mcp.render_refused", errors=fel_rules.errors_in_brief(report, lang, _SHOWN_ERRORS)),
                       lang)


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

    model_config = ConfigDict(extra="forbid", json_schema_extra={"description": "Argumentos de fel_batch."})

    dir_xml: str = Field(description="Carpeta con los XML (dentro de las carpetas permitidas).")
    out_dir: str | None = Field(default=None, description="Carpeta de salida (por defecto: out/<ruta de la carpeta "
                                                        "en la primera carpeta permitida>).")
    logo_path: str | None = Field(default=None, description="Logo PNG o JPEG para los PDFs.")
    theme: Literal["clasico", "moderno"] | None = Field(default=None, description="Tema visual de los PDFs.")
    page: Literal["carta", "media-carta", "ticket"] | None = Field(
        default=None, description="Tamaño de página de los PDFs: carta (por defecto), media-carta o ticket.")
    workers: int | None = Field(default=None, ge=1, le=64, description="Procesos de trabajo (por defecto y como "
                                                                       "máximo: los núcleos disponibles).")
    render: bool = Field(default=True, description="Imprimir también un PDF por cada documento válido.")
    recursive: bool = Field(default=False, description="Incluir las subcarpetas.")
    resume: bool = Field(default=False, description="Saltar los archivos ya procesados y sin cambios.")


class BatchProblem(BaseModel):
    """A document that is not valid, could not be processed, or whose PDF has characters it could not draw."""

    path: str = Field(description="El XML, relativo a dir_xml.")
    rule_id: str | None = Field(description="La regla del primer error (ninguna si no se pudo procesar o si el "
                                             "documento es válido y solo su PDF tiene avisos).")
    message: str = Field(description="El primer error, por qué no se pudo procesar o, para un documento válido, el "
                                     "primer aviso de su PDF.")
    pdf_warnings: list[str] = Field(default=[], description="Avisos del PDF: caracteres sin glifo en la fuente, "
                                                            "impresos como [U+código].")


class BatchOutput(BaseModel):
    """What fel_batch produced."""

    ok: bool = Field(description="true si ningún archivo falló al procesarse (puede haber documentos inválidos).")
    count: int = Field(description="Archivos procesados.")
    out_dir: str = Field(description="La carpeta de salida.")
    manifest_path: str = Field(description="manifest.json, con una entrada por archivo.")
    report_html: str = Field(description="reporte.html: la página del lote para abrir en un navegador.")
    ledger_csv: str = Field(description="libro.csv: el libro de compras y ventas del lote.")
    summary: Summary
    exit_code: int = Field(description="0 todos válidos, 1 alguno inválido, 2 alguno no se pudo procesar.")
    problems: list[BatchProblem] = Field(description=f"Los documentos inválidos o que fallaron, con su primer error, "
                                                     f"y los válidos cuyo PDF tiene avisos (a lo sumo "
                                                     f"{_SHOWN_PROBLEMS}).")
    more_problems: int = Field(description="Cuántos más hay fuera de problems.")


def _batch(args: BatchArgs, ctx: ToolContext) -> tuple[dict, str]:
    folder = ctx.roots.check(args.dir_xml)
    out = ctx.roots.check(args.out_dir or str(Path("out") / _default_name(folder, ctx.roots)), must_exist=False)
    logo = ctx.roots.check(args.logo_path) if args.logo_path else None
    on_progress = None
    if ctx.progress is not None:
        on_progress = lambda done, total: ctx.progress(done, total, f"{done}/{total}")  # noqa: E731
    options = BatchOptions(input_dir=folder, out_dir=out, workers=args.workers, render=args.render,
                           recursive=args.recursive, resume=args.resume, progress=False, on_progress=on_progress,
                           cancel=ctx.cancel, roots=tuple(ctx.roots.paths),
                           render_settings=RenderSettings.from_env(logo=logo, theme=args.theme, page=args.page))
    try:
        result = fel_rules.run_batch(options)
    except BatchCancelled as exc:
        raise ToolFailure(str(exc)) from exc
    problems = _problems(result.path)
    s = result.summary
    output = BatchOutput(ok=s.errors == 0, count=s.files, out_dir=str(out), manifest_path=str(result.path),
                         report_html=str(result.report_html), ledger_csv=str(result.ledger_csv), summary=s,
                         exit_code=result.exit_code, problems=problems[:_SHOWN_PROBLEMS],
                         more_problems=max(0, len(problems) - _SHOWN_PROBLEMS))
    return output.model_dump(mode="json"), render_text(Text.of("mcp.batch_summary", **s.model_dump(),
                                                               where=str(result.path)))


def _problems(manifest_path: Path) -> list[BatchProblem]:
    """Every entry of the manifest that is not valid, with its first error (read from its report), and every valid
    one whose PDF has warnings."""
    manifest = Manifest.model_validate_json(manifest_path.read_text(encoding="utf-8"))
    problems = []
    for entry in manifest.entries:
        if not entry.valid or entry.error:
            unread = (None, render_text(Text("mcp.report_unreadable")))
            rule_id, message = first_error(manifest_path.parent, entry) or unread
        elif entry.pdf_warnings:
            rule_id, message = None, entry.pdf_warnings[0]
        else:
            continue
        problems.append(BatchProblem(path=entry.path, rule_id=rule_id, message=message,
                                     pdf_warnings=entry.pdf_warnings))
    return problems


# --- fel_rules --------------------------------------------------------------------------------------


class RulesArgs(_Args):
    """Arguments of fel_rules."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"description": "Argumentos de fel_rules (todos "
                                                                               "opcionales)."})

    profile: str | None = Field(default=None, description="Perfil de reglas: aplica sus severidades y las reglas "
                                                        "que desactiva.")
    id_prefix: str | None = Field(default=None, description="Solo las reglas cuyo id empieza así, p. ej. FEL-IVA.")
    sat_code: str | None = Field(default=None, description="Solo las reglas que citan este código SAT, p. ej. "
                                                         "FEL_RCP361.")
    detail: bool = Field(default=False, description="Con código SAT, tipos de DTE, documento, alcance, perfil y "
                                                    "conjuntos de reglas (por defecto: id, severidad y título).")
    lang: Literal["es", "en"] = Field(default="es", description="Idioma de los títulos.")


class RulesOutput(BaseModel):
    """The rules in force (``rules list --format json`` gives the same)."""

    profile: str | None = None
    rulesets: list[dict] | None = None
    count: int
    rules: list[RuleRow] = Field(description="id, severidad y título; con detail también el resto.")


def _rules(args: RulesArgs, ctx: ToolContext) -> tuple[dict, str]:
    catalog = _validator(args.lang, _profile(args.profile, ctx)).catalog
    rows = list_rules(catalog, lang=args.lang, id_prefix=args.id_prefix, sat_code=args.sat_code)
    data = rules_listing(catalog, rows, detail=args.detail)
    return data, render_text(Text.of("cli.rule_count", count=len(rows)), args.lang)


# --- registry -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    """A tool: its definition pieces and its handler."""

    name: str
    title: str
    description: str
    args: type[BaseModel]
    output: type[BaseModel] | type[Report]
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
            raise ToolFailure(f"Argumentos inválidos para {self.name}: {argument_problems(exc)}") from exc
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


def _output_schema(model: type[BaseModel] | type[Report]) -> dict:
    raw = report_json_schema(model) if issubclass(model, Report) else model.model_json_schema(by_alias=True)
    schema = self_contained(raw)
    schema.pop("title", None)
    return schema


TOOLS: dict[str, Tool] = {tool.name: tool for tool in [
    Tool("fel_validate", "Validar factura FEL",
         "Valida un documento FEL de SAT Guatemala (XML): XML seguro, esquema XSD, reglas (IVA 12 %, totales, NIT, "
         "CUI, número de autorización) y devuelve el reporte: valid, issues con regla, código SAT, línea y mensaje. "
         "Un documento inválido es una llamada exitosa con valid: false. " + FLOW,
         ValidateArgs, ValidateOutput, _validate,
         {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}),
    Tool("fel_render", "Imprimir factura FEL a PDF",
         "Valida y luego imprime un documento FEL a PDF (logo, líneas, impuestos, total en letras, frases, QR al "
         "verificador de SAT). Rechaza un documento inválido salvo con force. Llame antes a fel_validate. " + FLOW,
         RenderArgs, RenderOutput, _render,
         {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}),
    Tool("fel_batch", "Procesar una carpeta de facturas",
         "Valida (y por defecto imprime) cada XML de una carpeta en paralelo; escribe reportes, PDFs y "
         "manifest.json, reporte.html y libro.csv, con reglas entre documentos (notas contra su origen, UUID "
         "repetidos); devuelve los documentos inválidos o que fallaron con su primer error, y los válidos cuyo PDF "
         "tiene avisos. Envía notifications/progress si la solicitud trae progressToken y se detiene con "
         "notifications/cancelled.",
         BatchArgs, BatchOutput, _batch,
         {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}),
    Tool("fel_rules", "Reglas en vigor",
         "Lista las reglas que aplica fel_validate con el perfil dado (id, severidad, título; con detail: true "
         "también código SAT, tipos de DTE y conjuntos de reglas), filtrables por prefijo de id o código SAT, "
         "para explicar un issue del reporte.",
         RulesArgs, RulesOutput, _rules,
         {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}),
]}

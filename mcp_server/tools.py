"""The four tools' pydantic models: their arguments (the validator of whatever the quick check of
``mcp_server.accept`` does not accept, with the Spanish messages of ``mcp_server.arguments``) and their outputs,
and the JSON schemas clients see, generated from them (written once to the file ``tools/list`` reads, see
:mod:`mcp_server.definitions`). Loaded on the first arguments that are not plainly right, and with the first
fel_render or fel_batch (their outputs are built here): listing the tools and a first fel_validate with plain
arguments never import this module."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from fel_rules import Counts, Report, RuleRow, Summary, report_json_schema

from .accept import XML_TEXT_LIMIT
from .arguments import argument_problems
from .schemas import self_contained

__all__ = ["ARGUMENTS", "OUTPUTS", "SHOWN_PROBLEMS", "checked", "input_schema", "output_schema"]

SHOWN_PROBLEMS = 20  # problems listed in fel_batch's output


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- fel_validate ---------------------------------------------------------------------------------


class ValidateArgs(_Args):
    """Arguments of fel_validate. "Exactly one of xml_path or xml_text" is said in the description and enforced
    by the validator, not written as a ``oneOf`` at the schema's root: hosts refuse or drop a tool whose input
    schema has a combinator there (Anthropic's API answers 400, Claude Code leaves the tool out)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "description": "Argumentos de fel_validate: exactamente uno de xml_path o xml_text."})

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


# --- fel_render -------------------------------------------------------------------------------------


class RenderArgs(_Args):
    """Arguments of fel_render."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "description": "Argumentos de fel_render: exactamente uno de xml_path o xml_text."})

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
                                                     f"{SHOWN_PROBLEMS}).")
    more_problems: int = Field(description="Cuántos más hay fuera de problems.")


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


# --- lookups ----------------------------------------------------------------------------------------


ARGUMENTS: dict[str, type[_Args]] = {"fel_validate": ValidateArgs, "fel_render": RenderArgs, "fel_batch": BatchArgs,
                                     "fel_rules": RulesArgs}
OUTPUTS: dict[str, type[BaseModel] | type[Report]] = {"fel_validate": ValidateOutput, "fel_render": RenderOutput,
                                                       "fel_batch": BatchOutput, "fel_rules": RulesOutput}


def checked(tool: str, arguments: dict) -> dict:
    """The values of ``arguments`` as the tool's model takes them (coerced where pydantic coerces); ``ValueError``
    saying in Spanish everything that is wrong with them."""
    try:
        return dict(ARGUMENTS[tool].model_validate(arguments))
    except ValidationError as exc:
        raise ValueError(argument_problems(exc)) from exc


def input_schema(tool: str) -> dict:
    """The tool's ``inputSchema``: self-contained, closed to other keys."""
    schema = self_contained(ARGUMENTS[tool].model_json_schema())
    schema.pop("title", None)
    schema["additionalProperties"] = False
    return schema


def output_schema(tool: str) -> dict:
    """The tool's ``outputSchema``: self-contained."""
    model = OUTPUTS[tool]
    raw = report_json_schema(model) if issubclass(model, Report) else model.model_json_schema(by_alias=True)
    schema = self_contained(raw)
    schema.pop("title", None)
    return schema

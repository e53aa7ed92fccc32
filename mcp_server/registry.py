"""The four tools: name, title, description, annotations, parameters (as the quick check of
:mod:`mcp_server.accept` reads them) and handler. Loaded with the first tool call, and with it the engine — but
not pydantic: arguments that are plainly right go straight to the handler, and only the rest need the tools'
pydantic models (:mod:`mcp_server.tools`). ``tools/list`` reads the definitions made from them once
(:mod:`mcp_server.definitions`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from fel_rules import FelRulesError

from . import handlers
from .accept import XML_TEXT_LIMIT, Param, Params, accept
from .handlers import ToolContext, ToolFailure
from .sandbox import SandboxError

__all__ = ["TOOLS", "Tool"]

FLOW = ("Flujo recomendado: fel_validate primero; si el reporte dice valid: true, fel_render para el PDF. "
        "Recommended flow: fel_validate first; when the report says valid: true, fel_render for the PDF.")

_TEXT = Param(str, nullable=True)
_XML_TEXT = Param(str, nullable=True, max_length=XML_TEXT_LIMIT)
_LANG = Param(str, "es", choices=("es", "en"))
_THEME = Param(str, nullable=True, choices=("clasico", "moderno"))
_PAGE = Param(str, nullable=True, choices=("carta", "media-carta", "ticket"))
_NO = Param(bool, False)
_ONE_SOURCE = ("xml_path", "xml_text")


@dataclass(frozen=True)
class Tool:
    """A tool: its definition pieces, its parameters and its handler."""

    name: str
    title: str
    description: str
    params: Params
    handler: Callable[[Any, ToolContext], tuple[dict, str]]
    annotations: dict

    def definition(self, version: str | None, at_least: Callable[[str | None, str], bool]) -> dict:
        """The ``Tool`` object for ``tools/list``, with only the fields ``version`` defines."""
        from .tools import input_schema, output_schema

        tool: dict[str, Any] = {"name": self.name, "description": self.description,
                                "inputSchema": input_schema(self.name)}
        if at_least(version, "2025-03-26"):
            tool["annotations"] = {"title": self.title, **self.annotations}
        if at_least(version, "2025-06-18"):
            tool["title"] = self.title
            tool["outputSchema"] = output_schema(self.name)
        return tool

    def call(self, arguments: dict, ctx: ToolContext) -> tuple[dict, str]:
        """Check ``arguments`` and run; ``ToolFailure`` for anything the model should read."""
        values = accept(self.params, arguments)
        if values is None:  # not plainly right: the tool's model coerces it or says what is wrong
            from .tools import checked

            try:
                values = checked(self.name, arguments)
            except ValueError as exc:
                raise ToolFailure(f"Argumentos inválidos para {self.name}: {exc}") from exc
        try:
            return self.handler(SimpleNamespace(**values), ctx)
        except SandboxError as exc:
            raise ToolFailure(str(exc)) from exc
        except FelRulesError as exc:
            raise ToolFailure(exc.message) from exc


TOOLS: dict[str, Tool] = {tool.name: tool for tool in [
    Tool("fel_validate", "Validar factura FEL",
         "Valida un documento FEL de SAT Guatemala (XML): XML seguro, esquema XSD, reglas (IVA 12 %, totales, NIT, "
         "CUI, número de autorización) y devuelve el reporte: valid, issues con regla, código SAT, línea y mensaje. "
         "Un documento inválido es una llamada exitosa con valid: false. " + FLOW,
         Params({"xml_path": _TEXT, "xml_text": _XML_TEXT, "lang": _LANG, "profile": _TEXT, "compact": _NO},
                one_of=_ONE_SOURCE),
         handlers.validate,
         {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}),
    Tool("fel_render", "Imprimir factura FEL a PDF",
         "Valida y luego imprime un documento FEL a PDF (logo, líneas, impuestos, total en letras, frases, QR al "
         "verificador de SAT). Rechaza un documento inválido salvo con force. Llame antes a fel_validate. " + FLOW,
         Params({"xml_path": _TEXT, "xml_text": _XML_TEXT, "logo_path": _TEXT, "theme": _THEME, "page": _PAGE,
                 "out_path": _TEXT, "force": _NO, "lang": _LANG}, one_of=_ONE_SOURCE),
         handlers.render,
         {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}),
    Tool("fel_batch", "Procesar una carpeta de facturas",
         "Valida (y por defecto imprime) cada XML de una carpeta en paralelo; escribe reportes, PDFs y "
         "manifest.json, reporte.html y libro.csv, con reglas entre documentos (notas contra su origen, UUID "
         "repetidos); devuelve los documentos inválidos o que fallaron con su primer error, y los válidos cuyo PDF "
         "tiene avisos. Envía notifications/progress si la solicitud trae progressToken y se detiene con "
         "notifications/cancelled.",
         Params({"dir_xml": Param(str, required=True), "out_dir": _TEXT, "logo_path": _TEXT, "theme": _THEME,
                 "page": _PAGE, "workers": Param(int, nullable=True, minimum=1, maximum=64),
                 "render": Param(bool, True), "recursive": _NO, "resume": _NO}),
         handlers.batch,
         {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}),
    Tool("fel_rules", "Reglas en vigor",
         "Lista las reglas que aplica fel_validate con el perfil dado (id, severidad, título; con detail: true "
         "también código SAT, tipos de DTE y conjuntos de reglas), filtrables por prefijo de id o código SAT, "
         "para explicar un issue del reporte.",
         Params({"profile": _TEXT, "id_prefix": _TEXT, "sat_code": _TEXT, "detail": _NO, "lang": _LANG}),
         handlers.rules,
         {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}),
]}

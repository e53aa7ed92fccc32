"""Texts of the issues the engine itself raises (XML, schema and engine stages), in Spanish and English.

Rule issues take their texts from the rule files; these cover everything that happens before
or around the rules. Each entry has a stable rule id so reports and snapshots can rely on it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.report import Issue, Location, Severity, StageName

__all__ = ["ENGINE_MESSAGES", "EngineMessage", "KeepUnknown", "engine_issue"]


@dataclass(frozen=True)
class EngineMessage:
    """Bilingual title, message template and hint of one engine issue."""

    rule_id: str
    stage: StageName
    severity: Severity
    title: tuple[str, str]
    message: tuple[str, str]
    hint: tuple[str, str] | None = None


def _m(rule_id, stage, severity, title, message, hint=None) -> EngineMessage:
    return EngineMessage(rule_id, stage, Severity(severity), title, message, hint)


ENGINE_MESSAGES: dict[str, EngineMessage] = {
    m.rule_id: m
    for m in [
        _m("FEL-XML-01", "xml", "error",
           ("Documento vacío", "Empty document"),
           ("El archivo está vacío o solo contiene espacios.", "The file is empty or contains only whitespace."),
           ("Entregue el XML del DTE completo.", "Provide the complete DTE XML.")),
        _m("FEL-XML-02", "xml", "error",
           ("Documento demasiado grande", "Document too large"),
           ("El documento mide {size} bytes y el límite es {limit} bytes; no se analizó.",
            "The document is {size} bytes and the limit is {limit} bytes; it was not parsed."),
           ("Un DTE real mide pocos kilobytes. Si el archivo es legítimo, aumente el límite (--max-bytes).",
            "A real DTE is a few kilobytes. If the file is legitimate, raise the limit (--max-bytes).")),
        _m("FEL-XML-03", "xml", "error",
           ("XML mal formado", "Malformed XML"),
           ("El archivo no es XML bien formado: {detail}", "The file is not well-formed XML: {detail}"),
           ("Revise la línea indicada: etiquetas sin cerrar, caracteres '&' o '<' sin escapar o codificación incorrecta.",
            "Check the line shown: unclosed tags, unescaped '&' or '<', or a wrong encoding.")),
        _m("FEL-XML-04", "xml", "error",
           ("Declaración DTD o entidades no permitidas", "DTD or entity declarations not allowed"),
           ("El documento declara un DOCTYPE ({detail}); por seguridad no se procesan DTD ni entidades.",
            "The document declares a DOCTYPE ({detail}); DTDs and entities are refused for safety."),
           ("Un DTE no lleva DOCTYPE. Elimine la declaración y las entidades.",
            "A DTE carries no DOCTYPE. Remove the declaration and its entities.")),
        _m("FEL-XML-05", "xml", "error",
           ("No es un documento FEL", "Not a FEL document"),
           ("El elemento raíz es '{found}'; se esperaba dte:GTDocumento o dte:GTAnulacionDocumento.",
            "The root element is '{found}'; expected dte:GTDocumento or dte:GTAnulacionDocumento."),
           ("Verifique que el archivo sea el XML del DTE y no otro documento.",
            "Check that the file is the DTE's XML and not another document.")),
        _m("FEL-XML-06", "xml", "error",
           ("Espacio de nombres incorrecto", "Wrong namespace"),
           ("El elemento raíz {root} usa el espacio de nombres '{found}'; se esperaba '{expected}'.",
            "The root element {root} uses namespace '{found}'; expected '{expected}'."),
           ("GTDocumento usa http://www.sat.gob.gt/dte/fel/0.2.0 y GTAnulacionDocumento usa …/dte/fel/0.1.0.",
            "GTDocumento uses http://www.sat.gob.gt/dte/fel/0.2.0 and GTAnulacionDocumento uses …/dte/fel/0.1.0.")),
        _m("FEL-XML-07", "xml", "error",
           ("No se pudo leer el archivo", "File could not be read"),
           ("No se pudo leer '{path}': {detail}", "Could not read '{path}': {detail}")),
        _m("FEL-XML-08", "xml", "error",
           ("Demasiadas líneas", "Too many lines"),
           ("El documento tiene {count} ítems y el límite es {limit}; no se validó.",
            "The document has {count} items and the limit is {limit}; it was not validated."),
           ("SAT admite como máximo 9,999 ítems por DTE.", "SAT accepts at most 9,999 items per DTE.")),
        _m("FEL-XML-09", "xml", "error",
           ("Demasiados atributos", "Too many attributes"),
           ("El elemento {element} (línea {line}) tiene {count} atributos y el límite es {limit}; no se validó.",
            "Element {element} (line {line}) has {count} attributes and the limit is {limit}; it was not validated."),
           ("Ningún elemento FEL lleva más de una docena de atributos; el límite se configura con "
            "Config.max_attributes.",
            "No FEL element carries more than a dozen attributes; the limit is set with Config.max_attributes.")),
        _m("FEL-XSD-01", "schema", "error",
           ("No cumple el esquema XSD", "Does not match the XSD schema"),
           ("{detail}", "{detail}"),
           ("Corrija el campo indicado según el esquema de SAT (FEL_GEN102).",
            "Fix the field shown according to SAT's schema (FEL_GEN102).")),
        _m("FEL-XSD-02", "schema", "info",
           ("Documento sin firma electrónica", "Document without electronic signature"),
           ("El documento no tiene ds:Signature; se validó como documento previo a la firma.",
            "The document has no ds:Signature; it was checked as a pre-signature document."),
           ("El emisor o su certificador firma el DTE antes de certificarlo.",
            "The issuer or its certifier signs the DTE before certification.")),
        _m("FEL-XSD-03", "schema", "error",
           ("No se pudo ejecutar la validación de esquema", "Schema validation could not run"),
           ("El validador de esquema falló: {detail}", "The schema validator failed: {detail}")),
        _m("FEL-XSD-04", "schema", "error",
           ("Tipo xsi:type desconocido", "Unknown xsi:type"),
           ("El documento usa un xsi:type que el esquema no define: {detail}",
            "The document uses an xsi:type the schema does not define: {detail}"),
           ("Un DTE no necesita xsi:type; elimine el atributo.", "A DTE needs no xsi:type; remove the attribute.")),
        _m("FEL-XSD-05", "schema", "info",
           ("Errores de esquema truncados", "Schema errors truncated"),
           ("El documento tiene más de {shown} errores de esquema; el reporte muestra los primeros {shown}.",
            "The document has more than {shown} schema errors; the report shows the first {shown}."),
           ("Corrija los errores mostrados y valide de nuevo (el límite se configura con Config.max_schema_errors).",
            "Fix the errors shown and validate again (the limit is set with Config.max_schema_errors).")),
        _m("FEL-ENG-03", "rules", "info",
           ("Reglas omitidas", "Rules skipped"),
           ("No se evaluaron las reglas: el documento no cumple el esquema y excede los límites de SAT "
            "({detail}).",
            "Rules were not evaluated: the document fails the schema and exceeds SAT's limits ({detail})."),
           ("Corrija primero los errores de esquema.", "Fix the schema errors first.")),
        _m("FEL-ENG-04", "rules", "info",
           ("Hallazgos truncados", "Findings truncated"),
           ("La regla {rule} encontró {count} problemas; el reporte muestra los primeros {shown}.",
            "Rule {rule} found {count} problems; the report shows the first {shown}.")),
        _m("FEL-DAT-01", "rules", "error",
           ("Valor ilegible", "Unreadable value"),
           ("El campo {field} tiene el valor '{value}', que no se puede leer como {kind}; no se evaluaron las reglas "
            "{rules}.",
            "Field {field} holds '{value}', which cannot be read as {kind_en}; rules {rules} were not evaluated."),
           ("Escriba el número o la fecha sin espacios internos ni separadores de miles, con dígitos ASCII "
            "(1911.50, 2026-03-02). Un valor ilegible nunca se da por ausente.",
            "Write the number or date without inner spaces or thousands separators, in ASCII digits "
            "(1911.50, 2026-03-02). An unreadable value is never taken as absent.")),
        _m("FEL-ENG-01", "engine", "error",
           ("Falla interna al evaluar una regla", "Internal failure while evaluating a rule"),
           ("La regla {rule} no pudo evaluarse: {detail}", "Rule {rule} could not be evaluated: {detail}"),
           ("El resultado no es concluyente; informe el problema con el XML y la regla.",
            "The verdict is not conclusive; report the problem with the XML and the rule.")),
        _m("FEL-ENG-02", "engine", "error",
           ("Falla interna del validador", "Internal validator failure"),
           ("El validador falló en la etapa {stage}: {detail}", "The validator failed in stage {stage}: {detail}")),
    ]
}


class KeepUnknown(dict):
    """Mapping for ``str.format_map`` that leaves unknown ``{names}`` as written."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def engine_issue(
    rule_id: str,
    lang: str = "es",
    *,
    location: Location | None = None,
    severity: Severity | None = None,
    **values: object,
) -> Issue:
    """Build the issue ``rule_id`` in ``lang``, filling its template with ``values``."""
    entry = ENGINE_MESSAGES[rule_id]
    index = 1 if lang == "en" else 0
    return Issue(
        rule_id=rule_id,
        severity=severity or entry.severity,
        stage=entry.stage,
        title=entry.title[index],
        message=entry.message[index].format_map(KeepUnknown({k: str(v) for k, v in values.items()})),
        hint=entry.hint[index] if entry.hint else None,
        location=location or Location(),
    )

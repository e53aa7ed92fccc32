"""The schema stage: compile a FEL schema set once per process and check documents against it.

Two kinds of schema set exist: the project's own (``xsd/fel-bundle.xsd``) and an official SAT
folder given with ``--schema-dir`` (fixed on the fly by :mod:`fel_rules.document.xsdfix`). Either way the
set is compiled lazily on first use, cached for the process, and named with its sha256.

libxml2 decides, xmlschema explains: every document is first validated by libxml2 (``lxml.etree.XMLSchema``,
compiled from the same set in a few milliseconds, a fraction of a millisecond per document); only a
document it finds fault with is validated again by xmlschema, the reference engine, which gives the
findings, messages and locations. The ``xmlschema`` engine (``Config.schema_engine``) skips libxml2.
xmlschema is imported and its schema compiled only when a document needs it.

The reference engine is xmlschema made to read values as XML Schema 1.0 does: its patterns through
:mod:`.schema_patterns` (``\\w``, ``\\d``, ``\\s`` as XSD defines them) and every simple value through
:func:`.schema_lexical.lexical_errors`. libxml2's "valid" is the verdict only when the document holds no value
of a kind libxml2 is known to misjudge (:mod:`.schema_guard`: base64 with stray characters, odd float
forms, pattern-checked text beyond the Latin letters, non-XML spaces, any ``xsi:type``); a document that does
is judged by the reference, so libxml2 never lets through what the reference refuses. The other way round,
libxml2 refuses
two kinds of value XML Schema accepts — a date or date-time with white space around it, and pattern-checked
text with characters libxml2's older Unicode tables do not know (the N'Ko digits for ``\\d``) — and the
explain pass, which finds nothing, gives the verdict: "passed". ``xsd/README.md`` lists every divergence.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import islice
from pathlib import Path

from lxml import etree

from ..core.cache import code_fingerprint, digest, read_entry, write_entry
from ..core.catalogue import MESSAGES, error_texts
from ..core.config import DEFAULT_MAX_SCHEMA_ERRORS
from ..core.errors import SchemaSetError
from ..core.foreign import evaluation, xml_syntax
from ..core.namespaces import DS, DTE, DTE_ANULACION, prefixed
from ..core.report import SchemaInfo, Severity, StageStatus
from ..core.resources import BUILTIN_XSD_DIR, tree_digest
from ..core.text import Text
from ..core.xmlpath import element_xpath
from ..findings.model import Finding
from .schema_guard import DecisionGuard, searchable_bytes
from .xsdfix import XMLDSIG, XS, FixLog, fix_schema_document

__all__ = [
    "BUILTIN_SCHEMA_SET", "SchemaCheck", "SchemaSet", "builtin_schema_digest", "builtin_schema_set", "check_schema",
    "official_schema_set", "strip_adendas",
]

BUILTIN_SCHEMA_SET = "fel-rules/xsd"  # how reports name the project's own schema set
_ADENDA = f"{{{DTE}}}Adenda"
_SIGNATURE = f"{{{DS}}}Signature"
#: Whether a root has certification data, a document's or an annulment's (one libxml2 call: no element proxies).
_CERTIFIED = etree.XPath("boolean(d:SAT/d:DTE/d:Certificacion | a:SAT/a:AnulacionDTE/a:Certificacion)",
                         namespaces={"d": DTE, "a": DTE_ANULACION})
_ROOT_ELEMENTS = {"GTDocumento", "GTAnulacionDocumento"}


_MISSING_SIGNATURE = f"Missing child element(s). Expected is ( {{{DS}}}Signature )."


class SchemaSet:
    """A schema set: libxml2's compiled schema (the decider; ``None`` when libxml2 cannot compile the set) and
    xmlschema's (the explainer, compiled on first use), and how the report names the set."""

    def __init__(self, name: str, sha256: str, decider: etree.XMLSchema | None,
                 compile_explainer: Callable[[], object], guard: DecisionGuard | None = None) -> None:
        self.name, self.sha256, self.decider = name, sha256, decider
        self._info = SchemaInfo(set=name, sha256=sha256)
        self.guard = guard or DecisionGuard()
        self._compile_explainer = compile_explainer
        self._explainer: object | None = None
        self._lock = threading.Lock()
        self._deciding = threading.Lock()  # one libxml2 validation at a time: its error log is shared

    def accepts(self, root: etree._Element, presignature: bool) -> bool:
        """True when libxml2 finds ``root`` valid; a pre-signature document may lack only its ds:Signature (the
        one error then is the root's missing child). False without a decider: xmlschema judges then."""
        if self.decider is None:
            return False
        with self._deciding:
            if self.decider.validate(root):
                return True
            errors = list(self.decider.error_log) if presignature else []
        return (len(errors) == 1 and errors[0].message.endswith(_MISSING_SIGNATURE)
                and errors[0].line == root.sourceline)

    def decides(self, root: etree._Element, presignature: bool, source: bytes | None = None) -> bool:
        """True when libxml2 accepts ``root`` and none of its values is of a kind libxml2 may misjudge (see
        :mod:`fel_rules.document.schema_guard`): the document is then valid for the reference engine too."""
        return self.accepts(root, presignature) and not self.guard.doubts(root, source)

    @property
    def schema(self) -> object:
        """xmlschema's compiled schema (``xmlschema.XMLSchema10``), compiled on first use."""
        if self._explainer is None:
            with self._lock:
                if self._explainer is None:
                    self._explainer = self._compile_explainer()
        return self._explainer

    @property
    def info(self) -> SchemaInfo:
        """The ``schema`` section of a report."""
        return self._info


_cache: dict[str, SchemaSet] = {}
_lock = threading.Lock()


def builtin_schema_set() -> SchemaSet:
    """The project's own FEL schema set (compiled once per process)."""
    key = "builtin"
    with _lock:
        if key not in _cache:
            bundle = BUILTIN_XSD_DIR / "fel-bundle.xsd"
            if not bundle.is_file():
                raise SchemaSetError(
                    f"No se encuentra el esquema del proyecto: {bundle}",
                    message_en=f"The project's schema set is missing: {bundle}",
                )
            _cache[key] = SchemaSet(BUILTIN_SCHEMA_SET, builtin_schema_digest(), _decider(bundle, _XMLSCHEMA_DSIG),
                                    lambda: _compile(bundle), _builtin_guard())
        return _cache[key]


def _builtin_guard() -> DecisionGuard:
    """The decision guard of the project's set, read from its files and the XML Signature schema libxml2 uses; kept
    in the user's cache (:mod:`fel_rules.core.cache`) under the content of those files, read once (the guard is made
    of the very bytes its key names, whatever changes on disk meanwhile), and fel-rules' code: parsing the schema
    documents for it takes some 8 ms of every process's start."""
    paths = [*sorted(BUILTIN_XSD_DIR.rglob("*.xsd")), *([_XMLSCHEMA_DSIG] if _XMLSCHEMA_DSIG else [])]
    contents = [(path, path.read_bytes()) for path in paths]
    key = digest(b"decision-guard", code_fingerprint(),
                 *(part for path, data in contents for part in (str(path), data)))
    found = read_entry("decision-guard", key)
    if isinstance(found, DecisionGuard):
        return found
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    guard = DecisionGuard.of_schema(etree.fromstring(data, parser) for _, data in contents)
    write_entry("decision-guard", key, guard)
    return guard


def builtin_schema_digest() -> str:
    """The sha256 that names the project's schema set in reports (its ``.xsd`` files, by relative path)."""
    return tree_digest(BUILTIN_XSD_DIR.rglob("*.xsd"), BUILTIN_XSD_DIR)


def official_schema_set(directory: str | Path) -> SchemaSet:
    """An official SAT XSD folder, repaired in memory and compiled once per process."""
    folder = Path(directory).resolve()
    key = f"dir:{folder}"
    with _lock:
        if key not in _cache:
            _cache[key] = _load_official(folder)
        return _cache[key]


def _load_official(folder: Path) -> SchemaSet:
    if not folder.is_dir():
        raise SchemaSetError(
            f"La carpeta de esquemas no existe: {folder}", message_en=f"Schema folder does not exist: {folder}"
        )
    sources = sorted(p for p in folder.glob("*.xsd") if p.is_file())
    if not sources:
        raise SchemaSetError(
            f"La carpeta {folder} no contiene archivos .xsd", message_en=f"Folder {folder} holds no .xsd files"
        )
    log = FixLog()
    documents: dict[str, etree._Element] = {}
    for path in sources:
        try:
            parser = etree.XMLParser(resolve_entities=False, no_network=True)
            documents[path.name] = etree.parse(str(path), parser).getroot()
        except etree.XMLSyntaxError as exc:
            reason = xml_syntax(etree.ErrorTypes._getName(exc.code, ""), (exc.msg or "").split(", line ")[0])
            raise SchemaSetError(**error_texts(Text.of("xsd.set_not_xml", file=path, row=exc.lineno, reason=reason)),
                                 detail=str(exc)) from exc
    dsig_file = next((name for name, root in documents.items() if root.get("targetNamespace") == XMLDSIG), None)
    for root in documents.values():
        fix_schema_document(root, log, dsig_location=lambda: dsig_file)
    chosen = _one_file_per_namespace(documents)
    if not any(_declares_root(documents[name]) for name in chosen.values()):
        raise SchemaSetError(
            f"La carpeta {folder} no declara dte:GTDocumento ni dte:GTAnulacionDocumento",
            message_en=f"Folder {folder} declares neither dte:GTDocumento nor dte:GTAnulacionDocumento",
        )
    import tempfile  # (an official folder only: the built-in set needs no temporary copy)

    with tempfile.TemporaryDirectory(prefix="fel-rules-xsd-") as tmp:
        out = Path(tmp)
        written: list[Path] = []
        for name, root in documents.items():
            target = out / name
            target.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
            written.append(target)
        bundle = out / "_bundle.xsd"
        bundle.write_text(_bundle_text(chosen), encoding="utf-8")
        digest = tree_digest(written, out)
        schema = _compile(bundle)  # the folder is temporary: both engines compile now
        decider = _decider(bundle, (out / dsig_file) if dsig_file else _XMLSCHEMA_DSIG)
    dsig_documents = [] if dsig_file or _XMLSCHEMA_DSIG is None else [etree.parse(str(_XMLSCHEMA_DSIG)).getroot()]
    guard = DecisionGuard.of_schema([*documents.values(), *dsig_documents])
    fixes = (f"{log.anchors} anclas ^$, {log.escaped_classes} clases [^\\s], {log.prefixes} prefijos, "
             f"{log.imports} importaciones")
    return SchemaSet(f"sat:{folder.name} (corregido: {fixes})", digest, decider, lambda: schema, guard)


def _one_file_per_namespace(documents: dict[str, etree._Element]) -> dict[str, str]:
    """namespace → file; when two files share a namespace, the one declaring a FEL root wins."""
    chosen: dict[str, str] = {}
    for name, root in documents.items():
        namespace = root.get("targetNamespace")
        if not namespace or namespace == XMLDSIG:
            continue
        current = chosen.get(namespace)
        if current is None or (_declares_root(root) and not _declares_root(documents[current])):
            chosen[namespace] = name
    return chosen


def _declares_root(root: etree._Element) -> bool:
    return any(el.get("name") in _ROOT_ELEMENTS for el in root.iterfind(f"{{{XS}}}element"))


def _bundle_text(chosen: dict[str, str]) -> str:
    imports = "\n".join(
        f'  <xs:import namespace="{ns}" schemaLocation="{name}"/>' for ns, name in sorted(chosen.items())
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<xs:schema xmlns:xs="{XS}" targetNamespace="urn:fel-rules:sat-bundle" elementFormDefault="qualified">\n'
        f"{imports}\n</xs:schema>\n"
    )


def _xmlschema_dsig() -> Path | None:
    """The XML Signature schema xmlschema ships (its DTD commented out), found without importing xmlschema."""
    spec = importlib.util.find_spec("xmlschema")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "schemas" / "DSIG" / "xmldsig-core-schema.xsd"
        if path.is_file():
            return path
    return None


_XMLSCHEMA_DSIG = _xmlschema_dsig()


def _decider(bundle: Path, dsig: Path | None) -> etree.XMLSchema | None:
    """libxml2's schema for ``bundle``, with the XML Signature namespace imported from ``dsig`` first (the FEL
    schemas import it without a location); ``None`` when libxml2 cannot compile it (xmlschema then decides)."""
    try:
        document = etree.parse(str(bundle), etree.XMLParser(resolve_entities=False, no_network=True))
        if dsig is not None:
            document.getroot().insert(0, etree.Element(f"{{{XS}}}import", namespace=XMLDSIG,
                                                       schemaLocation=dsig.resolve().as_uri()))
        return etree.XMLSchema(document)
    except (etree.XMLSchemaParseError, etree.XMLSyntaxError, OSError):
        return None


def _compile(bundle: Path) -> object:
    import xmlschema  # slow import, kept off the import path of fel_rules

    from .schema_patterns import reference_schema_class

    try:
        return reference_schema_class()(str(bundle), allow="local", defuse="always", loader_class=_frozen_loader())
    except (xmlschema.XMLSchemaException, OSError, etree.XMLSyntaxError) as exc:
        raise SchemaSetError(**error_texts(Text("xsd.set_does_not_compile")), detail=str(exc)) from exc


@cache
def _frozen_loader() -> type:
    """xmlschema's schema loader, made unable to load anything once the schema set is built.

    Left alone, xmlschema loads the namespace of an element it meets under a wildcard while it
    validates (XSLT inside a ``ds:Transform``, XHTML inside a ``ds:Object``…) and rebuilds the
    shared global maps to do so: a validation running meanwhile in another thread finds them
    empty ("GTDocumento is not an element of the schema"), and one document changes how the
    next ones are judged. A compiled schema set is therefore read-only: a namespace it did not
    import is simply unavailable (``lax`` content is then checked as anyType, ``strict`` fails).
    """
    from xmlschema import SchemaLoader

    class FrozenLoader(SchemaLoader):
        def load_namespace(self, namespace: str, build: bool = True) -> bool:
            if self.maps.built:
                return namespace in self.maps.namespaces
            return super().load_namespace(namespace, build)

    return FrozenLoader


@dataclass
class SchemaCheck:
    """Outcome of the schema stage."""

    status: StageStatus
    findings: list[Finding]


def check_schema(
    schema_set: SchemaSet, root: etree._Element, *, source: bytes | None = None,
    max_errors: int = DEFAULT_MAX_SCHEMA_ERRORS, engine: str = "auto",
) -> SchemaCheck:
    """Validate ``root`` (a missing signature tolerated) and describe each error, at most ``max_errors``
    of them (then an information finding says the list was cut, and validation stops there).

    ``root`` must already be free of ``dte:Adenda`` (see :func:`strip_adendas`).

    With the ``auto`` engine, libxml2 decides first: a document it accepts passes without xmlschema.
    Otherwise (or with the ``xmlschema`` engine), when the original bytes are given, a first xmlschema pass
    runs on an ElementTree copy (about 20 % faster); only a document with real errors is validated again on
    ``root`` to locate them. ``source`` must be the bytes ``root`` was parsed from (known to carry no DTD).

    xmlschema's work is bounded (:mod:`.schema_budget`) for a document libxml2 refuses (or when it has no libxml2
    schema): the budget never touches a document libxml2 accepts.
    """
    searchable = searchable_bytes(root, source)
    presignature = _is_presignature(root, searchable)
    passed = SchemaCheck("passed", [_unsigned_finding(root)] if presignature else [])
    accepted = schema_set.accepts(root, presignature)
    if engine == "auto" and accepted and not schema_set.guard.doubts(root, searchable, searchable=True):
        return passed
    if source is not None and _quick_pass(schema_set, source, presignature, bounded=not accepted):
        return passed
    from .schema_budget import ErrorBudget  # (imports xmlschema: only documents that need it pay)
    from .schema_lexical import lexical_errors
    from .schema_messages import describe_error

    findings: list[Finding] = []
    budget = ErrorBudget(max_errors + 1, active=not accepted)
    try:
        errors = schema_set.schema.iter_errors(root, extra_validator=lexical_errors,  # type: ignore[attr-defined]
                                               validation_hook=budget if budget.active else None)
        if presignature:
            errors = (error for error in errors if not _is_missing_signature(error, root))
        errors = list(islice(errors, max_errors + 1))
    except KeyError as exc:  # xmlschema raises XMLSchemaKeyError for an xsi:type it cannot resolve
        return SchemaCheck("failed", [_at_root("FEL-XSD-04", root, detail=str(exc).strip("'\""))])
    except Exception as exc:  # noqa: BLE001 - a validator crash must become a finding, never a traceback
        return SchemaCheck("error", [Finding(id="FEL-XSD-03", values={"detail": evaluation(exc)},
                                             detail=f"{type(exc).__name__}: {exc}")])
    crowded = [_crowded_finding(element, count) for element, count in budget.crowded[:max_errors]]
    for error in errors[:max_errors - len(crowded)]:
        try:
            findings.append(describe_error(error))
        except Exception as exc:  # noqa: BLE001 - an odd error object still becomes a finding
            said = f"{getattr(error, 'reason', error)} ({type(exc).__name__}: {exc})"
            unreadable = Text.of("xsd.unreadable", where=Text("xsd.the_document"))
            findings.append(Finding(id="FEL-XSD-01", values={"detail": unreadable}, detail=said))
    findings += crowded
    if budget.stopped and not any(_is_error(finding) for finding in findings):
        # stopped before the engine reported the errors it counted (an element's own are reported once its content
        # is validated): the elements that certainly have them, each in one finding
        findings += [_crowded_finding(element, count) for element, count in budget.counted[:max_errors]]
    if len(errors) + len(budget.crowded) > max_errors or budget.stopped:
        findings.append(Finding(id="FEL-XSD-05", values={"shown": len(findings)}))
    if presignature:
        findings.append(_unsigned_finding(root))
    failed = any(_is_error(finding) for finding in findings)
    if budget.stopped and not failed:  # (never a pass when the rest of the document was not validated)
        return SchemaCheck("error", [*findings, Finding(id="FEL-XSD-03",
                                                        values={"detail": Text("xsd.stopped_unreported")})])
    return SchemaCheck("failed" if failed else "passed", findings)


def _is_error(finding: Finding) -> bool:
    return MESSAGES.entry(finding.id).severity == Severity.ERROR


def _crowded_finding(element: etree._Element, count: int) -> Finding:
    """An element the error budget skipped, or whose errors it counted before it stopped: how many children or
    attributes it has that the schema does not admit there (FEL-XSD-06)."""
    return Finding(id="FEL-XSD-06", xpath=element_xpath(element), line=element.sourceline,
                   values={"element": prefixed(element.tag), "line": element.sourceline, "count": count})


def _is_presignature(root: etree._Element, searchable: bytes | None = None) -> bool:
    """True for a document before signing: no ds:Signature and no certification data.

    A document that carries dte:Certificacion was signed by its issuer and its certifier; without
    the signatures it is a stripped certified document, not a pre-signature one, and the schema's
    ds:Signature is required of it. ``searchable``: the bytes ``root`` was parsed from, when every name in them is
    written in ASCII (:func:`~.schema_guard.searchable_bytes`): without the word, no such element.
    """
    if next(root.iterchildren(_SIGNATURE), None) is not None:
        return False
    if searchable is not None and b"Certificacion" not in searchable:
        return True
    return not _CERTIFIED(root)


#: The finding of a pre-signature document, by its root's tag and line (it depends on nothing else).
_UNSIGNED: dict[tuple[str, int | None], Finding] = {}


def _unsigned_finding(root: etree._Element) -> Finding:
    """FEL-XSD-02 at ``root`` (findings are immutable: one object for every document of that root and line)."""
    key = (root.tag, root.sourceline)
    finding = _UNSIGNED.get(key)
    if finding is None:
        if len(_UNSIGNED) >= 256:
            _UNSIGNED.clear()
        finding = _UNSIGNED[key] = _at_root("FEL-XSD-02", root)
    return finding


def _quick_pass(schema_set: SchemaSet, source: bytes, presignature: bool, *, bounded: bool) -> bool:
    """True when the document is schema-valid (a pre-signature one may lack ds:Signature), judged on ElementTree
    (not for a document with ``xsi:type``: ElementTree forgets the prefixes its value needs); ``bounded``: the
    first certain error (:mod:`.schema_budget`) decides."""
    from xml.etree import ElementTree

    from .schema_lexical import lexical_errors, names_types

    if names_types(source):
        return False
    try:
        quick_root = ElementTree.fromstring(source)
    except ElementTree.ParseError:
        return False
    strip_adendas(quick_root)  # works on ElementTree elements too
    from .schema_budget import ErrorBudget  # (imports xmlschema: only documents that need it pay)

    budget = ErrorBudget(0, active=bounded)
    try:
        for error in schema_set.schema.iter_errors(quick_root, extra_validator=lexical_errors,  # type: ignore[attr-defined]
                                                   validation_hook=budget if bounded else None):
            if not presignature or not _is_missing_signature(error, quick_root):
                return False
    except Exception:  # noqa: BLE001 - let the detailed pass report it
        return False
    return not budget.certain


def _at_root(id: str, root: etree._Element, **values: object) -> Finding:
    return Finding(id=id, xpath=element_xpath(root), line=root.sourceline, values=values)


def strip_adendas(root: etree._Element) -> int:
    """Remove every ``dte:SAT/dte:Adenda`` (free-form, in no SAT schema) from ``root``; returns how many."""
    removed = 0
    for sat in root:
        for child in list(sat):
            if child.tag == _ADENDA:
                sat.remove(child)
                removed += 1
    return removed


def _is_missing_signature(error: object, root: object) -> bool:
    if getattr(error, "elem", None) is not root:
        return False
    expected = getattr(error, "expected", None) or []
    names = {getattr(item, "name", None) for item in expected}
    return _SIGNATURE in names and getattr(error, "invalid_tag", None) is None


"""Read rule files and profiles, validated by the models of :mod:`.model` (pydantic), failing early with file,
line, column and rule in both languages. :mod:`.loader` calls it when a catalogue is not in the cache."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..checks import CheckKind, PlainParams, RuleEnv, get_check_kind
from ..core.catalogue import error_texts
from ..core.errors import CheckKindError, RuleFileError
from ..core.foreign import os_error, pydantic_error, template_error
from ..core.resources import BUILTIN_RULES_DIR
from ..core.templates import TemplateError, template_fields
from ..core.text import Text
from ..core.yamlfile import load_yaml, position, value_position
from ..expressions.catalogues import load_catalogues
from .files import profile_path
from .loaded import LoadedRule, RuleCatalog, Ruleset
from .model import EXPRESSION_KEYS, Override, ProfileFile, RuleFile, RuleSpec
from .places import DOCUMENT_NAMESPACES, Places, load_places

__all__ = ["apply_profile", "check_catalog", "load_rule_file", "read_catalog"]

def read_catalog(directory: Path, profile: str | None) -> RuleCatalog:
    """Every ``*.yaml`` rule file in ``directory`` (sorted by name), read and validated, with ``profile`` applied."""
    if not directory.is_dir():
        raise RuleFileError(
            "la carpeta de reglas no existe", message_en="rules folder does not exist", path=str(directory)
        )
    files = sorted(directory.glob("*.yaml"))
    if not files:
        raise RuleFileError(
            "la carpeta no contiene archivos .yaml", message_en="folder has no .yaml files", path=str(directory)
        )
    places = load_places(directory)
    rulesets = [load_rule_file(path, places) for path in files]
    _check_unique(rulesets)
    catalog = RuleCatalog(tuple(rulesets), catalogues=load_catalogues(directory / "data", BUILTIN_RULES_DIR / "data"))
    if profile:
        catalog = apply_profile(catalog, profile_path(directory, profile))
    return catalog


def check_catalog(directory: Path) -> tuple[RuleCatalog | None, list[RuleFileError]]:
    """Load every rule file, data file and profile of ``directory`` as :func:`load_catalog` does, but go on past
    each problem: the catalogue of the rules that loaded, and every problem found (what ``rules lint`` lists).
    A broken rule is left out of the catalogue; a broken file, or a broken places file (the built-in places are
    used instead), is one problem and the rest is still read."""
    problems: list[RuleFileError] = []
    if not directory.is_dir() or not any(directory.glob("*.yaml")):
        try:
            read_catalog(directory, None)  # says which: no folder, or no rule file in it
        except RuleFileError as exc:
            return None, [exc]
    try:
        places = load_places(directory)
    except RuleFileError as exc:
        problems.append(exc)
        places = load_places(BUILTIN_RULES_DIR)
    rulesets = []
    for path in sorted(directory.glob("*.yaml")):
        try:
            rulesets.append(load_rule_file(path, places, problems=problems))
        except RuleFileError as exc:  # the file as a whole: its YAML, its header
            problems.append(exc)
    rulesets = _unique(rulesets, problems)
    try:
        catalogues = load_catalogues(directory / "data", BUILTIN_RULES_DIR / "data")
    except RuleFileError as exc:
        problems.append(exc)
        catalogues = load_catalogues(BUILTIN_RULES_DIR / "data")
    catalog = RuleCatalog(tuple(rulesets), catalogues=catalogues)
    for path in sorted((directory / "profiles").glob("*.yaml")):
        try:
            apply_profile(catalog, path)
        except RuleFileError as exc:
            problems.append(exc)
    return catalog, problems


def load_rule_file(path: Path, places: Places | None = None, *, problems: list[RuleFileError] | None = None
                   ) -> Ruleset:
    """Load and prepare one rule file (``places``: those of its folder unless given). With ``problems``, a broken
    rule is added there and left out, and the other rules still load (a broken file still raises)."""
    if places is None:
        places = load_places(path.parent)
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise RuleFileError(
            "el archivo debe ser un mapeo con schema_version, ruleset y rules",
            message_en="the file must be a mapping with schema_version, ruleset and rules",
            path=str(path),
            line=1,
        )
    try:
        header = RuleFile.model_validate(data)
    except ValidationError as exc:
        raise _validation_error(exc, data, path, prefix=()) from None
    reserved = DOCUMENT_NAMESPACES[header.defaults.document]
    for prefix, uri in header.namespaces.items():
        if prefix in reserved and uri != reserved[prefix]:  # every path would then find nothing: a silent pass
            line, column = position(data, ("namespaces", prefix))
            raise RuleFileError(
                f"el prefijo '{prefix}' es el del documento ({reserved[prefix]}) y no se redefine; use otro prefijo "
                f"para otro espacio de nombres",
                message_en=f"prefix '{prefix}' is the document's ({reserved[prefix]}) and is not redefined; use "
                           f"another prefix for another namespace",
                path=str(path), line=line, column=column)
    namespaces = {**reserved, **header.namespaces}
    seen: dict[str, LoadedRule] = {}
    for index, raw in enumerate(data["rules"]):
        try:
            rule = _load_rule(raw, ("rules", index), data, path, header, namespaces, places)
            if rule.id in seen:
                raise RuleFileError(
                    f"id de regla duplicado (ya usado en la línea {seen[rule.id].line})",
                    message_en=f"duplicate rule id (already used on line {seen[rule.id].line})",
                    path=str(path), line=rule.line, rule_id=rule.id,
                )
        except RuleFileError as exc:
            if problems is None:
                raise
            problems.append(exc)
            continue
        seen[rule.id] = rule
    rules = tuple(seen.values())
    return Ruleset(id=header.ruleset.id, version=header.ruleset.version, title=header.ruleset.title, path=str(path),
                   rules=rules)


def _load_rule(raw: Any, loc: tuple, data: Any, path: Path, header: RuleFile, namespaces: dict,
               places: Places) -> LoadedRule:
    rule_id = raw.get("id") if isinstance(raw, dict) else None
    line, _ = position(data, loc)
    if not isinstance(raw, dict):
        raise RuleFileError(
            "cada regla debe ser un mapeo", message_en="each rule must be a mapping", path=str(path), line=line
        )
    try:
        spec = RuleSpec.model_validate(raw)
    except ValidationError as exc:
        raise _validation_error(exc, data, path, prefix=loc, rule_id=rule_id) from None
    params, params_loc = _params_of(spec, raw, loc, data, path)
    try:
        kind = get_check_kind(spec.check)
    except CheckKindError as exc:
        line_, column = position(data, (*loc, "check"))
        raise RuleFileError(exc.message, message_en=exc.message_en, path=str(path), line=line_, column=column,
                            rule_id=spec.id) from None
    defaults = header.defaults
    scope = spec.scope or defaults.scope
    _check_scope(kind, scope, loc, data, path, spec.id)
    env = RuleEnv(rule_id=spec.id, namespaces=namespaces, places=places[defaults.document])
    check = _prepare(kind, params, params_loc, data, path, env)
    _check_templates(spec, check, loc, data, path)
    applies_to = spec.applies_to if spec.applies_to is not None else defaults.applies_to
    effective = spec.effective or defaults.effective
    return LoadedRule(
        spec=spec.plain(),
        check=check,
        severity=spec.severity or defaults.severity,
        document=spec.document or defaults.document,
        applies_to=frozenset(applies_to) if applies_to is not None else None,
        effective=effective.plain() if effective is not None else None,
        ruleset_id=header.ruleset.id,
        path=str(path),
        line=line,
        namespaces=namespaces,
        scope=scope,
        places=dict(env.places),
    )


_SCOPE_ES = {"document": "de un documento", "batch": "de lote"}


def _check_scope(kind: type[CheckKind], scope: str, loc: tuple, data: Any, path: Path, rule_id: str) -> None:
    """A batch kind only in a ``scope: batch`` rule, and a document kind only in a document rule."""
    kind_scope = getattr(kind, "scope", "document")
    if kind_scope == scope:
        return
    line, column = position(data, (*loc, "check"))
    raise RuleFileError(
        f"el tipo de verificación '{kind.name}' es {_SCOPE_ES[kind_scope]} y la regla tiene scope: {scope}; "
        f"escriba scope: {kind_scope}",
        message_en=f"check kind '{kind.name}' has scope {kind_scope} and the rule has scope: {scope}; "
                   f"write scope: {kind_scope}",
        path=str(path), line=line, column=column, rule_id=rule_id,
    )


def _params_of(spec: RuleSpec, raw: dict, loc: tuple, data: Any, path: Path) -> tuple[dict, tuple]:
    sugar = {key: raw[key] for key in EXPRESSION_KEYS if key in raw}
    if spec.check != "expression":
        if sugar:
            key = next(iter(sugar))
            line, column = position(data, (*loc, key))
            raise RuleFileError(
                f"'{key}' solo se usa con check: expression; use params para '{spec.check}'",
                message_en=f"'{key}' only applies to check: expression; use params for '{spec.check}'",
                path=str(path), line=line, column=column, rule_id=spec.id,
            )
        return dict(spec.params), (*loc, "params")
    if sugar and spec.params:
        line, column = position(data, (*loc, "params"))
        raise RuleFileError(
            "una regla de expresión usa context/let/assert en el primer nivel, no dentro de params",
            message_en="an expression rule writes context/let/assert at the top level, not inside params",
            path=str(path), line=line, column=column, rule_id=spec.id,
        )
    return (sugar or dict(spec.params)), (loc if sugar else (*loc, "params"))


def _prepare(kind: type[CheckKind], params: dict, params_loc: tuple, data: Any, path: Path, env: RuleEnv) -> Any:
    rule_id = env.rule_id
    try:
        model = kind.Params.model_validate(params)
    except ValidationError as exc:
        raise _validation_error(exc, data, path, prefix=params_loc, rule_id=rule_id) from None
    try:
        return kind(model, env)
    except (ValueError, TypeError) as exc:
        key = getattr(exc, "key", None)
        keys = () if not key else key if isinstance(key, tuple) else (key,)
        offset = getattr(exc, "column", None)
        if keys and offset:  # point at the character inside the expression or XPath
            line, column = value_position(data, (*params_loc, *keys))
            if column is not None:
                column += offset - 1
        else:
            line, column = position(data, (*params_loc, *keys))
        message = str(exc)
        message_en = getattr(exc, "message_en", None)
        if message_en and keys:
            message_en = f"{'.'.join(map(str, keys))}: {message_en}"
        raise RuleFileError(message, message_en=message_en, path=str(path), line=line, column=column,
                            rule_id=rule_id, detail=getattr(exc, "detail", None)) from None


def _check_templates(spec: RuleSpec, check: Any, loc: tuple, data: Any, path: Path) -> None:
    declared = check.placeholders() if hasattr(check, "placeholders") else None
    allowed = None if declared is None else set(declared) | {"item"}
    for key in ("message", "message_en", "hint", "hint_en"):
        template = getattr(spec, key)
        if template is None:
            continue
        line, column = position(data, (*loc, key))
        try:
            names = template_fields(template)
        except TemplateError as exc:
            reason = template_error(exc.said) if exc.said else Text.of("template.not_a_name", shown=exc.shown)
            raise RuleFileError(**error_texts(Text.of("template.in_key", key=key, reason=reason)), path=str(path),
                                line=line, column=column, rule_id=spec.id, detail=exc.said) from None
        unknown = sorted(names - allowed) if allowed is not None else []
        if unknown:
            available = ", ".join(sorted(allowed or ()))
            raise RuleFileError(
                f"{key}: marcador desconocido {{{unknown[0]}}}; disponibles: {available}",
                message_en=f"{key}: unknown placeholder {{{unknown[0]}}}; available: {available}",
                path=str(path), line=line, column=column, rule_id=spec.id,
            )


def _validation_error(exc: ValidationError, data: Any, path: Path, *, prefix: tuple,
                      rule_id: str | None = None) -> RuleFileError:
    errors = exc.errors(include_url=False)
    # a mapping given where text or a mapping is accepted (a let entry): report what is wrong with the mapping
    error = next((e for e in errors if e["type"] != "string_type"), errors[0])
    loc = tuple(part for part in error["loc"] if not (isinstance(part, str) and part in ("str", "LetSpec")))
    key = ".".join(str(part) for part in loc) or "(raíz)"
    line, column = position(data, (*prefix, *loc))
    return RuleFileError(**error_texts(pydantic_error(error, key)), path=str(path), line=line, column=column,
                         rule_id=rule_id, detail=error["msg"])


def _check_unique(rulesets: list[Ruleset]) -> None:
    problems: list[RuleFileError] = []
    _unique(rulesets, problems)
    if problems:
        raise problems[0]


def _unique(rulesets: list[Ruleset], problems: list[RuleFileError]) -> list[Ruleset]:
    """``rulesets`` without a rule whose id an earlier file already used and without a repeated rule set; each
    repetition added to ``problems``."""
    seen: dict[str, LoadedRule] = {}
    kept: list[Ruleset] = []
    sets: set[str] = set()
    for ruleset in rulesets:
        if ruleset.id in sets:
            problems.append(RuleFileError(
                f"id de conjunto de reglas duplicado '{ruleset.id}'",
                message_en=f"duplicate rule set id '{ruleset.id}'",
                path=ruleset.path,
            ))
            continue
        sets.add(ruleset.id)
        rules = []
        for rule in ruleset.rules:
            other = seen.get(rule.id)
            if other is not None:
                problems.append(RuleFileError(
                    f"id de regla duplicado; ya definido en {other.path}:{other.line}",
                    message_en=f"duplicate rule id; already defined in {other.path}:{other.line}",
                    path=rule.path, line=rule.line, rule_id=rule.id,
                ))
                continue
            seen[rule.id] = rule
            rules.append(rule)
        kept.append(replace(ruleset, rules=tuple(rules)))
    return kept


def apply_profile(catalog: RuleCatalog, path: Path) -> RuleCatalog:
    """``catalog`` with the overrides of the profile file at ``path``."""
    try:
        exists = path.exists()  # (a FIFO, a folder… exists: load_yaml says what it is and does not read it)
    except OSError as exc:  # e.g. a profile name longer than the filesystem allows (ENAMETOOLONG)
        raise RuleFileError(**error_texts(Text.of("profile.cannot_read", reason=os_error(exc))), path=str(path),
                            detail=str(exc)) from exc
    if not exists:
        raise RuleFileError("el perfil no existe", message_en="profile does not exist", path=str(path))
    data = load_yaml(path)
    try:
        profile = ProfileFile.model_validate(data)
    except ValidationError as exc:
        raise _validation_error(exc, data, path, prefix=()) from None
    overrides: dict[str, Override] = dict(profile.overrides)
    for rule_id in overrides:
        if catalog.get(rule_id) is None:
            line, column = position(data, ("overrides", rule_id))
            raise RuleFileError(
                "el perfil cambia una regla que no existe", message_en="the profile changes a rule that does not exist",
                path=str(path), line=line, column=column, rule_id=rule_id,
            )
    rulesets = []
    for ruleset in catalog.rulesets:
        rules = []
        for rule in ruleset.rules:
            override = overrides.get(rule.id)
            if override is None:
                rules.append(rule)
                continue
            check = None
            if override.params:
                kind = type(rule.check)
                merged = {**_current_params(rule), **override.params}
                check = _prepare(kind, merged, ("overrides", rule.id, "params"), data, path,
                                 RuleEnv(rule.id, dict(rule.namespaces), dict(rule.places)))
            rules.append(rule.with_override(override.plain(), check))
        rulesets.append(replace(ruleset, rules=tuple(rules)))
    return RuleCatalog(tuple(rulesets), profile=profile.profile.id, catalogues=catalog.catalogues)


def _current_params(rule: LoadedRule) -> dict:
    """The params the rule wrote (by the names of its file): kept plain by fel-rules' kinds, a model by a plug-in's."""
    params = getattr(rule.check, "params", None)
    if isinstance(params, PlainParams):
        return params.as_written()
    return params.model_dump(by_alias=True, exclude_unset=True) if params is not None else {}

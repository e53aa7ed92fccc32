"""The bilingual message catalogue: every title, message, hint and phrase a user reads, by id.

``messages.yaml`` (next to this module) holds the engine's own issues (``issues:``) and the phrases the
program says around them (``texts:``: kinds, counts, reasons, batch notes), each in Spanish and English.
It is validated when the package loads (once per content of the file, by :mod:`.catalogue_file`: the user's
cache keeps the result, and a catalogue read back from it needs no pydantic).
Rules bring their own texts from their rule files; :meth:`Catalogue.with_rules` gives one lookup over both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Protocol, TypedDict

from .cache import code_fingerprint, digest, read_entry, write_entry
from .record import Record
from .report import Refs, Severity, StageName
from .templates import render_template
from .text import LANGUAGES, Text, Wording, say

__all__ = [
    "LANGUAGES", "MESSAGES", "Catalogue", "Entry", "ErrorTexts", "RuleSources", "RuleTexts", "Wording", "error_texts",
    "load_catalogue", "render_text", "render_values", "rule_entry", "say",
]

class Entry(Record):
    """What an issue of one id says and how it counts: stage, default severity, texts and references."""

    stage: StageName
    severity: Severity
    title: Wording
    message: Wording
    hint: Wording | None = None
    refs: Refs = Refs()


class Catalogue:
    """Issue entries and phrases by id."""

    def __init__(self, issues: Mapping[str, Entry], texts: Mapping[str, Wording]) -> None:
        self.issues = MappingProxyType(dict(issues))
        self.texts = MappingProxyType(dict(texts))

    def __reduce__(self) -> tuple:
        return (type(self), (dict(self.issues), dict(self.texts)))

    def entry(self, id: str) -> Entry:
        """The issue entry ``id`` (``KeyError`` when unknown)."""
        return self.issues[id]

    def text(self, id: str) -> Wording:
        """The phrase ``id`` (``KeyError`` when unknown)."""
        return self.texts[id]

    def with_rules(self, specs: Iterable[RuleTexts]) -> Catalogue:
        """This catalogue and the entries of the rules ``specs`` (:class:`~fel_rules.ruleset.model.RuleSpec`)."""
        return self.with_entries({spec.id: rule_entry(spec) for spec in specs})

    def with_entries(self, entries: Mapping[str, Entry]) -> Catalogue:
        """This catalogue and ``entries`` (which win over entries of the same id)."""
        return Catalogue({**self.issues, **entries}, self.texts)


class RuleSources(Protocol):
    """The sources a rule cites (:class:`~fel_rules.ruleset.model.RuleRefs`)."""

    @property
    def sat_code_text(self) -> str | None: ...

    @property
    def law(self) -> str | None: ...


class RuleTexts(Protocol):
    """What the catalogue reads of a rule written in a rule file (:class:`~fel_rules.ruleset.model.RuleSpec`)."""

    @property
    def id(self) -> str: ...

    @property
    def severity(self) -> Severity | None: ...

    @property
    def title(self) -> str: ...

    @property
    def title_en(self) -> str | None: ...

    @property
    def message(self) -> str: ...

    @property
    def message_en(self) -> str | None: ...

    @property
    def hint(self) -> str | None: ...

    @property
    def hint_en(self) -> str | None: ...

    @property
    def refs(self) -> RuleSources: ...


def rule_entry(spec: RuleTexts) -> Entry:
    """The entry of a rule written in a rule file: its own titles, messages, hints, severity and references."""
    refs = spec.refs
    return Entry(
        stage="rules",
        severity=spec.severity or Severity.ERROR,
        title={"es": spec.title, "en": spec.title_en or spec.title},
        message={"es": spec.message, "en": spec.message_en or spec.message},
        hint={"es": spec.hint, "en": spec.hint_en or spec.hint} if spec.hint else None,
        refs=Refs(sat_code=refs.sat_code_text, law=refs.law),
    )


def load_catalogue(text: str) -> Catalogue:
    """The catalogue in ``text`` (YAML), validated: both languages of every text, ``{name}`` placeholders only."""
    import yaml

    from .catalogue_file import validated

    issues, texts = validated(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    return Catalogue({id: Entry(**entry) for id, entry in issues.items()}, texts)


#: The package's catalogue file (package data beside this module).
_MESSAGES_FILE = Path(__file__).with_name("messages.yaml")


def _package_catalogue() -> Catalogue:
    """The catalogue of ``messages.yaml``, validated once per content of the file and kept in the user's cache
    (:mod:`fel_rules.core.cache`)."""
    data = _MESSAGES_FILE.read_bytes()
    key = digest(b"messages", code_fingerprint(), data)
    found = read_entry("messages", key)
    if isinstance(found, Catalogue):
        return found
    catalogue = load_catalogue(data.decode("utf-8"))
    write_entry("messages", key, catalogue)
    return catalogue


#: The package's catalogue.
MESSAGES: Catalogue = _package_catalogue()


def render_text(value: object, lang: str = "es", catalogue: Catalogue = MESSAGES) -> str:
    """``value`` in words: a :class:`Text` from the catalogue in ``lang`` (its values rendered first), a list as
    its items separated by commas, anything else as ``str``."""
    if isinstance(value, Text):
        return render_template(say(catalogue.text(value.id), lang), render_values(value.values, lang, catalogue))
    if isinstance(value, (list, tuple)):
        return ", ".join(render_text(item, lang, catalogue) for item in value)
    return str(value)


def render_values(values: Mapping[str, object], lang: str, catalogue: Catalogue = MESSAGES) -> dict[str, str]:
    """Each of ``values`` in words (see :func:`render_text`)."""
    return {name: render_text(value, lang, catalogue) for name, value in values.items()}


class ErrorTexts(TypedDict):
    """The two texts of an error: Spanish and English."""

    message: str
    message_en: str


def error_texts(value: object, catalogue: Catalogue = MESSAGES) -> ErrorTexts:
    """``value`` said in Spanish and in English, as the ``message`` and ``message_en`` of a
    :class:`~fel_rules.core.errors.FelRulesError`."""
    return {"message": render_text(value, "es", catalogue), "message_en": render_text(value, "en", catalogue)}

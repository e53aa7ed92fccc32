"""The contract between the engine and check kinds: what a check receives and what it yields."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import field as dataclass_field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from lxml import etree

from ..core.config import Config
from ..core.record import Record
from ..document.facts import Anulacion, Documento, extract_facts
from ..expressions.language import Evaluator
from ..findings.model import Finding
from .places import PlaceError, expand_places
from .plain import PlainParams, plain

if TYPE_CHECKING:
    from .kind_params import KindParams

__all__ = ["CheckError", "CheckInput", "CheckKind", "Finding", "KindParams", "PlainParams", "RuleEnv", "Unreadable",
           "plain"]


def __getattr__(name: str) -> Any:
    """:class:`~fel_rules.checks.kind_params.KindParams` (pydantic), imported when first asked for."""
    if name == "KindParams":
        from .kind_params import KindParams

        return KindParams
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class RuleEnv(Record, kw_only=False):
    """What a check kind may use while it prepares itself at load time."""

    rule_id: str
    namespaces: Mapping[str, str]
    places: Mapping[str, str] = dataclass_field(default_factory=dict)

    def xpath(self, path: str, key: str | tuple[str, ...]) -> str:
        """``path`` (the param ``key``) with its place names (``emision``, ``items``…) replaced by their XPaths.

        An unknown place raises :class:`~fel_rules.checks.places.PlaceError` (a ``ValueError``) carrying
        ``key`` and the ``column``, so the loader points at the name in the rule file."""
        try:
            return expand_places(path, self.places)
        except PlaceError as exc:
            keys = key if isinstance(key, tuple) else (key,)
            exc.args = (f"{'.'.join(keys)}: {exc}",)
            exc.key = keys  # type: ignore[attr-defined]
            raise


#: The key of a document's header in its memo, once a check asked for it (see :attr:`CheckInput.header`).
_HEADER = object()


class CheckInput:
    """One document as check kinds see it: the XML tree, its typed facts and the configuration (default
    configuration and evaluator when not given).

    ``header`` holds the facts of the document without its lines (parties, general data, totals,
    certification); ``facts`` are all of them, read from the tree the first time a check asks.
    ``brief`` is what the engine read of the document for itself (see :attr:`brief`).
    ``memo`` is a per-document cache the checks share. ``source`` is the document's bytes as
    received (before comments, PIs and dte:Adenda were dropped), for checks that must see exactly
    what was signed; ``None`` when the caller only has a tree.
    """

    __slots__ = ("root", "config", "evaluator", "memo", "source", "_facts", "_header", "_brief")

    def __init__(
        self,
        root: etree._Element,
        facts: Documento | Anulacion | None = None,
        config: Config | None = None,
        evaluator: Evaluator | None = None,
        *,
        header: Documento | Anulacion | None = None,
        brief: Documento | Anulacion | None = None,
        memo: dict | None = None,
        source: bytes | None = None,
    ) -> None:
        self.root = root
        self._facts = facts
        self._header = header
        self._brief = brief
        self.config = config if config is not None else Config()
        self.evaluator = evaluator if evaluator is not None else Evaluator(
            tolerance=self.config.tolerance, rounding=self.config.rounding_mode)
        self.memo = {} if memo is None else memo
        self.source = source

    @property
    def header(self) -> Documento | Anulacion:
        """The facts without the lines: given by the engine, or read from the tree the first time a check asks when
        the engine gave only :attr:`brief` (complements left out, as the engine reads them when it validates);
        else every fact."""
        if self._header is None:
            if self._brief is None:
                return self.facts
            header = self.memo.get(_HEADER)  # (read once a document, whichever of its stages asked first)
            if header is None:
                header = self.memo[_HEADER] = extract_facts(self.root, lines=False, complements=False, memo=self.memo)
            self._header = header
        return self._header

    @property
    def brief(self) -> Documento | Anulacion:
        """What the engine read of the document for itself: when it only validates, the header without the
        parties' addresses and the frases (``details=False`` of
        :func:`~fel_rules.document.facts.extract_facts`), which is all its rule plan, its report and the
        identifiers' checks read; else the :attr:`header`. A check that needs no more reads it: nothing else is
        read from the tree."""
        return self._brief if self._brief is not None else self.header

    @property
    def facts(self) -> Documento | Anulacion:
        """Every fact of the document, lines included (extracted once, on first use)."""
        if self._facts is None:
            self._facts = extract_facts(self.root)
        return self._facts


class Unreadable(Finding):
    """A value the rule needs is in the document but cannot be read as its type (``kind``).

    Never "not applicable": the engine reports it as an error of its own (FEL-DAT-01), whatever
    the rule's severity, since the rule could not be evaluated on that value.
    """

    raw: str = ""
    kind: str = "decimal"  # decimal, int or date


class CheckError(Exception):
    """A check could not evaluate a document (reported as a stage-``engine`` issue, never a pass).

    ``reason`` says why: a :class:`~fel_rules.core.text.Text` of the catalogue, or a plain text (a plug-in's
    own); ``detail`` keeps a library's words for the report, never in the message."""

    def __init__(self, reason: object, detail: str | None = None) -> None:
        super().__init__(reason if isinstance(reason, str) else getattr(reason, "id", str(reason)))
        self.reason = reason
        self.detail = detail


class CheckKind(Protocol):
    """A named, parameterised check. Built once per rule at load time, then run on many documents.

    Implementations set ``name`` and ``Params`` (a :class:`KindParams` subclass), accept
    ``(params, env)`` in ``__init__`` (raise ``ValueError`` there for params that cannot work),
    keep what they need of the validated params (fel-rules' own kinds keep :func:`plain` of them:
    a check read back from the rule cache needs no pydantic), and yield :class:`Finding` objects from
    :meth:`check`. XPath params go through :meth:`RuleEnv.xpath`, so rules may write them from a place
    (``items/dte:Total``). An optional :meth:`placeholders` lets rule files be checked for unknown ``{names}`` in
    their messages when they load. An optional ``finds_nothing(doc) -> bool`` tells cheaply that :meth:`check`
    would yield nothing for ``doc``: ``True`` only when that is certain (the engine then skips :meth:`check`),
    ``False`` whenever it may find something or fail (the engine then runs :meth:`check`, which reports it).
    An optional ``prepare(doc) -> None`` does ahead of :meth:`check` the costly work it will need, kept in
    ``doc.memo``: the engine calls it for every document of a group before checking any of them (work of one kind
    done back to back runs faster); it never changes what :meth:`check` finds, and whatever it raises is ignored
    (:meth:`check` meets the same failure and reports it).

    A kind whose class sets ``scope = "batch"`` decides on a whole batch instead of one document:
    its :meth:`check` receives a :class:`~fel_rules.checks.batch_input.BatchInput` (one document of the
    batch and the batch's indexes), and only rules declaring ``scope: batch`` may use it.
    """

    name: ClassVar[str]
    Params: ClassVar[type[KindParams]]

    def __init__(self, params: KindParams, env: RuleEnv) -> None: ...

    def check(self, doc: CheckInput) -> Iterator[Finding]: ...

    def placeholders(self) -> set[str]:
        """Names this check puts in :attr:`Finding.values` (``{item}`` is always available)."""
        ...

"""The ``expression`` check kind: XPath ``let`` bindings, then ``assert`` or ``expected``/``actual``.

For every node matched by ``context`` the bindings are read (numbers become ``Decimal``; a binding
written ``{value: …}`` is computed from earlier ones), the optional ``when`` guard is evaluated, and then:

* ``expected`` and ``actual``: two expressions compared within the configured tolerance
  (numbers) or exactly (text); the issue reports expected, actual and difference;
* ``assert``: a boolean expression that must hold.

A binding with no value makes the rule not applicable to that node (another rule reports a
missing field) unless it declares a ``default``. A binding whose node is there but cannot be read
as its type (``99 999.99`` as a decimal) is never "not applicable": the check yields an
:class:`~fel_rules.checks.base.Unreadable` finding instead. Everything is compiled when rules load.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Sequence
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from lxml import etree

from ..core.foreign import evaluation, xpath_error
from ..core.money import (
    MONEY_FIELDS,
    XML_SPACE,
    Amount,
    decimal_str,
    parse_decimal,
    parse_small_int,
    remembered_decimals,
)
from ..core.text import Text
from ..core.xmlpath import children_by_tag
from ..expressions.language import (
    CompiledExpression,
    Evaluator,
    ExpressionError,
    Table,
    compile_expression,
    parse_date,
)
from ._expression_runner import Runner, make_runner
from ._finders import (
    anchored_finder,
    attribute_name,
    child_tag,
    context_chain,
    finds_count,
    memo_key,
    path_finder,
    up_tag,
)
from ._plan_runner import QuietPlan, write_quiet_plan
from ._xpath import (
    child_path_finder,
    compile_xpath,
    finds_nodes,
    item_number,
    located,
    referenced_variables,
    relaxed_finder,
    union_branches,
    valued_finder,
    with_values,
)
from .base import CheckError, CheckInput, Finding, RuleEnv, Unreadable
from .plain import ParamsOf, PlainParams, plain
from .registry import check_kind

if TYPE_CHECKING:
    from .expression_params import ExpressionParams, LetSpec

__all__ = ["ExpressionCheck", "quiet_plan"]

_NO_VARIABLES: dict[str, object] = {}
_LATER = object()  # (made on first use)
_ELEMENT = etree._Element
_SHARED_KEYS: dict[tuple, int] = {}
#: How many leading child steps of a context guard the plan's checks of every context that begins with them
#: (``/dte:GTDocumento/dte:SAT/dte:DTE/dte:DatosEmision/dte:Complementos/dte:Complemento``: see :func:`_guard`).
_GUARD_DEPTH = 6


def _shared_key(description: tuple) -> int:
    """A small int naming a context or binding; rules with the same one share its memo entries.

    The ints belong to this process: a pickled check (the rule cache) keeps the descriptions and asks again."""
    return _SHARED_KEYS.setdefault(description, len(_SHARED_KEYS))


class _Binding:
    __slots__ = ("name", "spec", "path", "xpath", "_finders", "needs", "key", "described", "value", "single",
                 "fallback", "kind", "read", "money", "namespaces", "context", "valued")
    key: int | None
    described: tuple | None  # what the memo key names (None for a computed value)

    def __init__(self, name: str, raw: str | LetSpec, env: RuleEnv, earlier: dict[str, PlainParams],
                 constants: list[str], context: str | None = None) -> None:
        spec: PlainParams = plain(ExpressionCheck.Let(path=raw) if isinstance(raw, str) else raw)
        self.name = name
        self.context = context  # the XPath of the nodes the binding is read from (its check's context)
        self.valued: dict[tuple, Callable | None] = {}  # $names' values → the finder of the path so written (_valued)
        self.spec = spec
        self.value = None
        self.single = not spec.many  # a value, not a list: absent means "not applicable" or the default
        self.fallback = None if spec.default is None else _read(spec.default, spec.type)
        self.kind, self.read = spec.type, _READERS[spec.type]
        self.money = False
        if spec.value is not None:
            self.value = _compiled(("let", name, "value"), spec.value, [*earlier, *constants])
            self.path, self.needs, self.xpath, self.key, self.described = None, set(), None, None, None
            self.namespaces: dict[str, str] = {}
            self._finders: tuple | None = (None, None)
            return
        where = ("let", name) if isinstance(raw, str) else ("let", name, "path")
        assert spec.path is not None, "a LetSpec without a value has a path (its validator)"
        self.path = env.xpath(spec.path, where)
        self.money = spec.type == "decimal" and _last_step(self.path) in MONEY_FIELDS
        self.needs = referenced_variables(self.path)
        unknown = self.needs - set(earlier)
        if unknown:
            raise ValueError(f"'let.{name}' usa ${', $'.join(sorted(unknown))} antes de definirla(s)")
        lists = sorted(n for n in self.needs if earlier[n].many)
        if lists:
            raise ValueError(
                f"'let.{name}' usa ${lists[0]}, que es una lista (many); solo valores simples van en XPath")
        if spec.default is not None and _read(spec.default, spec.type) is None:
            raise ValueError(f"'let.{name}': el valor por defecto {spec.default!r} no es de tipo {spec.type}")
        self.xpath = compile_xpath(self.path, env.namespaces, variables=self.needs)
        self.described = (self.path, spec.type, spec.many, tuple(sorted(env.namespaces.items())))
        self.key = _shared_key(self.described)
        self.namespaces = dict(env.namespaces)
        self._finders = None  # (find, lookup), made on first use (rules a document never reaches cost nothing)

    def __getstate__(self) -> dict:
        """What a pickle keeps (the rule cache): everything but this process's memo key and finders."""
        return {name: getattr(self, name) for name in self.__slots__ if name not in ("key", "_finders", "valued")}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.valued = {}
        self.key = None if self.described is None else _shared_key(self.described)
        self._finders = (None, None) if self.path is None else None

    def _finder(self) -> Callable | None:
        """The path's finder: from a context of child steps, a path of several steps (or with predicates) is
        answered from the document's nodes grouped by context node (:func:`~._finders.anchored_finder`)."""
        assert self.path is not None, "a binding without a value has a path"
        context: str | None = getattr(self, "context", None)
        path = self.path
        # (only a relative path of several steps or with predicates may be grouped: others are not parsed for it)
        groupable = ("/" in path or "[" in path) and not path.startswith(("/", "."))
        chain = context_chain(context, self.namespaces) if context and groupable else None
        anchored = anchored_finder(chain, path, self.namespaces) if chain else None
        if anchored is not None:
            return anchored
        return child_path_finder(self.path, self.namespaces, light=True, xpath=self.xpath)

    @property
    def find(self) -> Callable | None:
        """The path's finder (:mod:`._finders`), or ``None``: its XPath runs."""
        return self._made()[0]

    @property
    def lookup(self) -> Callable | None:
        """(value, first node, unread) at an element, through the finder; ``None``: through :func:`_lookup`."""
        return self._made()[1]

    def _made(self) -> tuple:
        finders = self._finders
        if finders is None:
            assert self.path is not None, "a binding without a value has a path"
            find = None if self.needs else self._finder()
            lookup = None
            if find is not None and finds_nodes(find):
                lookup = (_first_value if self.single else _all_values)(find, self.read, self.kind, self.name)
            elif find is not None and finds_count(find):
                lookup = _counted(find, self.name)
            finders = self._finders = (find, lookup)
        return finders


_NOTHING: tuple[None, None, None] = (None, None, None)


def _finder_failed(name: str, exc: Exception) -> CheckError:
    """A failing finder said as :func:`_lookup` says a failing XPath (a finder only fails on a broken tree)."""
    return CheckError(Text.of("check.xpath_failed", path=f"let.{name}", reason=xpath_error(str(exc))), str(exc))


def _all_values(find: Callable, read: Callable[[str], object], kind: str, name: str) -> Callable:
    """What :func:`_lookup` gives for a ``many`` binding read through ``find``: every matched node's value (an
    :class:`_Unread` for one that cannot be read), the first node, the first unreadable value."""
    text_kind = kind == "text"

    def lookup(node: etree._Element, memo: dict) -> tuple[object, object, _Unread | None]:
        try:  # (what _found does, written in: this runs for every binding of every node)
            found = find(node, memo)
        except Exception as exc:  # noqa: BLE001 - becomes the rule's CheckError, as an XPath failure does
            raise _finder_failed(name, exc) from exc
        values: list = []
        unread = None
        for each in found:
            text = (each.text or "") if type(each) is _ELEMENT else each  # an element, or an attribute's value
            value = read(text)
            if value is None and not text_kind and text.strip(XML_SPACE):
                value = _Unread(text, kind, each)
                if unread is None:
                    unread = value
            values.append(value)
        return values, (found[0] if found else None), unread

    return lookup


def _first_value(find: Callable, read: Callable[[str], object], kind: str, name: str) -> Callable:
    """What :func:`_lookup` gives for a single binding read through ``find`` (the same, with less to do)."""
    text_kind = kind == "text"

    def lookup(node: etree._Element, memo: dict) -> tuple[object, object, _Unread | None]:
        try:  # (what _found does, written in: this runs for every binding of every node)
            found = find(node, memo)
        except Exception as exc:  # noqa: BLE001 - becomes the rule's CheckError, as an XPath failure does
            raise _finder_failed(name, exc) from exc
        if not found:
            return _NOTHING
        first = found[0]
        text = (first.text or "") if type(first) is _ELEMENT else first  # an element, or an attribute's value
        value = read(text)
        if value is None and not text_kind and text.strip(XML_SPACE):
            unread = _Unread(text, kind, first)
            return unread, first, unread
        return value, first, None

    return lookup


def _counted(find: Callable, name: str) -> Callable:
    """What :func:`_lookup` gives for a ``count(…)`` binding read through ``find``: the number of nodes as a Decimal
    (the value of any binding whose XPath gives a whole number), no node, nothing unread."""

    def lookup(node: etree._Element, memo: dict) -> tuple[object, object, _Unread | None]:
        try:
            found = find(node, memo)
        except Exception as exc:  # noqa: BLE001 - becomes the rule's CheckError, as an XPath failure does
            raise _finder_failed(name, exc) from exc
        return Decimal(int(found)), None, None

    return lookup


_LAST_STEP = re.compile(r"(?:^|[/:@])([A-Za-z_][\w.-]*)\s*(?:\[[^\]]*\]\s*)*$")


def _last_step(path: str) -> str | None:
    """The local name a path ends with (``GranTotal`` for ``totales/dte:GranTotal``, ``dte:Total[1]``)."""
    match = _LAST_STEP.search(path.strip())
    return match.group(1) if match else None


def _compiled(key: tuple, source: str | None, names: list[str],
              texts: frozenset[str] = frozenset()) -> CompiledExpression | None:
    if source is None:
        return None
    try:
        expression = compile_expression(source, names)
        _no_text_equals_number(expression, texts)
        return expression
    except Exception as exc:  # ExpressionError carries the column; keep the key for the loader
        exc.args = (f"{'.'.join(key)}: {exc}",)
        exc.key = key  # type: ignore[attr-defined]
        raise


def _no_text_equals_number(expression: CompiledExpression, texts: frozenset[str]) -> None:
    """Refuse ``codigo == 1`` where ``codigo`` is read as text (``type: text``, or a text constant): a text never
    equals a number, so the comparison would be false on every document, and the rule silently never apply."""
    for node in ast.walk(expression.node):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, sides, sides[1:], strict=False):  # (sides: one more than ops)
            if not isinstance(op, (ast.Eq, ast.NotEq)):
                continue
            for name, other in ((left, right), (right, left)):
                if isinstance(name, ast.Name) and name.id in texts and isinstance(other, ast.Constant) \
                        and isinstance(other.value, Decimal):
                    number = ast.get_source_segment(expression.source, other) or str(other.value)
                    raise ExpressionError(
                        f"'{name.id}' es un texto y {number} un número: nunca son iguales; escriba '{number}' "
                        f"entre comillas, o lea el valor como número (type: int o decimal)",
                        f"'{name.id}' is a text and {number} a number: they are never equal; write '{number}' in "
                        f"quotes, or read the value as a number (type: int or decimal)",
                        other.col_offset + 1)


def _constant(value: str | dict) -> object:
    """A constant as the expressions see it: a Decimal when it reads as a number, a :class:`Table`, or text."""
    if isinstance(value, dict):
        return Table({key: _constant(str(entry)) for key, entry in value.items()})
    number = parse_decimal(value)
    return number if number is not None else value


@check_kind("expression")
class ExpressionCheck:
    """Arithmetic and logical assertions over XPath bindings (see module docstring)."""

    Params = ParamsOf("fel_rules.checks.expression_params:ExpressionParams")
    #: A binding written as a bare XPath is this model with that ``path``.
    Let = ParamsOf("fel_rules.checks.expression_params:LetSpec")

    def __init__(self, params: ExpressionParams, env: RuleEnv) -> None:
        self.params = plain(params)
        self.namespaces = dict(env.namespaces)
        context = env.xpath(params.context, "context")
        self.context = compile_xpath(context, env.namespaces, nodes=True)
        self.context_described = ("context", context, tuple(sorted(env.namespaces.items())))
        self.constants = {name: _constant(value) for name, value in params.constants.items()}
        self.bindings: list[_Binding] = []
        for name, raw in params.let.items():
            self.bindings.append(_Binding(name, raw, env, {b.name: b.spec for b in self.bindings},
                                          list(self.constants), context))
        names = [b.name for b in self.bindings] + list(self.constants)
        texts = frozenset({b.name for b in self.bindings if b.kind == "text" and b.value is None}
                          | {name for name, value in self.constants.items() if isinstance(value, str)})
        self.when = _compiled(("when",), params.when, names, texts)
        self.assertion = _compiled(("assert",), params.assert_, names, texts)
        self.expected = _compiled(("expected",), params.expected, names, texts)
        self.actual = _compiled(("actual",), params.actual, names, texts)
        self.tolerance = _compiled(("tolerance",), params.tolerance, names, texts)
        self._process_state()
        self.amounts = frozenset(params.amounts) | {b.name for b in self.bindings if b.money}
        compared = (self.expected.names if self.expected else frozenset()) | (
            self.actual.names if self.actual else frozenset())
        self.compares_amounts = bool(compared & self.amounts)

    @property
    def context_find(self) -> Callable | None:
        """The context's finder (:mod:`._finders`), or ``None``: its XPath runs."""
        find: Any = self._context_find
        if find is _LATER:
            find = child_path_finder(self.context.path, self.namespaces, elements_only=True, light=True,
                                     xpath=self.context)
            self._context_find = find
        return find

    #: What belongs to this process only: memo keys, finders, quick functions (made again after a pickle).
    _VOLATILE = ("context_key", "_context_find", "_base", "_made_key", "_last")
    _context_find: object

    def __getstate__(self) -> dict:
        """What a pickle keeps (the rule cache): everything but what belongs to this process."""
        return {name: value for name, value in self.__dict__.items() if name not in self._VOLATILE}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._process_state()

    def _process_state(self) -> None:
        """What belongs to this process: set when the check is made, and again when it is read from a pickle."""
        self.context_key = _shared_key(self.context_described)
        self._context_find = _LATER  # the context's finder, made on first use
        self._base: tuple[object, dict[str, object]] = (None, {})  # (tolerance, the constants and tol)
        self._made_key = ("check", id(self))
        self._last: tuple[object, Runner | None] = (None, None)  # (the evaluator asked for last, its function)

    def placeholders(self) -> set[str]:
        """Every binding and constant plus expected, actual and difference."""
        return {b.name for b in self.bindings} | set(self.constants) | {"expected", "actual", "difference"}

    def check(self, doc: CheckInput) -> Iterator[Finding]:
        """Evaluate the rule on every context node of ``doc`` (with the plain compiled evaluator, through the
        check's quick function: :mod:`._expression_runner`)."""
        memo = doc.memo
        nodes = memo.get(self.context_key)
        if nodes is None:  # rules sharing a context (//dte:Item…) select it once per document
            nodes = self.context_nodes(doc)
        if not nodes:  # (the rule has nothing to look at in this document)
            return iter(())
        evaluator = doc.evaluator
        last = self._last  # (what _runner gives, looked up here first: this runs for every rule of every document)
        run = last[1] if last[0] is evaluator else self._runner(evaluator)
        if run is not None:
            return run(doc, memo, nodes, evaluator.tolerance, doc.config.tolerance, self._slow)
        return self._each(doc, memo, nodes, evaluator.tolerance)

    def context_nodes(self, doc: CheckInput) -> list:
        """The nodes ``context`` selects in ``doc``, selected once per document for every rule written with the
        same context (kept in the document's memo)."""
        memo = doc.memo
        nodes = memo.get(self.context_key)
        if nodes is None:
            root = doc.root
            find = self.context_find
            nodes = memo[self.context_key] = find(root, memo) if find is not None and type(root) is _ELEMENT \
                else self.context(root)
        return nodes

    def _each(self, doc: CheckInput, memo: dict, nodes: list, tolerance: Decimal) -> Iterator[Finding]:
        for node in nodes:
            yield from self._slow(doc, node, memo, tolerance)

    def _slow(self, doc: CheckInput, node: object, memo: dict, tolerance: Decimal) -> list[Finding]:
        """The finding at ``node`` (none, or one), the general way: every binding, then the judgement."""
        bound = self._bind(node, memo, tolerance, doc)
        if bound is None:
            return []
        if isinstance(bound, _Unread):
            return [bound.finding()]
        finding = self._judge(doc, node, bound[0], bound[1])
        return [] if finding is None else [finding]

    def _runner(self, evaluator: Evaluator) -> Runner | None:
        """The check's quick function for ``evaluator``, or ``None``: only the plain evaluator's compiled expressions
        run as functions, and the function is made the second time the check runs for it (once per evaluator)."""
        last = self._last
        if last[0] is evaluator:
            return last[1]
        if type(evaluator) is not Evaluator:
            return None
        made = evaluator.made.get(self._made_key)
        if made is None or made[0] is not self:  # first use: the general way (a one-off validation makes nothing)
            evaluator.made[self._made_key] = (self, _LATER)
            return None
        if made[1] is _LATER:
            made = evaluator.made[self._made_key] = (self, make_runner(self, evaluator, _RUNNER_TOOLS))
        run: Runner | None = made[1]  # type: ignore[assignment]
        self._last = (evaluator, run)
        return run

    def _bind(
        self, node: object, memo: dict, tolerance: Decimal, doc: CheckInput
    ) -> tuple[dict[str, object], dict[str, object]] | _Unread | None:
        base = self._base
        if base[0] is not tolerance:
            base = self._base = (tolerance, {**self.constants, "tol": tolerance})
        values = base[1].copy()
        nodes: dict[str, object] = {}
        element = type(node) is _ELEMENT
        for binding in self.bindings:
            if binding.value is not None:
                value = _computed(doc, binding.name, binding.value, values)
                if value is None:
                    return None
                values[binding.name] = value
                continue
            if binding.needs:  # its XPath reads earlier values: they are part of the entry's key
                variables = {name: _as_xpath_variable(values[name]) for name in binding.needs}
                key = (binding.key, node, tuple(variables.items()))
                cached = memo.get(key)
                if cached is None:
                    cached = memo[key] = _lookup(binding, node, variables, memo)
            else:  # the same binding in several rules (dte:Precio, dte:Total…) is read once: memo[key][node]
                known = memo.get(binding.key)
                if known is None:
                    known = memo[binding.key] = {}
                cached = known.get(node)
                if cached is None:
                    lookup = binding.lookup
                    cached = known[node] = lookup(node, memo) if lookup is not None and element else \
                        _lookup(binding, node, _NO_VARIABLES, memo)
            value = cached[0]
            if cached[2] is not None:
                return cached[2]
            if value is None and binding.single:
                if binding.fallback is None:
                    return None
                value = binding.fallback
            values[binding.name] = value
            nodes[binding.name] = cached[1]
        return values, nodes

    def _judge(self, doc: CheckInput, node: object, values: dict, nodes: dict) -> Finding | None:
        evaluate = doc.evaluator.evaluate
        try:
            if self.when is not None and not evaluate(self.when, values):
                return None
            passed = True
            expected = actual = difference = None
            if self.expected is not None and self.actual is not None:
                # a bare name (``actual: impuesto``) is its value: nothing to run
                expected = values[self.expected.name] if self.expected.name else evaluate(self.expected, values)
                actual = values[self.actual.name] if self.actual.name else evaluate(self.actual, values)
                if expected is None or actual is None:
                    return None
                if isinstance(expected, Decimal) and isinstance(actual, Decimal):
                    difference = actual - expected
                    limit: Any = doc.config.tolerance if self.tolerance is None else evaluate(self.tolerance, values)
                    passed = abs(difference) <= limit
                else:
                    passed = str(expected) == str(actual)
            if passed and self.assertion is not None:
                passed = bool(evaluate(self.assertion, values))
        except CheckError:
            raise
        except Exception as exc:  # noqa: BLE001 - arithmetic on document data must not crash the run
            raise CheckError(Text.of("check.eval_failed", reason=evaluation(exc)), f"{type(exc).__name__}: {exc}") \
                from exc
        if passed:
            return None
        anchor = nodes.get(self.params.at) if self.params.at else None
        xpath, line, field, owner = located(anchor if anchor is not None else node)
        number = item_number(owner)
        amounts = self.amounts
        texts: dict[str, object] = {name: _said(value, name in amounts)
                                    for name, value in values.items() if name != "tol"}
        money = self.compares_amounts
        texts.update(
            expected=_said(expected, money), actual=_said(actual, money), difference=_said(difference, money),
            item="" if number is None else str(number),
        )
        return Finding(
            xpath=xpath,
            line=line,
            item=number,
            field=field if anchor is not None else None,
            values=texts,
            expected=_text(expected) if expected is not None else None,
            actual=_text(actual) if actual is not None else None,
            difference=_text(difference) if difference is not None else None,
        )


def _lookup(binding: _Binding, node: object, variables: dict[str, object],
            memo: dict) -> tuple[object, object, _Unread | None]:
    """(value, first matched node, the first unreadable value or ``None``) of ``binding`` at ``node``."""
    assert binding.xpath is not None, "a binding without a value has an XPath"
    try:
        find = binding.find
        if find is None and variables and type(node) is _ELEMENT:  # $names holding texts: the path so written
            find = _valued(binding, variables)
        if find is not None and type(node) is _ELEMENT:
            result = find(node, memo)
        else:
            result = binding.xpath(node, **variables)
    except Exception as exc:  # lxml XPathEvalError and friends
        raise CheckError(Text.of("check.xpath_failed", path=f"let.{binding.name}", reason=xpath_error(str(exc))),
                         str(exc)) from exc
    if type(result) is list and binding.single:  # the usual case, as _convert and _read_node read it
        if not result:
            return None, None, None
        node = result[0]
        text = (node.text or "") if isinstance(node, _ELEMENT) else _node_text(node)
        value = binding.read(text)
        if value is None and binding.kind != "text" and text.strip(XML_SPACE):
            unread = _Unread(text, binding.kind, node)
            return unread, node, unread
        return value, node, None
    value, first = _convert(result, binding.spec, binding.name)
    return value, first, _first_unread(value)


def _valued(binding: _Binding, variables: dict[str, object]) -> Callable | None:
    """The finder of ``binding``'s path with its ``$names`` written as the literals of ``variables`` (see
    :func:`~._xpath.with_values`), or ``None``: XPath reads it. Kept per binding by the values (a few a document)."""
    key = (*variables.items(), *map(type, variables.values()))  # (True == 1, but XPath compares them apart)
    known = binding.valued
    keep = True
    try:
        find = known.get(key, _LATER)
    except TypeError:  # (a value that is no key: written each time)
        keep, find = False, _LATER
    if find is _LATER:
        written = with_values(binding.path, variables)  # type: ignore[arg-type]
        find = valued_finder(written, binding.described[3]) if written is not None else None  # type: ignore[index]
        if keep:
            if len(known) >= _MAX_VALUED:
                known.clear()
            known[key] = find
    return find  # type: ignore[return-value]


#: How many values of a binding's ``$names`` :func:`_valued` keeps.
_MAX_VALUED = 64


def _computed(doc: CheckInput, name: str, expression: CompiledExpression, values: dict) -> object:
    """The value of the ``{value: …}`` binding ``name`` (``None``: the rule does not apply to this node)."""
    try:
        return doc.evaluator.evaluate(expression, values)
    except Exception as exc:  # noqa: BLE001 - arithmetic on document data must not crash the run
        raise CheckError(Text.of("check.value_failed", name=f"let.{name}", reason=evaluation(exc)),
                         f"{type(exc).__name__}: {exc}") from exc


class _Unread:
    """A matched node (or XPath string) whose text cannot be read as the binding's type."""

    __slots__ = ("raw", "kind", "node")

    def __init__(self, raw: str, kind: str, node: object) -> None:
        self.raw, self.kind, self.node = raw, kind, node

    def finding(self) -> Unreadable:
        xpath, line, field, owner = located(self.node)
        return Unreadable(xpath=xpath, line=line, item=item_number(owner), field=field, raw=self.raw, kind=self.kind)


def _first_unread(value: object) -> _Unread | None:
    if isinstance(value, _Unread):
        return value
    if isinstance(value, list):
        return next((item for item in value if isinstance(item, _Unread)), None)
    return None


def _convert(result: object, spec: PlainParams, name: str) -> tuple[object, object]:
    if isinstance(result, list):
        if spec.many:
            return [_read_node(n, spec.type) for n in result], (result[0] if result else None)
        if not result:
            return None, None
        return _read_node(result[0], spec.type), result[0]
    if isinstance(result, bool):
        return result, None
    if isinstance(result, float):
        if result != result or result in (float("inf"), float("-inf")) or result != int(result):
            raise CheckError(
                f"'let.{name}' devolvió un número no entero de XPath ({result!r}); "
                "use many: true y sum() para sumar importes con Decimal"
            )
        return Decimal(int(result)), None
    if isinstance(result, str):
        value = _read(result, spec.type)
        if value is None and result.strip(XML_SPACE):  # a computed string that is there but unreadable
            return _Unread(result, spec.type, result), result
        return value, result
    return None, None


def _read_node(node: object, kind: str) -> object:
    """The value of a matched node; a node with text that cannot be read as ``kind`` is :class:`_Unread`."""
    text = _node_text(node)
    value = _read(text, kind)
    if value is None and kind != "text" and text.strip(XML_SPACE):  # blank is absent (the required rules' case)
        return _Unread(text, kind, node)
    return value


def _node_text(node: object) -> str:
    if isinstance(node, str):
        return node
    text = getattr(node, "text", None)
    return text or ""


def _text_value(text: str) -> str:
    return text.strip()


#: How a binding of each type reads a text.
_READERS: dict[str, Callable[[str], object]] = {
    "text": _text_value, "int": parse_small_int, "date": parse_date, "decimal": parse_decimal,
}


def _read(text: str, kind: str) -> object:
    return _READERS[kind](text)


def _as_xpath_variable(value: object) -> object:
    if isinstance(value, Decimal):
        return decimal_str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list):
        return ""
    return "" if value is None else value


def _said(value: object, money: bool) -> object:
    """A value for a message: an :class:`~fel_rules.core.money.Amount` (a number that is money, or a list of such),
    which the message says as ``Q 1,911.50``, or text."""
    if money:
        if isinstance(value, Decimal):
            return Amount(value)
        if isinstance(value, list) and value and all(isinstance(item, Decimal) for item in value):
            return [Amount(item) for item in value]
    return _text(value)


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return decimal_str(value) or ""
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


#: What the quick functions of checks reach (see :func:`~._expression_runner.make_runner`).
_RUNNER_TOOLS = {
    "ELEMENT": _ELEMENT, "LOOKUP": _lookup, "AXV": _as_xpath_variable, "NOVARS": _NO_VARIABLES,
    "CHILD_TAG": child_tag, "UP_TAG": up_tag, "ATTRIBUTE": attribute_name, "MEMO_KEY": memo_key,
    "INDEX": children_by_tag,
    "NOTHING": _NOTHING, "SPACE": XML_SPACE,
    "UNREAD": lambda text, kind, node: (unread := _Unread(text, kind, node), node, unread),
    "NODES": lambda check: check.context_nodes,
    "GUARD": lambda check: _guard(check.context.path, check.namespaces),
    "RELAXED": lambda check: relaxed_finder(check.context.path, check.namespaces),
    "DECIMAL": parse_decimal, "REMEMBERED": remembered_decimals()[0].get, "UNKNOWN": remembered_decimals()[1],
}

#: The first child steps of an absolute location path (``/p:A/p:B/…``, as many as its plan guards by), followed by more.
_GUARD_STEPS = re.compile(r"\s*((?:/\s*[A-Za-z_][\w.-]*:[A-Za-z_][\w.-]*\s*){" + str(_GUARD_DEPTH) + r"})(?=[/\[])")


def _guard(path: str, namespaces: dict[str, str]) -> Callable | None:
    """The finder of the first :data:`_GUARD_DEPTH` child steps of ``path`` when it is one absolute location path
    that goes on past them (``/…/dte:Complementos/dte:Complemento/cdp:DetalleProductos``), else ``None``: where those
    steps select nothing, so does the path."""
    match = _GUARD_STEPS.match(path)
    branches = union_branches(path)
    if match is None or branches is None or len(branches) != 1:
        return None
    return path_finder(match.group(1).strip(), namespaces, elements_only=True)


#: Where an evaluator keeps the quiet functions of plans (see :func:`quiet_plan`), and how many plans it keeps.
_PLANS_KEY = ("quiet plans",)
_MAX_PLANS = 512

#: How many documents of a plan are validated without its function before it is made. Making it costs some 25–40 ms
#: of CPU (its source written and compiled) and saves some 0.1–0.4 ms a document: it is made once it would have paid
#: for itself, so that a command validating a few files, or a small batch, does not make it for nothing; a warm-up
#: asks for it at once (``now``).
PLAN_FUNCTION_AFTER = 256


def quiet_plan(plan: Sequence[tuple], evaluator: Evaluator, *, now: bool = False) -> QuietPlan | None:
    """The :class:`~._plan_runner.QuietPlan` of ``plan`` (a tuple of ``(rule, severity, check)``, kept by its
    caller) for ``evaluator``, or ``None``: only the plain evaluator's compiled expressions run as functions, and a
    plan's function is made the :data:`PLAN_FUNCTION_AFTER`-th time a plan of the same checks is asked for, or
    at once when ``now``. Plans of the same checks (other days, other severities) share one function."""
    if type(evaluator) is not Evaluator or evaluator.engine != "compiled":
        return None
    made = evaluator.made
    kept: Any = made.get(_PLANS_KEY)
    if kept is None:
        kept = made[_PLANS_KEY] = ({}, {})  # (id of a plan → (plan, its QuietPlan)), (checks → function or uses)
    plans, functions = kept
    found = plans.get(id(plan))
    if found is not None and found[0] is plan:
        return found[1]
    checks = tuple(entry[2] for entry in plan)
    function = functions.get(checks, 0)
    if type(function) is int:  # the documents of these checks so far: the general way until it pays to make it
        if not now and function + 1 < PLAN_FUNCTION_AFTER:
            if not function and len(functions) >= _MAX_PLANS:
                functions.clear()
            functions[checks] = function + 1
            return None
        function = functions[checks] = write_quiet_plan(checks, evaluator, _RUNNER_TOOLS, _quick, _settler)
    if len(plans) >= _MAX_PLANS:  # bounded: a caller's plans come and go
        plans.clear()
    quiet = QuietPlan(plan, *function)
    plans[id(plan)] = (plan, quiet)
    return quiet


def _settler(check: object) -> Callable | None:
    """How the plan's function settles ``check`` of another kind: a kind that can tell cheaply that it finds nothing
    in a document has a method ``finds_nothing(doc)`` saying so (a required check: its fields are there, a signature
    check: the document is unsigned, an identifier check: the identifier is valid, or not there; ``False`` when it
    may find something, an error as ``check`` meets it); other kinds run the general way."""
    return getattr(check, "finds_nothing", None)


def _quick(check: object) -> bool:
    """Whether the plan's function takes ``check``: an expression check (of this very kind, not a subclass)."""
    return type(check) is ExpressionCheck

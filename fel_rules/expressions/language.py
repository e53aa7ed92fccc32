"""The safe expression language of YAML rules: Python syntax, Decimal numbers, no attribute access.

Expressions are parsed and checked once, when rules load (:func:`compile_expression`), and run as
Python code without builtins (:mod:`~fel_rules.expressions.compiled`), or node by node with simpleeval,
the reference the compiled form agrees with (:class:`Evaluator`). Every number literal becomes a
:class:`~decimal.Decimal` taken from its source text, so ``0.12`` is exactly twelve hundredths. Only a
fixed set of node types and functions is accepted; attribute access, subscripts, comprehensions, lambdas and
``**`` are refused with a message that names the column.
"""

from __future__ import annotations

import ast
import re
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from functools import cached_property
from typing import Any, Literal

from simpleeval import EvalWithCompoundTypes, NameNotDefined

from ..core.catalogue import render_text
from ..core.foreign import python_syntax
from ..core.identifiers import uuid_numero, uuid_serie
from ..core.money import MONEY_CONTEXT, XML_SPACE, parse_decimal, round_half_up
from ..core.text import Text
from .catalogues import Catalogues, code_key
from .compiled import ADD, MOD, MULT, Program, function_global, to_function, to_program
from .holidays import HolidayCalendar, nth_business_day
from .patterns import MAX_MATCHED_TEXT, PatternError, compile_pattern

__all__ = [
    "ENGINES", "FUNCTION_NAMES", "MAX_EXPRESSION_DEPTH", "CompiledExpression", "Engine", "ExpressionError",
    "Evaluator", "FunctionMisuse", "Table", "compile_expression",
]

#: How an :class:`Evaluator` runs expressions: compiled code, or simpleeval's interpreter (the reference).
Engine = Literal["compiled", "interpreted"]
ENGINES: tuple[Engine, ...] = ("compiled", "interpreted")

_ALLOWED_NODES: tuple[type[ast.AST], ...] = (
    ast.Module, ast.Expr, ast.BoolOp, ast.And, ast.Or, ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.Div,
    ast.Mod, ast.UnaryOp, ast.USub, ast.UAdd, ast.Not, ast.Compare, ast.Eq, ast.NotEq, ast.Lt, ast.LtE,
    ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot, ast.IfExp, ast.Call, ast.Name, ast.Load,
    ast.Constant, ast.List, ast.Tuple,
)

_FRIENDLY = {
    ast.Attribute: "el acceso a atributos (a.b)",
    ast.Subscript: "los subíndices (a[0])",
    ast.Pow: "la potencia (**)",
    ast.Lambda: "lambda",
    ast.ListComp: "las comprensiones de listas",
    ast.GeneratorExp: "los generadores",
    ast.Dict: "los diccionarios",
    ast.NamedExpr: "la asignación (:=)",
}


class ExpressionError(ValueError):
    """An expression cannot be accepted; ``column`` is 1-based within the expression text; ``detail``: Python's
    own words, when its parser refused it."""

    def __init__(self, message: str, message_en: str, column: int | None = None, detail: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.message_en = message_en
        self.column = column
        self.detail = detail


class FunctionMisuse(TypeError):
    """A function of the language given a value it does not take (``said``: why, in the catalogue's words)."""

    def __init__(self, said: Text) -> None:
        super().__init__(render_text(said))
        self.said = said


@dataclass(frozen=True)
class CompiledExpression:
    """A checked expression, ready to evaluate many times (``name`` is set when it is a bare name)."""

    source: str
    node: ast.Expr
    names: frozenset[str]
    name: str | None = None

    @cached_property
    def program(self) -> Program | None:
        """The expression compiled to Python code (on first use); ``None``: it is only interpreted."""
        return to_program(self.node, self.source)

    def __getstate__(self) -> dict:
        """What a pickle keeps (the rule cache): the checked tree without its source positions (only the checks
        that accepted it read them), never code (compiled again on first use)."""
        state = {name: value for name, value in self.__dict__.items() if name != "program"}
        state["node"] = _without_positions(self.node)
        return state

    def __setstate__(self, state: dict) -> None:
        """Read back from a pickle: the tree is checked against the language again before it can ever run."""
        recheck(state["node"], state["names"])
        self.__dict__.update(state)


def _sum(values: Iterable[Decimal | None]) -> Decimal:
    if type(values) is list:  # (the usual list: no generator; the same additions in order)
        try:  # (not "None in values": that compares None with each Decimal, an ABC check each, 0.5 µs)
            return sum(values, Decimal(0))
        except TypeError:  # a value is missing (None): the same additions, without it
            pass
    return sum((value for value in values if value is not None), Decimal(0))


def _count(values: Iterable[object] | None) -> Decimal:
    return Decimal(0) if values is None else Decimal(len(list(values)))


#: An xs:date or xs:dateTime as FEL writes them (ASCII digits; time and zone optional).
_ISO_DATE = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})(T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?)?(Z|[+-][0-9]{2}:[0-9]{2})?")
#: Guatemala's time (UTC−6 all year): the calendar of SAT's deadlines and of its date rules.
GUATEMALA_TIME = timezone(timedelta(hours=-6), "America/Guatemala")


def parse_date(value: object) -> date | None:
    """The calendar date in Guatemala of ``2024-03-05`` or ``2024-03-05T10:00:00-06:00``: a date-time written with
    another offset (``2024-03-06T03:00:00Z``) is that instant's date in Guatemala (5 March); without an offset, or
    a date alone, the date as written.

    Anything else (``2024-03-05garbage``, inner or non-XML whitespace, an impossible day) is ``None``.
    """
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip(XML_SPACE)
    match = _ISO_DATE.fullmatch(text)
    if match is None:
        return None
    try:
        written = date.fromisoformat(match[1])
    except ValueError:
        return None
    if match[2] is None or match[3] is None or match[3] == "-06:00":
        return written
    try:
        return datetime.fromisoformat(text).astimezone(GUATEMALA_TIME).date()
    except (ValueError, OverflowError):  # (24:00:00, or an instant past year 9999 or before year 1)
        return written


def _days_between(start: object, end: object) -> Decimal | None:
    first, last = parse_date(start), parse_date(end)
    if first is None or last is None:
        return None
    return Decimal((last - first).days)


def _month_end(day: object, months: object = 0) -> date | None:
    """Last day of the month ``months`` after the month of ``day`` (0: its own month)."""
    first = parse_date(day)
    if first is None:
        return None
    index = first.year * 12 + first.month - 1 + int(months)  # type: ignore[call-overload]
    year, month = divmod(index, 12)
    return date(year, month + 1, _days_in_month(year, month + 1))


def _business_day(day: object, holidays: HolidayCalendar) -> date | None:
    """``day`` when it is a business day, else the next one (Monday to Friday, the holidays of the rules folder's
    ``data/feriados-gt.yaml`` aside): where SAT moves a deadline that falls on a weekend or a holiday."""
    first = parse_date(day)
    if first is None:
        return None
    try:
        return nth_business_day(first - timedelta(days=1), 1, holidays)
    except OverflowError:  # (past 31 December 9999: no business day follows)
        return None


_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _days_in_month(year: int, month: int) -> int:
    """The days of ``month`` (1–12) of ``year`` in the Gregorian calendar (``calendar.monthrange``'s second value)."""
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 29 if month == 2 and leap else _MONTH_DAYS[month - 1]


def _listed(value: object, items: object) -> bool:
    """True when ``value`` (as text) is one of the comma-separated entries of ``items`` (``None``: no entries)."""
    if items is None:
        return False
    wanted = _text_of(value).strip()
    return any(entry.strip() == wanted for entry in _text_of(items).split(","))


class Table(Mapping[str, object]):
    """A small table written in a rule (``constants: {frase_del_regimen: {FPEQ: 3, …}}``), read with
    ``lookup(table, key)``; keys are compared as codes (``3``, ``"3"`` and ``"03"`` are the same key)."""

    __slots__ = ("_rows",)

    def __init__(self, rows: Mapping[object, object]) -> None:
        self._rows = {_code(key): value for key, value in rows.items()}

    def __getitem__(self, key: str) -> object:
        return self._rows[key]

    def __iter__(self):
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __str__(self) -> str:
        return ", ".join(f"{key}: {value}" for key, value in self._rows.items())


def _lookup(table: object, key: object) -> object:
    """The row of ``table`` for ``key``, or ``None`` when the table has no such row."""
    if not isinstance(table, Table):
        raise FunctionMisuse(Text("expression.lookup_needs_table"))
    return None if key is None else table.get(_code(key))


def _length(value: object) -> Decimal:
    """Number of characters of ``value`` as text (``None`` is the empty text)."""
    if isinstance(value, (list, tuple)):
        raise FunctionMisuse(Text("expression.len_of_list"))
    return Decimal(len(_text_of(value)))


def _matches(value: object, pattern: str) -> bool:
    """True when the whole of ``value`` (as text) matches ``pattern``; texts longer than
    :data:`~fel_rules.expressions.patterns.MAX_MATCHED_TEXT` characters never match."""
    text = _text_of(value)
    return len(text) <= MAX_MATCHED_TEXT and compile_pattern(pattern).fullmatch(text) is not None


def _decimal(value: object) -> Decimal | None:
    """A number written as xs:decimal (``1250.00``), else ``None`` (``Q1250``, ``1,250.00``, ``1 250``)."""
    if isinstance(value, Decimal):
        return value
    return parse_decimal(value) if isinstance(value, str) else None


def _text_of(value: object) -> str:
    return "" if value is None else str(value)


def _builtin_functions() -> dict[str, Callable[..., object]]:
    return {
        "abs": abs,
        "min": min,
        "max": max,
        "sum": _sum,
        "count": _count,
        "uuid_serie": lambda uuid: uuid_serie(uuid) if uuid else None,
        "uuid_numero": lambda uuid: uuid_numero(uuid) if uuid else None,
        "text": _text_of,
        "len": _length,
        "matches": _matches,
        "lookup": _lookup,
        "decimal": _decimal,
        "listed": _listed,
        "date": parse_date,
        "days_between": _days_between,
        "month_end": _month_end,
    }


#: Functions that depend on configuration (tolerance, rounding) or on the catalogues in rules/data.
_CONFIGURED = {"round2", "round_to", "round_as", "close", "rate", "tax_base", "tax_currency", "frase",
               "frase_resolution", "personeria_rdon", "business_day"}

#: Deepest nesting of an expression's syntax tree (the rules' deepest is 10; evaluation recurses per level).
MAX_EXPRESSION_DEPTH = 100

#: Functions every expression may call.
FUNCTION_NAMES = frozenset(_builtin_functions()) | _CONFIGURED


#: ``round_as`` never rounds to fewer decimals than this (cents): an amount written with fewer (``6`` for 6.12)
#: would otherwise be compared with a value rounded to its own coarse unit, a slack of half of it (0.5) hidden
#: inside the expression, where the configured tolerance is the only one allowed.
MIN_ROUND_AS_PLACES = 2

#: The quantum of each common number of decimals (``0.01`` for 2), the commonest first.
_QUANTA = {places: Decimal(1).scaleb(-places) for places in (2, 0, 1, 3, 4, 5, 6, 7, 8, 9, 10)}


def _places(like: Decimal) -> int:
    """Number of decimals written in ``like`` (at least 0)."""
    if type(like) is Decimal:  # a cheap exponent test for the common ones (as_tuple copies every digit)
        for places, quantum in _QUANTA.items():
            if like.same_quantum(quantum):
                return places
    exponent = like.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _rounder(rounding: str) -> Callable[[object, object], Decimal]:
    """:func:`~fel_rules.core.money.round_half_up` with ``rounding`` bound: the same value, through a context that
    carries the rounding (no keyword arguments to parse) for a Decimal rounded to 0–10 places."""
    context = MONEY_CONTEXT.copy()
    context.rounding = rounding
    quantize = context.quantize

    def round_to(value: object, places: object) -> Decimal:
        if type(value) is Decimal and type(places) is int:
            quantum = _QUANTA.get(places)
            if quantum is not None:
                return quantize(value, quantum)
        return round_half_up(value, places, rounding)  # type: ignore[arg-type]

    return round_to


def compile_expression(source: str, names: Iterable[str]) -> CompiledExpression:
    """Parse ``source`` and check it only uses allowed syntax, ``names`` and known functions."""
    if not isinstance(source, str) or not source.strip():
        raise ExpressionError("la expresión está vacía", "the expression is empty")
    text = source.strip()
    body = _parse(text)
    known = set(names) | {"tol"}
    used: set[str] = set()
    called: set[int] = set()
    for node in ast.walk(body):
        _check_node(node, text, known, used)
        if isinstance(node, ast.Call):
            called.add(id(node.func))
    for node in ast.walk(body):  # a function is only ever called: ``assert: close`` would hold on every document
        if isinstance(node, ast.Name) and node.id in FUNCTION_NAMES and id(node) not in called:
            raise ExpressionError(f"'{node.id}' es una función y se usa sin llamarla; escriba {node.id}(…)",
                                  f"'{node.id}' is a function used without calling it; write {node.id}(…)",
                                  node.col_offset + 1)
    bare = body.value.id if isinstance(body.value, ast.Name) and body.value.id not in FUNCTION_NAMES else None
    return CompiledExpression(text, body, frozenset(used), bare)


#: Types of literal a checked tree holds: numbers became Decimal; text, bytes, True/False/None and ``...`` as written.
_LITERAL_TYPES = frozenset({Decimal, str, bytes, bool, type(None), type(Ellipsis)})
#: The node types of a checked tree (exactly these: no subclass), and the fields holding something else than nodes.
_TREE_TYPES = frozenset(_ALLOWED_NODES) - {ast.Module, ast.Expr}
_PLAIN_FIELDS = {ast.Name: {"id"}, ast.Constant: {"value", "kind"}}


def recheck(node: object, names: frozenset[str]) -> None:
    """Check again a tree :func:`compile_expression` accepted (read back from the rule cache): one expression
    made only of the language's nodes, calls of its functions by name, literals and the ``names`` it uses.
    Raises :class:`ExpressionError` otherwise (a cache entry that fails is not used)."""
    if type(node) is not ast.Expr:
        raise ExpressionError("el árbol no es una expresión", "the tree is not an expression")
    pending: list[Any] = [node.value]
    while pending:
        child = pending.pop()
        kind = type(child)
        if kind not in _TREE_TYPES:
            raise ExpressionError("nodo no admitido", f"{kind.__name__} is not allowed")
        if kind is ast.Name and child.id not in FUNCTION_NAMES and child.id not in names:
            raise ExpressionError("nombre no admitido", f"name not allowed {child.id!r}")
        if kind is ast.Call and (type(child.func) is not ast.Name or child.func.id not in FUNCTION_NAMES
                                 or child.keywords):
            raise ExpressionError("llamada no admitida", "call not allowed")
        if kind is ast.Constant and type(child.value) not in _LITERAL_TYPES:
            raise ExpressionError("literal no admitido", "literal not allowed")
        plain = _PLAIN_FIELDS.get(kind, ())
        for field in kind._fields:
            value = getattr(child, field, None)
            if type(value) is list:
                pending.extend(value)
            elif isinstance(value, ast.AST):
                pending.append(value)
            elif value is not None and field not in plain:
                raise ExpressionError("campo no admitido", f"{kind.__name__}.{field} is not allowed")


def _without_positions(node: Any) -> Any:
    """A copy of a syntax tree with its fields only (no line and column attributes)."""
    if isinstance(node, ast.AST):
        return type(node)(**{name: _without_positions(getattr(node, name, None)) for name in node._fields})
    if isinstance(node, list):
        return [_without_positions(item) for item in node]
    return node


def _parse(text: str) -> ast.Expr:
    """The syntax tree of ``text``: one expression, nested no deeper than :data:`MAX_EXPRESSION_DEPTH`."""
    try:
        with warnings.catch_warnings():  # "\d" in a matches() pattern is read as written (see _check_matches)
            warnings.simplefilter("ignore", (SyntaxWarning, DeprecationWarning))
            module = ast.parse(text, mode="exec")
    except SyntaxError as exc:
        said = Text.of("expression.syntax", reason=python_syntax(exc.msg or ""))
        raise ExpressionError(render_text(said), render_text(said, "en"), exc.offset, exc.msg) from None
    except (RecursionError, MemoryError):  # Python's parser gives up on nesting thousands of levels deep
        raise _too_deep(None) from None
    _check_depth(module)
    body = module.body[0] if len(module.body) == 1 else None
    if not isinstance(body, ast.Expr):
        raise ExpressionError("debe ser una sola expresión", "must be a single expression")
    return body


def _check_node(node: ast.AST, text: str, known: set[str], used: set[str]) -> None:
    """Refuse a node outside the language; a name is added to ``used``, a number literal becomes a Decimal."""
    column = getattr(node, "col_offset", None)
    column = column + 1 if column is not None else None
    if not isinstance(node, _ALLOWED_NODES):
        what = _FRIENDLY.get(type(node), type(node).__name__)
        raise ExpressionError(
            f"no se admite en las expresiones: {what}", f"{type(node).__name__} is not allowed", column
        )
    if isinstance(node, ast.Call):
        _check_call(node, text, column)
    elif isinstance(node, ast.Name) and node.id not in FUNCTION_NAMES:
        if node.id not in known:
            raise ExpressionError(
                f"nombre desconocido '{node.id}'; definidos: {', '.join(sorted(known)) or '(ninguno)'}",
                f"unknown name '{node.id}'; defined: {', '.join(sorted(known)) or '(none)'}",
                column,
            )
        used.add(node.id)
    elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        literal = ast.get_source_segment(text, node) or repr(node.value)
        node.value = _decimal_literal(literal, column)  # type: ignore[assignment]  # the evaluator computes in Decimal
    elif isinstance(node, ast.Constant) and isinstance(node.value, complex):
        raise ExpressionError("no se permiten números complejos", "complex numbers are not allowed", column)


def _check_call(node: ast.Call, text: str, column: int | None) -> None:
    """A call must name a known function and pass its arguments by position; a pattern must compile."""
    if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTION_NAMES:
        name = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
        raise ExpressionError(
            f"función desconocida '{name}'; disponibles: {', '.join(sorted(FUNCTION_NAMES))}",
            f"unknown function '{name}'; available: {', '.join(sorted(FUNCTION_NAMES))}",
            column,
        )
    if node.keywords:
        raise ExpressionError(
            "las funciones no aceptan argumentos con nombre", "keyword arguments are not accepted", column
        )
    if node.func.id == "matches":
        _check_matches(node, text, column)


def _decimal_literal(literal: str, column: int | None) -> Decimal:
    """A number written in an expression, as the Decimal it spells."""
    try:
        return Decimal(literal)
    except ArithmeticError:
        raise ExpressionError(
            f"número no admitido '{literal}'; escriba decimales como 12.50",
            f"unsupported number '{literal}'; write decimals like 12.50",
            column,
        ) from None


def _check_matches(node: ast.Call, text: str, column: int | None) -> None:
    """``matches(value, "pattern")``: the pattern is text written in the rule, checked and compiled now.

    The pattern is taken exactly as written between its quotes (``"[0-9]+\\.[0-9]{2}"`` needs no doubled
    backslashes), so the call's argument is replaced by that text."""
    pattern = node.args[1] if len(node.args) == 2 else None
    written = ast.get_source_segment(text, pattern) if pattern is not None else None
    if (not isinstance(pattern, ast.Constant) or not isinstance(pattern.value, str) or not written
            or written[0] not in "'\"" or written[-1] != written[0] or written.startswith(written[0] * 3)):
        raise ExpressionError(
            'matches lleva dos argumentos: el valor y el patrón entre comillas, p. ej. matches(nit, "[0-9]+K?")',
            'matches takes two arguments: the value and the pattern in quotes, e.g. matches(nit, "[0-9]+K?")',
            column,
        )
    pattern.value = written[1:-1]
    try:
        compile_pattern(pattern.value)
    except PatternError as exc:
        start = pattern.col_offset + 2  # 1-based, after the opening quote
        raise ExpressionError(f"patrón de matches: {exc}", f"matches pattern: {exc.message_en}",
                              start + exc.position if exc.position is not None else start) from None


def _check_depth(module: ast.Module) -> None:
    """Refuse an expression nested deeper than :data:`MAX_EXPRESSION_DEPTH` (evaluation is recursive)."""
    pending: list[tuple[ast.AST, int]] = [(module, 0)]
    while pending:
        node, depth = pending.pop()
        if depth > MAX_EXPRESSION_DEPTH:
            column = getattr(node, "col_offset", None)
            raise _too_deep(column + 1 if column is not None else None)
        pending.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _too_deep(column: int | None) -> ExpressionError:
    return ExpressionError(
        f"la expresión anida más de {MAX_EXPRESSION_DEPTH} niveles; divídala en varias variables (let)",
        f"the expression nests more than {MAX_EXPRESSION_DEPTH} levels deep; split it into several bindings (let)",
        column,
    )


#: Catalogue keys of texts already seen (a text's key depends on nothing else); cleared when full.
_CODES: dict[str, str] = {}
_MAX_CODES = 4096
_MAX_CODE_LENGTH = 64


def _code(value: object) -> str:
    """Catalogue key of a CodigoUnidadGravable: ``1``, ``"1"``, ``"01"`` and ``1.0`` are all ``"1"``."""
    text = value if type(value) is str else str(value)  # the key depends on the text alone (see code_key)
    key = _CODES.get(text)
    if key is None:
        key = code_key(text)
        if len(text) <= _MAX_CODE_LENGTH:
            if len(_CODES) >= _MAX_CODES:
                _CODES.clear()
            _CODES[text] = key
    return key


class _DecimalEval(EvalWithCompoundTypes):
    """simpleeval whose per-node safety re-check is skipped for plain values (Decimal, text, dates…).

    ``_eval`` is simpleeval's own dispatch with that check inlined: every node still goes through
    simpleeval's handlers, and any other kind of value is checked as simpleeval checks it.
    """

    _PLAIN = frozenset({Decimal, str, bool, int, date, type(None)})

    def _eval(self, node: ast.AST) -> object:
        handler = self.nodes.get(type(node))
        if handler is None:
            return super()._eval(node)  # simpleeval's own FeatureNotAvailable
        result = handler(node)
        if type(result) not in self._PLAIN:
            self._check_disallowed_items(result)
        return result


def _modulo(left: object, right: object) -> object:
    """``%`` of the language: the remainder of numbers. Python's ``%`` on a text formats it (``'%999999999d' % x``
    makes a gigabyte, ``'%.2f'`` rounds through a float): refused."""
    if isinstance(left, (str, bytes)):
        raise TypeError("% es el resto de una división de números; no se aplica a textos")
    return left % right  # type: ignore[operator]


class Evaluator:
    """Runs compiled expressions with money helpers bound to a tolerance and rounding mode.

    ``engine`` chooses how: ``compiled`` (Python code objects, the default) or ``interpreted``
    (simpleeval, node by node); both give the same values and raise the same errors.
    """

    def __init__(
        self,
        *,
        tolerance: Decimal,
        rounding: str,
        rates: Mapping[tuple[str, str], Decimal] | None = None,
        catalogues: Catalogues | None = None,
        engine: Engine = "compiled",
    ) -> None:
        if engine not in ENGINES:
            raise ValueError(f"unknown expression engine {engine!r}; known: {', '.join(ENGINES)}")
        functions = _configured_functions(tolerance, rounding, rates, catalogues)
        operators = dict(EvalWithCompoundTypes().operators)
        operators.pop(ast.Pow, None)
        operators[ast.Mod] = _modulo
        self._operators, self._functions = operators, functions
        self._local = threading.local()  # simpleeval keeps names on the instance: one per thread
        self.tolerance = tolerance
        self.engine = engine
        #: What was made for this evaluator from the objects of a rule set (key → (the object, what was made)),
        #: e.g. expressions as functions of their names (:meth:`function`), compiled checks.
        self.made: dict[object, tuple[object, object]] = {}
        # what simpleeval's compound-types evaluator adds to the functions it is given
        reachable: dict[str, object] = {**functions, "list": list, "tuple": tuple, "dict": dict, "set": set}
        self._globals: dict[str, object] = {
            "__builtins__": {}, **reachable, "tol": tolerance,
            **{function_global(name): function for name, function in reachable.items()},
            ADD: operators[ast.Add], MULT: operators[ast.Mult], MOD: operators[ast.Mod],
        }

    def evaluate(self, expression: CompiledExpression, names: Mapping[str, object]) -> object:
        """Value of ``expression`` with ``names`` bound (the tolerance is available as ``tol``)."""
        program = expression.program if expression.name is None and self.engine == "compiled" else None
        if program is None:
            return self.interpret(expression, names)
        scope = self._globals
        if program.first_literal is not None and program.first_literal not in scope:
            scope.update(program.literals)  # once per expression: hidden names are unique per process
        try:
            return eval(program.code, scope, names)  # noqa: S307 - checked syntax, no builtins, hidden globals
        except NameError as exc:  # raised by the code's own name lookups (no function raises it)
            raise NameNotDefined(exc.name, expression.source) from None

    def function(self, expression: CompiledExpression, parameters: tuple[str, ...]) -> Callable[..., object] | None:
        """``expression`` as a function of ``parameters`` (every name it reads, in the order the caller passes
        them), running the same code :meth:`evaluate` runs; made once per evaluator. ``None`` when this
        evaluator interprets, or the expression is a bare name or must be interpreted (see :meth:`evaluate`).
        Errors are Python's own (a ``NameError`` is not turned into simpleeval's)."""
        key = ("function", id(expression), parameters)
        made = self.made.get(key)
        if made is not None and made[0] is expression:
            return made[1]  # type: ignore[return-value]
        if self.engine != "compiled" or expression.name is not None or expression.program is None:
            return None
        program = to_function(expression.node, expression.source, parameters)
        if program is None:
            return None
        self._globals.update(program.literals)  # hidden names are unique per process
        function = eval(program.code, self._globals)  # noqa: S307 - checked syntax, no builtins, hidden globals
        self.made[key] = (expression, function)
        return function

    def interpret(self, expression: CompiledExpression, names: Mapping[str, object]) -> object:
        """Value of ``expression`` computed by simpleeval, node by node (the reference)."""
        if expression.name is not None:  # a bare name (``actual: impuesto``): nothing to run
            return self.tolerance if expression.name == "tol" else names[expression.name]
        engine = getattr(self._local, "engine", None)
        if engine is None:
            engine = self._local.engine = _DecimalEval(
                operators=self._operators, functions=self._functions, names={}
            )
        engine.names = names if "tol" in names else {**names, "tol": self.tolerance}
        return engine.eval(expression.source, previously_parsed=expression.node)


def _configured_functions(
    tolerance: Decimal, rounding: str, rates: Mapping[tuple[str, str], Decimal] | None, catalogues: Catalogues | None,
) -> dict[str, Callable[..., object]]:
    """Every function of the language, the configured ones bound to ``tolerance``, ``rounding`` and the catalogues."""
    units = catalogues.tax_units if catalogues is not None else {}
    frases = catalogues.frases if catalogues is not None else {}
    rdon = catalogues.rdon_personerias if catalogues is not None else frozenset()
    holidays = catalogues.holidays if catalogues is not None else HolidayCalendar()
    factors = dict(rates) if rates is not None else {key: u.factor for key, u in units.items()}

    def unit(tax: object, code: object):
        return units.get((str(tax).strip().upper(), _code(code)))

    def frase(tipo: object, escenario: object):
        return frases.get((_code(tipo), _code(escenario)))

    functions = _builtin_functions()
    rounded = _rounder(rounding)
    functions.update(
        round2=lambda value: rounded(value, 2),
        round_to=lambda value, places: rounded(value, int(places)),
        round_as=lambda value, like: rounded(value, max(_places(like), MIN_ROUND_AS_PLACES)),
        close=lambda a, b: abs(a - b) <= tolerance,
        rate=lambda tax, code: factors.get((str(tax).strip().upper(), _code(code))),
        tax_base=lambda tax, code: getattr(unit(tax, code), "base", None),
        tax_currency=lambda tax, code: getattr(unit(tax, code), "currency", None),
        frase=lambda tipo, escenario: getattr(frase(tipo, escenario), "text", None),
        frase_resolution=lambda tipo, escenario: bool(getattr(frase(tipo, escenario), "needs_resolution", False)),
        personeria_rdon=lambda code: _code(code) in rdon,
        business_day=lambda day: _business_day(day, holidays),
    )
    return functions

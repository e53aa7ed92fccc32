"""Checked expressions turned into Python code objects that run without builtins.

:func:`to_program` rewrites the syntax tree that
:func:`~fel_rules.expressions.language.compile_expression` accepted, so that running the code gives
what the interpreter (simpleeval) gives, value for value and error for error:

* a called function is reached through a hidden global (``fn:round2``), so a binding never shadows it;
* every literal other than ``True``/``False``/``None`` is a hidden global holding the very object of
  its node (the exact :class:`~decimal.Decimal` taken from the source, the text of a pattern), so no
  constant is folded or shared; a literal longer than simpleeval's limit raises its error when reached;
* ``+`` and ``*`` go through simpleeval's ``safe_add`` and ``safe_mult`` (its limits and messages), ``%``
  through the language's own (numbers only: no text formatting); the other operators are Python's own, which
  simpleeval calls through :mod:`operator`;
* a bare name is looked up in the bound names, then among the functions, then fails (the caller turns
  Python's ``NameError`` into simpleeval's ``NameNotDefined``).

Hidden globals are not identifiers, so no name in a rule can reach or shadow them. The one identifier
among the globals, ``__builtins__`` (empty), would be found where the interpreter finds nothing: an
expression naming it is not compiled (:func:`to_program` gives ``None``, and it is interpreted).
"""

from __future__ import annotations

import ast
import itertools
from functools import partial
from types import CodeType

from simpleeval import MAX_STRING_LENGTH, IterableTooLong

from ..core.record import Record

__all__ = ["ADD", "MOD", "MULT", "Program", "function_global", "to_function", "to_program"]

#: Hidden globals of the operators that keep simpleeval's limits.
ADD, MULT, MOD = "op:add", "op:mult", "op:mod"
_HELPERS = {ast.Add: ADD, ast.Mult: MULT, ast.Mod: MOD}

_SINGLETONS = (bool, type(None))
_LITERALS = itertools.count()


def function_global(name: str) -> str:
    """The hidden global a call of the function ``name`` goes through."""
    return f"fn:{name}"


class Program(Record):
    """An expression's code and the literals it reads (hidden global name → object)."""

    code: CodeType
    literals: dict[str, object]
    #: The hidden global of the first literal (once it is in an evaluator's globals, all of them are).
    first_literal: str | None = None


def to_program(node: ast.Expr, source: str) -> Program | None:
    """Compile the checked expression ``node`` (``source`` names it in tracebacks); ``None`` if it names
    ``__builtins__``."""
    if any(isinstance(child, ast.Name) and child.id == "__builtins__" for child in ast.walk(node)):
        return None
    literals: dict[str, object] = {}
    body = _Rewriter(literals).visit(node.value)
    tree = ast.fix_missing_locations(ast.Expression(body=body))
    code = compile(tree, f"<expression {source[:60]!r}>", "eval", dont_inherit=True)
    return Program(code=code, literals=literals, first_literal=next(iter(literals), None))


def to_function(node: ast.Expr, source: str, parameters: tuple[str, ...]) -> Program | None:
    """Like :func:`to_program`, compiled as ``lambda <parameters>: <expression>`` (``parameters``: every name
    it reads): run in an evaluator's globals, the code gives a function of the bound values, called without a
    mapping of names. ``None`` if it names ``__builtins__``."""
    if any(isinstance(child, ast.Name) and child.id == "__builtins__" for child in ast.walk(node)):
        return None
    literals: dict[str, object] = {}
    body = _Rewriter(literals).visit(node.value)
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(arg=name) for name in parameters], kwonlyargs=[],
                              kw_defaults=[], defaults=[])
    tree = ast.fix_missing_locations(ast.Expression(body=ast.Lambda(args=arguments, body=body)))
    code = compile(tree, f"<expression {source[:60]!r}>", "eval", dont_inherit=True)
    return Program(code=code, literals=literals, first_literal=next(iter(literals), None))


def _too_long(length: int) -> None:
    raise IterableTooLong(f"Literal in statement is too long! ({length}, when {MAX_STRING_LENGTH} is max)")


class _Rewriter(ast.NodeTransformer):
    """Builds new nodes (the checked tree stays as it is: the interpreter runs it)."""

    def __init__(self, literals: dict[str, object]) -> None:
        self.literals = literals

    def _hidden(self, value: object) -> ast.Name:
        key = f"lit:{next(_LITERALS)}"
        self.literals[key] = value
        return ast.Name(id=key, ctx=ast.Load())

    def visit_Constant(self, node: ast.Constant) -> ast.expr:
        value = node.value
        if isinstance(value, _SINGLETONS):
            return ast.Constant(value=value)
        if hasattr(value, "__len__") and len(value) > MAX_STRING_LENGTH:
            return ast.Call(func=self._hidden(partial(_too_long, len(value))), args=[], keywords=[])
        return self._hidden(value)

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(id=node.id, ctx=ast.Load())

    def visit_Call(self, node: ast.Call) -> ast.Call:
        assert isinstance(node.func, ast.Name), "calls name a function (checked when the expression loaded)"
        return ast.Call(func=ast.Name(id=function_global(node.func.id), ctx=ast.Load()),
                        args=[self.visit(arg) for arg in node.args], keywords=[])

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        left, right = self.visit(node.left), self.visit(node.right)
        helper = _HELPERS.get(type(node.op))
        if helper is not None:
            return ast.Call(func=ast.Name(id=helper, ctx=ast.Load()), args=[left, right], keywords=[])
        return ast.BinOp(left=left, op=type(node.op)(), right=right)

    def visit_Tuple(self, node: ast.Tuple) -> ast.expr:
        elements = [self.visit(element) for element in node.elts]
        if elements and all(isinstance(element, ast.Constant) for element in elements):
            # Python would fold it into one shared constant; the interpreter builds a new tuple each time
            return ast.Call(func=ast.Name(id=function_global("tuple"), ctx=ast.Load()),
                            args=[ast.List(elts=elements, ctx=ast.Load())], keywords=[])
        return ast.Tuple(elts=elements, ctx=ast.Load())

    def visit_List(self, node: ast.List) -> ast.List:
        return ast.List(elts=[self.visit(element) for element in node.elts], ctx=ast.Load())

    def generic_visit(self, node: ast.AST) -> ast.AST:
        # BoolOp, UnaryOp, Compare, IfExp and their operator nodes: same shape, children rewritten
        fields = {}
        for name, value in ast.iter_fields(node):
            if isinstance(value, list):
                fields[name] = [self.visit(item) if isinstance(item, ast.AST) else item for item in value]
            elif isinstance(value, ast.AST):
                fields[name] = self.visit(value)
            else:
                fields[name] = value
        return type(node)(**fields)


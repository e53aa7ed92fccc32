"""An expression check made into one Python function for an evaluator: the quick way through a document.

:class:`~fel_rules.checks.expression.ExpressionCheck` evaluates a rule node by node with general code: a mapping
of names built per node, each expression run by ``eval``. For the plain compiled evaluator the check is also made
into one function written for its own bindings and expressions: each binding read in turn from the document's
memo (the very entries the general code reads and writes), each expression called as a function of the bound
values (:meth:`~fel_rules.expressions.language.Evaluator.function`).

That function only settles the common outcomes: a node the rule does not apply to (a value absent, a guard
false) and a node where the rule holds. Every other node — a value that cannot be read, an expression that
fails, a rule that does not hold — goes to the general code (``slow``), which gives the very finding or error
it always gives (expressions are pure: evaluating one twice gives the same value, or the same error).

The generated source holds no text of a rule: bindings, constants and expressions are reached through names
made up here (``v0``, ``C1``, ``F2``…), bound in the function's own namespace.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from typing import Any

from ..core.code_cache import compiled

__all__ = ["Runner", "make_runner"]

#: ``run(doc, memo, nodes, tolerance, limit, slow)`` → the findings of the check on ``nodes``, in order.
Runner = Callable[..., Iterator[Any]]


class _Unsupported(Exception):
    """Something of the check the quick function does not take (it is evaluated the general way)."""


def make_runner(check: Any, evaluator: Any, tools: Mapping[str, object]) -> Runner | None:
    """The quick function of ``check`` (an :class:`~fel_rules.checks.expression.ExpressionCheck`) for
    ``evaluator``; ``None`` when some expression must be interpreted. ``tools``: ``ELEMENT`` (lxml's element
    type), ``LOOKUP`` (the general lookup of a binding), ``AXV`` (a value as an XPath variable), ``NOVARS`` (the
    empty variables of a binding without ``$names``), and for reading one child's value as the general lookup
    does: ``CHILD_TAG`` (the tag a finder of one child step finds), ``UP_TAG`` (the number of ``..`` steps and the
    tag of a finder of ``../../p:Child``), ``ATTRIBUTE`` (the name a finder of one of the node's attributes finds:
    the plan's function reads it straight), ``INDEX`` (an element's children by tag),
    ``NOTHING`` (the entry of an absent value), ``UNREAD`` (the entry of a value that cannot be read) and
    ``SPACE`` (XML's whitespace)."""
    try:
        return _Writer(check, evaluator, tools).runner()
    except _Unsupported:
        return None


class _Writer:
    """Writes the source of one check's function, and the namespace it runs in."""

    #: What a node the rule does not apply to does (the next node), and what a node the quick code does not settle
    #: does (the general code says what it finds there, then the next node).
    SKIP: tuple[str, ...] = ("continue",)
    SETTLE: tuple[str, ...] = ("yield from slow(doc, node, memo, tolerance)", "continue")

    def __init__(self, check: Any, evaluator: Any, tools: Mapping[str, object], *, namespace: dict | None = None,
                 prefix: str = "") -> None:
        self.check, self.evaluator = check, evaluator
        self.tools_child_tag: Callable[[object], str | None] = tools["CHILD_TAG"]  # type: ignore[assignment]
        self.tools_up_tag: Callable[[object], tuple[int, str] | None] = tools["UP_TAG"]  # type: ignore[assignment]
        self.tools_attribute: Callable[[object], str | None] = tools["ATTRIBUTE"]  # type: ignore[assignment]
        self.tools_memo_key: Callable[[object], object | None] = tools["MEMO_KEY"]  # type: ignore[assignment]
        #: The namespace the source runs in (shared by the checks of a plan: ``prefix`` keeps their names apart).
        self.namespace: dict[str, object] = {**tools, "Decimal": Decimal} if namespace is None else namespace
        self.prefix = prefix
        self.head = [
            "def run(doc, memo, nodes, tolerance, limit, slow):",
            "    get = memo.get",
        ]
        self.lines = [
            "    for node in nodes:",
            "        element = type(node) is ELEMENT",
        ]
        self.indent = "        "
        self.value_of: dict[str, str] = {"tol": "tolerance"}  # a name of the rule → the Python text of its value

    def runner(self) -> Runner:
        self.body()
        source = "\n".join(self.head + self.lines) + "\n"
        exec(compiled(source, "<expression check>"), self.namespace)  # noqa: S102 - text written here
        return self.namespace["run"]  # type: ignore[return-value]

    def body(self) -> None:
        """The lines of one node: the bindings in order, then the judgement."""
        check = self.check
        for index, (name, value) in enumerate(check.constants.items()):
            self.value_of[name] = self._bind(f"C{index}", value)
        for index, binding in enumerate(check.bindings):
            if binding.value is not None:
                self._computed(index, binding)
            else:
                self._path(index, binding)
            self.value_of[binding.name] = self._local(f"v{index}")
        self._judgement()

    def _local(self, name: str) -> str:
        """The name of one of the check's local variables."""
        return f"{self.prefix}{name}"

    def _bind(self, name: str, value: object) -> str:
        name = f"{self.prefix}{name}"
        self.namespace[name] = value
        return name

    def _add(self, *lines: str) -> None:
        self.lines.extend(self.indent + line for line in lines)

    def _call(self, expression: Any) -> str:
        """The Python text of ``expression``'s value: a bound name, or a call of its function."""
        if expression.name is not None:  # a bare name: its value, nothing to run
            return self._value(expression.name)
        parameters = tuple(sorted(expression.names))
        function = self.evaluator.function(expression, parameters)
        if function is None:
            raise _Unsupported
        called = self._bind(f"F{len(self.namespace)}", function)
        return f"{called}({', '.join(self._value(name) for name in parameters)})"

    def _value(self, name: str) -> str:
        try:
            return self.value_of[name]
        except KeyError:  # (the loader makes sure expressions only read earlier names)
            raise _Unsupported from None

    def _computed(self, index: int, binding: Any) -> None:
        """``let: {name: {value: …}}``: computed from earlier values; an error goes the general way."""
        value = self._local(f"v{index}")
        self._add("try:",
                  f"    {value} = {self._call(binding.value)}",
                  "except Exception:",
                  *("    " + line for line in self.SETTLE),
                  f"if {value} is None:",
                  *("    " + line for line in self.SKIP))

    def _path(self, index: int, binding: Any) -> None:
        """A binding read from the document, through the memo entry the general code uses (a binding without
        ``$names``: its values by node, ``memo[key][node]``, the table looked up once per call)."""
        if binding.needs:
            self._add(*self._with_variables(index, binding))
        else:
            table = self._local(f"M{index}")
            key = self._bind(f"K{index}", binding.key)
            self.head.extend([f"    {table} = get({key})",
                              f"    if {table} is None:",
                              f"        {table} = memo[{key}] = {{}}"])
            self._add(f"c = {table}.get(node)",
                      "if c is None:",
                      *("    " + line for line in self._read(index, binding)),
                      f"    {table}[node] = c")
        self._taken(index, binding)

    def _with_variables(self, index: int, binding: Any) -> list[str]:
        """Lines setting ``c`` for a binding whose XPath reads earlier values (they are part of the memo entry's
        key, as in the general code)."""
        key, general = self._bind(f"K{index}", binding.key), self._bind(f"B{index}", binding)
        names = tuple(binding.needs)  # (the order the general code iterates the same set in)
        given = "".join(f"AXV({self._value(name)}), " for name in names)
        return [f"variables = dict(zip({self._bind(f'N{index}', names)}, ({given})))",
                f"entry = ({key}, node, tuple(variables.items()))",
                "c = get(entry)",
                "if c is None:",
                f"    c = memo[entry] = LOOKUP({general}, node, variables, memo)"]

    def _read(self, index: int, binding: Any) -> list[str]:
        """Lines setting ``c`` to what the general lookup gives for a binding without ``$names`` at ``node``."""
        general = self._bind(f"B{index}", binding)
        if binding.lookup is not None and binding.single and self.tools_child_tag(binding.find) is not None:
            tag = self._bind(f"T{index}", self.tools_child_tag(binding.find))  # the lookup written out here
            return ["if element:",
                    *self._first_child(index, binding, "node", tag, "    "),
                    "else:",
                    f"    c = LOOKUP({general}, node, NOVARS, memo)"]
        if binding.lookup is not None and binding.single and (up := self.tools_up_tag(binding.find)) is not None:
            ups, child = up  # ../../p:Child: the ancestor's child, written out here
            tag = self._bind(f"T{index}", child)
            return ["above = node if element else None",
                    *["if above is not None:", "    above = above.getparent()"] * ups,
                    "if above is not None:",
                    *self._first_child(index, binding, "above", tag, "    "),
                    "else:  # (from a node that is no element, or past the root: the general way)",
                    f"    c = LOOKUP({general}, node, NOVARS, memo)"]
        if binding.lookup is not None:
            lookup = self._bind(f"L{index}", binding.lookup)
            return [f"c = {lookup}(node, memo) if element else LOOKUP({general}, node, NOVARS, memo)"]
        return [f"c = LOOKUP({general}, node, NOVARS, memo)"]

    def _taken(self, index: int, binding: Any) -> None:
        """Lines taking the value from ``c``: one that cannot be read goes the general way (it says so), an absent
        one makes the rule not apply (or is the binding's default)."""
        value = self._local(f"v{index}")
        self._add("if c[2] is not None:",  # a value that cannot be read: the general code says so
                  *("    " + line for line in self.SETTLE),
                  f"{value} = c[0]")
        self._absent(index, binding, value)

    def _absent(self, index: int, binding: Any, value: str) -> None:
        """Lines for a single value that is absent (``None``): the rule does not apply, or the value is the
        binding's default."""
        if binding.single:
            if binding.fallback is None:
                self._add(f"if {value} is None:", *("    " + line for line in self.SKIP))
            else:
                self._add(f"if {value} is None:", f"    {value} = {self._bind(f'D{index}', binding.fallback)}")

    def _first_child(self, index: int, binding: Any, holder: str, tag: str, indent: str) -> list[str]:
        """Lines setting ``c`` to what the general lookup gives for the first child ``tag`` of ``holder`` (an
        element): its value, the child, and the value that cannot be read (or ``None``)."""
        read = self._bind(f"R{index}", binding.read)
        if binding.kind == "text":  # (a text is always read)
            judged = f"c = ({read}(text), first, None)"
        else:
            kind = self._bind(f"Y{index}", binding.kind)
            judged = (f"c = (value, first, None) if (value := {read}(text)) is not None or not text.strip(SPACE) "
                      f"else UNREAD(text, {kind}, first)")
        lines = [f"children = get({holder})",
                 "if children is None:",
                 f"    children = INDEX({holder}, memo)",
                 f"found = children.get({tag})",
                 "if found is None:",
                 "    c = NOTHING",
                 "else:",
                 "    first = found[0]",
                 "    text = first.text or ''",
                 f"    {judged}"]
        return [indent + line for line in lines]

    def _judgement(self) -> None:
        """``when``, then ``expected``/``actual`` and ``assert``: a node where the rule holds is done here."""
        check = self.check
        skip = [" " * 8 + line for line in self.SKIP]
        self._add("try:")
        if check.when is not None:
            self._add(f"    if not {self._call(check.when)}:", *skip)
        if check.expected is not None and check.actual is not None:
            limit = "limit" if check.tolerance is None else self._call(check.tolerance)
            self._add(f"    expected = {self._call(check.expected)}",
                      f"    actual = {self._call(check.actual)}",
                      "    if expected is None or actual is None:",
                      *skip,
                      "    if isinstance(expected, Decimal) and isinstance(actual, Decimal):",
                      f"        holds = abs(actual - expected) <= {limit}",
                      "    else:",
                      "        holds = str(expected) == str(actual)")
        else:
            self._add("    holds = True")
        if check.assertion is not None:
            self._add("    if holds:", f"        holds = bool({self._call(check.assertion)})")
        self._add("except Exception:",  # the general code raises the check's error
                  "    holds = False",
                  "if not holds:",
                  *("    " + line for line in self.SETTLE[:1]))

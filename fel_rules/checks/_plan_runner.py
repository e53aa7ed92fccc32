"""A plan's expression checks made into one Python function that tells which of them certainly find nothing.

Most rules hold on most documents. Run one by one, each still costs a call of its check, a look for its context's
nodes, its own reads of the document and a generator. For the plain compiled evaluator the expression checks of a
plan (the rules in force for a kind of document, a DTE type and a day) are also written into one function, made
once per plan, once the plan has validated enough documents to pay for it or when a warm-up asks for it
(:func:`~fel_rules.checks.expression.quiet_plan`: a command that validates a few files makes nothing). Per
document, that function visits each context once, reads each binding once per context node however many of the
context's rules read it, and runs each rule's expressions as functions of the bound values
(:meth:`~fel_rules.expressions.language.Evaluator.function`), as :mod:`._expression_runner` writes them.

It only says which rules certainly find nothing: a rule that does not apply to a node, or holds there. A rule
with anything else on some node — a value that cannot be read, an expression that fails, a rule that does not
hold — is left to the general path, which runs the rule as it always does, with the same findings, order and
errors (expressions and reads are pure: evaluating them twice gives the same value, or the same error). A check
of another kind is in the function when it can tell itself that it finds nothing (a required check: every field
there); otherwise, or when it cannot tell, it runs the general path.

The generated source holds no text of a rule: values, expressions and contexts are reached through names made up
here, bound in the function's own namespace.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from ..core.code_cache import compiled
from ._expression_runner import _Unsupported, _Writer

__all__ = ["QuietPlan", "write_quiet_plan"]

#: ``quiet(doc, memo, tolerance, limit)`` → the positions in the plan of the rules it could not settle.
Quiet = Callable[..., list[int]]


class QuietPlan:
    """A plan (its entries are ``(rule, severity, check)``) and the function telling which of its expression
    checks certainly find nothing in a document (see the module docstring)."""

    __slots__ = ("plan", "quiet", "general", "always")

    def __init__(self, plan: Sequence[tuple], quiet: Quiet, general: frozenset[int]) -> None:
        self.plan = plan
        self.quiet = quiet
        self.general = general  # the positions of the checks the function does not take
        self.always = tuple(entry for index, entry in enumerate(plan) if index in general)

    def to_run(self, doc: Any) -> Sequence[tuple]:
        """The entries of the plan to run the general way on ``doc`` (a
        :class:`~fel_rules.checks.base.CheckInput`), in the plan's order: every rule the function did not settle
        as finding nothing; the whole plan when the function fails outside a rule (a context that cannot be
        selected): the general way then meets the failure in the rules it concerns and reports it there, as it
        always does. Runs in the caller's decimal context (the money context)."""
        try:
            left = self.quiet(doc, doc.memo, doc.evaluator.tolerance, doc.config.tolerance)
        except Exception:  # noqa: BLE001 - said by the general way, rule by rule
            return self.plan
        if not left:
            return self.always
        keep = self.general.union(left)
        return [entry for index, entry in enumerate(self.plan) if index in keep]


class _QuietWriter(_Writer):
    """Writes one check's lines for one context node inside the plan's function: a node the rule does not apply
    to ends the rule's turn (``break``), a node it does not settle marks the rule for the general path."""

    SKIP = ("break",)

    def __init__(self, check: Any, evaluator: Any, tools: Mapping[str, object], *, namespace: dict, prefix: str,
                 flag: str, shared: Mapping[int, str], indent: str) -> None:
        super().__init__(check, evaluator, tools, namespace=namespace, prefix=prefix)
        self.SETTLE = (f"{flag} = True", "break")
        self.shared = shared
        self.lines = []
        self.indent = indent

    def _path(self, index: int, binding: Any) -> None:
        """A binding read from the document at the node: once per node for the context's rules that share it
        (``shared``: binding key → local name, ``UNSET`` until read), without the memo's tables (nothing else reads
        them). A value is read straight into its local name: no entry tuple is made for it."""
        if binding.needs:
            self._add(*self._with_variables(index, binding))
            self._taken(index, binding)
            return
        value = self._local(f"v{index}")
        read = self._read_into(index, binding, value)
        name = self.shared.get(binding.key)
        if name is None:
            self._add(*read)
        else:
            self._add(f"{value} = {name}", f"if {value} is UNSET:", *("    " + line for line in read),
                      f"    {name} = {value}")
        self._absent(index, binding, value)

    def _read_into(self, index: int, binding: Any, value: str) -> list[str]:
        """Lines setting ``value`` to the value the general lookup gives for a binding without ``$names`` at
        ``node``; a value that cannot be read goes the general way (it says so). The first child of a tag is read
        from the node's children index, looked up once per node (``kids``) for all the rules of its context."""
        general = self._bind(f"B{index}", binding)
        if binding.lookup is not None and binding.single and self.tools_child_tag(binding.find) is not None:
            tag = self._bind(f"T{index}", self.tools_child_tag(binding.find))
            return ["if element:",
                    "    if kids is None:",
                    "        kids = get(node)",
                    "        if kids is None:",
                    "            kids = INDEX(node, memo)",
                    *("    " + line for line in self._child_value(index, binding, "kids", tag, value)),
                    "else:",
                    *self._otherwise(general, value)]
        if binding.lookup is not None and binding.single and (up := self.tools_up_tag(binding.find)) is not None:
            ups, child = up  # ../../p:Child: the ancestor's child
            tag = self._bind(f"T{index}", child)
            return ["above = node if element else None",
                    *["if above is not None:", "    above = above.getparent()"] * ups,
                    "if above is not None:",
                    "    children = get(above)",
                    "    if children is None:",
                    "        children = INDEX(above, memo)",
                    *("    " + line for line in self._child_value(index, binding, "children", tag, value)),
                    "else:  # (from a node that is no element, or past the root: the general way)",
                    *self._otherwise(general, value)]
        if binding.lookup is not None and binding.single and (name := self.tools_attribute(binding.find)) is not None:
            attribute = self._bind(f"A{index}", name)  # @Name: the node's own attribute
            return ["if element:",
                    f"    text = node.get({attribute})",
                    "    if text is None:",
                    f"        {value} = None",
                    "    else:",
                    *("        " + line for line in self._value_of_text(index, binding, value)),
                    "else:",
                    *self._otherwise(general, value)]
        if binding.lookup is not None and binding.single and (key := self.tools_memo_key(binding.find)) is not None:
            kept, find = self._bind(f"K{index}", key), self._bind(f"F{index}", binding.find)
            return ["if element:",  # an absolute path: its nodes in the memo once any rule has read them
                    f"    found = get({kept})",
                    "    if found is None:",
                    f"        found = {find}(node, memo)",
                    "    if found:",
                    "        text = found[0]",
                    "        if type(text) is ELEMENT:",
                    "            text = text.text or ''",
                    *("        " + line for line in self._value_of_text(index, binding, value)),
                    "    else:",
                    f"        {value} = None",
                    "else:",
                    *self._otherwise(general, value)]
        if binding.lookup is not None:
            lookup = self._bind(f"L{index}", binding.lookup)
            return self._entry(f"{lookup}(node, memo) if element else LOOKUP({general}, node, NOVARS, memo)", value)
        return self._entry(f"LOOKUP({general}, node, NOVARS, memo)", value)

    def _otherwise(self, general: str, value: str) -> list[str]:
        """The ``else:`` of a quick read (a node that is no element): ``value`` through the general lookup."""
        return ["    " + line for line in self._entry(f"LOOKUP({general}, node, NOVARS, memo)", value)]

    def _entry(self, call: str, value: str) -> list[str]:
        """Lines taking ``value`` from the entry (value, first node, unread) ``call`` gives."""
        return [f"c = {call}", "if c[2] is not None:", *("    " + line for line in self.SETTLE), f"{value} = c[0]"]

    def _child_value(self, index: int, binding: Any, children: str, tag: str, value: str) -> list[str]:
        """Lines setting ``value`` to the value of the first child ``tag`` in ``children`` (an index of children
        by tag), ``None`` when there is none (see :meth:`_value_of_text`)."""
        return [f"found = {children}.get({tag})",
                "if found is None:",
                f"    {value} = None",
                "else:",
                "    text = found[0].text or ''",
                *("    " + line for line in self._value_of_text(index, binding, value))]

    def _value_of_text(self, index: int, binding: Any, value: str) -> list[str]:
        """Lines setting ``value`` to the value of ``text`` (there) as the binding reads it; a text that cannot be
        read goes the general way. A decimal is looked up first among the texts
        :func:`~fel_rules.core.money.parse_decimal` remembers."""
        read = self._bind(f"R{index}", binding.read)
        if binding.kind == "text":  # (a text is always read)
            return [f"{value} = {read}(text)"]
        if binding.read is self.namespace["DECIMAL"]:
            lines = [f"{value} = REMEMBERED(text, UNKNOWN)",
                     f"if {value} is UNKNOWN:",
                     f"    {value} = {read}(text)"]
        else:
            lines = [f"{value} = {read}(text)"]
        return [*lines, f"if {value} is None and text.strip(SPACE):", *("    " + line for line in self.SETTLE)]


def write_quiet_plan(checks: Sequence[Any], evaluator: Any, tools: Mapping[str, object],
                     takes: Callable[[Any], bool],
                     settler: Callable[[Any], Callable[[Any], bool] | None] = lambda check: None,
                     ) -> tuple[Quiet, frozenset[int]]:
    """The function of a plan whose checks are ``checks`` (in the plan's order) for ``evaluator``, and the
    positions of the checks it does not take (``takes(check)`` false and no ``settler``, or an expression it cannot
    run as a function): those always run the general way. ``settler(check)``: for a check of another kind, its
    function of the document (a :class:`~fel_rules.checks.base.CheckInput`) telling whether it certainly finds
    nothing (or ``None``: it runs the general way).
    ``tools``: what the quick functions of checks reach (:func:`~._expression_runner.make_runner`), plus ``NODES``
    (a check's context nodes in a document), ``GUARD`` (the finder of the first child steps of a check's context,
    or ``None``) and ``RELAXED`` (a finder whose nodes include the context's, cheaper than the context's own, or
    ``None``: :func:`~._xpath.relaxed_finder`)."""
    namespace: dict[str, object] = {**tools, "Decimal": Decimal, "UNSET": object()}
    general: set[int] = set()
    groups: dict[int, list[int]] = {}  # context key → positions of the checks with that context
    settled: list[str] = []  # the lines of the checks of other kinds that tell themselves they find nothing
    for position, check in enumerate(checks):
        settle = None if takes(check) else settler(check)
        if takes(check):
            groups.setdefault(check.context_key, []).append(position)
        elif settle is not None:
            namespace[f"R{position}"] = settle
            settled.extend(["    try:",
                            f"        if not R{position}(doc):",
                            f"            left.append({position})",
                            "    except Exception:",
                            f"        left.append({position})"])
        else:
            general.add(position)
    made = [(_guard_of(checks[positions[0]], tools), _group(number, positions, checks, evaluator, tools, namespace,
                                                            general))
            for number, positions in enumerate(groups.values())]
    lines = ["def quiet(doc, memo, tolerance, limit):", "    get = memo.get", "    left = []", "    root = doc.root",
             "    rooted = type(root) is ELEMENT"]
    guarded: dict[object, list[list[str]]] = {}  # a guard → the lines of its contexts' checks
    for guard, group in made:
        if group:
            guarded.setdefault(guard, []).append(group)
    for number, (guard, groups_of) in enumerate(guarded.items()):
        if guard is None or len(groups_of) == 1:  # (a guard of one context: its own selection says as much)
            lines.extend(line for group in groups_of for line in group)
            continue
        namespace[f"U{number}"] = guard
        lines.append(f"    if not rooted or U{number}(root, memo):")
        lines.extend("    " + line for group in groups_of for line in group)
    lines.extend(settled)
    lines.append("    return left")
    source = "\n".join(lines) + "\n"
    exec(compiled(source, "<rule plan>"), namespace)  # noqa: S102 - text written here
    return namespace["quiet"], frozenset(general)  # type: ignore[return-value]


def _guard_of(check: Any, tools: Mapping[str, object]) -> object | None:
    """The finder of the leading child steps of ``check``'s context (``GUARD``), or ``None``: when they select
    nothing, nor does the context, and the checks of every context that begins with them are skipped together."""
    return tools["GUARD"](check)  # type: ignore[operator]


def _group(number: int, positions: list[int], checks: Sequence[Any], evaluator: Any, tools: Mapping[str, object],
           namespace: dict, general: set[int]) -> list[str]:
    """The lines of the checks sharing one context: its nodes once, then each node through every check."""
    counts: dict[int, int] = {}
    for position in positions:
        for key in {b.key for b in checks[position].bindings if b.value is None and not b.needs}:
            counts[key] = counts.get(key, 0) + 1
    shared = {key: f"S{number}_{key}" for key, count in counts.items() if count > 1}
    bodies: list[tuple[int, list[str]]] = []
    for position in positions:
        flag = f"g{position}"
        writer = _QuietWriter(checks[position], evaluator, tools, namespace=namespace, prefix=f"P{position}_",
                              flag=flag, shared=shared, indent=" " * 24)
        try:
            writer.body()
        except _Unsupported:
            general.add(position)
            continue
        bodies.append((position, [
            f"            if not {flag}:",
            "                while True:",
            "                    try:",
            *writer.lines,
            "                    except Exception:",
            f"                        {flag} = True",
            "                    break",
        ]))
    if not bodies:
        return []
    check = checks[positions[0]]
    namespace[f"X{number}"] = tools["NODES"](check)  # type: ignore[operator]
    namespace[f"K{number}"] = check.context_key
    find = namespace[f"Y{number}"] = check.context_find
    flags = [f"g{position}" for position, _ in bodies]
    relaxed = namespace[f"Q{number}"] = tools["RELAXED"](check)  # type: ignore[operator]
    selected = f"Y{number}(root, memo)"
    if relaxed is not None:  # (nothing there without the nested predicates: nothing with them)
        selected = f"({selected} if Q{number}(root, memo) else [])"
    lines = [f"    nodes = X{number}(doc)"] if find is None else [  # (what the check's context_nodes does, written in)
        f"    nodes = get(K{number})",
        "    if nodes is None:",
        f"        nodes = memo[K{number}] = {selected} if rooted else X{number}(doc)"]
    lines += ["    if nodes:",
             f"        {' = '.join(flags)} = False",
             "        for node in nodes:",
             "            element = type(node) is ELEMENT",
             "            kids = None"]
    if shared:
        lines.append(f"            {' = '.join(shared.values())} = UNSET")
    for _, body in bodies:
        lines.extend(body)
    for position, _ in bodies:
        lines.extend([f"        if g{position}:", f"            left.append({position})"])
    return lines

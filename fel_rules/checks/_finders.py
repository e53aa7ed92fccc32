"""Finders: a subset of XPath 1.0 evaluated in Python over a per-document index of each element's children.

Most paths of the rules are plain (``dte:Precio``, ``../../dte:Descuento``, ``emision/dte:DatosGenerales/@Tipo``,
``impuestos[dte:NombreCorto='IVA'][dte:CodigoUnidadGravable = 1]``). For those, :func:`path_finder` gives a
function ``finder(element, memo)`` that returns exactly what lxml's XPath returns, at a fraction of the cost of
an XPath call: the same nodes in the same (document) order, an attribute as a string that knows its element
(:class:`AttributeValue`, as lxml's "smart strings" do), a number for ``count()``, a boolean for ``boolean()``.
``memo`` is the document's memo, where each element's children are indexed by tag the first time a path steps
through it. Anything outside the subset gives ``None``, and lxml's XPath runs instead.

The subset:

* a path of child steps ``p:Name`` (prefix declared), optionally absolute (``/p:Root/…``), leading ``..``
  steps, ``.`` steps, and a last ``@name`` step (an attribute without a prefix);
* predicates ``[…]`` on element steps, made of ``and``, ``or``, ``not(…)``, parentheses, paths (true when they
  select something), and ``=`` / ``!=`` between a path and a quoted text, an integer or another path — compared
  as XPath 1.0 compares node-sets: some node's string-value equals (or differs from) the other side;
* at the top, ``count(path)`` and ``boolean(…)``.

No positional predicate, axis, wildcard, union, variable or other function is taken: ``None``.

How the work is shared within a document (everything lives in its memo):

* an absolute path's nodes are kept for the path, step by step, and a step's predicates filter one at a time
  (``…/dte:Impuesto[a][b]`` filters the kept nodes of ``…/dte:Impuesto[a]``, which filter those of
  ``…/dte:Impuesto``), so paths written alike select once whatever rule writes them;
* a predicate of an absolute path whose own path has several steps or predicates (``dte:Item[dte:Impuestos/
  dte:Impuesto/dte:NombreCorto = 'IVA']``, nested ones too) is *anchored*: the nodes it tests are known to be
  selected by the path's child steps, so it is answered by a set of the document's nodes (the ancestors of what the
  absolute path ``…/dte:Item/dte:Impuestos/dte:Impuesto/dte:NombreCorto`` selects), made once (:func:`_anchored`);
* elsewhere such a predicate is walked node by node, and a walk of several steps remembers its answer per node;
* a rule's multi-step binding read from a context of child steps is answered from the nodes of the absolute path
  grouped by context node (:func:`anchored_finder`);
* a predicate made of the common tests (one child compared with a text or a number, a child there, an attribute
  compared, a look in an anchored set or in the set of an absolute path's values, under ``not``/``and``/``or``) is
  written as one Python expression over the node and its children index, made one function, and a filtered step
  one loop (:func:`_compiled`, :func:`_filter_of`): no call per test, no list of a child's values.

Only a relative path whose predicates hold predicates of their own is left to XPath (``light``): node by node in
Python it costs more than libxml2 once it runs over many nodes.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping
from typing import Any

from lxml import etree

from ..core.code_cache import compiled
from ..core.xmlpath import children_by_tag

__all__ = [
    "AttributeValue", "Finder", "anchored_finder", "child_tag", "children_by_tag", "context_chain", "finds_count",
    "finds_nodes", "memo_key", "path_finder", "up_tag", "xpath_number",
]

#: A finder: (context element, the document's memo) → list of nodes, a number or a boolean.
Finder = Callable[[etree._Element, dict], Any]


class AttributeValue(str):
    """An attribute's value as lxml's XPath returns it: the text, which also knows the element holding it
    (:meth:`getparent`) and the attribute's name (:attr:`attrname`)."""

    __slots__ = ("_parent", "attrname")  # (a rule plan makes some tens of these a document: 0.57 → 0.36 µs each)

    is_attribute = True
    is_text = False
    is_tail = False
    _parent: etree._Element
    attrname: str

    def __new__(cls, value: str, parent: etree._Element, name: str) -> AttributeValue:
        self = super().__new__(cls, value)
        self._parent = parent
        self.attrname = name
        return self

    def getparent(self) -> etree._Element:
        """The element that holds the attribute."""
        return self._parent


def path_finder(path: str, namespaces: Mapping[str, str], *, elements_only: bool = False,
                light: bool = False) -> Finder | None:
    """A finder equivalent to the XPath ``path`` (see the module docstring), or ``None`` when ``path`` is outside
    the subset; ``elements_only``: also ``None`` when the path may select attributes or compute a value."""
    tokens = _tokens(path)
    if tokens is None:
        return None
    parser = _Parser(tokens, namespaces)
    try:
        finder, kind = parser.top()
        parser.expect_end()
    except _Unsupported:
        return None
    if (elements_only and kind != "elements") or (light and parser.heavy):
        return None
    if kind in ("elements", "attributes"):
        _NODE_FINDERS.add(finder)
    elif kind == "number":
        _NUMBER_FINDERS.add(finder)
    return finder


def context_chain(path: str, namespaces: Mapping[str, str]) -> tuple[str, ...] | None:
    """The tags from the root down to the nodes ``path`` selects when it is an absolute path of child steps (with
    predicates or not): ``/dte:GTDocumento/…/dte:Item[…]`` → (GTDocumento, …, Item); else ``None``."""
    key = (path, tuple(sorted(namespaces.items())))
    chain = _CHAINS.get(key, _UNKNOWN)
    if chain is _UNKNOWN:
        chain = None
        tokens = _tokens(path)
        if tokens is not None:
            parser = _Parser(tokens, namespaces)
            try:
                found = parser.path(top=True)
                parser.expect_end()
            except _Unsupported:
                found = None
            if isinstance(found, _AbsolutePath) and found.attribute is None:
                chain = tuple(step[0] for step in found.steps)
        _CHAINS[key] = chain
    return chain  # type: ignore[return-value]


_CHAINS: dict[tuple, tuple[str, ...] | None] = {}
_UNKNOWN = object()


def anchored_finder(anchor: tuple[str, ...], path: str, namespaces: Mapping[str, str]) -> Finder | None:
    """A finder of the relative ``path`` (child steps with predicates, several of them or with predicates, maybe
    a last ``@name``) for nodes known to be selected by the child steps ``anchor`` from the root (a rule's context):
    the nodes the absolute path ``anchor/path`` selects, grouped once a document by their ancestor as many steps up
    as ``path`` has — each node's answer is its group, in document order, as XPath gives it. ``None`` for any other
    path (see :func:`path_finder`)."""
    tokens = _tokens(path)
    if tokens is None:
        return None
    parser = _Parser(tokens, namespaces)
    parser.anchor = anchor
    try:
        found = parser.path(top=True)
        parser.expect_end()
    except _Unsupported:
        return None
    if parser.heavy or not isinstance(found, _Path) or found.ups or not found.steps \
            or not _worth_anchoring(found.steps):
        return None
    return _grouped(anchor, found.steps, found.attribute)


def _grouped(anchor: tuple[str, ...], steps: tuple[_Step, ...], attribute: str | None) -> Finder:
    """The finder of :func:`anchored_finder`, one object however many rules write the path from those nodes."""

    def build() -> Finder:
        down = _absolute((*((tag, (), (tag, (), None)) for tag in anchor), *steps), None, False).select
        depth = len(steps)

        def select_grouped(node: etree._Element, memo: dict) -> list:
            groups = memo.get(select_grouped)
            if groups is None:
                groups = memo[select_grouped] = _groups(down(node, memo), depth)
            found = groups.get(node)
            if found is None:
                return []
            return found if attribute is None else _attributes(found, attribute, True)

        _NODE_FINDERS.add(select_grouped)
        return select_grouped

    return _interned(("grouped", anchor, tuple(step[2] for step in steps), attribute), build)


def _groups(nodes: list, depth: int) -> dict:
    """``nodes`` by their ancestor ``depth`` steps up, each group in the order of ``nodes``."""
    groups: dict = {}
    for node in nodes:
        above = node.getparent()
        if depth > 1:
            above = above.getparent()
            for _ in range(depth - 2):
                above = above.getparent()
        group = groups.get(above)
        if group is None:
            groups[above] = [node]
        else:
            group.append(node)
    return groups


#: The finders that give a list of nodes (the others give a number or a boolean).
_NODE_FINDERS: set[Finder] = set()
#: The finders of ``count(path)``: a float holding a whole number.
_NUMBER_FINDERS: set[Finder] = set()
#: The finders of a path that is one child step without predicates (``dte:Precio``), and the child's tag.
_CHILD_TAGS: dict[Finder, str] = {}


#: The finders of a path of ``..`` steps and one child step without predicates (``../../dte:Precio``): (ups, tag).
_UP_TAGS: dict[Finder, tuple[int, str]] = {}


#: The finders of a path that is one attribute of the node (``@NombreCorto``), and the attribute's name.
_ATTRIBUTE_NAMES: dict[Finder, str] = {}


#: The finders of an absolute path, and the key under which each keeps the path's nodes in a document's memo.
_MEMO_KEYS: dict[Finder, object] = {}


def memo_key(finder: Finder) -> object | None:
    """The key of ``finder``'s list in a document's memo when it finds an absolute path's nodes (``/dte:GTDocumento/
    …/dte:DatosGenerales/@Tipo``): the list it gives is there once it has run for the document. Else ``None``."""
    return _MEMO_KEYS.get(finder)


def attribute_name(finder: Finder) -> str | None:
    """The attribute's name when ``finder`` finds one attribute of the node (``@NombreCorto``), else ``None``."""
    return _ATTRIBUTE_NAMES.get(finder)


def up_tag(finder: Finder) -> tuple[int, str] | None:
    """(number of ``..`` steps, tag) when ``finder`` finds the children of one tag of an ancestor
    (``../../dte:Precio``), else ``None``. Past the root such a finder answers as XPath does (see
    :func:`_up_selector`)."""
    return _UP_TAGS.get(finder)


def child_tag(finder: Finder) -> str | None:
    """The tag when ``finder`` finds the children of one tag (``dte:Precio``: its children index's entry), else
    ``None``."""
    return _CHILD_TAGS.get(finder)


def finds_nodes(finder: Finder) -> bool:
    """True when ``finder`` gives a list of nodes (a path), not a number or a boolean."""
    return finder in _NODE_FINDERS


def finds_count(finder: Finder) -> bool:
    """True when ``finder`` is that of ``count(path)``: it gives the number of nodes as a float."""
    return finder in _NUMBER_FINDERS


class _Unsupported(Exception):
    """The path is outside the subset (lxml's XPath evaluates it)."""


_TOKEN = re.compile(r"""\s*(?:
    (?P<literal>'[^']*'|"[^"]*")
  | (?P<number>[0-9]+)(?![0-9.])
  | (?P<symbol>!=|\.\.|\.|//|/|\[|\]|\(|\)|@|=)
  | (?P<name>[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)(?![\w.:-])
  )""", re.VERBOSE)


def _tokens(path: str) -> list[tuple[str, str]] | None:
    """``path`` as (kind, text) tokens; ``None`` when it has anything the subset has no token for."""
    tokens: list[tuple[str, str]] = []
    position, end = 0, len(path.rstrip())
    while position < end:
        match = _TOKEN.match(path, position)
        if match is None:
            return None
        kind = match.lastgroup
        assert kind is not None
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


#: What an operand of a predicate gives: the string-values of a node-set, a text, a number.
_NODES, _TEXT, _NUMBER = "nodes", "text", "number"
_Values = Callable[[etree._Element, dict], list[str]]
_Test = Callable[[etree._Element, dict], bool]


class _Parser:
    """Recursive descent over the tokens, building the finder's functions as it goes."""

    def __init__(self, tokens: list[tuple[str, str]], namespaces: Mapping[str, str]) -> None:
        self.tokens = tokens
        self.position = 0
        self.namespaces = namespaces
        #: Whether some predicate holds a path with predicates of its own (``p:A[p:B[p:C = 'x']]``): evaluated
        #: node by node in Python, such a path costs more than an XPath call once it runs over many nodes.
        self.heavy = False
        self.depth = 0  # how many predicates the parser is in
        #: The tags from the root down to the nodes the predicate being read tests, when the path is absolute and
        #: made of child steps so far (``None``: they may be anywhere); see :func:`_anchored`.
        self.anchor: tuple[str, ...] | None = None

    # ---- tokens -------------------------------------------------------------------------------------------

    def peek(self, offset: int = 0) -> tuple[str, str] | None:
        index = self.position + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self, kind: str, text: str | None = None) -> str:
        token = self.peek()
        if token is None or token[0] != kind or (text is not None and token[1] != text):
            raise _Unsupported
        self.position += 1
        return token[1]

    def accept(self, kind: str, text: str) -> bool:
        if self.peek() == (kind, text):
            self.position += 1
            return True
        return False

    def expect_end(self) -> None:
        if self.position != len(self.tokens):
            raise _Unsupported

    def _call_of(self, name: str) -> bool:
        """True (and the name and "(" taken) when the next tokens call the function ``name``."""
        if self.peek() == ("name", name) and self.peek(1) == ("symbol", "("):
            self.position += 2
            return True
        return False

    # ---- the top: a path, count(path) or boolean(expression) -------------------------------------------------

    def top(self) -> tuple[Finder, str]:
        if self._call_of("count"):
            select = self.path(top=False).select
            self.take("symbol", ")")
            return (lambda node, memo: float(len(select(node, memo)))), "number"
        if self._call_of("boolean"):
            test = self.or_expression()
            self.take("symbol", ")")
            return test, "boolean"
        path = self.path(top=True)
        return path.select, ("attributes" if path.attribute else "elements")

    # ---- paths --------------------------------------------------------------------------------------------

    def path(self, *, top: bool) -> _Path | _AbsolutePath:
        """A location path; ``top``: its attribute step gives :class:`AttributeValue` s, and it may begin with
        ``..`` steps (elsewhere, an ``..`` could reach the document node, which the finders do not model)."""
        absolute = self.accept("symbol", "/")
        chain = () if absolute else self.anchor  # the tags down to the nodes the steps start from (None: unknown)
        ups = 0
        steps: list[_Step] = []
        attribute = None
        while True:
            token = self.peek()
            if token == ("symbol", ".."):
                if absolute or steps or not top:
                    raise _Unsupported
                self.position += 1
                ups += 1
                chain = None
            elif token == ("symbol", "."):
                self.position += 1
            elif token == ("symbol", "@"):
                self.position += 1
                name = self.take("name")
                if ":" in name:
                    raise _Unsupported
                attribute = name
            elif token is not None and token[0] == "name" and ":" in token[1] and self.peek(1) != ("symbol", "("):
                self.position += 1
                tag = self.element_name(token[1])
                chain = None if chain is None else (*chain, tag)
                outer, self.anchor = self.anchor, chain
                tests, written = self.predicates()
                self.anchor = outer
                # (a step without predicates is known by its element alone, whatever the rule's prefixes; one with
                # predicates by their text, the namespaces it names and the nodes its predicates may be anchored at)
                steps.append((tag, tests, (tag, written, self.spaces(written), chain) if tests else (tag, (), None)))
            else:
                raise _Unsupported
            if attribute is not None or not self.accept("symbol", "/"):
                break
        if absolute and not steps:
            raise _Unsupported  # "/" alone, or "/@x": the document node
        if absolute:
            return _absolute(tuple(steps), attribute, top)
        return _interned(("relative", ups, tuple(step[2] for step in steps), attribute, top),
                         lambda: _Path(ups, tuple(steps), attribute, top))

    def spaces(self, written: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
        """The namespaces the prefixes of ``written`` (predicates' texts) mean."""
        used = set(re.findall(r"([A-Za-z_][\w.-]*):(?=[A-Za-z_])", " ".join(written)))
        return tuple(sorted((prefix, uri) for prefix, uri in self.namespaces.items() if prefix in used))

    def element_name(self, qname: str) -> str:
        prefix, local = qname.split(":")
        namespace = self.namespaces.get(prefix)
        if namespace is None:
            raise _Unsupported  # XPath reports the undefined prefix
        return f"{{{namespace}}}{local}"

    def predicates(self) -> tuple[tuple[_Test, ...], tuple[str, ...]]:
        """The predicates of a step: their tests, and each one's text (what identifies it)."""
        tests, written = [], []
        while self.accept("symbol", "["):
            if self.depth and self.anchor is None:  # (anchored, a nested predicate is a set of the document)
                self.heavy = True
            self.depth += 1
            start = self.position
            tests.append(_compiled(self.or_expression()))
            written.append(" ".join(text for _, text in self.tokens[start:self.position]))
            self.depth -= 1
            self.take("symbol", "]")
        return tuple(tests), tuple(written)

    # ---- predicate expressions (boolean) ------------------------------------------------------------------

    def or_expression(self) -> _Test:
        tests = [self.and_expression()]
        while self.accept("name", "or"):
            tests.append(self.and_expression())
        if len(tests) == 1:
            return tests[0]
        return _either(tests)

    def and_expression(self) -> _Test:
        tests = [self.comparison()]
        while self.accept("name", "and"):
            tests.append(self.comparison())
        if len(tests) == 1:
            return tests[0]
        return _both(tests)

    def comparison(self) -> _Test:
        if self._call_of("not"):
            test = self.or_expression()
            self.take("symbol", ")")
            source, kids = _source(test)
            return _inline(lambda node, memo: not test(node, memo), f"(not {source})", kids)
        if self.accept("symbol", "("):
            test = self.or_expression()
            self.take("symbol", ")")
            return test
        left = self.operand()
        token = self.peek()
        if token not in (("symbol", "="), ("symbol", "!=")):
            if left[0] != _NODES:
                raise _Unsupported  # a number alone is a position; a text alone, unusual: XPath decides
            path: _Path | _AbsolutePath = left[1]
            if path.child is not None and path.attribute is None:
                tag = path.child
                return _inline(lambda node, memo: tag in (memo.get(node) or children_by_tag(node, memo)),
                               f"({_constant(tag)} in kids)", True)
            if isinstance(path, _Path) and not path.ups and path.steps:
                if self.anchor is not None and path.attribute is None and _worth_anchoring(path.steps):
                    return _anchored(self.anchor, path.steps, None, None)
                return _walked(path.steps, path.attribute, None)  # p:A/p:B[…]: walked, no lists
            select = path.select
            return lambda node, memo: bool(select(node, memo))
        self.position += 1
        right = self.operand()
        return _compare(left, right, equal=token == ("symbol", "="), anchor=self.anchor)

    def operand(self) -> tuple[str, Any]:
        token = self.peek()
        if token is None:
            raise _Unsupported
        kind, text = token
        if kind == "literal":
            self.position += 1
            return _TEXT, text[1:-1]
        if kind == "number":
            self.position += 1
            if len(text) > 15:
                raise _Unsupported
            return _NUMBER, int(text)
        return _NODES, self.path(top=False)


#: One step of a path: (the element's Clark name, its predicates, what identifies it: the Clark name, and if it has
#: predicates, each as written, the namespaces their prefixes mean and the tags down to the step when it is anchored).
_Step = tuple[str, tuple[_Test, ...], tuple]

#: Every path compiled so far, by what identifies it.
_PATHS: dict[tuple, Any] = {}


def _interned(key: tuple, build: Callable[[], Any]) -> Any:
    """The path known by ``key`` (built the first time): a path many rules write is one object, and so is the
    memo entry of an absolute one."""
    path = _PATHS.get(key)
    if path is None:
        path = _PATHS.setdefault(key, build())
    return path


class _Path:
    """A compiled relative location path: :attr:`select` gives its nodes, :attr:`string_values` their
    string-values."""

    __slots__ = ("ups", "steps", "attribute", "top", "select", "string_values", "child")

    def __init__(self, ups: int, steps: tuple[_Step, ...], attribute: str | None, top: bool) -> None:
        self.ups, self.steps, self.attribute, self.top = ups, steps, attribute, top
        #: The tag of a path that is one child step without predicates (``dte:Precio``), else ``None``.
        self.child = steps[0][0] if not ups and len(steps) == 1 and not steps[0][1] else None
        self.select: Finder = self._selector()
        self.string_values: _Values = _string_values(self.select, attribute)

    def _selector(self) -> Finder:
        steps, name, ups = self.steps, self.attribute, self.ups
        if self.child is not None and name is None:
            return _child_selector(self.child)
        if not steps and not ups and name is not None:
            return _attribute_selector(name, self.top)
        general = _general_selector(ups, steps, name, self.top)
        if ups and len(steps) == 1 and not steps[0][1] and name is None:  # ../../dte:Precio
            return _up_selector(ups, steps[0][0], general)
        return general


def _child_selector(tag: str) -> Finder:
    """``p:Child``: the children of that tag."""

    def select_child(node: etree._Element, memo: dict) -> list:
        children = memo.get(node)
        if children is None:
            children = children_by_tag(node, memo)
        found = children.get(tag)
        return list(found) if found is not None else []

    _CHILD_TAGS[select_child] = tag
    return select_child


def _attribute_selector(name: str, smart: bool) -> Finder:
    """``@name``: the node's attribute."""

    def select_attribute(node: etree._Element, memo: dict) -> list:
        value = node.get(name)
        if value is None:
            return []
        return [AttributeValue(value, node, name) if smart else value]

    _ATTRIBUTE_NAMES[select_attribute] = name
    return select_attribute


def _up_selector(ups: int, tag: str, general: Finder) -> Finder:
    """``../../p:Child``: the children of that tag of an ancestor (past the root: as ``general`` says)."""

    def select_up(node: etree._Element, memo: dict) -> list:
        above = node
        for _ in range(ups):
            above = above.getparent()
            if above is None:
                return general(node, memo)
        children = memo.get(above)
        if children is None:
            children = children_by_tag(above, memo)
        found = children.get(tag)
        return list(found) if found is not None else []

    _UP_TAGS[select_up] = (ups, tag)
    return select_up


def _general_selector(ups: int, steps: tuple[_Step, ...], name: str | None, smart: bool) -> Finder:
    """Any relative path of the subset: ``..`` steps, child steps with their predicates, an attribute."""

    def select(node: etree._Element, memo: dict) -> list:
        for climbed in range(ups):
            parent = node.getparent()
            if parent is None:  # from the root element, ".." is the document node, whose one child is the root
                elements = _descend(_root_if(node, steps[0], memo), steps[1:], memo) \
                    if climbed == ups - 1 and steps else []
                return _attributes(elements, name, smart)
            node = parent
        return _attributes(_descend([node], steps, memo), name, smart)

    return select


class _AbsolutePath:
    """A compiled absolute location path. It selects the same nodes from every node of a document, found once
    and kept in the memo (the path itself is the key), from the nodes of the path one step shorter (so
    ``…/dte:DatosGenerales/@Tipo`` and ``…/dte:DatosGenerales/@Exp`` walk down to ``dte:DatosGenerales`` once)."""

    __slots__ = ("steps", "attribute", "top", "select", "string_values", "child")

    def __init__(self, steps: tuple[_Step, ...], attribute: str | None, top: bool) -> None:
        self.steps, self.attribute, self.top = steps, attribute, top
        self.child = None
        self.select: Finder = self._selector()
        _MEMO_KEYS[self.select] = self
        self.string_values: _Values = _string_values(self.select, attribute)

    def _selector(self) -> Finder:
        if self.attribute is not None:
            return self._attribute_selector()
        key = self
        step = self.steps[-1]
        if step[1] and len(self.steps) > 1:
            return self._filtered()
        if len(self.steps) == 1:

            def select_root(node: etree._Element, memo: dict) -> list:
                found = memo.get(key)
                if found is None:
                    found = memo[key] = _root_if(node, step, memo)
                return found

            return select_root
        shorter = _absolute(self.steps[:-1], None, False)
        parents = shorter.select  # (its nodes are in the memo under the path itself)
        tag = step[0]

        def select_step(node: etree._Element, memo: dict) -> list:
            found = memo.get(key)
            if found is None:
                above = memo.get(shorter)
                if above is None:
                    above = parents(node, memo)
                if len(above) == 1:  # (the usual case: one parent, its children of the tag)
                    children = memo.get(above[0])
                    if children is None:
                        children = children_by_tag(above[0], memo)
                    same = children.get(tag)
                    found = memo[key] = [] if same is None else list(same)
                else:
                    found = memo[key] = _descend(above, (step,), memo)
            return found

        return select_step

    def _attribute_selector(self) -> Finder:
        """``…/p:A/@name``: the attributes of the nodes of ``…/p:A``, taken from the memo when they are there (a
        path's nodes are kept under the path itself)."""
        key = self
        name, smart = self.attribute, self.top
        holders = _absolute(self.steps, None, False)
        elements = holders.select

        def select_attributes(node: etree._Element, memo: dict) -> list:
            found = memo.get(key)
            if found is None:
                above = memo.get(holders)
                if above is None:
                    above = elements(node, memo)
                found = memo[key] = _attributes(above, name, smart)
            return found

        return select_attributes

    def _filtered(self) -> Finder:
        """``…/p:A[t1][t2]``: the nodes of ``…/p:A[t1]`` (shared with every path so written) that pass t2;
        ``…/p:A[t1]``: the nodes of ``…/p:A`` that pass t1 (one list of ``…/p:A`` a document, however many filters)."""
        key = self
        tag, tests, (_, predicates, spaces, chain) = self.steps[-1]
        fewer_step = (tag, tests[:-1], (tag, predicates[:-1], spaces, chain) if len(tests) > 1 else (tag, (), None))
        unfiltered = _absolute((*self.steps[:-1], fewer_step), None, False)  # (known as the path so written)
        fewer = unfiltered.select
        test = tests[-1]

        def select_filtered(node: etree._Element, memo: dict) -> list:
            found = memo.get(key)
            if found is None:
                nodes = memo.get(unfiltered)
                if nodes is None:
                    nodes = fewer(node, memo)
                found = memo[key] = filtered(nodes, memo)
            return found

        filtered = _filter_of(test)
        return select_filtered


def _absolute(steps: tuple[_Step, ...], attribute: str | None, top: bool) -> _AbsolutePath:
    top = top and attribute is not None  # (elements are the same objects wherever the path is written)
    return _interned(("absolute", tuple(step[2] for step in steps), attribute, top),
                     lambda: _AbsolutePath(steps, attribute, top))


def _string_values(select: Finder, attribute: str | None) -> _Values:
    if attribute is not None:
        return select
    return lambda node, memo: [_string_value(element) for element in select(node, memo)]


def _attributes(elements: list, name: str | None, smart: bool) -> list:
    if name is None:
        return elements
    if smart:
        return [AttributeValue(value, element, name) for element in elements
                if (value := element.get(name)) is not None]
    return [value for element in elements if (value := element.get(name)) is not None]


def _root_if(node: etree._Element, step: _Step, memo: dict) -> list:
    """The document's root element when it is the one ``step`` selects (as a list), else nothing."""
    root = node.getroottree().getroot()
    tag, tests, _ = step
    if root.tag != tag or any(not test(root, memo) for test in tests):
        return []
    return [root]


def _descend(nodes: list, steps: tuple[_Step, ...], memo: dict) -> list:
    for tag, tests, _ in steps:
        found: list = []
        for parent in nodes:
            children = memo.get(parent)
            if children is None:
                children = children_by_tag(parent, memo)
            same = children.get(tag)
            if same is not None:
                found.extend(same)
        for test in tests:
            found = [node for node in found if test(node, memo)]
        nodes = found
        if not nodes:
            break
    return nodes


_STRING = etree.XPath("string()")


def _string_value(element: etree._Element) -> str:
    """XPath's string-value of an element: its text, or every descendant text node joined."""
    return (element.text or "") if len(element) == 0 else _STRING(element)


def _compare(left: tuple[str, Any], right: tuple[str, Any], *, equal: bool,
             anchor: tuple[str, ...] | None = None) -> _Test:
    """``left = right`` (or ``!=``) as XPath 1.0 compares a node-set with a text, a number or a node-set
    (``anchor``: the tags down to the nodes tested, when known: see :func:`_anchored`)."""
    if left[0] != _NODES:
        left, right = right, left
    if left[0] != _NODES:
        raise _Unsupported  # two constants: nothing a rule writes
    path: _Path | _AbsolutePath = left[1]
    values: _Values = path.string_values
    kind, other = right
    if kind in (_TEXT, _NUMBER) and isinstance(path, _Path) and not path.ups and path.steps:  # p:A/p:B = 'x'…
        if anchor is not None and _worth_anchoring(path.steps):
            return _anchored(anchor, path.steps, path.attribute, (kind, other, equal))
        return _walked(path.steps, path.attribute, (kind, other, equal))
    if kind in (_TEXT, _NUMBER) and isinstance(path, _Path) and not path.steps and not path.ups:  # @name != 'x', . = 1
        return _attribute_compared(path.attribute, kind, other, equal) if path.attribute \
            else _self_compared(kind, other, equal)
    if kind == _TEXT:
        if equal:
            return lambda node, memo: other in values(node, memo)
        return lambda node, memo: any(value != other for value in values(node, memo))
    if kind == _NUMBER:
        number = float(other)
        if equal:
            return lambda node, memo: any(_number(value) == number for value in values(node, memo))
        return lambda node, memo: any(_number(value) != number for value in values(node, memo))
    others: _Values = other.string_values
    if equal and isinstance(other, _AbsolutePath):  # p:A = /p:R/p:B/@c: the absolute side's values, once a document
        return _in_values_of(path, other)
    if equal:
        return lambda node, memo: not set(values(node, memo)).isdisjoint(others(node, memo))
    return lambda node, memo: _some_differ(values(node, memo), others(node, memo))


def _either(tests: list[_Test]) -> _Test:
    """``a or b or …``: the first test that holds decides (nested pairs, no generator)."""
    test = tests[0]
    for other in tests[1:]:
        test = (lambda first, second: lambda node, memo: first(node, memo) or second(node, memo))(test, other)
    sources = [_source(each) for each in tests]
    return _inline(test, "(" + " or ".join(text for text, _ in sources) + ")", any(kids for _, kids in sources))


def _both(tests: list[_Test]) -> _Test:
    """``a and b and …``: the first test that fails decides (nested pairs, no generator)."""
    test = tests[0]
    for other in tests[1:]:
        test = (lambda first, second: lambda node, memo: first(node, memo) and second(node, memo))(test, other)
    sources = [_source(each) for each in tests]
    return _inline(test, "(" + " and ".join(text for text, _ in sources) + ")", any(kids for _, kids in sources))


def _holds(kind: str, other: Any, equal: bool) -> Callable[[str], bool]:
    """Whether one string-value compares with a text or a number (``=`` or ``!=``) as XPath 1.0 compares them."""
    if kind == _TEXT:
        return (lambda value: value == other) if equal else (lambda value: value != other)
    number = float(other)
    return (lambda value: _number(value) == number) if equal else (lambda value: _number(value) != number)


def _walked(steps: tuple[_Step, ...], attribute: str | None, compared: tuple | None) -> _Test:
    """The test of :func:`_walk` (``compared``: what :func:`_holds` takes, or ``None``), one object however many
    paths write it; a path of several steps (what costs) remembers its answer for each node in the document's memo,
    so ``p:A[p:B/p:C = 'x']`` and ``p:A[not(p:B/p:C = 'x')]`` walk below each ``p:A`` once."""
    key = ("walk", tuple(step[2] for step in steps), attribute, compared)
    holds = None if compared is None else _holds(*compared)
    if len(steps) == 1:
        tag, tests, _ = steps[0]
        if not tests and attribute is None and compared is not None and compared[0] == _TEXT:
            return _interned(key, lambda: _child_text(tag, compared[1], compared[2]))
        if not tests and attribute is None and compared is not None:  # p:Child = 1: a number
            return _interned(key, lambda: _child_number(tag, float(compared[1]), compared[2],
                                                        _walk(steps, attribute, holds)))
        return _interned(key, lambda: _walk(steps, attribute, holds))

    def build() -> _Test:
        test = _walk(steps, attribute, holds)

        def remembered(node: etree._Element, memo: dict) -> bool:
            entry = (remembered, node)
            answer = memo.get(entry)
            if answer is None:
                answer = memo[entry] = test(node, memo)
            return answer

        return remembered

    return _interned(key, build)


def _worth_anchoring(steps: tuple[_Step, ...]) -> bool:
    """Whether a predicate's path costs enough to be answered from a set of the document (several steps, or
    predicates of its own): one child compared with a text is cheaper to look at."""
    return len(steps) > 1 or bool(steps[0][1])


def _anchored(anchor: tuple[str, ...], steps: tuple[_Step, ...], attribute: str | None,
              compared: tuple | None) -> _Test:
    """A predicate ``p:A/p:B[…]`` (some node selected), ``p:A/p:B = 'x'`` or ``p:A/@c != 1`` (some value compares)
    on nodes known to be selected by the child steps ``anchor`` from the root: a node passes when it is the
    ancestor, as many steps up as the path has, of one of the nodes the absolute path ``anchor/p:A/p:B[…]`` selects
    (and whose value compares). The absolute path's nodes are shared with every path written so (the impuestos of
    ``//dte:Item[dte:Impuestos/dte:Impuesto[…]]`` are the ones ``impuestos[…]`` selects); the set of ancestors is made
    once a document, and each test is a look in it."""
    key = ("anchored", anchor, tuple(step[2] for step in steps), attribute, compared)

    def build() -> _Test:
        down = _absolute((*((tag, (), (tag, (), None)) for tag in anchor), *steps), None, False).select
        holds = None if compared is None else _holds(*compared)
        depth = len(steps)

        def test(node: etree._Element, memo: dict) -> bool:
            holders = memo.get(test)
            if holders is None:
                holders = memo[test] = _holders(down(node, memo), depth, attribute, holds)
            return node in holders

        name, held = _constant(test), _local("h")
        return _inline(test, f"(node in {held} if ({held} := memo.get({name})) is not None else {name}(node, memo))",
                       False)

    return _interned(key, build)


def _holders(nodes: list, depth: int, attribute: str | None, holds: Callable[[str], bool] | None) -> set:
    """The ancestors ``depth`` steps up of the ``nodes`` that have ``attribute`` (when given) and whose value
    ``holds`` (when given)."""
    if attribute is None and holds is None and depth <= 2:  # (the usual: p:A/p:B[…] or p:A[…] there)
        if depth == 1:
            return {node.getparent() for node in nodes}
        return {node.getparent().getparent() for node in nodes}
    found = set()
    for node in nodes:
        if attribute is not None:
            value = node.get(attribute)
            if value is None:
                continue
        elif holds is not None:
            value = _string_value(node)
        if holds is None or holds(value):
            above = node
            for _ in range(depth):
                above = above.getparent()
            found.add(above)
    return found


def _child_text(tag: str, text: str, equal: bool) -> _Test:
    """``p:Child = 'text'`` (``!=``): some child with that tag has (has not) that string-value."""

    def test(node: etree._Element, memo: dict) -> bool:
        children = memo.get(node)
        if children is None:
            children = children_by_tag(node, memo)
        found = children.get(tag)
        if found is not None:
            for child in found:
                if (((child.text or "") if len(child) == 0 else _STRING(child)) == text) is equal:
                    return True
        return False

    return _inline(test, _one_child(tag, f"{{}} {'==' if equal else '!='} {_constant(text)}", test), True)


def _walk(steps: tuple[_Step, ...], attribute: str | None, holds: Callable[[str], bool] | None) -> _Test:
    """A relative path of child steps (with their predicates) and maybe a last ``@name``, as a predicate: true when
    it selects some node (``holds`` is ``None``) or some node whose string-value ``holds``. Walked from the node
    through the children index, stopping at the first node that decides: no list of the path's nodes or values."""
    inner, (last, last_tests, _) = steps[:-1], steps[-1]
    bare = holds is None and attribute is None  # (the first node decides)

    def test(node: etree._Element, memo: dict) -> bool:
        for parent in _descend([node], inner, memo) if inner else (node,):
            children = memo.get(parent)
            if children is None:
                children = children_by_tag(parent, memo)
            for child in children.get(last, ()):
                if last_tests and not all(each(child, memo) for each in last_tests):
                    continue
                if bare:
                    return True
                value = child.get(attribute) if attribute is not None else _string_value(child)
                if value is not None and (holds is None or holds(value)):
                    return True
        return False

    return test


def _some_differ(first: list[str], second: list[str]) -> bool:
    return bool(first) and bool(second) and len(set(first) | set(second)) > 1


#: A number as XPath's number() reads it, in the common forms whose value both readers agree on exactly.
_PLAIN_NUMBER = re.compile(r"[ \t\r\n]*(-?)([0-9]{1,15})(?:\.([0-9]{0,15}))?[ \t\r\n]*")
_XPATH_NUMBER = etree.XPath("number($text)")


def _number(text: str) -> float:
    """XPath 1.0's ``number()`` of a string-value, as libxml2 computes it (a pure function of the text: short
    texts are remembered with their number, in a table emptied when it is full)."""
    number = _NUMBERS.get(text)
    if number is None:
        number = _number_of(text)
        if len(text) <= 64:
            if len(_NUMBERS) >= 4096:
                _NUMBERS.clear()
            _NUMBERS[str(text)] = number  # a plain str: an attribute's value holds on to its element
    return number


def _number_of(text: str) -> float:
    match = _PLAIN_NUMBER.fullmatch(text)
    if match is None or len(match[2]) + len(match[3] or "") > 15:
        return _XPATH_NUMBER(_EMPTY, text=text)  # anything else: libxml2 itself
    return float(f"{match[1]}{match[2]}.{match[3] or 0}")


#: Texts already read by :func:`_number` and their numbers.
_NUMBERS: dict[str, float] = {}

#: XPath 1.0's ``number()`` of a text (for the finders made elsewhere).
xpath_number = _number


_EMPTY = etree.Element("empty")


# ---- predicates written as one Python expression ------------------------------------------------------------------
#
# A predicate's test is also known, where it can be, as one Python expression over ``node`` (the element tested),
# ``memo`` and ``kids`` (the element's children index): ``not(p:A = 'x') or p:B`` is ``(not (…kids.get(A)…) or (B in
# kids))`` and not three calls. :func:`_compiled` makes that expression one function (the children index looked up
# once), :func:`_filter_of` one loop over the nodes a step filters. The expressions compute what the closures
# compute (the closures stay: they are the tests where no expression is known).

#: The tests known as an expression: (its source, whether it reads ``kids``).
_INLINE: dict[_Test, tuple[str, bool]] = {}
#: The values the expressions read (constants, tests), under the names this process gave them.
_NAMESPACE: dict[str, Any] = {}
_NAMES: dict[tuple[type, Any], str] = {}
#: The helpers the generated functions read under their own names.
_HELPERS: dict[str, Any] = {"INDEX": children_by_tag, "STRING": _STRING}
#: Numbers for the names (``next`` of a count is one step: threads building finders at once get distinct ones).
_NAME_NUMBERS = itertools.count(1)
#: A name :func:`_local` or :func:`_constant` made (``_k12``): its stem and the process's number.
_MADE_NAME = re.compile(r"\b_([a-z]+)[0-9]+\b")


def _local(stem: str) -> str:
    """A name for a local of the generated code, used nowhere else."""
    return f"_{stem}{next(_NAME_NUMBERS)}"


def _constant(value: Any) -> str:
    """The name under which the generated code reads ``value``: the value is in the namespace before its name is
    known, and a value made a name by two threads at once keeps the first."""
    key = (type(value), value) if isinstance(value, (str, float, int)) else (type(value), id(value))
    name = _NAMES.get(key)
    if name is None:
        fresh = _local("k")
        _NAMESPACE[fresh] = value
        name = _NAMES.setdefault(key, fresh)
    return name


def _inline(test: _Test, source: str, kids: bool) -> _Test:
    """``test``, known from now on as the expression ``source`` (``kids``: it reads the children index)."""
    _INLINE.setdefault(test, (source, kids))
    return test


def _source(test: _Test) -> tuple[str, bool]:
    """The expression of ``test``: its own, or a call of it."""
    return _INLINE.get(test) or (f"{_constant(test)}(node, memo)", False)


_KIDS = ("kids = memo.get(node)", "if kids is None:", "    kids = INDEX(node, memo)")
_GENERATED: dict[tuple[str, str], Any] = {}


def _generated(kind: str, source: str, lines: list[str]) -> Any:
    """The function ``lines`` define (named ``kind``), one per (kind, expression). Its names are numbered anew in
    its own text, in the order they appear there (``_k12`` → ``k1``), and it reads its values from a namespace of
    its own: the text, and so the code object the cache keeps for it (:func:`~fel_rules.core.code_cache.compiled`),
    is the same in every process, whatever this one built before or builds on other threads."""
    function = _GENERATED.get((kind, source))
    if function is None:
        renamed: dict[str, str] = {}
        text = _MADE_NAME.sub(lambda made: renamed.setdefault(made[0], f"{made[1]}{len(renamed) + 1}"),
                              "\n".join(lines))
        scope = {**_HELPERS, **{new: _NAMESPACE[old] for old, new in renamed.items() if old in _NAMESPACE}}
        space: dict[str, Any] = {}
        exec(compiled(text, f"<predicate {kind}>"), scope, space)  # noqa: S102
        function = _GENERATED.setdefault((kind, source), space[kind])
    return function


def _compiled(test: _Test) -> _Test:
    """``test`` as one generated function when it has an expression (itself otherwise)."""
    known = _INLINE.get(test)
    if known is None:
        return test
    source, kids = known
    function = _generated("test", source, [
        "def test(node, memo):", *("    " + line for line in (_KIDS if kids else ())), f"    return {source}"])
    return _inline(function, source, kids)


def _filter_of(test: _Test) -> Callable[[list, dict], list]:
    """``filtered(nodes, memo)``: the ``nodes`` that pass ``test``, in their order."""
    source, kids = _source(test)
    return _generated("filtered", source, [
        "def filtered(nodes, memo):",
        "    found = []",
        "    for node in nodes:",
        *("        " + line for line in (_KIDS if kids else ())),
        f"        if {source}:",
        "            found.append(node)",
        "    return found"])


def _one_child(tag: str, compared: str, general: _Test) -> str:
    """The expression of ``p:Child <op> value`` when the node has at most one such child (``compared``: the
    comparison with ``{}`` for the child's string-value); with several, ``general`` answers."""
    found, child = _local("f"), _local("c")
    value = f"(({child}.text or '') if not len({child} := {found}[0]) else STRING({child}))"
    return (f"(False if ({found} := kids.get({_constant(tag)})) is None else "
            f"({compared.format(value)} if len({found}) == 1 else {_constant(general)}(node, memo)))")


def _child_number(tag: str, number: float, equal: bool, general: _Test) -> _Test:
    """``p:Child = 1`` (``!=``): some child with that tag has (has not) a string-value of that number."""
    compared = f"NUMBER({{}}) {'==' if equal else '!='} {_constant(number)}"
    return _inline(general, _one_child(tag, compared, general), True)


def _attribute_compared(name: str, kind: str, other: Any, equal: bool) -> _Test:
    """``@name <op> 'text'`` or ``@name <op> 1``: the attribute is there and its value compares."""
    holds = _holds(kind, other, equal)

    def test(node: etree._Element, memo: dict) -> bool:
        value = node.get(name)
        return value is not None and holds(value)

    value = _local("a")
    compared = (f"{value} {'==' if equal else '!='} {_constant(other)}" if kind == _TEXT
                else f"NUMBER({value}) {'==' if equal else '!='} {_constant(float(other))}")
    return _inline(test, f"(({value} := node.get({_constant(name)})) is not None and {compared})", False)


def _in_values_of(path: _Path | _AbsolutePath, other: _AbsolutePath) -> _Test:
    """``path = other`` for an absolute ``other``: some string-value of ``path`` is among the string-values of
    ``other``, a set made once a document (its memo entry is the function that makes it)."""
    values, others = path.string_values, other.string_values

    def build() -> Callable[[etree._Element, dict], frozenset]:
        def value_set(node: etree._Element, memo: dict) -> frozenset:
            found = memo.get(value_set)
            if found is None:
                found = memo[value_set] = frozenset(others(node, memo))
            return found

        return value_set

    value_set = _interned(("values", other), build)

    def test(node: etree._Element, memo: dict) -> bool:
        return not value_set(node, memo).isdisjoint(values(node, memo))

    if isinstance(path, _AbsolutePath) or path.child is None or path.attribute is not None:
        return test
    name, found = _constant(value_set), _local("s")
    return _inline(test, _one_child(path.child, f"{{}} in ({found} if ({found} := memo.get({name})) is not None "
                                               f"else {name}(node, memo))", test), True)


def _self_compared(kind: str, other: Any, equal: bool) -> _Test:
    """``. <op> 'text'`` or ``. <op> 1``: the node's own string-value compares."""
    holds = _holds(kind, other, equal)
    value = "((node.text or '') if not len(node) else STRING(node))"
    compared = (f"{value} {'==' if equal else '!='} {_constant(other)}" if kind == _TEXT
                else f"NUMBER({value}) {'==' if equal else '!='} {_constant(float(other))}")
    return _inline(lambda node, memo: holds(_string_value(node)), f"({compared})", False)


_HELPERS["NUMBER"] = _number

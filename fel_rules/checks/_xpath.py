"""Helpers shared by XPath-driven check kinds: compiling paths and reading nodes."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from functools import lru_cache
from typing import Any

from lxml import etree

from ..core.catalogue import render_text
from ..core.foreign import xpath_error
from ..core.text import Text
from ..core.xmlpath import element_xpath, item_number
from ._finders import Finder, finds_nodes, path_finder, xpath_number

# item_number is re-exported from core.xmlpath
__all__ = [
    "XPathProblem", "XPathQuery", "child_path_finder", "compile_xpath", "finds_nodes", "guarded", "item_number",
    "located", "referenced_variables", "relaxed_finder", "union_branches", "valued_finder", "with_values",
]

_VARIABLE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


class XPathQuery:
    """A compiled XPath 1.0 expression, called like :class:`lxml.etree.XPath`. It pickles as its path and
    namespaces (the rule cache) and, read back, compiles again on its first call: rules a document never reaches
    cost nothing."""

    __slots__ = ("path", "namespaces", "_compiled")

    def __init__(self, path: str, namespaces: Mapping[str, str], compiled: etree.XPath | None = None) -> None:
        self.path = path
        self.namespaces = dict(namespaces)
        self._compiled = compiled

    def __call__(self, node: Any, **variables: Any) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = etree.XPath(self.path, namespaces=self.namespaces, smart_strings=True)
        return compiled(node, **variables)

    def __reduce__(self) -> tuple:
        return (type(self), (self.path, self.namespaces))


def compile_xpath(
    path: str, namespaces: Mapping[str, str], *, variables: Collection[str] = frozenset(), nodes: bool = False
) -> XPathQuery:
    """Compile ``path`` (XPath 1.0) and try it once on an empty document, so undefined prefixes,
    functions or variables fail at load time; ``nodes`` requires a node-set result.
    Raises ``ValueError`` with a readable reason."""
    try:
        compiled = XPathQuery(path, namespaces, etree.XPath(path, namespaces=dict(namespaces), smart_strings=True))
    except etree.XPathSyntaxError as exc:
        raise XPathProblem(path, str(exc)) from None
    probe = etree.Element(f"{{{namespaces.get('dte', 'urn:probe')}}}GTDocumento")
    try:
        result = compiled(probe, **{name: "" for name in variables})
    except etree.XPathError as exc:
        raise XPathProblem(path, str(exc)) from None
    if nodes and not isinstance(result, list):
        raise ValueError(f"el XPath '{path}' debe seleccionar nodos, no calcular un valor")
    return compiled


class XPathProblem(ValueError):
    """An XPath lxml refused, said in the catalogue's words (``str()``: Spanish, ``message_en``: English);
    ``detail`` keeps lxml's own."""

    def __init__(self, path: str, said: str) -> None:
        text = Text.of("xpath.invalid", path=path, reason=xpath_error(said))
        super().__init__(render_text(text, "es"))
        self.message_en = render_text(text, "en")
        self.detail = said


def referenced_variables(path: str) -> set[str]:
    """Names of ``$variables`` used in an XPath."""
    return set(_VARIABLE.findall(path))


def located(node: Any) -> tuple[str | None, int | None, str | None, etree._Element | None]:
    """(xpath, line, field name, owning element) of a node returned by an XPath query."""
    if isinstance(node, etree._Element):
        return element_xpath(node), node.sourceline, etree.QName(node).localname, node
    getparent = getattr(node, "getparent", None)
    parent = getparent() if getparent else None
    if parent is None:
        return None, None, None, None
    if getattr(node, "is_attribute", False):
        return f"{element_xpath(parent)}/@{node.attrname}", parent.sourceline, node.attrname, parent
    return element_xpath(parent), parent.sourceline, etree.QName(parent).localname, parent


def child_path_finder(path: str, namespaces: Mapping[str, str], *, elements_only: bool = False,
                      light: bool = False, xpath: XPathQuery | None = None) -> Finder | None:
    """A faster equivalent of ``path`` when it is a plain path (``../../dte:Precio``, ``dte:A/@B``,
    ``/dte:A/dte:B[dte:C='x']``, ``count(…)``…), else ``None``: see :mod:`._finders`. The finder takes the node and
    the document's memo and returns what XPath returns, in the same order.

    Given ``xpath`` (``path`` compiled), a path outside the subset may still get a finder, :func:`guarded`: one that
    answers "nothing" without XPath when the path's leading steps find nothing in the document."""
    finder = path_finder(path, namespaces, elements_only=elements_only, light=light)
    if finder is None and xpath is not None:
        finder = guarded(xpath)
    return finder


#: A top-level ``|`` (outside brackets, parentheses and quotes) splits a union; these find the characters that matter.
_STRUCTURE = re.compile(r"""'[^']*'|"[^"]*"|[\[\]()|]""")
#: The leading child steps of an absolute location path (``/p:A/p:B``), followed by more of the path.
_LEADING_STEPS = re.compile(r"\s*((?:/\s*[A-Za-z_][\w.-]*:[A-Za-z_][\w.-]*\s*)+)(?=[/\[])")


def relaxed_finder(path: str, namespaces: Mapping[str, str]) -> Finder | None:
    """The finder of ``path`` without the predicates of its steps that hold predicates of their own
    (``…/dte:DatosEmision[dte:Items/dte:Item[…]]/dte:Frases/dte:Frase[@TipoFrase = '4']`` → ``…/dte:DatosEmision/
    dte:Frases/dte:Frase[@TipoFrase = '4']``), when ``path`` is one absolute location path that has such predicates
    and the rest is in the finders' subset; else ``None``. A predicate only drops nodes, so when that finder selects
    nothing, neither does ``path``: it tells cheaply that a costly path is empty."""
    branches = union_branches(path)
    if branches is None or len(branches) != 1 or not path.lstrip().startswith("/"):
        return None
    relaxed = _without_nested_predicates(path)
    if relaxed == path:
        return None
    finder = path_finder(relaxed, namespaces, light=True)
    return finder if finder is not None and finds_nodes(finder) else None


def _without_nested_predicates(path: str) -> str:
    """``path`` without the predicates of its steps that hold predicates of their own (the nodes it selects are
    among those the result selects when the result's predicates do not count positions, as a finder's never do)."""
    kept, depth, start, nested, cut = [], 0, 0, False, 0
    for match in _STRUCTURE.finditer(path):
        mark = match.group()
        if mark in "[(":
            if depth == 0 and mark == "[":
                start, nested = match.start(), False
            elif mark == "[":
                nested = True
            depth += 1
        elif mark in "])":
            depth -= 1
            if depth == 0 and mark == "]" and nested:
                kept.append(path[cut:start])
                cut = match.end()
    kept.append(path[cut:])
    return "".join(kept)


def union_branches(path: str) -> list[str] | None:
    """The location paths of ``path`` split at its top-level ``|`` (``None``: unbalanced brackets)."""
    branches, depth, start = [], 0, 0
    for match in _STRUCTURE.finditer(path):
        mark = match.group()
        if mark in "[(":
            depth += 1
        elif mark in "])":
            depth -= 1
            if depth < 0:
                return None
        elif mark == "|" and depth == 0:
            branches.append(path[start:match.start()])
            start = match.end()
    if depth:
        return None
    branches.append(path[start:])
    return branches


#: A quoted text, or a ``$name`` (group 1), in an XPath.
_QUOTED_OR_VARIABLE = re.compile(r"""'[^']*'|"[^"]*"|\$([A-Za-z_][A-Za-z0-9_]*)""")


def with_values(path: str, variables: Mapping[str, object]) -> str | None:
    """``path`` with each ``$name`` written as the literal of its value, when every value is a text a literal can
    hold or a whole number of at most 15 digits, not negative (``None`` otherwise): XPath reads a literal as the very
    string a text variable holds, and a numeral as the very number (a double) an integer variable holds, wherever
    it stands. A numeral is written between spaces, so it never joins the tokens around it."""
    refused = False

    def literal(match: re.Match) -> str:
        nonlocal refused
        name = match.group(1)
        if name is None:
            return match.group(0)  # a quoted text, as written
        value = variables.get(name)
        if isinstance(value, str):
            if "'" not in value:
                return f"'{value}'"
            if '"' not in value:
                return f'"{value}"'
        elif type(value) is int and 0 <= value < _LARGEST_NUMERAL:  # (not a bool: XPath compares those as such)
            return f" {value} "
        refused = True  # a negative or long number, a boolean, a text with both quotes…: XPath reads it
        return ""

    written = _QUOTED_OR_VARIABLE.sub(literal, path)
    return None if refused else written


@lru_cache(maxsize=512)
def valued_finder(path: str, namespaces: tuple[tuple[str, str], ...]) -> Finder | None:
    """The finder of ``path`` (made by :func:`with_values`), made once for each path so written; ``None`` when it
    is outside the finders' subset or has nested predicates (see :func:`child_path_finder`). Besides the subset:
    ``count(preceding-sibling::p:Name[@name = 'text'])`` (the earlier siblings with the same value of an attribute)."""
    spaces = dict(namespaces)
    return path_finder(path, spaces, light=True) or _preceding_count(path, spaces)


#: ``count(preceding-sibling::p:Name[@name = 'text'])`` or ``…[@name = 12]``: the prefix, the local name, the
#: attribute, the text (in single or in double quotes) or the whole number.
_PRECEDING_COUNT = re.compile(
    r"""\s*count\(\s*preceding-sibling::([A-Za-z_][\w.-]*):([A-Za-z_][\w.-]*)\s*"""
    r"""\[\s*@([A-Za-z_][\w.-]*)\s*=\s*(?:'([^']*)'|"([^"]*)"|([0-9]{1,15})(?![0-9.]))\s*\]\s*\)\s*""")

#: Whole numbers :func:`with_values` writes as numerals: below 10¹⁵, exact as doubles and as the finders read them.
_LARGEST_NUMERAL = 10**15


def _preceding_count(path: str, namespaces: Mapping[str, str]) -> Finder | None:
    """The finder of ``count(preceding-sibling::p:Name[@name = 'text'])`` (or ``= 12``) at an element: its earlier
    siblings of that tag whose attribute is that text (or reads as that number), counted as XPath counts them (a
    float); ``None`` for any other path."""
    match = _PRECEDING_COUNT.fullmatch(path)
    if match is None or match.group(1) not in namespaces:
        return None
    prefix, local, name, single, double, numeral = match.groups()
    tag = f"{{{namespaces[prefix]}}}{local}"
    if numeral is not None:  # (compared as XPath compares an attribute with a number: its number() equals it)
        number = float(numeral)

        def count_numbers(node: etree._Element, memo: dict) -> float:
            return float(sum(1 for sibling in node.itersiblings(tag, preceding=True)
                             if (value := sibling.get(name)) is not None and xpath_number(value) == number))

        return count_numbers
    text = single if single is not None else double

    def count(node: etree._Element, memo: dict) -> float:
        return float(sum(1 for sibling in node.itersiblings(tag, preceding=True) if sibling.get(name) == text))

    return count


def guarded(xpath: XPathQuery) -> Finder | None:
    """For an XPath made of absolute location paths (``/dte:A/dte:B/*[self::x:C]``, or a union of such), a finder
    that gives ``[]`` when the leading child steps of every path select nothing (an absent dte:Complementos…) and
    else calls ``xpath``: a location path applied to no node selects no node, whatever its other steps. The leading
    steps are found by their own finders, shared with every rule that writes them. ``None`` when the XPath is no
    such path."""
    branches = union_branches(xpath.path)
    if branches is None:
        return None
    leading = []
    for branch in branches:
        match = _LEADING_STEPS.match(branch)
        if match is None:
            return None
        finder = path_finder(match.group(1).strip(), xpath.namespaces, elements_only=True)
        if finder is None:
            return None
        leading.append(finder)
    steps = tuple(leading)

    def find(node: etree._Element, memo: dict) -> Any:
        for select in steps:
            if select(node, memo):
                return xpath(node)
        return []

    return find

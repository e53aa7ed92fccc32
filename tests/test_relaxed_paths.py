"""A relaxed path (:func:`~fel_rules.checks._xpath.relaxed_finder`: the path without its predicates that hold
predicates of their own) selects every node the path selects: when it selects nothing, the path selects nothing.
The plan's function (:mod:`fel_rules.checks._plan_runner`) skips a context on that word."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from fel_rules import Config, Validator
from fel_rules.checks._xpath import relaxed_finder
from fel_rules.checks.expression import ExpressionCheck
from fel_rules.core.namespaces import DTE

from .test_path_finders import DOCUMENTS, NAMESPACES, TRICKY


def _relaxed_contexts() -> list[tuple[str, dict]]:
    """Every context of the rules that has a relaxed finder."""
    contexts = set()
    for rule in Validator(Config()).catalog.rules:
        check = rule.check
        if isinstance(check, ExpressionCheck):
            contexts.add((check.context.path, tuple(sorted(check.namespaces.items()))))
    return [(path, dict(spaces)) for path, spaces in sorted(contexts) if relaxed_finder(path, dict(spaces))]


RELAXED = _relaxed_contexts()


def _holds_what_xpath_selects(path: str, namespaces: dict, roots: list) -> bool:
    """Whether, on every node of ``roots``, the relaxed finder of ``path`` selects every node XPath selects (and is
    empty only when XPath's answer is); returns whether it ever selected something XPath did not (a looser set)."""
    find = relaxed_finder(path, namespaces)
    assert find is not None
    xpath = etree.XPath(path, namespaces=namespaces)
    looser = False
    for root in roots:
        memo: dict = {}
        for node in root.iter(etree.Element):
            relaxed, exact = find(node, memo), xpath(node)
            assert {_identity(each) for each in exact} <= {_identity(each) for each in relaxed}, (
                path, root.getroottree().getpath(node))
            looser = looser or len(relaxed) > len(exact)
    return looser


def _identity(node: object) -> tuple:
    """An element, or an attribute by its element and name."""
    if isinstance(node, str):
        return id(node.getparent()), node.attrname  # type: ignore[attr-defined]
    return id(node), None


def test_some_contexts_are_relaxed() -> None:
    assert RELAXED


@pytest.mark.parametrize(("path", "namespaces"), RELAXED, ids=[path for path, _ in RELAXED])
def test_relaxed_context_holds_every_node_of_the_context(path: str, namespaces: dict) -> None:
    _holds_what_xpath_selects(path, namespaces, DOCUMENTS)


WRITTEN = [
    "/dte:R/dte:I[dte:N[. = 'ISR']]/dte:M", "/dte:R[dte:I[dte:N = 'IVA'][dte:M = 1]]/dte:I[@C]",
    "/dte:R/dte:I[@C = 1][not(dte:N[dte:x])]/dte:K", "/dte:R/dte:I[not(dte:N[dte:x]) or dte:K[. = 2]]/@C",
    "/dte:R/dte:I[count(dte:M[. = 3]) = 0]/dte:N", "/dte:R/dte:I[dte:N = '[']/dte:M[dte:x[1]]",
]


@pytest.mark.parametrize("path", WRITTEN)
def test_relaxed_written_paths(path: str) -> None:
    _holds_what_xpath_selects(path, NAMESPACES, [*DOCUMENTS, TRICKY])


def test_a_relaxed_path_may_select_more() -> None:
    """(What makes the comparisons above worth having: the relaxed set is at times strictly larger.)"""
    assert _holds_what_xpath_selects("/dte:R/dte:I[dte:N[. = 'ISR']]/dte:M", NAMESPACES, [TRICKY])


@pytest.mark.parametrize("path", [
    "/dte:R/dte:I[dte:N = 'IVA']", "dte:I[dte:N[dte:x]]", "/dte:R/dte:I[1][dte:N[dte:x]]",
    "count(/dte:R/dte:I[dte:N[dte:x]])", "/dte:R/dte:I[dte:N[dte:x]] | /dte:R/dte:M", "/dte:R//dte:I[dte:N[dte:x]]",
    "/dte:R/dte:I[dte:N[dte:x]]/dte:N[last()]",
])
def test_other_paths_are_not_relaxed(path: str) -> None:
    assert relaxed_finder(path, NAMESPACES) is None


_TAGS = st.sampled_from(["I", "N", "M", "K"])
_TEXTS = st.sampled_from(["IVA", "ISR", "1", "2", " 3", ""])
_TREES = st.recursive(
    st.tuples(_TAGS, _TEXTS, st.sampled_from([None, "1", "2"]), st.just(())),
    lambda children: st.tuples(_TAGS, _TEXTS, st.sampled_from([None, "1", "2"]), st.lists(children, max_size=4)),
    max_leaves=14,
)


def _element(tree: tuple, parent: etree._Element) -> None:
    tag, text, attribute, children = tree
    element = etree.SubElement(parent, f"{{{DTE}}}{tag}")
    element.text = text or None
    if attribute is not None:
        element.set("C", attribute)
    for child in children:
        _element(child, element)


@settings(max_examples=150, deadline=None)
@given(trees=st.lists(_TREES, max_size=4), path=st.sampled_from([
    *WRITTEN, "/dte:R/dte:I[dte:I[dte:N = 'IVA']]/dte:M[. = 1]", "/dte:R/dte:I[dte:M][dte:K[@C = 2]]/dte:I/dte:N",
    "/dte:R[dte:I[dte:N]]/dte:I/dte:I[not(dte:K[. = 'ISR'])]/@C",
]))
def test_random_documents_keep_every_node(trees: list, path: str) -> None:
    root = etree.Element(f"{{{DTE}}}R", nsmap={"dte": DTE})
    for tree in trees:
        _element(tree, root)
    _holds_what_xpath_selects(path, NAMESPACES, [root])

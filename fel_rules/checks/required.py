"""The ``required`` check kind: fields that must be present (and not blank) in every context node."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from lxml import etree

from ..core.foreign import xpath_error
from ..core.text import Text
from ..core.xmlpath import children_by_tag, element_xpath
from ._xpath import child_path_finder, compile_xpath, item_number
from .base import CheckError, CheckInput, Finding, RuleEnv
from .plain import ParamsOf, plain
from .registry import check_kind

if TYPE_CHECKING:
    from .required_params import RequiredParams

__all__ = ["RequiredCheck"]


@check_kind("required")
class RequiredCheck:
    """Each field must match at least one node (with non-blank text when ``non_blank``)."""

    Params = ParamsOf("fel_rules.checks.required_params:RequiredParams")

    def __init__(self, params: RequiredParams, env: RuleEnv) -> None:
        self.params = plain(params)
        context = env.xpath(params.context, "context")
        self.context = _Found(compile_xpath(context, env.namespaces, nodes=True), env.namespaces, elements_only=True)
        when = env.xpath(params.when, "when") if params.when else None
        self.when = _Found(compile_xpath(when, env.namespaces), env.namespaces) if when is not None else None
        self.fields = [(path, _Found(compile_xpath(path, env.namespaces), env.namespaces), _parent_xpath(path, env))
                       for path in params.fields]
        self.namespaces = dict(env.namespaces)
        self._present: tuple | None = None  # each field's quick test, made on first use (see finds_nothing)

    def __getstate__(self) -> dict:
        """What a pickle keeps (the rule cache): everything but the fields' quick tests (made again on first use)."""
        return {name: value for name, value in self.__dict__.items() if name != "_present"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._present = None

    def finds_nothing(self, doc: CheckInput) -> bool:
        """Whether :meth:`check` certainly finds nothing in ``doc`` (the fast way of a rule plan: no finding is
        made). An error is raised as :meth:`check` meets it, or sooner: the caller runs :meth:`check` then."""
        root, memo = doc.root, doc.memo
        tests = self._present
        if tests is None:
            tests = self._present = tuple(_field_test(path, found, self.namespaces, self.params.non_blank)
                                          for path, found, _ in self.fields)
        when = self.when
        nodes: Any = self.context(root, memo)
        for node in nodes:
            if when is not None and not _truthy(when(node, memo)):
                continue
            for present in tests:
                if not present(node, memo):
                    return False
        return True

    def placeholders(self) -> set[str]:
        """``{field}``: the missing field's name."""
        return {"field"}

    def check(self, doc: CheckInput) -> Iterator[Finding]:
        memo = doc.memo
        nodes: Any = self.context(doc.root, memo)  # (a context selects nodes: checked when the rule loads)
        for node in nodes:
            if self.when is not None and not _truthy(self.when(node, memo)):
                continue
            for path, xpath, parent in self.fields:
                try:
                    found = xpath(node, memo)
                except Exception as exc:  # noqa: BLE001
                    raise CheckError(Text.of("check.xpath_failed", path=path, reason=xpath_error(str(exc))),
                                     str(exc)) from exc
                if _present(found, self.params.non_blank):
                    continue
                field = path.rsplit("/", 1)[-1].lstrip("@").split(":")[-1]
                anchor = _first_element(parent(node)) if parent is not None else None
                where = anchor if anchor is not None else node
                yield Finding(
                    xpath=f"{element_xpath(node)}/{path}", line=where.sourceline, item=item_number(node), field=field,
                    values={"field": field},
                )


class _Found:
    """An XPath as a function of (node, the document's memo): through the path's finder (the same result,
    faster; made on first use) from an element, when the path has one."""

    __slots__ = ("xpath", "namespaces", "elements_only", "finder")

    def __init__(self, xpath: etree.XPath, namespaces, elements_only: bool = False) -> None:
        self.xpath, self.namespaces, self.elements_only = xpath, dict(namespaces), elements_only
        self.finder: object = _LATER

    def __reduce__(self) -> tuple:
        """A pickle (the rule cache) keeps the XPath; the finder is made again on first use."""
        return (type(self), (self.xpath, self.namespaces, self.elements_only))

    def __call__(self, node: object, memo: dict) -> object:
        finder = self.finder
        if finder is _LATER:
            finder = self.finder = child_path_finder(self.xpath.path, self.namespaces,
                                                     elements_only=self.elements_only, light=True, xpath=self.xpath)
        if finder is not None and type(node) is _ELEMENT:
            return finder(node, memo)  # type: ignore[operator]
        return self.xpath(node)


_LATER = object()


_ELEMENT = etree._Element


def _truthy(result: object) -> bool:
    return bool(result)


def _parent_xpath(path: str, env: RuleEnv):
    """XPath of the element that would hold ``path`` (for the line of a missing field)."""
    head, sep, _ = path.rpartition("/")
    return compile_xpath(head, env.namespaces) if sep and head else None


#: A field written ``p:Child``, ``p:Child/@name`` or ``@name`` (the name of an attribute without a prefix).
_SIMPLE_FIELD = re.compile(
    r"\s*(?:([A-Za-z_][\w.-]*):([A-Za-z_][\w.-]*)\s*(?:/\s*@([A-Za-z_][\w.-]*))?|@([A-Za-z_][\w.-]*))\s*")

#: Whether a field is there at a node, given the document's memo.
_Test = Callable[[Any, dict], bool]


def _field_test(path: str, found: _Found, namespaces: dict[str, str], non_blank: bool) -> _Test:
    """Whether the field ``path`` is there (and not blank when ``non_blank``) at a node, as :meth:`RequiredCheck.check`
    decides it: a field of one child, an attribute of one, or an attribute of the node is read from the document's
    children index at an element; any other field, or at another node, through ``found``."""
    match = _SIMPLE_FIELD.fullmatch(path)
    if match is None or (match.group(1) is not None and match.group(1) not in namespaces):
        return lambda node, memo: _present(found(node, memo), non_blank)
    prefix, local, attribute, own = match.groups()
    if own is not None:
        return _own_attribute(own, found, non_blank)
    tag = f"{{{namespaces[prefix]}}}{local}"
    if attribute is None:
        return _child(tag, found, non_blank)
    return _child_attribute(tag, attribute, found, non_blank)


def _own_attribute(name: str, found: _Found, non_blank: bool) -> _Test:
    """``@name``."""

    def test(node: Any, memo: dict) -> bool:
        if type(node) is not _ELEMENT:
            return _present(found(node, memo), non_blank)
        value = node.get(name)
        return value is not None and (not non_blank or bool(value.strip()))

    return test


def _children(node: Any, tag: str, memo: dict) -> list:
    """The children of ``node`` with that tag, from the document's children index."""
    children = memo.get(node)
    if children is None:
        children = children_by_tag(node, memo)
    return children.get(tag) or []


def _child(tag: str, found: _Found, non_blank: bool) -> _Test:
    """``p:Child``: its children of that tag, as the general test reads them."""

    def test(node: Any, memo: dict) -> bool:
        if type(node) is not _ELEMENT:
            return _present(found(node, memo), non_blank)
        return _present(_children(node, tag, memo), non_blank)

    return test


def _child_attribute(tag: str, name: str, found: _Found, non_blank: bool) -> _Test:
    """``p:Child/@name``: the attribute of any of its children of that tag."""

    def test(node: Any, memo: dict) -> bool:
        if type(node) is not _ELEMENT:
            return _present(found(node, memo), non_blank)
        for each in _children(node, tag, memo):
            value = each.get(name)
            if value is not None and (not non_blank or value.strip()):
                return True
        return False

    return test


def _first_element(found: object) -> etree._Element | None:
    if isinstance(found, list):
        return next((node for node in found if isinstance(node, etree._Element)), None)
    return None


def _present(found: object, non_blank: bool) -> bool:
    if not isinstance(found, list):
        return bool(found)
    if not non_blank:
        return bool(found)
    for node in found:
        if isinstance(node, str):
            text = node
        elif len(node) == 0:  # a leaf: its text is all itertext() would give
            text = node.text or ""
        else:
            text = "".join(node.itertext())
        if text.strip():
            return True
    return False

"""The ``required`` check kind: fields that must be present (and not blank) in every context node."""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree
from pydantic import Field

from ..core.foreign import xpath_error
from ..core.text import Text
from ..core.xmlpath import element_xpath
from ._xpath import compile_xpath, item_number
from .base import CheckError, CheckInput, Finding, KindParams, RuleEnv
from .registry import check_kind

__all__ = ["RequiredCheck", "RequiredParams"]


class RequiredParams(KindParams):
    """Where to look and which fields must be there."""

    context: str = Field(default="/*",
                         description="XPath of the nodes that must hold the fields (may start with a place).")
    fields: list[str] = Field(min_length=1, description="XPaths relative to the context (elements or @attributes).")
    non_blank: bool = Field(default=True, description="An empty or whitespace-only value counts as missing.")
    when: str | None = Field(default=None,
                             description="XPath condition on the context (may use places); skip when false.")


@check_kind("required")
class RequiredCheck:
    """Each field must match at least one node (with non-blank text when ``non_blank``)."""

    Params = RequiredParams

    def __init__(self, params: RequiredParams, env: RuleEnv) -> None:
        self.params = params
        self.context = compile_xpath(env.xpath(params.context, "context"), env.namespaces, nodes=True)
        self.when = compile_xpath(env.xpath(params.when, "when"), env.namespaces) if params.when else None
        self.fields = [
            (path, compile_xpath(path, env.namespaces), _parent_xpath(path, env)) for path in params.fields
        ]

    def placeholders(self) -> set[str]:
        """``{field}``: the missing field's name."""
        return {"field"}

    def check(self, doc: CheckInput) -> Iterator[Finding]:
        for node in self.context(doc.root):
            if self.when is not None and not _truthy(self.when(node)):
                continue
            for path, xpath, parent in self.fields:
                try:
                    found = xpath(node)
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


def _truthy(result: object) -> bool:
    return bool(result)


def _parent_xpath(path: str, env: RuleEnv):
    """XPath of the element that would hold ``path`` (for the line of a missing field)."""
    head, sep, _ = path.rpartition("/")
    return compile_xpath(head, env.namespaces) if sep and head else None


def _first_element(found: object) -> etree._Element | None:
    if isinstance(found, list):
        return next((node for node in found if isinstance(node, etree._Element)), None)
    return None


def _present(found: object, non_blank: bool) -> bool:
    if not isinstance(found, list):
        return bool(found)
    for node in found:
        text = node if isinstance(node, str) else "".join(node.itertext())
        if not non_blank or text.strip():
            return True
    return False

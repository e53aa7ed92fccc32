"""Params of the ``required`` kind (pydantic): validated when a rule file loads."""

from __future__ import annotations

from pydantic import Field

from .kind_params import KindParams

__all__ = ["RequiredParams"]


class RequiredParams(KindParams):
    """Where to look and which fields must be there."""

    context: str = Field(default="/*",
                         description="XPath of the nodes that must hold the fields (may start with a place).")
    fields: list[str] = Field(min_length=1, description="XPaths relative to the context (elements or @attributes).")
    non_blank: bool = Field(default=True, description="An empty or whitespace-only value counts as missing.")
    when: str | None = Field(default=None,
                             description="XPath condition on the context (may use places); skip when false.")

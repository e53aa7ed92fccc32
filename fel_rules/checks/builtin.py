"""Imports the built-in check kinds so that they register themselves."""

from . import cross_document, expression, identity, required, signature  # noqa: F401

__all__: list[str] = []

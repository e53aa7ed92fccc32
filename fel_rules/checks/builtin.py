"""Imports the built-in check kinds so that they register themselves."""

from . import expression, identity, required  # noqa: F401

__all__: list[str] = []

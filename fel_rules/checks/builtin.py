"""The built-in check kinds, listed once: importing this module registers them (the package does it)."""

from . import cross_document, expression, identity, required, signature  # noqa: F401 - each registers its kinds with check_kind

__all__: list[str] = []

"""The ``fel-rules`` command line: validate, render, batch, rules, and commands contributed by plugins."""

from .app import main, run

__all__ = ["main", "run"]

"""Output formats for reports: JSON (canonical), linter-style text, and SARIF 2.1.0."""

from .json import render_json
from .sarif import render_sarif
from .text import render_text

__all__ = ["render_json", "render_sarif", "render_text"]

"""PDF rendering of FEL documents: view model, layout (reportlab), verifier QR (qrcode), themes.

The names load on first use: reading :class:`RenderSettings` (as a batch or the MCP server does before any PDF
is drawn) does not import reportlab.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .api import RenderResult, render_bytes, render_document, render_file, render_xml, warm_up_rendering
    from .settings import RenderSettings
    from .view import InvoiceView, build_view, verifier_url

#: Where each name lives.
_HOMES = {
    "InvoiceView": ".view", "RenderResult": ".api", "RenderSettings": ".settings", "build_view": ".view",
    "render_bytes": ".api", "render_document": ".api", "render_file": ".api", "render_xml": ".api",
    "verifier_url": ".view", "warm_up_rendering": ".api",
}

__all__ = [
    "InvoiceView", "RenderResult", "RenderSettings", "build_view", "render_bytes", "render_document", "render_file",
    "render_xml", "verifier_url", "warm_up_rendering",
]


def __getattr__(name: str) -> object:
    """Import a name from its module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

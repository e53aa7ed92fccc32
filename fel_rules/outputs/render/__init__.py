"""PDF rendering of FEL documents: view model, layout (reportlab), verifier QR (qrcode), themes."""

from .api import RenderResult, render_bytes, render_document, render_file, render_xml
from .settings import RenderSettings
from .view import InvoiceView, build_view, verifier_url

__all__ = [
    "InvoiceView", "RenderResult", "RenderSettings", "build_view", "render_bytes", "render_document", "render_file",
    "render_xml", "verifier_url",
]

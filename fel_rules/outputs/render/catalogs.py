"""Printed names: DTE types, currencies, and frase texts (from the frases catalogue the caller gives)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from ...expressions.catalogues import FraseEntry

__all__ = ["DTE_NAMES", "format_money", "frase_text", "tipo_name"]

#: DatosGenerales/@Tipo → (Spanish, English) printed name.
DTE_NAMES: dict[str, tuple[str, str]] = {
    "FACT": ("Factura", "Invoice"),
    "FCAM": ("Factura Cambiaria", "Exchange Invoice"),
    "FPEQ": ("Factura Pequeño Contribuyente", "Small Taxpayer Invoice"),
    "FCAP": ("Factura Cambiaria Pequeño Contribuyente", "Small Taxpayer Exchange Invoice"),
    "FESP": ("Factura Especial", "Special Invoice"),
    "NABN": ("Nota de Abono", "Credit Memo"),
    "RDON": ("Recibo por Donación", "Donation Receipt"),
    "RECI": ("Recibo", "Receipt"),
    "NDEB": ("Nota de Débito", "Debit Note"),
    "NCRE": ("Nota de Crédito", "Credit Note"),
    "FACA": ("Factura Contribuyente Agropecuario", "Agricultural Taxpayer Invoice"),
    "FCCA": ("Factura Cambiaria Contribuyente Agropecuario", "Agricultural Taxpayer Exchange Invoice"),
    "FAPE": ("Factura Pequeño Contribuyente Régimen Electrónico", "Small Taxpayer Electronic Regime Invoice"),
    "FCPE": ("Factura Cambiaria Pequeño Contribuyente Régimen Electrónico",
             "Small Taxpayer Electronic Regime Exchange Invoice"),
    "FAAE": ("Factura Contribuyente Agropecuario Régimen Electrónico Especial",
             "Agricultural Special Electronic Regime Invoice"),
    "FCAE": ("Factura Cambiaria Contribuyente Agropecuario Régimen Electrónico Especial",
             "Agricultural Special Electronic Regime Exchange Invoice"),
    "CIVA": ("Constancia de Exención de IVA", "IVA Exemption Certificate"),
    "CAIS": ("Constancia de Adquisición de Insumos y Servicios", "Inputs and Services Acquisition Certificate"),
    "NEV": ("Nota de Envío", "Delivery Note"),
    "RANT": ("Recibo por Anticipo", "Advance Payment Receipt"),
    "FACP": ("Factura Provisional", "Provisional Invoice"),
    "FEPE": ("Factura Específica", "Specific Invoice"),
    "FARP": ("Factura Régimen Primario", "Primary Regime Invoice"),
    "FCRP": ("Factura Cambiaria Régimen Primario", "Primary Regime Exchange Invoice"),
    "FPEC": ("Factura Régimen Pecuario", "Livestock Regime Invoice"),
    "FCPC": ("Factura Cambiaria Régimen Pecuario", "Livestock Regime Exchange Invoice"),
    "BIDP": ("Boleta de Despacho IDP", "IDP Dispatch Slip"),
}

_SYMBOLS = {"GTQ": "Q", "USD": "US$", "EUR": "€", "MXN": "MX$"}


def tipo_name(tipo: str | None, lang: str = "es") -> str:
    """Printed name of a DTE type (the code itself when unknown)."""
    names = DTE_NAMES.get(tipo or "")
    if names is None:
        return tipo or "Documento"
    return names[1] if lang == "en" else names[0]


def format_money(amount: Decimal | None, currency: str = "GTQ") -> str:
    """``Q 1,234.56``, ``US$ 1,234.56``; other currencies as ``HNL 1,234.56``."""
    if amount is None:
        return ""
    symbol = _SYMBOLS.get(currency.upper(), currency.upper())
    return f"{symbol} {amount:,.2f}" if amount >= 0 else f"-{symbol} {-amount:,.2f}"


def frase_text(frases: Mapping[tuple[str, str], FraseEntry], tipo: str | None, escenario: str | None,
               resolucion: str | None = None, fecha: str | None = None) -> str:
    """SAT's printed text for a frase of ``frases``; resolution number and date appended when the scenario has
    them."""
    entry = frases.get((str(tipo), str(escenario)))
    text, wants_resolution = (entry.text, entry.needs_resolution) if entry else ("", False)
    if not text:
        return f"Frase {tipo}, escenario {escenario}"
    if resolucion or (wants_resolution and fecha):
        parts = [text]
        if resolucion:
            parts.append(f"Resolución {resolucion}")
        if fecha:
            parts.append(f"de fecha {fecha}")
        return " ".join(parts)
    return text

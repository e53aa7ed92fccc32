"""Printed names: DTE types and taxes (from the message catalogue) and frase texts (from the frases catalogue the
caller gives)."""

from __future__ import annotations

from collections.abc import Mapping

from ...core.catalogue import MESSAGES, render_text
from ...core.text import Text
from ...expressions.catalogues import FraseEntry

__all__ = ["frase_text", "tax_name", "tipo_name"]


def tipo_name(tipo: str | None, lang: str = "es") -> str:
    """Printed name of a DTE type (the code itself when unknown, "Documento" when there is none)."""
    if not tipo:
        return render_text(Text("dte_type.none"), lang)
    if f"dte_type.{tipo}" not in MESSAGES.texts:
        return tipo
    return render_text(Text(f"dte_type.{tipo}"), lang)


def tax_name(nombre_corto: str | None, lang: str = "es") -> str:
    """The name a tax is printed with (``PETROLEO`` → ``IDP``), from the catalogue's ``tax.*`` texts; a tax the
    catalogue does not name is printed as the document writes it."""
    code = " ".join((nombre_corto or "").split())
    key = f"tax.{code.upper()}"
    return render_text(Text(key), lang) if key in MESSAGES.texts else code


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

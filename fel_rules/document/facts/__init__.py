"""Typed facts of FEL documents (frozen dataclasses, Decimal) and their extraction from XML."""

from .extract import extract_facts
from .model import (
    Address,
    Amount,
    Anulacion,
    Certificacion,
    Complemento,
    DatosGenerales,
    Documento,
    Emisor,
    Frase,
    Item,
    Located,
    Receptor,
    Tax,
    Text,
    Totales,
    TotalImpuesto,
)

__all__ = [
    "Address",
    "Amount",
    "Anulacion",
    "Certificacion",
    "Complemento",
    "DatosGenerales",
    "Documento",
    "Emisor",
    "Frase",
    "Item",
    "Located",
    "Receptor",
    "Tax",
    "Text",
    "TotalImpuesto",
    "Totales",
    "extract_facts",
]

"""Default values of the builders: certifier, example emisor, and per-type defaults."""

from __future__ import annotations

from collections.abc import Mapping

from .identifiers import nit_with_check_digit

__all__ = [
    "DEFAULT_EMISOR_NIT", "DEFAULT_FECHA", "FRASE_EXPORTACION", "SAT_CERTIFICADOR_NIT", "SAT_CERTIFICADOR_NOMBRE",
    "TIPOS_IVA_EXENTO", "TIPOS_SIN_IVA"
]

SAT_CERTIFICADOR_NIT = "16693949"
SAT_CERTIFICADOR_NOMBRE = "SUPERINTENDENCIA DE ADMINISTRACION TRIBUTARIA"

DEFAULT_EMISOR_NIT = nit_with_check_digit("8537264")
DEFAULT_FECHA = "2026-03-15T10:30:00-06:00"

# Defaults that depend on the document type (all overridable).
TIPOS_SIN_IVA = frozenset({"FPEQ", "FCAP", "NABN", "RECI"})
TIPOS_IVA_EXENTO = frozenset({"RDON"})
AFILIACION_POR_TIPO: Mapping[str, str] = {"FPEQ": "PEQ", "FCAP": "PEQ"}
FRASES_POR_TIPO: Mapping[str, tuple[tuple[int, int], ...]] = {
    "FACT": ((1, 1),),
    "FCAM": ((1, 1),),
    "FPEQ": ((3, 1),),
    "FCAP": ((3, 1),),
    "FESP": ((5, 1),),
    "RECI": ((4, 6),),
    "RDON": ((4, 4),),
}
FRASE_EXPORTACION = (4, 1)

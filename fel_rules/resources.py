"""Where the data files that ship with fel-rules live (rules, schemas)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["BUILTIN_RULES_DIR", "BUILTIN_XSD_DIR", "PROJECT_ROOT"]

PROJECT_ROOT = Path(__file__).resolve().parent.parent
BUILTIN_RULES_DIR = PROJECT_ROOT / "rules"
BUILTIN_XSD_DIR = PROJECT_ROOT / "xsd"

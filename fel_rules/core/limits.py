"""Default limits on what one document may hold (read by the command line without loading the settings model)."""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_ATTRIBUTES", "DEFAULT_MAX_BYTES", "DEFAULT_MAX_ITEMS", "DEFAULT_MAX_SCHEMA_ERRORS"]

#: Documents larger than this are refused before parsing (20 MB).
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
#: Documents with more lines than this are refused before the schema check (SAT's own maximum).
DEFAULT_MAX_ITEMS = 9999
#: Documents with an element carrying more attributes than this are refused before the schema check
#: (no FEL element has more than a dozen; the schema engine's work grows with the square of the count).
DEFAULT_MAX_ATTRIBUTES = 100
#: Schema errors described in one report; beyond that an information issue says the list was cut.
DEFAULT_MAX_SCHEMA_ERRORS = 200

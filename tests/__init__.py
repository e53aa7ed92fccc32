"""Test suite of fel-rules (a package, so that its modules import shared helpers relatively)."""

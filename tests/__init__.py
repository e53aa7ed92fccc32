"""Test suite of fel-rules (a package so that ``tests.support`` is importable)."""

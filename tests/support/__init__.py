"""Helpers for the test suite: an FEL document builder and verification utilities."""

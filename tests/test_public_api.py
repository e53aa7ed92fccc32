"""The public API is explicit and sorted; the package imports no heavy libraries."""

from __future__ import annotations

import subprocess
import sys

import fel_rules


def test_all_is_sorted_and_complete():
    assert fel_rules.__all__ == sorted(fel_rules.__all__)
    for name in fel_rules.__all__:
        assert hasattr(fel_rules, name), name


def test_import_does_not_load_xmlschema():
    code = "import sys, fel_rules; print('xmlschema' in sys.modules, 'reportlab' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False False"


def test_every_public_name_has_a_home():
    assert set(fel_rules.__all__) == {*fel_rules._HOMES, "__version__"}

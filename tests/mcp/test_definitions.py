"""``tools/list`` answers from the definitions file: the very definitions the registry and the tools' models give,
for every revision, without loading the engine or pydantic to list them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mcp_server import definitions
from mcp_server.protocol import HANDSHAKE_VERSIONS, MODERN_VERSIONS, at_least
from mcp_server.registry import TOOLS

from ..conftest import ROOT

REGENERATE = "python -m mcp_server.definitions"


def _live(version: str | None) -> list[dict]:
    """What each tool's definition gives for ``version``, made from the models now."""
    return [tool.definition(version, at_least) for tool in TOOLS.values()]


def test_the_file_holds_what_the_models_give():
    """Edited a tool's description or model, or the report's? Run ``python -m mcp_server.definitions``."""
    written = json.loads(definitions.DEFINITIONS_FILE.read_text(encoding="utf-8"))
    assert written == definitions.generate(), f"tool_definitions.json is out of date: run {REGENERATE}"


@pytest.mark.parametrize("version", [*HANDSHAKE_VERSIONS, *MODERN_VERSIONS, None])
def test_each_revision_gets_the_fields_it_defines(version):
    listed = definitions.for_version(version)
    assert listed == _live(version)
    assert [list(tool) for tool in listed] == [list(tool) for tool in _live(version)]  # same key order


def test_without_the_file_the_definitions_are_made(monkeypatch, tmp_path):
    for content in (None, b"{not json"):
        missing = tmp_path / "tool_definitions.json"
        if content is not None:
            missing.write_bytes(content)
        monkeypatch.setattr(definitions, "DEFINITIONS_FILE", missing)
        assert definitions.for_version("2025-11-25") == _live("2025-11-25")


LIST_ONLY = """
import sys
sys.path.insert(0, sys.argv[1])
from mcp_server.definitions import for_version
tools = for_version("2025-11-25")
print(len(tools), "pydantic" in sys.modules, "fel_rules.engine" in sys.modules)
"""


def test_listing_loads_neither_the_engine_nor_pydantic():
    result = subprocess.run([sys.executable, "-c", LIST_ONLY, str(ROOT)], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.split() == ["4", "False", "False"]


def test_the_writer_replaces_the_file_with_what_the_models_give(monkeypatch, tmp_path, capsys):
    target = tmp_path / "tool_definitions.json"
    target.write_text("[]", encoding="utf-8")
    monkeypatch.setattr(definitions, "DEFINITIONS_FILE", target)
    definitions.main()
    assert json.loads(target.read_text(encoding="utf-8")) == definitions.generate()
    assert target.stat().st_mode & 0o044 == 0o044  # readable by everyone, as package data
    assert "tool_definitions.json" in capsys.readouterr().err

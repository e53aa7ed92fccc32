"""``tools/list`` answers from the definitions file: the very definitions the registry and the tools' models give,
for every revision, without loading the engine or pydantic to list them; and the models' own when the file was not
made for this server (another ``xml_text`` limit) or cannot be used."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pydantic
import pytest

from mcp_server import definitions
from mcp_server.accept import DEFAULT_XML_TEXT_LIMIT
from mcp_server.protocol import HANDSHAKE_VERSIONS, MODERN_VERSIONS, at_least
from mcp_server.registry import TOOLS

from ..conftest import ROOT

REGENERATE = "python -m mcp_server.definitions"
#: The file is made with the default xml_text limit: with another one in this environment, the models give others.
DEFAULT_LIMIT = pytest.mark.skipif(definitions.XML_TEXT_LIMIT != DEFAULT_XML_TEXT_LIMIT,
                                   reason="FEL_MCP_MAX_XML_TEXT is set: the file is made with the default limit")


def _live(version: str | None) -> list[dict]:
    """What each tool's definition gives for ``version``, made from the models now."""
    return [tool.definition(version, at_least) for tool in TOOLS.values()]


@DEFAULT_LIMIT
def test_the_file_holds_what_the_models_give():
    """Edited a tool's description or model, or the report's? Run ``python -m mcp_server.definitions``. Compared as
    text: the order of the keys, which clients see, counts too."""
    written = definitions.DEFINITIONS_FILE.read_text(encoding="utf-8")
    made_with = json.loads(written)["made_with"]
    if made_with["pydantic"] != pydantic.VERSION:
        pytest.skip(f"the file was made with pydantic {made_with['pydantic']}, whose schemas this pydantic "
                    f"({pydantic.VERSION}) may write otherwise")
    assert written == definitions.render(), f"tool_definitions.json is out of date: run {REGENERATE}"


@pytest.mark.parametrize("version", [*HANDSHAKE_VERSIONS, *MODERN_VERSIONS, None])
def test_each_revision_gets_the_fields_it_defines(version):
    listed = definitions.for_version(version)
    assert listed == _live(version)
    assert json.dumps(listed) == json.dumps(_live(version))  # the same keys in the same order, at every depth


@pytest.mark.parametrize("content", [
    None, b"", b"{not json", b"null", b"{}", b"[]",
    json.dumps({"made_with": {"xml_text_limit": 1000, "pydantic": pydantic.VERSION},  # another server's limit
                "tools": _live("2026-07-28")}).encode(),
    json.dumps({"made_with": {}, "tools": _live("2026-07-28")}).encode(),
    json.dumps({"made_with": definitions.made(), "tools": []}).encode(),
    json.dumps({"made_with": definitions.made(), "tools": [{"name": "fel_validate"}]}).encode(),
])
def test_a_file_that_cannot_be_used_leaves_the_definitions_to_the_models(monkeypatch, tmp_path, content):
    path = tmp_path / "tool_definitions.json"
    if content is not None:
        path.write_bytes(content)
    monkeypatch.setattr(definitions, "DEFINITIONS_FILE", path)
    assert definitions.for_version("2025-11-25") == _live("2025-11-25")


LIST = """
import json, sys
sys.path.insert(0, sys.argv[1])
from mcp_server.definitions import for_version
tools = {tool["name"]: tool for tool in for_version("2025-11-25")}
limit = tools["fel_validate"]["inputSchema"]["properties"]["xml_text"]["anyOf"][0]["maxLength"]
print(json.dumps([len(tools), limit, "pydantic" in sys.modules, "fel_rules.engine" in sys.modules]))
"""


def _listed_in_a_fresh_process(**environment: str) -> list:
    env = {key: value for key, value in os.environ.items() if key != "FEL_MCP_MAX_XML_TEXT"}
    result = subprocess.run([sys.executable, "-c", LIST, str(ROOT)], capture_output=True, text=True, check=True,
                            timeout=60, env={**env, **environment})
    return json.loads(result.stdout)


def test_listing_loads_neither_the_engine_nor_pydantic():
    assert _listed_in_a_fresh_process() == [4, 2 * 1024 * 1024, False, False]


def test_a_server_with_its_own_xml_text_limit_lists_that_limit():
    """``FEL_MCP_MAX_XML_TEXT`` is the limit the tools enforce: the schemas a client sees say it too."""
    assert _listed_in_a_fresh_process(FEL_MCP_MAX_XML_TEXT="1000")[:2] == [4, 1000]


@DEFAULT_LIMIT
def test_the_writer_replaces_the_file_with_what_the_models_give(monkeypatch, tmp_path, capsys):
    target = tmp_path / "tool_definitions.json"
    target.write_text("[]", encoding="utf-8")
    monkeypatch.setattr(definitions, "DEFINITIONS_FILE", target)
    assert definitions.main() == 0
    assert target.read_text(encoding="utf-8") == definitions.render()
    assert target.stat().st_mode & 0o044 == 0o044  # readable by everyone, as package data
    assert "tool_definitions.json" in capsys.readouterr().err


@DEFAULT_LIMIT
def test_the_writer_says_why_it_cannot_write(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(definitions, "DEFINITIONS_FILE", tmp_path / "missing" / "tool_definitions.json")
    assert definitions.main() == 1
    assert "cannot write" in capsys.readouterr().err
    monkeypatch.setattr(definitions, "DEFINITIONS_FILE", tmp_path / "tool_definitions.json")
    monkeypatch.setattr(definitions, "XML_TEXT_LIMIT", 1000)
    assert definitions.main() == 1
    assert "FEL_MCP_MAX_XML_TEXT" in capsys.readouterr().err
    assert not (tmp_path / "tool_definitions.json").exists()

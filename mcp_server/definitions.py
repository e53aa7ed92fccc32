"""The tools' definitions as ``tools/list`` gives them, read from ``tool_definitions.json`` beside this module.

Their JSON schemas come from the tools' pydantic models (:mod:`mcp_server.tools`), and making them takes pydantic,
the report's model and a schema generation: some 180 ms, which an AI host would wait for between ``initialize``
and its first call (hosts list the tools before calling one). The file holds them made once, for the newest
revision; an older revision gets the same definitions without the fields it does not define. It also says what
it was made with: the limit of ``xml_text`` (a server started with another ``FEL_MCP_MAX_XML_TEXT`` makes its
definitions itself, so that they say its own limit) and the version of pydantic (whose schemas differ a little from
one version to another). It is written from the checkout by ``python -m mcp_server.definitions``, and
``tests/mcp/test_definitions.py`` keeps it equal to what the registry and the models give. Standard library only:
listing the tools imports neither the engine nor pydantic."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from .accept import DEFAULT_XML_TEXT_LIMIT, XML_TEXT_LIMIT
from .protocol import MODERN_VERSIONS, at_least

__all__ = ["DEFINITIONS_FILE", "for_version", "generate", "made", "render"]

DEFINITIONS_FILE = Path(__file__).with_name("tool_definitions.json")
_NEWEST = MODERN_VERSIONS[-1]
#: The revision that first defines each optional field of a tool definition (``name``, ``description`` and
#: ``inputSchema`` are in every revision).
_SINCE = {"annotations": "2025-03-26", "title": "2025-06-18", "outputSchema": "2025-06-18"}
_REQUIRED = (("name", str), ("description", str), ("inputSchema", dict))


def for_version(version: str | None) -> list[dict]:
    """The tool definitions for ``version`` (a revision the server speaks), in the registry's order. From the file
    when it was made for this server's ``xml_text`` limit; otherwise, or when it cannot be read or is not one,
    made from the models (correct, only slower)."""
    newest = _read(DEFINITIONS_FILE)
    if newest is None:
        newest = generate()
    return [{key: value for key, value in tool.items() if key not in _SINCE or at_least(version, _SINCE[key])}
            for tool in newest]


def _read(path: Path) -> list[dict] | None:
    """The definitions in the file at ``path``, or ``None``: it cannot be read, is not a file of definitions, or
    was made for another ``xml_text`` limit."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("made_with"), dict):
        return None
    tools = data.get("tools")
    if data["made_with"].get("xml_text_limit") != XML_TEXT_LIMIT or not isinstance(tools, list) or not tools:
        return None
    if not all(isinstance(tool, dict) and all(isinstance(tool.get(key), kind) for key, kind in _REQUIRED)
               for tool in tools):
        return None
    return tools


def generate() -> list[dict]:
    """The tool definitions for the newest revision, made from the registry and the tools' pydantic models."""
    from .registry import TOOLS

    return [tool.definition(_NEWEST, at_least) for tool in TOOLS.values()]


def made() -> dict[str, Any]:
    """What the definitions :func:`generate` gives depend on: the ``xml_text`` limit and pydantic's version."""
    from pydantic import VERSION

    return {"xml_text_limit": XML_TEXT_LIMIT, "pydantic": VERSION}


def render() -> str:
    """The text of the file, as :func:`main` writes it."""
    return json.dumps({"made_with": made(), "tools": generate()}, ensure_ascii=False, indent=1) + "\n"


def main() -> int:
    """Write :data:`DEFINITIONS_FILE` (atomically) from the checkout's registry and models, with the default
    ``xml_text`` limit; 1, saying why, when it cannot."""
    if XML_TEXT_LIMIT != DEFAULT_XML_TEXT_LIMIT:
        print(f"mcp_server.definitions: FEL_MCP_MAX_XML_TEXT is set ({XML_TEXT_LIMIT}): the file is made with the "
              f"default limit ({DEFAULT_XML_TEXT_LIMIT}); unset it and run again", file=sys.stderr)
        return 1
    import tempfile  # (only here: the server reads the file)

    text = render()
    try:
        handle, temporary = tempfile.mkstemp(prefix=".tool_definitions.", dir=DEFINITIONS_FILE.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.chmod(temporary, 0o644)  # (mkstemp makes it 0600: package data everyone reads)
            os.replace(temporary, DEFINITIONS_FILE)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as exc:
        print(f"mcp_server.definitions: cannot write {DEFINITIONS_FILE}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"{DEFINITIONS_FILE}: {len(text.encode())} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The tools' definitions as ``tools/list`` gives them, read from ``tool_definitions.json`` beside this module.

Their JSON schemas come from the tools' pydantic models (:mod:`mcp_server.tools`), and making them takes pydantic,
the report's model and a schema generation: some 180 ms, which an AI host would wait for between ``initialize``
and its first call (hosts list the tools before calling one). The file holds them made once, for the newest
revision; an older revision gets the same definitions without the fields it does not define. It is written by
``python -m mcp_server.definitions`` from the registry and the models, and ``tests/mcp/test_definitions.py`` keeps
it equal to what they give. Standard library only: listing the tools imports neither the engine nor pydantic."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from .protocol import MODERN_VERSIONS, at_least

__all__ = ["DEFINITIONS_FILE", "for_version", "generate"]

DEFINITIONS_FILE = Path(__file__).with_name("tool_definitions.json")
_NEWEST = MODERN_VERSIONS[-1]
#: The revision that first defines each optional field of a tool definition (``name``, ``description`` and
#: ``inputSchema`` are in every revision).
_SINCE = {"annotations": "2025-03-26", "title": "2025-06-18", "outputSchema": "2025-06-18"}


def for_version(version: str | None) -> list[dict]:
    """The tool definitions for ``version`` (a revision the server speaks), in the registry's order. From the file;
    made from the models when the file cannot be read (an installation that lost it still answers, only slower)."""
    try:
        newest = json.loads(DEFINITIONS_FILE.read_bytes())
    except (OSError, ValueError):
        newest = generate()
    return [{key: value for key, value in tool.items() if key not in _SINCE or at_least(version, _SINCE[key])}
            for tool in newest]


def generate() -> list[dict]:
    """The tool definitions for the newest revision, made from the registry and the tools' pydantic models."""
    from .registry import TOOLS

    return [tool.definition(_NEWEST, at_least) for tool in TOOLS.values()]


def main() -> None:
    """Write :data:`DEFINITIONS_FILE` from :func:`generate` (atomically)."""
    text = json.dumps(generate(), ensure_ascii=False, indent=1) + "\n"
    handle, temporary = tempfile.mkstemp(prefix=".tool_definitions.", dir=DEFINITIONS_FILE.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)  # (mkstemp makes it 0600: package data everyone reads)
        os.replace(temporary, DEFINITIONS_FILE)
    except BaseException:
        os.unlink(temporary)
        raise
    print(f"{DEFINITIONS_FILE}: {len(text.encode())} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()

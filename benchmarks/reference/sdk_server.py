"""Reference: the same fel_validate tool on the official MCP Python SDK (``mcp`` 2.x ``MCPServer``).

Used only by benchmarks/mcp.py (kept in its own folder so that ``import mcp`` finds the SDK) to compare against
the hand-written server in one run.
"""

from __future__ import annotations

from mcp.server import MCPServer

from fel_rules import Validator

server = MCPServer("fel-rules-sdk-reference")
_validator: Validator | None = None


@server.tool()
def fel_validate(xml_path: str) -> dict:
    """Validate a FEL XML document and return the report."""
    global _validator
    if _validator is None:
        _validator = Validator()
    return _validator.validate_path(xml_path).to_dict()


if __name__ == "__main__":
    server.run()

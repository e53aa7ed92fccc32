"""Hand-written MCP server over stdio (JSON-RPC 2.0, no SDK) exposing fel-rules to AI hosts.

Dual-era: the ``initialize`` handshake of revisions 2024-11-05 … 2025-11-25 and the stateless
2026-07-28 revision (``server/discover``, per-request ``_meta``). Tools: ``fel_validate``,
``fel_render``, ``fel_batch``, ``fel_rules``. Imports nothing heavy: the engine loads on the
first tool call, so the ``initialize`` answer never waits for it.
"""

__all__ = ["serve"]


def serve(*args, **kwargs):
    """Run the server on stdin/stdout (see :func:`mcp_server.server.serve`)."""
    from .server import serve as _serve

    return _serve(*args, **kwargs)

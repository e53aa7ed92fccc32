"""JSON-RPC 2.0 and MCP constants: revisions, error codes, message helpers (standard library only)."""

from __future__ import annotations

from typing import Any

__all__ = [
    "HANDSHAKE_VERSIONS", "INTERNAL_ERROR", "INVALID_PARAMS", "INVALID_REQUEST", "LATEST_HANDSHAKE",
    "META_CAPABILITIES", "META_CLIENT_INFO", "META_PROTOCOL_VERSION", "META_SERVER_INFO", "METHOD_NOT_FOUND",
    "MODERN_VERSIONS", "PARSE_ERROR", "UNSUPPORTED_PROTOCOL_VERSION", "RpcError", "at_least", "error_response",
    "invalid_request", "result_response", "tool_error", "usable_id", "well_formed",
]

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
LATEST_HANDSHAKE = HANDSHAKE_VERSIONS[-1]
_ORDER = HANDSHAKE_VERSIONS + MODERN_VERSIONS

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNSUPPORTED_PROTOCOL_VERSION = -32022


class RpcError(Exception):
    """A JSON-RPC error to send back (code, one-sentence message, optional data)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def at_least(version: str | None, minimum: str) -> bool:
    """True when ``version`` is ``minimum`` or a later revision."""
    return version in _ORDER and _ORDER.index(version) >= _ORDER.index(minimum)


def error_response(request_id: Any, code: int, message: str, data: Any = None) -> dict:
    """A JSON-RPC error response (``id`` null when it could not be read)."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def result_response(request_id: Any, result: dict) -> dict:
    """A JSON-RPC success response."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def tool_error(text: str) -> dict:
    """A ``tools/call`` result the model reads as a failure it can act on."""
    return {"content": [{"type": "text", "text": text}], "isError": True}


def usable_id(value: Any) -> Any:
    """The id if JSON-RPC allows it for a request (string or integer, not bool/null), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    return value


def well_formed(request: dict) -> bool:
    """True when a request (a message with an id) has a string method, a usable id and object params (or none)."""
    return (isinstance(request.get("method"), str) and usable_id(request["id"]) is not None
            and isinstance(request.get("params", {}), dict))


def invalid_request(message: Any, text: str) -> dict:
    """The ``Invalid Request`` error response to ``message`` (with its id when usable)."""
    request_id = message.get("id") if isinstance(message, dict) else None
    return error_response(usable_id(request_id), INVALID_REQUEST, text)

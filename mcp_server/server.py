"""The MCP server: era and version negotiation, method dispatch, tools on worker threads.

The reader thread keeps reading stdin while tools run, so ``ping`` and ``notifications/cancelled``
are handled at any time. On stdin EOF the server lets in-flight calls finish, then returns 0. When the
client closes stdout (EPIPE), nobody can read an answer any more: in-flight calls are cancelled, later
requests are read and dropped, and at stdin EOF the server returns 0 at once.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, BinaryIO

from fel_rules import __version__

from .channel import DEFAULT_LINE_LIMIT, Channel, LineTooLong, RawJson, dumps, protect_stdout
from .log import log_call, log_event
from .protocol import (
    HANDSHAKE_VERSIONS, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, LATEST_HANDSHAKE, META_CAPABILITIES,
    META_PROTOCOL_VERSION, META_SERVER_INFO, METHOD_NOT_FOUND, MODERN_VERSIONS, PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION, RpcError, at_least, error_response, result_response,
)
from .sandbox import Roots

__all__ = ["Server", "serve"]

SERVER_NAME = "fel-rules"
INSTRUCTIONS = (
    "fel-rules valida facturas electrónicas FEL de Guatemala (SAT). Use fel_validate antes de fel_render: "
    "un PDF solo se genera para documentos válidos (salvo force). fel_batch procesa carpetas completas; "
    "fel_rules explica las reglas. Las rutas deben estar dentro de las carpetas permitidas."
)
_EOF_GRACE_S = 600.0
_CLOSED_GRACE_S = 10.0  # stdout gone: how long cancelled calls get to stop


class Server:
    """Protocol state and dispatch; :meth:`handle_line` is the whole server for one input line."""

    def __init__(self, channel: Channel, roots: Roots, *, workers: int = 4) -> None:
        self.channel, self.roots = channel, roots
        self.era: str | None = None  # "legacy" | "modern", decided by the first request
        self.version: str | None = None  # negotiated legacy revision
        self.initialized = False
        self.info = {"name": SERVER_NAME, "version": __version__}
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fel-tool")
        self._inflight: dict[Any, tuple[Future, threading.Event]] = {}
        self._lock = threading.Lock()
        self._tools = None
        self._definitions: dict[str, list[dict]] = {}
        self._listings: dict[str, RawJson] = {}
        self._abandoned = False
        channel.on_close = self._abandon

    # --- input ------------------------------------------------------------------------------------

    def handle_line(self, line: bytes) -> None:
        """Parse one line and act on it (a response is sent now, or later for tool calls)."""
        import json

        if self.channel.closed:  # nobody reads the answers any more
            return
        try:
            message = json.loads(line)
        except ValueError:
            self.channel.send(error_response(None, PARSE_ERROR, "Parse error: the line is not valid JSON"))
            return
        except RecursionError:  # "[[[[…" nested deeper than the interpreter's stack: refuse it, keep serving
            self.channel.send(error_response(None, PARSE_ERROR, "Parse error: the JSON is nested too deeply"))
            return
        if isinstance(message, list):
            self._batch(message)
            return
        reply = self.handle(message)
        if reply is not None:
            self.channel.send(reply)

    def _batch(self, messages: list) -> None:
        if not messages or self.version != "2025-03-26":
            self.channel.send(error_response(None, INVALID_REQUEST, "Invalid Request: JSON-RPC batches are only "
                                             "accepted with protocol 2025-03-26"))
            return
        replies = []
        for message in messages:
            if (isinstance(message, dict) and message.get("method") == "initialize" and "id" in message
                    and message.get("jsonrpc") == "2.0"):  # a notification gets no answer; a bad envelope, handle's
                replies.append(error_response(_usable_id(message["id"]), INVALID_REQUEST,
                                              "Invalid Request: initialize must not be part of a batch"))
                continue
            reply = self.handle(message, inline=True)
            if isinstance(reply, RawJson):
                import json

                reply = json.loads(reply.text)
            if reply is not None:
                replies.append(reply)
        if replies:
            self.channel.send(replies)

    def handle(self, message: Any, *, inline: bool = False) -> dict | RawJson | None:
        """The response to ``message`` (``None`` for notifications and for tool calls answered later)."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            request_id = message.get("id") if isinstance(message, dict) else None
            return error_response(_usable_id(request_id), INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")
        method = message.get("method")
        if "id" not in message:
            if method is not None:
                self._notification(method, message.get("params"))
            return None  # a notification, or a response to a request we never send
        request_id = message["id"]
        params = message.get("params", {})
        if not isinstance(method, str) or _usable_id(request_id) is None or not isinstance(params, dict):
            return error_response(_usable_id(request_id), INVALID_REQUEST,
                                  "Invalid Request: needs a string method, a string or integer id, object params")
        started = time.perf_counter()
        try:
            outcome = self._request(request_id, method, params, inline)
        except RpcError as exc:
            log_call(method, _tool_name(method, params), "error", started, exc.message)
            return error_response(request_id, exc.code, exc.message, exc.data)
        except Exception as exc:  # noqa: BLE001 - a bug must not kill the loop; details to stderr only
            traceback.print_exc(file=sys.stderr)
            log_call(method, _tool_name(method, params), "error", started, repr(exc))
            return error_response(request_id, INTERNAL_ERROR, "Internal error")
        if outcome is None:
            return None
        log_call(method, None, "ok", started)
        if isinstance(outcome, RawJson):  # a pre-serialised result (tools/list)
            return RawJson(f'{{"jsonrpc":"2.0","id":{dumps(request_id)},"result":{outcome.text}}}')
        return result_response(request_id, outcome)

    def _notification(self, method: str, params: Any) -> None:
        if method == "notifications/initialized":
            if self.era == "legacy":
                self.initialized = True
        elif method == "notifications/cancelled" and isinstance(params, dict):
            request_id = _usable_id(params.get("requestId"))  # a list or object is unhashable: no such request
            if request_id is None:
                return
            with self._lock:
                entry = self._inflight.get(request_id)
            if entry is not None:
                entry[1].set()

    # --- requests ---------------------------------------------------------------------------------

    def _request(self, request_id: Any, method: str, params: dict, inline: bool) -> dict | None:
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        modern_version = meta.get(META_PROTOCOL_VERSION)
        if method == "initialize":
            return self._initialize(params)
        if modern_version is not None and self.era != "legacy":
            return self._modern(request_id, method, params, meta, modern_version, inline)
        if method == "ping":
            return {}
        if method == "server/discover":
            raise RpcError(METHOD_NOT_FOUND, "Method not found: server/discover needs the 2026-07-28 _meta envelope")
        if self.era != "legacy":
            raise RpcError(INVALID_REQUEST, "Invalid Request: send initialize first (or use the 2026-07-28 _meta envelope)")
        return self._operate(request_id, method, params, self.version, inline)

    def _initialize(self, params: dict) -> dict:
        if self.era == "modern":
            raise RpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                           {"supported": list(MODERN_VERSIONS), "requested": str(params.get("protocolVersion"))})
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: initialize needs protocolVersion")
        self.era = "legacy"
        self.version = requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE
        info = dict(self.info)
        if at_least(self.version, "2025-06-18"):
            info["title"] = "fel-rules — facturas FEL de Guatemala"
        return {"protocolVersion": self.version, "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": info, "instructions": INSTRUCTIONS}

    def _modern(self, request_id: Any, method: str, params: dict, meta: dict, version: Any, inline: bool) -> dict | None:
        if version not in MODERN_VERSIONS:
            raise RpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                           {"supported": list(MODERN_VERSIONS), "requested": str(version)})
        if not isinstance(meta.get(META_CAPABILITIES), dict):
            raise RpcError(INVALID_PARAMS, f"Invalid params: _meta[{META_CAPABILITIES!r}] is required")
        self.era = "modern"
        if method == "server/discover":
            result = {"supportedVersions": list(MODERN_VERSIONS + HANDSHAKE_VERSIONS[::-1]),
                      "capabilities": {"tools": {"listChanged": False}}, "instructions": INSTRUCTIONS,
                      "ttlMs": 3_600_000, "cacheScope": "public"}
        else:
            result = self._operate(request_id, method, params, version, inline)
            if result is None:
                return None
        return self._modern_envelope(result)

    def _modern_envelope(self, result: dict) -> dict:
        result["resultType"] = "complete"
        result["_meta"] = {**result.get("_meta", {}), META_SERVER_INFO: self.info}
        return result

    def _operate(self, request_id: Any, method: str, params: dict, version: str, inline: bool) -> dict | None:
        if method == "tools/list":
            if params.get("cursor") is not None:
                raise RpcError(INVALID_PARAMS, "Invalid params: unknown cursor (the list has one page)")
            result = {"tools": self._tool_definitions(version)}
            if version in MODERN_VERSIONS:
                result.update(ttlMs=3_600_000, cacheScope="public")
                return result
            return self._listing(version, result)
        if method == "tools/call":
            return self._call(request_id, params, version, inline)
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")

    def _listing(self, version: str, result: dict) -> RawJson:
        """The legacy ``tools/list`` result, serialised once per revision."""
        cached = self._listings.get(version)
        if cached is None:
            cached = self._listings[version] = RawJson(dumps(result))
        return cached

    def _tool_definitions(self, version: str) -> list[dict]:
        """Tool definitions for ``version``, built once (schemas are static for the process)."""
        cached = self._definitions.get(version)
        if cached is None:
            cached = self._definitions[version] = [tool.definition(version, at_least)
                                                   for tool in self._load_tools().values()]
        return cached

    def _load_tools(self):
        if self._tools is None:
            from .tools import TOOLS  # the engine loads here, never at initialize

            self._tools = TOOLS
        return self._tools

    # --- tools/call -------------------------------------------------------------------------------

    def _call(self, request_id: Any, params: dict, version: str, inline: bool) -> dict | None:
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: tools/call needs a string name and object arguments")
        tools = self._load_tools()
        if name not in tools:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}. Available: {', '.join(tools)}")
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        token = meta.get("progressToken")
        cancel = threading.Event()
        job = lambda: self._run_tool(tools[name], arguments, version, token, cancel)  # noqa: E731
        if inline:
            return job()
        if tools[name].is_quick(arguments, self.roots):  # milliseconds: answer now, no thread hop
            self._answer(request_id, name, job, cancel)
            return None
        with self._lock:
            if request_id in self._inflight:
                raise RpcError(INVALID_REQUEST, "Invalid Request: this id is already in flight")
            future = self._pool.submit(self._answer, request_id, name, job, cancel)
            self._inflight[request_id] = (future, cancel)
        return None

    def _answer(self, request_id: Any, name: str, job, cancel: threading.Event) -> None:
        started = time.perf_counter()
        try:
            result = job()
            response = _fast_response(request_id, result)
            log_call("tools/call", name, "tool_error" if result.get("isError") else "ok", started,
                     result["content"][0]["text"] if result.get("isError") else None)
        except Exception as exc:  # noqa: BLE001 - unexpected failure: short message out, details to stderr
            traceback.print_exc(file=sys.stderr)
            log_call("tools/call", name, "error", started, repr(exc))
            response = error_response(request_id, INTERNAL_ERROR, f"Internal error in {name}")
        finally:
            with self._lock:
                self._inflight.pop(request_id, None)
        if not cancel.is_set():  # a cancelled request gets no response
            self.channel.send(response)

    def _run_tool(self, tool, arguments: dict, version: str, token: Any, cancel: threading.Event) -> dict:
        from .tools import ToolContext, ToolFailure

        progress = None
        if token is not None:
            last = [0.0]

            def progress(done: float, total: float | None = None, message: str | None = None) -> None:
                if done <= last[0] or cancel.is_set():
                    return
                last[0] = done
                note: dict[str, Any] = {"progressToken": token, "progress": done}
                if total is not None:
                    note["total"] = total
                if message and at_least(version, "2025-03-26"):
                    note["message"] = message
                self.channel.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": note})

        try:
            structured, text = tool.call(arguments, ToolContext(self.roots, progress, cancel))
        except ToolFailure as exc:
            result: dict = {"content": [{"type": "text", "text": str(exc)}], "isError": True}
        else:
            serialised = dumps(structured)
            result = {"content": [{"type": "text", "text": serialised}, {"type": "text", "text": text}],
                      "isError": False}
            if at_least(version, "2025-06-18"):
                result["structuredContent"] = _Serialised(structured, serialised)
        if version in MODERN_VERSIONS:
            result = self._modern_envelope(result)
        return result

    # --- lifecycle --------------------------------------------------------------------------------

    def _abandon(self) -> None:
        """The client closed stdout: cancel every in-flight call (said once on stderr)."""
        with self._lock:
            if self._abandoned:
                return
            self._abandoned = True
            events = [cancel for _, cancel in self._inflight.values()]
        for cancel in events:
            cancel.set()
        log_event("stdout_closed", "el cliente cerró la salida estándar: se cancelan las llamadas en curso y se "
                                   "descartan las solicitudes hasta el fin de la entrada")

    def drain(self, timeout: float = _EOF_GRACE_S) -> None:
        """Wait (bounded) for in-flight tool calls, then stop the worker threads."""
        if self.channel.closed:
            self._abandon()
            timeout = min(timeout, _CLOSED_GRACE_S)
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                futures = [future for future, _ in self._inflight.values()]
            if not futures or time.monotonic() > deadline:
                break
            for future in futures:
                try:
                    future.result(timeout=max(0.0, deadline - time.monotonic()))
                except Exception:  # noqa: BLE001 - already answered as an error
                    pass
        self._pool.shutdown(wait=False, cancel_futures=True)


class _Serialised(dict):
    """A structured result carried with its JSON text, so the response never serialises it twice."""

    def __init__(self, value: dict, text: str) -> None:
        super().__init__(value)
        self.text = text


def _fast_response(request_id: Any, result: dict) -> RawJson | dict:
    """The response line for a tool result, splicing in the already serialised structured content."""
    structured = result.get("structuredContent")
    if not isinstance(structured, _Serialised):
        return result_response(request_id, result)
    rest = dumps({key: value for key, value in result.items() if key != "structuredContent"})
    return RawJson(f'{{"jsonrpc":"2.0","id":{dumps(request_id)},"result":{rest[:-1]},'
                   f'"structuredContent":{structured.text}}}}}')


def _usable_id(value: Any) -> Any:
    """The id if JSON-RPC allows it for a request (string or integer, not bool/null), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    return value


def _tool_name(method: str, params: dict) -> str | None:
    return params.get("name") if method == "tools/call" and isinstance(params.get("name"), str) else None


def serve(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None, *, roots: Roots | None = None,
          line_limit: int = DEFAULT_LINE_LIMIT) -> int:
    """Serve until stdin closes; returns the exit status (0)."""
    if stdout is None:
        stdout = protect_stdout()
    channel = Channel(stdin or sys.stdin.buffer, stdout, line_limit=line_limit)
    server = Server(channel, roots or Roots.from_env())
    while True:
        try:
            line = channel.read_line()
        except LineTooLong:
            channel.send(error_response(None, PARSE_ERROR, f"Parse error: line longer than {line_limit} bytes"))
            continue
        if line is None:
            break
        server.handle_line(line)
    server.drain()
    return 0

"""The MCP server: era and version negotiation, method dispatch, tools on worker threads.

The reader thread only reads, decodes and dispatches: every tool call — alone or inside a JSON-RPC
batch — runs on a worker thread, so ``ping``, ``initialize``, ``tools/list`` and
``notifications/cancelled`` are answered at once whatever the tools are doing. A cancelled call gets no
response (a batch stops at its next file; a call still queued never starts). On stdin EOF the server
lets in-flight calls finish (bounded by the EOF grace), then returns 0. SIGTERM, SIGINT and SIGHUP stop
it at once (status 128 + the signal). Whatever the way out, calls still running are cancelled and the
worker processes their batches started are stopped. When the client closes stdout (EPIPE), nobody can
read an answer any more: in-flight calls are cancelled, later requests are read and dropped, and at
stdin EOF the server returns 0 at once.

Every response is built as data and serialised once, by the channel.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any, BinaryIO, NamedTuple

from fel_rules import __version__

from .calls import Calls, Deliver
from .channel import DEFAULT_LINE_LIMIT, Channel, LineTooLong, protect_stdout, standard_input
from .log import capture_diagnostics, drain_log, log_call, log_event, log_failure
from .protocol import (
    HANDSHAKE_VERSIONS,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    LATEST_HANDSHAKE,
    META_CAPABILITIES,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    METHOD_NOT_FOUND,
    MODERN_VERSIONS,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    RpcError,
    at_least,
    error_response,
    invalid_request,
    result_response,
    tool_error,
    usable_id,
    well_formed,
)
from .sandbox import Roots
from .stopping import Stopped, StopSignals
from .toolbox import Toolbox

__all__ = ["Server", "serve"]

SERVER_NAME = "fel-rules"
INSTRUCTIONS = (
    "fel-rules valida facturas electrónicas FEL de Guatemala (SAT). Use fel_validate antes de fel_render: "
    "un PDF solo se genera para documentos válidos (salvo force). fel_batch procesa carpetas completas; "
    "fel_rules explica las reglas. Las rutas deben estar dentro de las carpetas permitidas."
)
EOF_GRACE_S = 600.0  # stdin closed: how long in-flight calls may still run (``--eof-grace``)
MAX_CALLS = 32  # tool calls running or queued at once (``--max-calls``); more are refused at once
_CLOSED_GRACE_S = 10.0  # stdout gone: how long cancelled calls get to stop
_STOP_GRACE_S = 5.0  # stopping: how long cancelled calls get before their worker processes are killed
_TTL = {"ttlMs": 3_600_000, "cacheScope": "public"}  # stateless results clients may cache


class _Request(NamedTuple):
    """A request with a usable envelope, and where its response goes."""

    id: Any
    method: str
    params: dict
    deliver: Deliver

    @property
    def meta(self) -> dict:
        """``params._meta`` (empty when missing or not an object)."""
        meta = self.params.get("_meta")
        return meta if isinstance(meta, dict) else {}

    @property
    def tool(self) -> str | None:
        """The tool a ``tools/call`` names, for the log."""
        name = self.params.get("name")
        return name if self.method == "tools/call" and isinstance(name, str) else None


class Server:
    """Protocol state and dispatch; :meth:`handle_line` is the whole server for one input line."""

    def __init__(self, channel: Channel, roots: Roots, *, workers: int = 4, max_calls: int = MAX_CALLS,
                 own_process: bool = False) -> None:
        self.channel, self.roots = channel, roots
        self.era: str | None = None  # "legacy" | "modern", decided by the first request
        self.version: str | None = None  # negotiated legacy revision
        self.initialized = False
        self.info = {"name": SERVER_NAME, "version": __version__}
        self.calls = Calls(workers, max_calls)
        self.toolbox = Toolbox(channel, roots, self._stamp, own_process=own_process)
        self._abandoned = False
        self._abandoning = threading.Lock()
        channel.on_close = self._abandon

    # --- input ------------------------------------------------------------------------------------

    def handle_line(self, line: bytes) -> None:
        """Decode one line and dispatch it (a response is sent now, or later for tool calls)."""
        if self.channel.closed:  # nobody reads the answers any more
            return
        try:
            message = json.loads(line, parse_constant=_not_json)
        except ValueError:
            self.channel.send(error_response(None, PARSE_ERROR, "Parse error: the line is not valid JSON"))
            return
        except RecursionError:  # "[[[[…" nested deeper than the interpreter's stack: refuse it, keep serving
            self.channel.send(error_response(None, PARSE_ERROR, "Parse error: the JSON is nested too deeply"))
            return
        if isinstance(message, list):
            self._batch(message)
        else:
            self.handle(message, self._send)

    def _send(self, reply: dict | None) -> None:
        if reply is not None:
            self.channel.send(reply)

    def _batch(self, messages: list) -> None:
        if not messages or self.version != "2025-03-26":
            self.channel.send(error_response(None, INVALID_REQUEST, "Invalid Request: JSON-RPC batches are only "
                                             "accepted with protocol 2025-03-26"))
            return
        replies = _BatchReplies(self.channel, len(messages))
        for index, message in enumerate(messages):
            deliver = partial(replies.put, index)
            if (isinstance(message, dict) and message.get("method") == "initialize" and "id" in message
                    and message.get("jsonrpc") == "2.0"):  # a notification gets no answer; a bad envelope, handle's
                deliver(error_response(usable_id(message["id"]), INVALID_REQUEST,
                                       "Invalid Request: initialize must not be part of a batch"))
                continue
            self.handle(message, deliver)

    def handle(self, message: Any, deliver: Deliver) -> None:
        """Answer ``message`` through ``deliver``, exactly once: at once for protocol methods, from a worker
        thread when a tool call ends (``None``: nothing to send — a notification, a cancelled call)."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            deliver(invalid_request(message, "Invalid Request: not a JSON-RPC 2.0 message"))
        elif "id" not in message:  # a notification, or a response to a request we never send
            self._notification(message.get("method"), message.get("params"))
            deliver(None)
        elif "method" not in message and ("result" in message or "error" in message):
            deliver(None)  # a response (this server sends no requests): JSON-RPC never answers one
        elif not well_formed(message):
            deliver(invalid_request(message, "Invalid Request: needs a string method, a string or integer id, "
                                             "object params"))
        else:
            self._respond(_Request(message["id"], message["method"], message.get("params", {}), deliver))

    def _notification(self, method: Any, params: Any) -> None:
        handler = _NOTIFICATIONS.get(method) if isinstance(method, str) else None
        if handler is not None:
            handler(self, params)

    def _initialized(self, params: Any) -> None:
        if self.era == "legacy":
            self.initialized = True

    def _cancelled(self, params: Any) -> None:
        if isinstance(params, dict):
            request_id = usable_id(params.get("requestId"))  # a list or object is unhashable: no such request
            if request_id is not None:
                self.calls.cancel(request_id)

    # --- requests ---------------------------------------------------------------------------------

    def _respond(self, request: _Request) -> None:
        """Dispatch ``request`` and deliver its response, logged (a tool call's comes when it ends)."""
        started = time.perf_counter()
        try:
            result = self._dispatch(request)
        except RpcError as exc:
            log_call(request.method, request.tool, "error", started, exc.message)
            request.deliver(error_response(request.id, exc.code, exc.message, exc.data))
            return
        except Exception as exc:  # noqa: BLE001 - a bug must not kill the loop; details to the log only
            log_failure(request.method, request.tool, started, exc)
            request.deliver(error_response(request.id, INTERNAL_ERROR, "Internal error"))
            return
        if result is None:
            return  # a tool call: answered when it ends
        if result.get("isError"):  # a tool call refused before it was queued
            log_call(request.method, request.tool, "tool_error", started, result["content"][0]["text"])
        else:
            log_call(request.method, None, "ok", started)
        request.deliver(result_response(request.id, result))

    def _dispatch(self, request: _Request) -> dict | None:
        """The result of ``request`` (``None``: a tool call, answered when it ends). ``initialize`` starts the
        handshake era; a request with the stateless ``_meta`` envelope starts the stateless one."""
        if request.method == "initialize":
            return self._initialize(request)
        version = request.meta.get(META_PROTOCOL_VERSION)
        if version is not None and self.era != "legacy":
            return self._stateless(request, version)
        method = _HANDSHAKE_METHODS.get(request.method, _UNKNOWN)
        if method.after_initialize and self.era != "legacy":
            raise RpcError(INVALID_REQUEST,
                           "Invalid Request: send initialize first (or use the 2026-07-28 _meta envelope)")
        return method.handler(self, request, self.version)

    def _initialize(self, request: _Request) -> dict:
        requested = request.params.get("protocolVersion")
        if self.era == "modern":
            raise RpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                           {"supported": list(MODERN_VERSIONS), "requested": str(requested)})
        if requested is None:  # clients of the original FEL server send "params": {}: the oldest revision
            requested = HANDSHAKE_VERSIONS[0]
        if not isinstance(requested, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: protocolVersion must be a string")
        self.era = "legacy"
        self.version = requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE
        self.toolbox.warm_up()
        info = dict(self.info)
        if at_least(self.version, "2025-06-18"):
            info["title"] = "fel-rules — facturas FEL de Guatemala"
        return {"protocolVersion": self.version, "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": info, "instructions": INSTRUCTIONS}

    def _stateless(self, request: _Request, version: Any) -> dict | None:
        """A request of the stateless revision: its ``_meta`` checked, then dispatched; results stamped."""
        if version not in MODERN_VERSIONS:
            raise RpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                           {"supported": list(MODERN_VERSIONS), "requested": str(version)})
        if not isinstance(request.meta.get(META_CAPABILITIES), dict):
            raise RpcError(INVALID_PARAMS, f"Invalid params: _meta[{META_CAPABILITIES!r}] is required")
        self.era = "modern"
        self.toolbox.warm_up()
        handler = _STATELESS_METHODS.get(request.method, Server._unknown)
        result = handler(self, request, version)
        return None if result is None else self._stamp(result)

    def _stamp(self, result: dict) -> dict:
        """A stateless result: complete, with the server's identity in ``_meta``."""
        result["resultType"] = "complete"
        result["_meta"] = {**result.get("_meta", {}), META_SERVER_INFO: self.info}
        return result

    # --- methods: handler(server, request, negotiated version) -> result, or None for a tool call ----------

    def _ping(self, request: _Request, version: str | None) -> dict:
        return {}

    def _discover(self, request: _Request, version: str) -> dict:
        # (the versions a request with the _meta envelope may name: a handshake revision there gets -32022, as the
        # reference server answers; clients of those revisions send initialize, never server/discover)
        return {"supportedVersions": list(MODERN_VERSIONS),
                "capabilities": {"tools": {"listChanged": False}}, "instructions": INSTRUCTIONS, **_TTL}

    def _discover_without_envelope(self, request: _Request, version: str | None) -> dict:
        raise RpcError(METHOD_NOT_FOUND, "Method not found: server/discover needs the 2026-07-28 _meta envelope")

    def _unknown(self, request: _Request, version: str | None) -> dict:
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")

    def _list_tools(self, request: _Request, version: str) -> dict:
        if request.params.get("cursor") is not None:
            raise RpcError(INVALID_PARAMS, "Invalid params: unknown cursor (the list has one page)")
        result = {"tools": self.toolbox.definitions(version)}
        if version in MODERN_VERSIONS:
            result.update(_TTL)
        return result

    def _call_tool(self, request: _Request, version: str) -> dict | None:
        """Queue the call on a worker thread (the reader never runs a tool); its response is delivered when it
        ends. Beyond ``max_calls`` calls in flight, the call is refused at once (a tool error the model can act
        on)."""
        name, arguments = request.params.get("name"), request.params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: tools/call needs a string name and object arguments")
        token = request.meta.get("progressToken")
        if token is not None and (type(token) is not str and type(token) is not int):
            raise RpcError(INVALID_PARAMS, "Invalid params: _meta.progressToken must be a string or an integer")
        work = partial(self.toolbox.answer, request.id, name, arguments, version, token)
        if self.calls.start(request.id, name, work, request.deliver):
            return None
        return tool_error(f"Servidor ocupado: ya hay {self.calls.limit} llamadas en curso (--max-calls). "
                          "Espere sus respuestas y vuelva a intentarlo.")

    # --- lifecycle --------------------------------------------------------------------------------

    def _abandon(self) -> None:
        """The client closed stdout: cancel every in-flight call (said once on stderr)."""
        with self._abandoning:
            if self._abandoned:
                return
            self._abandoned = True
        self.calls.cancel_all()
        log_event("stdout_closed", "el cliente cerró la salida estándar: se cancelan las llamadas en curso y se "
                                   "descartan las solicitudes hasta el fin de la entrada")

    def drain(self, timeout: float = EOF_GRACE_S) -> None:
        """Wait (at most ``timeout`` seconds) until every tool call has been answered."""
        if self.channel.closed:
            self._abandon()
            timeout = min(timeout, _CLOSED_GRACE_S)
        self.calls.wait_answered(timeout)

    def stop(self, grace: float = _STOP_GRACE_S) -> bool:
        """Cancel the calls still in flight (their responses are dropped) and stop the worker processes of
        the batches among them; True when there was something to stop."""
        return self.calls.stop(grace)


def _not_json(constant: str) -> float:
    """``json.loads``' hook for ``NaN``, ``Infinity`` and ``-Infinity``: Python's reader takes them, JSON has no such
    values (a request carrying one is a parse error, and nothing of it is ever echoed to stdout)."""
    raise ValueError(f"{constant} is not JSON")


class _Method(NamedTuple):
    """A method of the handshake era; most need ``initialize`` first."""

    handler: Callable[[Server, _Request, Any], dict | None]
    after_initialize: bool = True


_HANDSHAKE_METHODS: dict[str, _Method] = {
    "ping": _Method(Server._ping, after_initialize=False),
    "server/discover": _Method(Server._discover_without_envelope, after_initialize=False),
    "tools/list": _Method(Server._list_tools),
    "tools/call": _Method(Server._call_tool),
}
_UNKNOWN = _Method(Server._unknown, after_initialize=False)  # (-32601 whether or not initialize came first)
_STATELESS_METHODS: dict[str, Callable[[Server, _Request, Any], dict | None]] = {
    "server/discover": Server._discover,
    "tools/list": Server._list_tools,
    "tools/call": Server._call_tool,
}
_NOTIFICATIONS: dict[str, Callable[[Server, Any], None]] = {
    "notifications/initialized": Server._initialized,
    "notifications/cancelled": Server._cancelled,
}


class _BatchReplies:
    """The responses to one JSON-RPC batch, sent as one array once every member has been answered."""

    def __init__(self, channel: Channel, size: int) -> None:
        self._channel = channel
        self._replies: list[Any] = [None] * size
        self._waiting = size
        self._lock = threading.Lock()

    def put(self, index: int, reply: dict | None) -> None:
        """The answer to member ``index`` (``None``: nothing to send for it)."""
        with self._lock:
            self._replies[index] = reply
            self._waiting -= 1
            if self._waiting:
                return
        replies = [reply for reply in self._replies if reply is not None]
        if replies:  # all notifications or cancelled: nothing at all, never an empty array
            self._channel.send(replies)


def serve(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None, *, roots: Roots | None = None,
          line_limit: int = DEFAULT_LINE_LIMIT, eof_grace: float = EOF_GRACE_S, max_calls: int = MAX_CALLS) -> int:
    """Serve until stdin closes (0) or a stop signal arrives (128 + its number); never leaves a batch worker
    process running behind it."""
    own_process = stdout is None  # serving the process's own stdout: the server is the whole process
    if own_process:
        stdout = protect_stdout()
        capture_diagnostics()
    channel = Channel(stdin or standard_input(), stdout, line_limit=line_limit)
    server = Server(channel, roots or Roots.from_env(), max_calls=max_calls, own_process=own_process)
    status = 0
    with StopSignals() as signals:
        try:
            _read(channel, server)
            server.drain(eof_grace)
            signals.disarm()
            if server.stop():
                log_event("stdin_closed", f"fin de la entrada y {eof_grace:g} s de espera agotados: se cancelan las "
                                          "llamadas en curso y se detienen sus procesos de trabajo")
        except Stopped as stopped:
            name = signal.Signals(stopped.signum).name
            log_event("signal",
                      f"señal {name}: se cancelan las llamadas en curso y se detienen sus procesos de trabajo")
            server.stop()
            status = 128 + stopped.signum
    if own_process:
        drain_log()
    return status


def _read(channel: Channel, server: Server) -> None:
    """The reader loop: read, decode and dispatch every line until EOF."""
    while True:
        try:
            line = channel.read_line()
        except LineTooLong:
            channel.send(error_response(None, PARSE_ERROR, f"Parse error: line longer than {channel.line_limit} bytes"))
            continue
        if line is None:
            return
        server.handle_line(line)

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
"""

from __future__ import annotations

import json
import multiprocessing
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from functools import partial
from typing import Any, BinaryIO, NamedTuple

from fel_rules import __version__

from .channel import (
    DEFAULT_LINE_LIMIT,
    Channel,
    LineTooLong,
    RawJson,
    dumps,
    protect_stdout,
)
from .log import capture_diagnostics, log_call, log_event, log_failure
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
    result_response,
)
from .sandbox import Roots

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
_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name))

Deliver = Callable[[Any], None]  # takes the response to a message (``None``: nothing to send)


class Server:
    """Protocol state and dispatch; :meth:`handle_line` is the whole server for one input line."""

    def __init__(self, channel: Channel, roots: Roots, *, workers: int = 4, max_calls: int = MAX_CALLS) -> None:
        self.channel, self.roots, self.max_calls = channel, roots, max_calls
        self.era: str | None = None  # "legacy" | "modern", decided by the first request
        self.version: str | None = None  # negotiated legacy revision
        self.initialized = False
        self.info = {"name": SERVER_NAME, "version": __version__}
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fel-tool")
        self._inflight: dict[Any, _Call] = {}  # tool calls, by request id
        self._lock = threading.Lock()
        self._unanswered = 0  # tool calls whose response (or its suppression) is not delivered yet
        self._all_answered = threading.Condition(self._lock)
        self._tools = None
        self._definitions: dict[str, list[dict]] = {}
        self._listings: dict[str, RawJson] = {}
        self._abandoned = False
        channel.on_close = self._abandon

    # --- input ------------------------------------------------------------------------------------

    def handle_line(self, line: bytes) -> None:
        """Decode one line and dispatch it (a response is sent now, or later for tool calls)."""
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
        else:
            self.handle(message, self._send)

    def _send(self, reply: dict | RawJson | None) -> None:
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
                deliver(error_response(_usable_id(message["id"]), INVALID_REQUEST,
                                       "Invalid Request: initialize must not be part of a batch"))
                continue
            self.handle(message, deliver)

    def handle(self, message: Any, deliver: Deliver) -> None:
        """Answer ``message`` through ``deliver``, exactly once: at once for protocol methods, from a worker
        thread when a tool call ends (``None``: nothing to send — a notification, a cancelled call)."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            request_id = message.get("id") if isinstance(message, dict) else None
            deliver(error_response(_usable_id(request_id), INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message"))
            return
        method = message.get("method")
        if "id" not in message:
            if method is not None:
                self._notification(method, message.get("params"))
            deliver(None)  # a notification, or a response to a request we never send
            return
        request_id = message["id"]
        params = message.get("params", {})
        if not isinstance(method, str) or _usable_id(request_id) is None or not isinstance(params, dict):
            deliver(error_response(_usable_id(request_id), INVALID_REQUEST,
                                   "Invalid Request: needs a string method, a string or integer id, object params"))
            return
        started = time.perf_counter()
        try:
            outcome = self._request(request_id, method, params, deliver)
        except RpcError as exc:
            log_call(method, _tool_name(method, params), "error", started, exc.message)
            deliver(error_response(request_id, exc.code, exc.message, exc.data))
            return
        except Exception as exc:  # noqa: BLE001 - a bug must not kill the loop; details to the log only
            log_failure(method, _tool_name(method, params), started, exc)
            deliver(error_response(request_id, INTERNAL_ERROR, "Internal error"))
            return
        if outcome is None:
            return  # a tool call: answered when it ends
        if isinstance(outcome, dict) and outcome.get("isError"):  # a tool call refused before it was queued
            log_call(method, _tool_name(method, params), "tool_error", started, outcome["content"][0]["text"])
        else:
            log_call(method, None, "ok", started)
        if isinstance(outcome, RawJson):  # a pre-serialised result (tools/list)
            deliver(RawJson(f'{{"jsonrpc":"2.0","id":{dumps(request_id)},"result":{outcome.text}}}'))
        else:
            deliver(result_response(request_id, outcome))

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
                entry.cancel()

    # --- requests ---------------------------------------------------------------------------------

    def _request(self, request_id: Any, method: str, params: dict, deliver: Deliver) -> dict | None:
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        modern_version = meta.get(META_PROTOCOL_VERSION)
        if method == "initialize":
            return self._initialize(params)
        if modern_version is not None and self.era != "legacy":
            return self._modern(request_id, method, params, meta, modern_version, deliver)
        if method == "ping":
            return {}
        if method == "server/discover":
            raise RpcError(METHOD_NOT_FOUND, "Method not found: server/discover needs the 2026-07-28 _meta envelope")
        if self.era != "legacy":
            raise RpcError(INVALID_REQUEST, "Invalid Request: send initialize first (or use the 2026-07-28 _meta envelope)")
        return self._operate(request_id, method, params, self.version, deliver)

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

    def _modern(self, request_id: Any, method: str, params: dict, meta: dict, version: Any,
                deliver: Deliver) -> dict | None:
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
            result = self._operate(request_id, method, params, version, deliver)
            if result is None:
                return None
        return self._modern_envelope(result)

    def _modern_envelope(self, result: dict) -> dict:
        result["resultType"] = "complete"
        result["_meta"] = {**result.get("_meta", {}), META_SERVER_INFO: self.info}
        return result

    def _operate(self, request_id: Any, method: str, params: dict, version: str, deliver: Deliver) -> dict | None:
        if method == "tools/list":
            if params.get("cursor") is not None:
                raise RpcError(INVALID_PARAMS, "Invalid params: unknown cursor (the list has one page)")
            result = {"tools": self._tool_definitions(version)}
            if version in MODERN_VERSIONS:
                result.update(ttlMs=3_600_000, cacheScope="public")
                return result
            return self._listing(version, result)
        if method == "tools/call":
            return self._call(request_id, params, version, deliver)
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

    def _call(self, request_id: Any, params: dict, version: str, deliver: Deliver) -> dict | None:
        """Queue the call on a worker thread (the reader never runs a tool); ``deliver`` gets its response.
        Beyond ``max_calls`` calls in flight, the call is refused at once (a tool error the model can act on)."""
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: tools/call needs a string name and object arguments")
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        token = meta.get("progressToken")
        cancel = threading.Event()
        with self._lock:
            if request_id in self._inflight:
                raise RpcError(INVALID_REQUEST, "Invalid Request: this id is already in flight")
            if len(self._inflight) >= self.max_calls:
                return {"content": [{"type": "text", "text": (
                    f"Servidor ocupado: ya hay {self.max_calls} llamadas en curso (--max-calls). "
                    "Espere sus respuestas y vuelva a intentarlo.")}], "isError": True}
            future = self._pool.submit(self._answer, request_id, name, arguments, version, token, cancel)
            self._inflight[request_id] = _Call(name, future, cancel)
            self._unanswered += 1
        future.add_done_callback(partial(self._ended, request_id, name, cancel, deliver))
        return None

    def _answer(self, request_id: Any, name: str, arguments: dict, version: str, token: Any,
                cancel: threading.Event) -> dict | RawJson:
        """Run one tool call (on a worker thread); its response, an error response for a failure."""
        started = time.perf_counter()
        try:
            tools = self._load_tools()
            if name not in tools:
                raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}. Available: {', '.join(tools)}")
            result = self._run_tool(tools[name], arguments, version, token, cancel)
        except RpcError as exc:
            log_call("tools/call", name, "error", started, exc.message)
            return error_response(request_id, exc.code, exc.message, exc.data)
        except Exception as exc:  # noqa: BLE001 - unexpected failure: short message out, details to the log
            log_failure("tools/call", name, started, exc)
            return error_response(request_id, INTERNAL_ERROR, f"Internal error in {name}")
        log_call("tools/call", name, "tool_error" if result.get("isError") else "ok", started,
                 result["content"][0]["text"] if result.get("isError") else None)
        return _fast_response(request_id, result)

    def _ended(self, request_id: Any, name: str, cancel: threading.Event, deliver: Deliver, future: Future) -> None:
        """A call ended (or was cancelled before it started): deliver its response unless it was cancelled."""
        with self._lock:
            self._inflight.pop(request_id, None)
        try:
            if cancel.is_set() or future.cancelled():  # a cancelled request gets no response
                deliver(None)
            elif future.exception() is not None:  # not an Exception (those are answered): say so, stay up
                log_failure("tools/call", name, None, future.exception())
                deliver(error_response(request_id, INTERNAL_ERROR, f"Internal error in {name}"))
            else:
                deliver(future.result())
        finally:
            with self._lock:
                self._unanswered -= 1
                self._all_answered.notify_all()

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
            calls = list(self._inflight.values())
        for call in calls:
            call.cancel()
        log_event("stdout_closed", "el cliente cerró la salida estándar: se cancelan las llamadas en curso y se "
                                   "descartan las solicitudes hasta el fin de la entrada")

    def drain(self, timeout: float = EOF_GRACE_S) -> None:
        """Wait (at most ``timeout`` seconds) until every tool call has been answered."""
        if self.channel.closed:
            self._abandon()
            timeout = min(timeout, _CLOSED_GRACE_S)
        with self._all_answered:
            self._all_answered.wait_for(lambda: not self._unanswered, timeout)

    def stop(self, grace: float = _STOP_GRACE_S) -> bool:
        """Cancel the calls still in flight (their responses are dropped) and stop the worker processes of
        the batches among them; True when there was something to stop. Cancelled batches get ``grace``
        seconds to end while their worker processes are terminated; what is left then is killed."""
        with self._lock:
            calls = list(self._inflight.values())
        for call in calls:
            call.cancel()
        batches = [call.future for call in calls if call.tool == "fel_batch"]
        if batches:
            _stop_worker_processes(batches, grace)
        self._pool.shutdown(wait=False, cancel_futures=True)
        return bool(calls)


class _Call(NamedTuple):
    """A tool call in flight."""

    tool: str
    future: Future
    cancel_event: threading.Event

    def cancel(self) -> None:
        """A running call stops at its next checkpoint and its response is dropped; a queued one never starts."""
        self.cancel_event.set()
        self.future.cancel()


class _BatchReplies:
    """The responses to one JSON-RPC batch, sent as one array once every member has been answered."""

    def __init__(self, channel: Channel, size: int) -> None:
        self._channel = channel
        self._replies: list[Any] = [None] * size
        self._waiting = size
        self._lock = threading.Lock()

    def put(self, index: int, reply: dict | RawJson | None) -> None:
        """The answer to member ``index`` (``None``: nothing to send for it)."""
        with self._lock:
            self._replies[index] = reply
            self._waiting -= 1
            if self._waiting:
                return
        texts = [reply.text if isinstance(reply, RawJson) else dumps(reply) for reply in self._replies if reply is not None]
        if texts:  # all notifications or cancelled: nothing at all, never an empty array
            self._channel.send(RawJson(f"[{','.join(texts)}]"))


def _stop_worker_processes(batches: list[Future], grace: float) -> None:
    """Terminate this process's child processes — the workers of running batches — until ``batches`` have
    ended (a cancelled batch may start a replacement worker meanwhile); after ``grace`` seconds, kill them."""
    deadline = time.monotonic() + grace
    while True:
        for child in _child_processes():
            child.terminate()
        _, running = wait(batches, timeout=0.1)
        if not running or time.monotonic() > deadline:
            break
    for child in _child_processes():
        child.kill()
        child.join(1.0)


def _child_processes() -> list:
    try:
        return multiprocessing.active_children()
    except RuntimeError:  # another thread started a process meanwhile: the next round sees it
        return []


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


class Stopped(BaseException):
    """A stop signal arrived (a ``BaseException``, like ``KeyboardInterrupt``: no ``except Exception`` eats it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _StopSignals:
    """While active, the first SIGTERM, SIGINT or SIGHUP raises :class:`Stopped` in the main thread; later
    ones (and any after :meth:`disarm`) are ignored, so stopping is never interrupted. Only the main thread
    can handle signals: elsewhere (a server embedded in a thread) this does nothing."""

    def __init__(self) -> None:
        self.armed = True
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _StopSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in _STOP_SIGNALS:
                self._previous[signum] = signal.signal(signum, self._raise)
        return self

    def _raise(self, signum: int, frame: Any) -> None:
        if self.armed:
            self.armed = False
            raise Stopped(signum)

    def disarm(self) -> None:
        self.armed = False

    def __exit__(self, *exc_info: Any) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)


def serve(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None, *, roots: Roots | None = None,
          line_limit: int = DEFAULT_LINE_LIMIT, eof_grace: float = EOF_GRACE_S, max_calls: int = MAX_CALLS) -> int:
    """Serve until stdin closes (0) or a stop signal arrives (128 + its number); never leaves a batch worker
    process running behind it."""
    if stdout is None:
        stdout = protect_stdout()
        capture_diagnostics()
    channel = Channel(stdin or sys.stdin.buffer, stdout, line_limit=line_limit)
    server = Server(channel, roots or Roots.from_env(), max_calls=max_calls)
    status = 0
    with _StopSignals() as signals:
        try:
            _read(channel, server)
            server.drain(eof_grace)
            signals.disarm()
            if server.stop():
                log_event("stdin_closed", f"fin de la entrada y {eof_grace:g} s de espera agotados: se cancelan las "
                                          "llamadas en curso y se detienen sus procesos de trabajo")
        except Stopped as stopped:
            name = signal.Signals(stopped.signum).name
            log_event("signal", f"señal {name}: se cancelan las llamadas en curso y se detienen sus procesos de trabajo")
            server.stop()
            status = 128 + stopped.signum
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

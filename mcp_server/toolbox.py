"""The tools as the server sees them: loaded in the background as soon as a session starts (the engine, the
rules and the schema set with them, so the first call finds everything ready), listed per protocol revision
(their definitions read from the file :mod:`mcp_server.definitions` keeps: listing them waits for nothing),
and called on a worker thread with progress notifications."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from typing import Any

from .channel import Channel, dumps
from .log import log_call, log_event, log_failure
from .protocol import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    MODERN_VERSIONS,
    RpcError,
    at_least,
    error_response,
    result_response,
    tool_error,
)
from .sandbox import Roots

__all__ = ["Toolbox"]


class Toolbox:
    """The tools of :data:`mcp_server.registry.TOOLS`; ``stamp`` completes a result of the stateless revision;
    ``own_process``: the server is the whole process (its garbage collector is the server's to tune)."""

    def __init__(self, channel: Channel, roots: Roots, stamp: Callable[[dict], dict], *,
                 own_process: bool = False) -> None:
        self._channel, self._roots, self._stamp = channel, roots, stamp
        self._own_process = own_process
        self._tools = None
        self._definitions: dict[str, list[dict]] = {}
        self._warming: threading.Thread | None = None
        self._called = threading.Event()  # set once a tool call has come: the warm-up leaves the rest to the calls

    def warm_up(self) -> None:
        """Load the tools and the default validator (rules and schema set) on a background thread, once:
        ``initialize`` is answered at once, and the first call finds them ready. The definitions wait for
        ``tools/list``: a client that calls a tool straight away does not wait for its schemas."""
        if self._warming is not None:
            return
        self._warming = threading.Thread(target=self._warm, name="warm-up", daemon=True)
        self._warming.start()

    def _warm(self) -> None:
        """Load everything; in a process of its own, with the garbage collector paused (the engine's modules, models
        and rules are long-lived objects it would walk over and over), then leave them out of every collection.
        While no call has come, the default validator then validates a shipped sample (some 90 ms of CPU), and lays
        out its PDF (the PDF libraries loaded, some 200 ms): the first calls of a session find the signature
        verifier, the rules' compiled functions and the renderer made; a call that comes first is not kept waiting
        for that (it makes what it needs itself)."""
        started = time.perf_counter()
        collecting = self._own_process and gc.isenabled()
        if collecting:
            gc.disable()
        try:
            self.tools()
            from .handlers import warm_up, warm_up_rendering, warm_up_validation

            warm_up()
            log_event("warm_up", "tools, rules and schema set ready", ms=round((time.perf_counter() - started) * 1000))
            if warm_up_validation(until=self._called.is_set):
                log_event("warm_up", "validation ready", ms=round((time.perf_counter() - started) * 1000))
            if warm_up_rendering(until=self._called.is_set, roots=self._roots.paths):
                log_event("warm_up", "rendering ready", ms=round((time.perf_counter() - started) * 1000))
        except Exception as exc:  # noqa: BLE001 - the first call reports the same problem, as a tool error
            log_event("warm_up", f"warm-up failed: {type(exc).__name__}: {exc}")
        finally:
            if collecting:
                gc.freeze()
                gc.enable()

    def tools(self) -> dict:
        """Tool name → tool (its definition pieces, parameters and handler)."""
        if self._tools is None:
            from .registry import TOOLS  # the engine loads here, never at initialize

            self._tools = TOOLS
        return self._tools

    def definitions(self, version: str) -> list[dict]:
        """Tool definitions for ``version``, read once (:mod:`mcp_server.definitions`: neither the engine nor the
        tools' models are loaded to list them)."""
        cached = self._definitions.get(version)
        if cached is None:
            from .definitions import for_version

            cached = self._definitions[version] = for_version(version)
        return cached

    def answer(self, request_id: Any, name: str, arguments: dict, version: str, token: Any,
               cancel: threading.Event) -> dict:
        """Run one tool call (on a worker thread); its response, an error response for a failure."""
        started = time.perf_counter()
        self._called.set()
        try:
            tools = self.tools()
            if name not in tools:
                raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}. Available: {', '.join(tools)}")
            result = self._run(tools[name], arguments, version, token, cancel)
        except RpcError as exc:
            log_call("tools/call", name, "error", started, exc.message)
            return error_response(request_id, exc.code, exc.message, exc.data)
        except Exception as exc:  # noqa: BLE001 - unexpected failure: short message out, details to the log
            log_failure("tools/call", name, started, exc)
            return error_response(request_id, INTERNAL_ERROR, f"Internal error in {name}")
        failed = result["isError"]
        log_call("tools/call", name, "tool_error" if failed else "ok", started,
                 result["content"][0]["text"] if failed else None)
        return result_response(request_id, result)

    def _run(self, tool, arguments: dict, version: str, token: Any, cancel: threading.Event) -> dict:
        """The ``tools/call`` result: the structured output as JSON text and as ``structuredContent`` (from
        2025-06-18), then the summary line; or the failure the model should read (``isError``)."""
        from .handlers import ToolContext, ToolFailure

        progress = None if token is None else _ProgressNotes(self._channel, token, version, cancel)
        try:
            structured, text = tool.call(arguments, ToolContext(self._roots, progress, cancel))
        except ToolFailure as exc:
            result, structured = tool_error(str(exc)), None
        else:
            result = {"content": [{"type": "text", "text": dumps(structured)}, {"type": "text", "text": text}],
                      "isError": False}
        if version in MODERN_VERSIONS:
            result = self._stamp(result)
        if structured is not None and at_least(version, "2025-06-18"):
            result["structuredContent"] = structured  # last: the largest part closes the line
        return result


class _ProgressNotes:
    """``notifications/progress`` for one call: values only ever grow, none once it is cancelled, and the
    message only from 2025-03-26."""

    def __init__(self, channel: Channel, token: Any, version: str, cancel: threading.Event) -> None:
        self._channel, self._token, self._version, self._cancel = channel, token, version, cancel
        self._last = 0.0

    def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None:
        if done <= self._last or self._cancel.is_set():
            return
        self._last = done
        note: dict[str, Any] = {"progressToken": self._token, "progress": done}
        if total is not None:
            note["total"] = total
        if message and at_least(self._version, "2025-03-26"):
            note["message"] = message
        self._channel.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": note})

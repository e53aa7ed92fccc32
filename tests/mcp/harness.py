"""An in-process MCP session: the real server loop on a pipe, responses collected from a writer."""

from __future__ import annotations

import json
import os
import queue
import threading
from typing import Any

from mcp_server.sandbox import Roots
from mcp_server.server import serve

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "pytest", "version": "1"}}
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {},
               "io.modelcontextprotocol/clientInfo": {"name": "pytest", "version": "1"}}


class _Writer:
    """A binary sink that splits lines into a queue (what the client would read)."""

    def __init__(self) -> None:
        self.lines: queue.Queue[bytes] = queue.Queue()
        self._buffer = b""

    def write(self, data: bytes) -> int:
        self._buffer += data
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            self.lines.put(line)
        return len(data)

    def flush(self) -> None:
        pass


class Session:
    """Drive the server like a client: ``send`` raw lines or messages, ``receive`` parsed messages."""

    def __init__(self, roots: list[str], *, line_limit: int | None = None, **options: Any) -> None:
        read_fd, self._write_fd = os.pipe()
        self.writer = _Writer()
        kwargs = {"line_limit": line_limit, **options} if line_limit else options
        self.exit_code: int | None = None
        self.others: list = []
        self._closed = False
        stdin = os.fdopen(read_fd, "rb")

        def run() -> None:
            self.exit_code = serve(stdin, self.writer, roots=Roots(roots), **kwargs)

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def send(self, message: Any) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        os.write(self._write_fd, data + b"\n")

    def request(self, request_id: Any, method: str, params: dict | None = None) -> None:
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def receive(self, timeout: float = 30) -> Any:
        return json.loads(self.writer.lines.get(timeout=timeout))

    def response(self, request_id: Any, timeout: float = 30) -> dict:
        """The response for ``request_id`` (other messages received meanwhile are kept in ``others``)."""
        while True:
            message = self.receive(timeout)
            if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
                return message
            self.others.append(message)

    def call(self, request_id: Any, method: str, params: dict | None = None) -> dict:
        self.request(request_id, method, params)
        return self.response(request_id)

    def close(self, timeout: float = 60) -> int | None:
        """End the input (once) and wait for the server loop to return."""
        if not self._closed:
            self._closed = True
            os.close(self._write_fd)
        self.thread.join(timeout)
        return self.exit_code

    def initialize(self, version: str = "2025-11-25") -> dict:
        reply = self.call(0, "initialize", {**INIT, "protocolVersion": version})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply


def normalized(message: Any, root: str | None = None) -> Any:
    """A response without volatile data (the report's ``run``, the checkout's path) for snapshots."""
    if root is not None:
        message = json.loads(json.dumps(message).replace(root, "<root>"))
    if isinstance(message, list):
        return [normalized(m) for m in message]
    if not isinstance(message, dict):
        return message
    result = message.get("result")
    if isinstance(result, dict):
        structured = result.get("structuredContent")
        if isinstance(structured, dict):
            structured.pop("run", None)
        for block in result.get("content", []):
            try:
                data = json.loads(block.get("text", ""))
            except ValueError:
                continue
            if isinstance(data, dict) and "run" in data:
                data.pop("run")
                block["text"] = json.dumps(data, ensure_ascii=False)
    return message

"""Headless Chromium for the tests of the HTML page: the command line (``--dump-dom``, ``--screenshot``) and a
small driver over the DevTools protocol on a pipe (``--remote-debugging-pipe``: no port, no network, no
dependency) to click, type and read the page as a person would.

Chromium is Debian's ``chromium`` package (``.ci/run`` installs it); tests that need it skip without it.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import pytest

__all__ = ["CHROMIUM", "Browser", "chromium_command", "requires_chromium"]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

requires_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")

#: No sandbox (the tests run as root), and nothing that reaches out to the network.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--disable-extensions", "--mute-audio")
_TIMEOUT = 60.0


def chromium_command(profile: Path, *arguments: str) -> list[str]:
    """A chromium command line with the test flags and a fresh profile folder."""
    assert CHROMIUM is not None
    return [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *arguments]


class Browser:
    """One headless Chromium driven over ``--remote-debugging-pipe`` (the protocol's messages, each ended by a
    NUL byte, on the child's descriptors 3 and 4) with one page open."""

    def __init__(self, width: int = 1400, height: int = 1000) -> None:
        self._profile = tempfile.TemporaryDirectory(prefix="fel-chromium-", ignore_cleanup_errors=True)
        to_child, self._commands = os.pipe()
        self._replies, from_child = os.pipe()
        command = chromium_command(Path(self._profile.name), "--remote-debugging-pipe", "about:blank")
        # posix_spawn, not a fork running Python (safe while the tests run threads): the pipe's ends become the
        # child's 3 (read) and 4 (write), by way of free numbers so that neither overwrites the other.
        actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                   (os.POSIX_SPAWN_DUP2, to_child, 100), (os.POSIX_SPAWN_DUP2, from_child, 101),
                   (os.POSIX_SPAWN_DUP2, 100, 3), (os.POSIX_SPAWN_DUP2, 101, 4),
                   (os.POSIX_SPAWN_CLOSE, 100), (os.POSIX_SPAWN_CLOSE, 101)]
        self._pid = os.posix_spawn(command[0], command, os.environ, file_actions=actions, setsid=True)
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next_id = 0
        self._session: str | None = None
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """End Chromium (and the processes it started) and remove its profile."""
        self._session = None
        try:
            self.call("Browser.close")
        except (AssertionError, OSError):
            pass
        for fd in (self._commands, self._replies):
            try:
                os.close(fd)
            except OSError:
                pass
        deadline = time.monotonic() + 10
        while os.waitpid(self._pid, os.WNOHANG) == (0, 0) and time.monotonic() < deadline:
            time.sleep(0.05)
        try:
            os.killpg(self._pid, signal.SIGKILL)  # its own session: itself if still there, helpers left behind
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self._pid, 0)
        except ChildProcessError:  # reaped above
            pass
        self._profile.cleanup()

    def call(self, method: str, **params) -> dict:
        """Send one command and return its result (``AssertionError`` with the protocol's error)."""
        self._next_id += 1
        message: dict = {"id": self._next_id, "method": method, "params": params}
        if self._session is not None:
            message["sessionId"] = self._session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + _TIMEOUT
        while time.monotonic() < deadline:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                assert "error" not in reply, reply["error"]
                return reply.get("result", {})
        raise AssertionError(f"chromium did not answer {method} in {_TIMEOUT} s")

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise AssertionError("chromium stopped answering")
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                raise AssertionError("chromium closed its pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def open(self, path: Path) -> None:
        """Load the file at ``path`` and wait until it has loaded."""
        self.call("Page.navigate", url=path.resolve().as_uri())
        deadline = time.monotonic() + _TIMEOUT
        while self.eval("document.readyState") != "complete" or self.eval("location.protocol") != "file:":
            assert time.monotonic() < deadline, "the page did not load"
            time.sleep(0.05)

    def eval(self, expression: str):
        """The value of a JavaScript expression in the page (exceptions fail the test)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def screenshot(self, target: Path, *, full_page: bool = False) -> Path:
        """A PNG of the viewport (or of the whole page) at ``target``."""
        params: dict = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        target.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", **params)["data"]))
        return target

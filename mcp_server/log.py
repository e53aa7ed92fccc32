"""One JSON line per call on stderr: timestamp, method/tool, status, latency, error (never payloads)."""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime, timezone

__all__ = ["log_call", "log_event"]


def log_call(method: str, tool: str | None, status: str, started: float, error: str | None = None) -> None:
    """Write the log line for one handled request."""
    record = {
        "ts": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        "method": method,
        "tool": tool,
        "status": status,
        "latency_ms": round((time.perf_counter() - started) * 1000, 3),
        "error": error[:300] if error else None,
    }
    _write(record)


def log_event(event: str, message: str) -> None:
    """A log line about the server itself (not a call), e.g. the client closing stdout."""
    _write({"ts": datetime.now(timezone.utc).isoformat(timespec="milliseconds"), "event": event, "message": message})


def _write(record: dict) -> None:
    try:
        sys.stderr.write(json.dumps(record, ensure_ascii=False) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass

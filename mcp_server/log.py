"""One JSON line per call on stderr: timestamp, method/tool, status, latency, error (never payloads).

Everything else the server process says on stderr is a JSON line too: server events, unexpected
failures (the exception and the frames where it was raised, on one line), Python warnings,
exceptions that escape a thread, and the records of libraries that use :mod:`logging` — never a
multi-line traceback. The server never loads :mod:`logging` itself (some 9 ms of its start): its
records are routed the moment a library loads it.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

from .channel import one_line

__all__ = ["capture_diagnostics", "drain_log", "log_call", "log_event", "log_failure"]

_TRACE_FRAMES = 12  # innermost frames kept in a failure record
_LOCK = threading.Lock()  # one whole line at a time, whatever thread writes
_BACKLOG = 10_000  # call records waiting for a stderr nobody reads; past it, new ones are dropped and counted


class _CallLines:
    """The call records of a server process, written to stderr by a thread of their own. A host that pipes the
    server's stderr and never reads it fills the pipe: then only this thread waits, never the reader of stdin or a
    tool call. Past :data:`_BACKLOG` records waiting, new ones are dropped; how many is said once stderr drains."""

    def __init__(self) -> None:
        self.waiting: deque[dict] = deque()
        self.dropped = 0
        self.busy = False
        self.changed = threading.Condition()
        threading.Thread(target=self._run, name="fel-log", daemon=True).start()

    def put(self, record: dict) -> None:
        with self.changed:
            if len(self.waiting) >= _BACKLOG:
                self.dropped += 1
                return
            self.waiting.append(record)
            self.changed.notify_all()

    def drain(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until every record waiting is written."""
        with self.changed:
            self.changed.wait_for(lambda: not self.waiting and not self.busy, timeout)

    def _run(self) -> None:
        while True:
            with self.changed:
                self.changed.wait_for(lambda: bool(self.waiting))
                records, dropped = list(self.waiting), self.dropped
                self.waiting.clear()
                self.dropped, self.busy = 0, True
            for record in records:
                _write(record)
            if dropped:
                _write({"ts": _now(), "event": "log_dropped",
                        "message": f"{dropped} registros de llamadas descartados: nadie leía stderr"})
            with self.changed:
                self.busy = False
                self.changed.notify_all()


_call_lines: _CallLines | None = None  # (the server process's, once capture_diagnostics ran)


def log_call(method: str, tool: str | None, status: str, started: float, error: str | None = None) -> None:
    """Write the log line for one handled request (in the server process, by the thread of :class:`_CallLines`)."""
    record = _call_record(method, tool, status, started, error)
    if _call_lines is not None:
        _call_lines.put(record)
    else:
        _write(record)


def drain_log(timeout: float = 2.0) -> None:
    """Before the process ends: let the call records still waiting reach stderr (at most ``timeout`` seconds)."""
    if _call_lines is not None:
        _call_lines.drain(timeout)


def log_failure(method: str, tool: str | None, started: float | None, exc: BaseException) -> None:
    """Write the log line for a request that failed unexpectedly: the exception and where it was raised."""
    record = _call_record(method, tool, "error", started, repr(exc))
    record["trace"] = _frames(exc)
    _write(record)


def log_event(event: str, message: str, **details: object) -> None:
    """A log line about the server itself (not a call), e.g. the client closing stdout."""
    _write({"ts": _now(), "event": event, "message": message, **details})


def capture_diagnostics() -> None:
    """Route what Python would print as text blocks on stderr — warnings, exceptions escaping a thread or the
    main loop, ``logging`` records of libraries — to JSON lines (for the server process only); and write the call
    records from a thread of their own (:class:`_CallLines`)."""
    global _call_lines
    if _call_lines is None:
        _call_lines = _CallLines()
    warnings.showwarning = _log_warning
    sys.excepthook = lambda kind, exc, tb: _log_uncaught(exc, threading.current_thread().name)
    threading.excepthook = lambda args: _log_uncaught(args.exc_value, args.thread.name if args.thread else None)
    logging = sys.modules.get("logging")
    if logging is not None:
        _route_logging(logging)
    elif not any(isinstance(finder, _OnFirstImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OnFirstImport("logging", _route_logging))


def _call_record(method: str, tool: str | None, status: str, started: float | None, error: str | None) -> dict:
    return {
        "ts": _now(),
        "method": method,
        "tool": tool,
        "status": status,
        "latency_ms": None if started is None else round((time.perf_counter() - started) * 1000, 3),
        "error": error[:300] if error else None,
    }


def _frames(exc: BaseException | None) -> list[str]:
    """``folder/file.py:line function`` for the innermost frames of the exception's traceback."""
    if exc is None:
        return []
    import traceback  # (only a failure needs it)

    frames = traceback.extract_tb(exc.__traceback__)[-_TRACE_FRAMES:]
    return [f"{os.path.basename(os.path.dirname(f.filename))}/{os.path.basename(f.filename)}:{f.lineno} {f.name}"
            for f in frames]


def _log_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning``, as one JSON line."""
    log_event("warning", f"{category.__name__}: {message}"[:300], where=f"{os.path.basename(filename)}:{lineno}")


def _log_uncaught(exc: BaseException | None, thread: str | None) -> None:
    log_event("uncaught_exception", repr(exc)[:300], thread=thread, trace=_frames(exc))


def _route_logging(logging: ModuleType) -> None:
    """Records of ``logging`` from WARNING up, as JSON lines (the exception, if any, as frames)."""

    class JsonHandler(logging.Handler):
        def emit(self, record: Any) -> None:
            details = {"logger": str(record.name), "level": str(record.levelname).lower()}
            details.update(_said(lambda: _exception_details(record), {"error": "(sin descripción)"}))
            log_event("library_log", _said(lambda: _library_message(record), "(sin descripción)")[:300], **details)

    logging.basicConfig(level=logging.WARNING, handlers=[JsonHandler()])


def _library_message(record: Any) -> str:
    """A record's message; one whose arguments do not fit its format, as written with them beside it."""
    try:
        return str(record.getMessage())
    except Exception:  # noqa: BLE001 - a library's malformed record is still said, never raised back into it
        return f"{record.msg!s} {record.args!r}"


def _exception_details(record: Any) -> dict:
    """The exception a record carries (``exc_info``), as the log line says it: nothing when there is none."""
    exc = record.exc_info[1] if record.exc_info else None
    if not isinstance(exc, BaseException):
        return {}
    return {"error": _said(lambda: repr(exc), type(exc).__name__)[:300], "trace": _frames(exc)}


def _said(text: Callable[[], Any], otherwise: Any) -> Any:
    """``text()``, or ``otherwise`` when it cannot be made (a value whose ``repr`` or ``str`` fails, an
    ``exc_info`` that is no exception)."""
    try:
        return text()
    except Exception:  # noqa: BLE001 - what cannot be described is named, never raised into the caller
        return otherwise


class _OnFirstImport:
    """A finder of :data:`sys.meta_path` that lets the module ``name`` load as the other finders say and gives it to
    ``then`` once it has run; it leaves ``sys.meta_path`` then (a mere look for the module changes nothing)."""

    def __init__(self, name: str, then: Any) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name or getattr(_LOOKING, "now", False):
            return None
        _LOOKING.now = True
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    if spec.loader is not None:
                        spec.loader = _ThenLoader(spec.loader, self._loaded)
                    return spec
            return None
        finally:
            _LOOKING.now = False

    def _loaded(self, module: ModuleType) -> None:
        if sys.modules.get(self.name) is not module:  # (a copy loaded aside from a looked-up spec: not the one)
            return
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        self.then(module)


#: Set while :class:`_OnFirstImport` asks the other finders (one of them may look the module up again: not there).
_LOOKING = threading.local()


class _ThenLoader:
    """``loader``, calling ``then(module)`` once the module it loads has run; the module and its spec then hold
    ``loader`` itself again, as if nothing had come between."""

    def __init__(self, loader: Any, then: Any) -> None:
        self._loader, self._then = loader, then

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._then(module)

    def __getattr__(self, name: str) -> Any:  # (get_source, is_package…: the loader's own; none before __init__)
        if name == "_loader":
            raise AttributeError(name)
        return getattr(self._loader, name)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _write(record: dict) -> None:
    unicode = (getattr(sys.stderr, "encoding", None) or "").lower().replace("-", "").replace("_", "") == "utf8"
    line = one_line(json.dumps(record, ensure_ascii=not unicode)) + "\n"  # (JSON escapes on any other stderr)
    with _LOCK:
        try:
            sys.stderr.write(line)
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

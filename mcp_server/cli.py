"""Command line of the MCP server, also plugged into ``fel-rules serve`` (entry point group
``fel_rules.commands``), so the engine package never imports this one."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

__all__ = ["main", "register"]


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", action="append", default=[], metavar="DIR",
                        help="carpeta permitida para las rutas de las herramientas (repetible; también FEL_MCP_ROOTS; "
                             "por defecto el directorio de trabajo)")
    parser.add_argument("--max-line-bytes", type=int, default=None, metavar="N",
                        help="longitud máxima de un mensaje JSON-RPC (por defecto, la que admite el mayor xml_text "
                             "aceptado: 24 MiB para 2 MiB de texto)")
    parser.add_argument("--eof-grace", type=float, default=None, metavar="SEGUNDOS",
                        help="al cerrarse la entrada, cuánto pueden seguir las llamadas en curso antes de cancelarlas "
                             "y detener sus procesos de trabajo (600)")
    parser.add_argument("--max-calls", type=int, default=None, metavar="N",
                        help="llamadas a herramientas en curso o en cola a la vez; las demás se rechazan (32)")


def _run(args: argparse.Namespace) -> int:
    import os
    import sys

    from .accept import XML_TEXT_LIMIT, XML_TEXT_LIMIT_PROBLEM, line_limit_for
    from .sandbox import Roots
    from .server import EOF_GRACE_S, MAX_CALLS, serve

    if XML_TEXT_LIMIT_PROBLEM is not None:  # (before serving: a host shows the server's stderr when it fails to start)
        print(f"fel-rules serve: {XML_TEXT_LIMIT_PROBLEM}", file=sys.stderr)
        return 2
    code = serve(roots=Roots.from_env(args.root), line_limit=args.max_line_bytes or line_limit_for(XML_TEXT_LIMIT),
                 eof_grace=EOF_GRACE_S if args.eof_grace is None else max(0.0, args.eof_grace),
                 max_calls=max(1, args.max_calls or MAX_CALLS))
    # Every response is written and flushed: leave at once instead of tearing down the interpreter's
    # heap (about 90 ms with the engine loaded), so a host closing stdin sees the process gone promptly.
    sys.stderr.flush()
    os._exit(code)


def register(commands) -> Callable[[argparse.Namespace], int]:
    """Add ``serve`` to the ``fel-rules`` sub-commands; returns its handler."""
    parser = commands.add_parser("serve", help="servidor MCP por stdio (para Claude Desktop y otros hosts)",
                                 description="Servidor MCP (JSON-RPC 2.0 por stdio) con fel_validate, fel_render, "
                                             "fel_batch y fel_rules.")
    _add_arguments(parser)
    return _run


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mcp_server``."""
    parser = argparse.ArgumentParser(prog="python -m mcp_server", description="Servidor MCP de fel-rules por stdio.")
    _add_arguments(parser)
    return _run(parser.parse_args(argv))

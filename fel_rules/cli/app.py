"""Command line: ``fel-rules validate PATH... [options]`` and ``fel-rules render FILE [options]``.

Exit codes: 0 every document valid (or the PDF was written), 1 at least one invalid (or an issue at
``--fail-on``; for render: refused because invalid), 2 a document could not be validated or the
command was misused (missing path, bad rule file, bad logo, unwritable output…). When the reader of
stdout goes away (``fel-rules validate … | head -1``) the command stops quietly with 141, the status
of a program ended by SIGPIPE. Ctrl-C stops any command with one line and 130; SIGTERM stops a batch the
same way with 143 (workers ended, finished files recorded for ``--resume``).
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from decimal import Decimal, InvalidOperation
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..core.errors import FelRulesError, InputError
from ..core.inputs import readable_name
from ..core.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_ITEMS
from ..core.printable import escape_controls
from ..core.text import Text
from .argparse_words import argparse_language, wants_english
from .streams import OutputError, discard_output, guard_standard_streams, open_standard_streams

if TYPE_CHECKING:  # the settings, the report and the catalogue load with the command that needs them
    from ..core.report import Report, Severity

__all__ = ["main", "run"]

EXIT_VALID, EXIT_INVALID, EXIT_ERROR = 0, 1, 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a command whose reader went away
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143  # 128 + SIGINT (Ctrl-C), 128 + SIGTERM
COMMANDS_GROUP = "fel_rules.commands"
#: Page formats of the PDFs (those of ``RenderSettings.page``; the render package loads only when a command runs).
PAGE_NAMES = ("carta", "media-carta", "ticket")
#: The plug-in commands fel-rules' own distribution declares in COMMANDS_GROUP (pyproject.toml), by their
#: ``register``: the one about to run is loaded straight away, without reading every installed package's metadata
#: (``importlib.metadata`` and the scan take some 35 ms of the MCP server's start).
OWN_PLUGIN_COMMANDS = {"serve": "mcp_server.cli:register"}
#: Commands whose process may end without tearing down the interpreter once their output is flushed: everything
#: they do is finished when they return (a batch's executors and plug-ins' commands end the usual way).
_QUICK_EXIT_COMMANDS = frozenset({"validate", "render", "rules"})
#: Commands whose start-up (modules, models, rules: long-lived objects, no garbage) runs without the cyclic garbage
#: collector, which would otherwise walk them over and over; ``validate`` turns it back on once the engine is ready.
_UNCOLLECTED_START_UP = frozenset({"validate", "render"})
_start_up_uncollected = False


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse exits with 2 as well; keep one message style
        self.print_usage(sys.stderr)
        print(f"fel-rules: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_ERROR)

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse's formatter imports shutil (and its compression modules: some 4 ms of every run) to learn the
        # terminal's width; the same width, read here
        return self.formatter_class(prog=self.prog, width=_help_width())  # type: ignore[call-arg]


def _help_width() -> int:
    """The width argparse gives help text: the terminal's columns (``COLUMNS``, else stdout's terminal, else 80)
    less 2, as :func:`shutil.get_terminal_size` finds them."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


class _VersionAction(argparse.Action):
    """``-V`` / ``--version``: the version and the rule and schema sets in force, then exit 0."""

    def __init__(self, option_strings, dest, **kwargs) -> None:
        super().__init__(option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from .about import version_text

        print(version_text())
        parser.exit()


def _decimal(text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"no es un número decimal: {text!r}") from None
    if not value.is_finite() or value < 0:
        raise argparse.ArgumentTypeError(f"debe ser un número ≥ 0: {text!r}")
    return value


def _path_text(text: str) -> str:
    """A path argument as written; an empty one is refused (``""`` would otherwise mean the working folder: a
    script whose variable is unset would validate, or write into, whatever folder it runs in)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("una ruta vacía no es una ruta")
    return text


def _path(text: str) -> Path:
    return Path(_path_text(text))


def _positive_int(text: str) -> int:
    if not re.fullmatch(r"[0-9]{1,12}", text) or int(text) <= 0:
        raise argparse.ArgumentTypeError(f"debe ser un entero positivo: {text!r}")
    return int(text)


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"fecha inválida (AAAA-MM-DD): {text!r}") from None


def build_parser(*, plugins: bool = True, command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests); ``plugins=False`` leaves out the commands of
    other packages (finding them reads every installed package's metadata); ``command``, the command about to run:
    a built-in one or one of :data:`OWN_PLUGIN_COMMANDS` is the only command added (making the others' parsers costs
    some 5-10 ms of every run)."""
    parser = _Parser(prog="fel-rules", description="Valida facturas electrónicas FEL de Guatemala (SAT).")
    parser.plugin_commands = {}
    parser.add_argument("-V", "--version", action=_VersionAction,
                        help="mostrar la versión y los conjuntos de reglas y esquemas, y salir")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if command in _BUILT_IN_PARSERS:  # (the one command this run can take: the others' parsers are not made)
        _BUILT_IN_PARSERS[command](parser, commands)
        return parser
    if plugins and command in OWN_PLUGIN_COMMANDS:
        _add_own_plugin(parser, commands, command)
        return parser
    for add in _BUILT_IN_PARSERS.values():
        add(parser, commands)
    if plugins:
        from importlib.metadata import entry_points

        for entry in entry_points(group=COMMANDS_GROUP):  # e.g. `serve` from mcp_server
            parser.plugin_commands[entry.name] = entry.load()(commands)
    return parser


def _add_validate(parser: argparse.ArgumentParser, commands) -> None:
    """The ``validate`` command."""
    validate = commands.add_parser(
        "validate", help="validar documentos FEL", description="Valida uno o más XML FEL (un directorio = sus *.xml)."
    )
    validate.add_argument("paths", nargs="+", type=_path_text, metavar="PATH", help="archivo XML o directorio")
    validate.add_argument("--format", choices=("text", "json", "sarif", "html"), default="text",
                          help="formato de salida (html: una página autocontenida con resumen y tabla)")
    validate.add_argument("-o", "--output", type=_path, metavar="FILE",
                          help="escribir la salida en FILE (de forma atómica) en lugar de la salida estándar")
    shown = validate.add_mutually_exclusive_group()
    shown.add_argument("--min-severity", choices=("info", "warning", "error"), default="warning",
                       help="en el texto, mostrar los hallazgos desde esta severidad (por defecto warning: los "
                            "informativos se cuentan en la línea del veredicto)")
    shown.add_argument("--solo-errores", dest="min_severity", action="store_const", const="error",
                       help="en el texto, mostrar solo los errores (igual que --min-severity error)")
    validate.add_argument("--lang", choices=("es", "en"), default="es", help="idioma de los mensajes")
    validate.add_argument("--schema-dir", type=_path, metavar="DIR", help="carpeta oficial de XSD de SAT a usar")
    validate.add_argument("--schema-engine", choices=("auto", "xmlschema"), default="auto",
                          help="auto: libxml2 decide y xmlschema explica; xmlschema: xmlschema valida cada documento")
    validate.add_argument("--profile", type=_path_text, metavar="NAME",
                          help="perfil de reglas (rules/profiles/NAME.yaml o una ruta)")
    validate.add_argument("--rules-dir", type=_path, metavar="DIR", help="carpeta de reglas YAML")
    validate.add_argument("--fail-on", choices=("error", "warning"), default="error",
                          help="severidad mínima que hace fallar (código 1)")
    validate.add_argument("--tolerance", type=_decimal, metavar="AMOUNT", help="tolerancia aritmética (0.01)")
    validate.add_argument("--max-bytes", type=_positive_int, default=DEFAULT_MAX_BYTES, metavar="N",
                          help="tamaño máximo de un documento en bytes (20 MB)")
    validate.add_argument("--max-items", type=_positive_int, default=DEFAULT_MAX_ITEMS, metavar="N",
                          help="máximo de ítems por documento (9999, el límite de SAT)")
    validate.add_argument("--as-of", type=_date, metavar="AAAA-MM-DD",
                          help="usar las reglas vigentes en esta fecha en lugar de la fecha de emisión")


def _add_render(parser: argparse.ArgumentParser, commands) -> None:
    """The ``render`` command."""
    render = commands.add_parser(
        "render", help="imprimir un documento a PDF",
        description="Valida un XML FEL y lo imprime a PDF (un documento inválido se rechaza salvo con --force).",
    )
    render.add_argument("file", type=_path_text, metavar="FILE", help="XML del DTE")
    render.add_argument("--out", type=_path_text, metavar="PATH",  # (a str: a trailing "/" says "a folder")
                        help="PDF de salida, o carpeta (existente o terminada en /; "
                             "por defecto FEL_RULES_OUTPUT_DIR u out/)")
    render.add_argument("--logo", type=_path, metavar="PATH", help="logo PNG/JPEG (por defecto FEL_RULES_LOGO)")
    render.add_argument("--theme", choices=("clasico", "moderno"),
                        help="tema visual (por defecto FEL_RULES_THEME o clasico)")
    render.add_argument("--page", choices=PAGE_NAMES,
                        help="página: carta, media-carta o ticket de 80 mm (por defecto FEL_RULES_PAGE o carta)")
    render.add_argument("--lang", choices=("es", "en"), default="es", help="idioma de las etiquetas y mensajes")
    render.add_argument("--force", action="store_true", help="imprimir aunque no sea válido, marcado NO VÁLIDO")


def _add_batch(parser: argparse.ArgumentParser, commands) -> None:
    """The ``batch`` command."""
    batch = commands.add_parser(
        "batch", help="procesar una carpeta: reportes, PDFs y manifest.json",
        description="Valida (y por defecto imprime) cada XML de DIR; escribe reportes, PDFs y manifest.json en OUT.",
    )
    batch.add_argument("dir", type=_path, metavar="DIR", help="carpeta con los XML")
    batch.add_argument("--out", type=_path, metavar="OUT",
                       help="carpeta de salida (por defecto FEL_RULES_OUTPUT_DIR u out/)")
    batch.add_argument("--workers", type=_positive_int, metavar="N",
                       help="procesos (por defecto y como máximo, los núcleos disponibles)")
    batch.add_argument("--no-render", action="store_true", help="solo validar, sin PDFs")
    batch.add_argument("--recursive", action="store_true", help="incluir subcarpetas")
    batch.add_argument("--max-files", type=_positive_int, default=100_000, metavar="N",
                       help="máximo de archivos por lote (100000)")
    batch.add_argument("--max-bytes", type=_positive_int, default=DEFAULT_MAX_BYTES, metavar="N",
                       help="tamaño máximo de un documento en bytes (20 MB)")
    batch.add_argument("--resume", action="store_true", help="saltar archivos ya procesados sin cambios")
    batch.add_argument("--format", choices=("text", "json"), default="text", help="salida en la terminal")
    batch.add_argument("--lang", choices=("es", "en"), default="es", help="idioma de los mensajes")
    batch.add_argument("--logo", type=_path, metavar="PATH", help="logo de los PDFs (por defecto FEL_RULES_LOGO)")
    batch.add_argument("--logo-dir", type=_path, metavar="DIR",
                       help="logos por emisor: DIR/<NIT>.png o .jpg (los demás emisores llevan --logo)")
    batch.add_argument("--theme", choices=("clasico", "moderno"), help="tema de los PDFs")
    batch.add_argument("--page", choices=PAGE_NAMES, help="tamaño de página de los PDFs: carta, media-carta o ticket")
    batch.add_argument("--profile", type=_path_text, metavar="NAME", help="perfil de reglas")
    batch.add_argument("--rules-dir", type=_path, metavar="DIR", help="carpeta de reglas YAML")
    batch.add_argument("--schema-dir", type=_path, metavar="DIR", help="carpeta oficial de XSD de SAT a usar")
    batch.add_argument("--schema-engine", choices=("auto", "xmlschema"), default="auto",
                       help="auto: libxml2 decide y xmlschema explica; xmlschema: xmlschema valida cada documento")
    batch.add_argument("--executor", choices=("process", "dask"), default="process",
                       help="procesos locales, o un clúster Dask existente (extra fel-rules[dask])")
    batch.add_argument("--scheduler", metavar="ADDRESS", help="dirección del planificador Dask (tcp://host:8786)")


def _add_rules(parser: argparse.ArgumentParser, commands) -> None:
    """The ``rules`` command (its sub-commands are :mod:`.rules`')."""
    from . import rules

    rules.register(commands)
    parser.plugin_commands["rules"] = rules.run


#: The parser of each built-in command, added to the sub-commands.
_BUILT_IN_PARSERS: dict[str, Callable[[argparse.ArgumentParser, Any], None]] = {
    "validate": _add_validate, "render": _add_render, "batch": _add_batch, "rules": _add_rules}
#: The commands of this package; any other command (or none, for the help) is looked for among the plug-ins.
BUILT_IN_COMMANDS = frozenset(_BUILT_IN_PARSERS)


def _add_own_plugin(parser: argparse.ArgumentParser, commands, command: str) -> None:
    """Add ``command``, one of :data:`OWN_PLUGIN_COMMANDS`, through its ``register``."""
    module, _, register = OWN_PLUGIN_COMMANDS[command].partition(":")
    parser.plugin_commands[command] = getattr(import_module(module), register)(commands)  # type: ignore[attr-defined]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fel-rules`` console script."""
    try:
        return _main(argv)
    except BrokenPipeError:  # stdout closed early (``| head``): no traceback, nothing more to say
        return _stdout_gone()


def run() -> NoReturn:
    """Entry point of the ``fel-rules`` console script and ``python -m fel_rules``: :func:`main`, then the exit.

    Whatever the command, its output is flushed before the exit: output that cannot be written is said in one line
    and exit 2, a reader gone away ends it with 141 (see :mod:`.streams`). After ``validate``, ``render`` and
    ``rules`` the process then leaves at once: tearing down the interpreter's heap with the engine loaded takes
    longer than validating a document.
    """
    global _start_up_uncollected
    open_standard_streams()
    guard_standard_streams()
    command = _command_of(sys.argv[1:])
    if command in _UNCOLLECTED_START_UP and gc.isenabled():
        gc.disable()
        _start_up_uncollected = True
    try:
        code = main()
    except SystemExit as exc:  # argparse's own exits: --help, --version, bad arguments
        code = _exit_code(exc)
    except OutputError as exc:  # (what argparse wrote: the help, the version)
        code = _output_lost(exc)
    code = _flushed(code)
    if command not in _QUICK_EXIT_COMMANDS:
        sys.exit(code)
    sys.stderr.flush()
    os._exit(code)


def _exit_code(exit: SystemExit) -> int:
    """The status ``exit`` asks for; a text is said on stderr, as Python does, and gives 1."""
    if exit.code is None or isinstance(exit.code, int):
        return exit.code or 0
    print(exit.code, file=sys.stderr)
    return 1


def _flushed(code: int) -> int:
    """``code``, once stdout is flushed; 141 when its reader went away, 2 when it could not be written (said)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return _stdout_gone()
    except OutputError as exc:
        return _output_lost(exc)
    except ValueError:  # (closed: nothing left in it)
        pass
    return code


def _output_lost(exc: OutputError, lang: str | None = None) -> int:
    """Say that stdout could not be written (in the language the arguments ask for), and let go of what it holds."""
    discard_output()
    lang = lang or ("en" if wants_english(sys.argv[1:]) else "es")
    print(f"fel-rules: error: {escape_controls(exc.localized(lang))}", file=sys.stderr)
    return EXIT_ERROR


def _stdout_gone() -> int:
    """The exit code of a command whose reader went away; stdout now goes nowhere, so the interpreter's final flush
    does not fail a second time."""
    discard_output()
    return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    with argparse_language(words):
        command = _command_of(words)
        parser = build_parser(plugins=command not in BUILT_IN_COMMANDS, command=command)
        args = parser.parse_args(words)
    lang = getattr(args, "lang", "es")
    try:
        if args.command in parser.plugin_commands:
            code = parser.plugin_commands[args.command](args)
        elif args.command == "render":
            code = _render(args)
        elif args.command == "batch":
            code = _batch(args)
        else:
            code = _validate(args)
        sys.stdout.flush()  # (a full disk is said here, in the command's language)
        return code
    except OutputError as exc:
        return _output_lost(exc, lang)
    except FelRulesError as exc:
        print(f"fel-rules: error: {escape_controls(exc.localized(lang))}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as exc:  # a path of the command the system refuses (a folder that cannot be listed, a loop…)
        if exc.filename is None or isinstance(exc, BrokenPipeError):  # (not a path: stdout gone is said by main)
            raise
        return _path_refused(exc.filename, exc, lang)
    except RuntimeError as exc:
        if not str(exc).startswith("Symlink loop"):  # (pathlib's resolve() before Python 3.13)
            raise
        return _path_refused(str(exc).rpartition(" from ")[2].strip("'") or None, None, lang)
    except (KeyboardInterrupt, Terminated) as exc:
        return _interrupted(exc, args.command, lang)


def _path_refused(path: object, exc: OSError | None, lang: str) -> int:
    """One line for a file or folder the system would not let the command use (``exc``: why; ``None``: a loop of
    symbolic links), and the exit of an error of the command."""
    from ..core.atomic import describe_os_error
    from ..core.catalogue import render_text

    reason = Text("os_error.symlink_loop") if exc is None else describe_os_error(exc)
    shown = readable_name(os.fsdecode(path)) if isinstance(path, (str, bytes)) else "?"
    said = render_text(Text.of("file.cannot_use", path=shown, reason=reason), lang)
    print(f"fel-rules: error: {escape_controls(said)}", file=sys.stderr)
    return EXIT_ERROR


def _command_of(arguments: Sequence[str]) -> str | None:
    """The command ``arguments`` begin with, or ``None`` (none, or an option of the top level first: ``--help``,
    ``--version``, ``--``…, which the whole parser reads)."""
    return arguments[0] if arguments and not arguments[0].startswith("-") else None


class Terminated(BaseException):
    """SIGTERM arrived: unwinds like Ctrl-C, so workers are stopped and finished work stays recorded."""


@contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """Within the block SIGTERM raises :class:`Terminated` (in the main thread; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, functools.partial(_raise_terminated, os.getpid()))
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _raise_terminated(owner: int, _signum: int, _frame: object) -> None:
    if os.getpid() != owner:  # a batch worker forked before it reset its handlers: end as SIGTERM would
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise Terminated


def _interrupted(exc: BaseException, command: str, lang: str) -> int:
    """One line on stderr, and the status of a program ended by the signal (130 Ctrl-C, 143 SIGTERM)."""
    what = Text("cli.terminated") if isinstance(exc, Terminated) else Text("cli.interrupted")
    if command == "batch":
        what = Text.of("cli.batch_stopped", what=what)
    from ..core.catalogue import render_text

    print(f"fel-rules: {render_text(what, lang)}", file=sys.stderr)
    return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED


def _validate(args: argparse.Namespace) -> int:
    from ..core.config import Config
    from ..core.report import Severity
    from ..engine import Validator  # import the engine only when a command runs
    from ..outputs.formats import render_json, render_sarif, render_text

    settings: dict = {"lang": args.lang, "max_bytes": args.max_bytes, "max_items": args.max_items,
                      "profile": args.profile, "schema_dir": args.schema_dir, "as_of": args.as_of,
                      "schema_engine": args.schema_engine}
    if args.tolerance is not None:
        settings["tolerance"] = args.tolerance
    if args.rules_dir is not None:
        settings["rules_dir"] = args.rules_dir
    files = collect_files(args.paths, args.lang)
    if args.output is not None:
        _check_output(args.output, files)
    validator = Validator(Config(**settings))
    validator.schema_set  # noqa: B018 - compiled now: a broken schema folder is a usage error, not a per-file issue
    _started()
    if args.format == "html":
        reports, output = _html_page(validator, files, args.lang)
    else:
        reports = validator.validate_many(files)
    single = len(args.paths) == 1 and Path(args.paths[0]).is_file()
    if args.format == "json":
        output = render_json(reports, single=single)
    elif args.format == "sarif":
        output = render_sarif(reports)
    elif args.format == "text":
        output = render_text(reports, lang=args.lang, min_severity=Severity(args.min_severity))
    if args.output is None:
        sys.stdout.write(output + "\n")
    else:
        _write_output(args.output, output + "\n")
    return exit_code(reports, Severity(args.fail_on))


def _html_page(validator, files: Sequence[Path], lang: str) -> tuple[list[Report], str]:
    """The reports of ``files`` and the HTML page over them (with the names the page shows beside each)."""
    from ..outputs.formats.html import render_html
    from ..outputs.formats.listing import Listed

    outcomes = validator.inspect_many(((path, str(path)) for path in files), lines=False)
    documents = [Listed(path=outcome.report.document.path or readable_name(path), report=outcome.report,
                        facts=outcome.ledger) for path, outcome in zip(files, outcomes, strict=True)]
    return [outcome.report for outcome in outcomes], render_html(documents, lang=lang)


def _check_output(output: Path, inputs: Sequence[Path]) -> None:
    """``--output`` must not name one of the inputs (it would be replaced by the report about it)."""
    for path in inputs:
        try:
            same = output.exists() and os.path.samefile(output, path)
        except OSError:
            same = False
        if same:
            raise InputError(f"--output {output} es uno de los documentos a validar; elija otro archivo.",
                             message_en=f"--output {output} is one of the documents to validate; choose another file.")


def _write_output(output: Path, text: str) -> None:
    """Write ``text`` to ``output`` atomically (a regular file there is replaced; a folder, a link or a device is
    refused)."""
    from ..core.atomic import describe_os_error, write_atomic
    from ..core.catalogue import render_text as say

    try:
        write_atomic(output, text.encode("utf-8"))
    except OSError as exc:
        reason = describe_os_error(exc)
        raise InputError(f"no se pudo escribir {output}: {say(reason, 'es')}",
                         message_en=f"could not write {output}: {say(reason, 'en')}") from None


def _started() -> None:
    """The engine is loaded: if :func:`run` spared the start-up the garbage collector, collect again from here on
    (many documents may follow), with everything loaded so far left out of every collection."""
    global _start_up_uncollected
    if _start_up_uncollected:
        _start_up_uncollected = False
        gc.freeze()
        gc.enable()


def _render(args: argparse.Namespace) -> int:
    from ..core.catalogue import render_text
    from ..core.errors import RenderError
    from ..outputs.render import RenderSettings, render_file

    settings = RenderSettings.from_env(logo=args.logo, theme=args.theme, lang=args.lang, page=args.page)
    try:
        result = render_file(args.file, args.out, settings=settings, force=args.force)
    except RenderError as exc:
        print(f"fel-rules: error: {escape_controls(exc.localized(args.lang))}", file=sys.stderr)
        report = exc.report
        refused_as_invalid = report is not None and not report.valid and not report.could_not_validate
        return EXIT_INVALID if refused_as_invalid else EXIT_ERROR
    print(readable_name(result.path))
    for warning in result.warnings:
        note = render_text(Text("cli.warning"), args.lang)
        print(f"fel-rules: {note}: {escape_controls(render_text(warning, args.lang))}", file=sys.stderr)
    if not result.report.valid:
        print(f"fel-rules: {render_text(Text('cli.rendered_invalid'), args.lang)}", file=sys.stderr)
    return EXIT_VALID


def _batch(args: argparse.Namespace) -> int:
    from ..batch import BatchOptions, run_batch
    from ..core.catalogue import render_text
    from ..core.config import Config
    from ..outputs.render import RenderSettings

    settings = RenderSettings.from_env(logo=args.logo, logo_dir=args.logo_dir, theme=args.theme, lang=args.lang,
                                       page=args.page)
    options = BatchOptions(
        input_dir=args.dir, out_dir=args.out or settings.output_dir, workers=args.workers, render=not args.no_render,
        recursive=args.recursive, resume=args.resume, executor=args.executor, scheduler=args.scheduler,
        max_files=args.max_files, render_settings=settings,
        config=Config(lang=args.lang, profile=args.profile, schema_dir=args.schema_dir, max_bytes=args.max_bytes,
                      schema_engine=args.schema_engine,
                      **({"rules_dir": args.rules_dir} if args.rules_dir is not None else {})),
    )
    with _sigterm_unwinds():  # stop cleanly: workers ended, journal kept
        result = run_batch(options)
    manifest = result.manifest
    if args.format == "json":
        sys.stdout.write(manifest.to_json() + "\n")
    else:
        for entry in manifest.entries:
            print(escape_controls(_batch_line(entry, result.path.parent, args.lang)))
        summary = manifest.summary.model_dump()
        print(render_text(Text("batch.summary", {**summary, "where": readable_name(result.path)}), args.lang))
    return result.exit_code


def _batch_line(entry, out_dir: Path, lang: str) -> str:
    """The terminal line of one manifest entry: its verdict, then its PDF, why it has none or its first error, then
    the warnings about its PDF (``; aviso: …``)."""
    from ..batch.manifest import first_error
    from ..core.catalogue import render_text

    if entry.error:
        state, detail = "ERROR", entry.error
    else:
        verdict = "report.verdict.valid" if entry.valid else "report.verdict.invalid"
        state = render_text(Text(verdict), lang)
        detail = entry.pdf or entry.pdf_note or ""
        first = first_error(out_dir, entry)
        if first is not None:  # what to fix first: the first error's rule and message
            detail = f"{first[0]} {first[1]}"
    note = render_text(Text("cli.warning"), lang)
    return f"{entry.path}: {state} {detail}".rstrip() + "".join(f"; {note}: {w}" for w in entry.pdf_warnings)


def collect_files(paths: Sequence[str], lang: str = "es") -> list[Path]:
    """Files to validate: each path itself, or a directory's ``*.xml`` (sorted, any case; a FIFO, a device or a
    broken link there gets its own report saying why it was not read)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        try:
            path.exists()
        except OSError as exc:  # e.g. a name longer than the file system allows, which exists() does not swallow
            from ..core.atomic import describe_os_error
            from ..core.catalogue import error_texts

            raise InputError(**error_texts(Text.of("cli.path_refused", path=path, reason=describe_os_error(exc))),
                             detail=str(exc)) from None
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() == ".xml" and not p.is_dir())
            if not found:
                raise InputError(f"El directorio no contiene archivos .xml: {path}",
                                 message_en=f"The directory contains no .xml files: {path}")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        elif path.exists():
            raise InputError(f"No es un archivo regular ni un directorio: {path}",
                             message_en=f"Not a regular file or directory: {path}")
        else:
            raise InputError(f"No existe el archivo o directorio: {path}",
                             message_en=f"No such file or directory: {path}")
    return files


def exit_code(reports: Sequence[Report], fail_on: Severity | None = None) -> int:
    """2 if any document could not be validated, else 1 if any failed (an issue at ``fail_on`` or above: an error
    by default), else 0."""
    if fail_on is None:
        from ..core.report import Severity

        fail_on = Severity.ERROR
    codes = [report.exit_code(fail_on) for report in reports]
    if EXIT_ERROR in codes:
        return EXIT_ERROR
    return EXIT_INVALID if EXIT_INVALID in codes else EXIT_VALID


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

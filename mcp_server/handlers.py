"""What the four tools do, through fel_rules' public API only. A handler takes its arguments, already checked, as
attributes (``args.xml_path``…). Importing this module loads the engine and nothing else: rendering (reportlab),
batches and the tools' pydantic models (for fel_render's and fel_batch's outputs) load with their first call,
so a server that only validates never imports them."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import fel_rules
from fel_rules import Config, Text, Validator, render_text

from .sandbox import Roots

__all__ = ["ToolContext", "ToolFailure", "batch", "render", "rules", "validate", "warm_up", "warm_up_validation"]

_COMPACT_DROPS = ("rulesets", "schema", "run")
_SHOWN_ERRORS = 5


class ToolFailure(Exception):
    """A failure the model should see and can act on (returned with ``isError: true``)."""


@dataclass
class ToolContext:
    """What a handler may use besides its arguments."""

    roots: Roots
    progress: Callable[[float, float | None, str | None], None] | None = None
    cancel: threading.Event | None = None


_VALIDATORS: dict[tuple[str, str | None], Validator] = {}
_VALIDATORS_LOCK = threading.Lock()


def _validator(lang: str, profile: str | None) -> Validator:
    """The server's validator for ``lang`` and ``profile``, current with the rule and profile files (an edited file
    is read again by the next call: :meth:`~fel_rules.Validator.current`)."""
    with _VALIDATORS_LOCK:
        key = (lang, profile)
        known = _VALIDATORS.get(key)
        validator = _VALIDATORS[key] = Validator(Config(lang=lang, profile=profile)) if known is None \
            else known.current()
        return validator


def warm_up() -> None:
    """Build the default validator (rules loaded, schema set compiled) before the first call needs it."""
    _validator("es", None).schema_set  # noqa: B018 - compiled now


def warm_up_validation(until: Callable[[], bool]) -> bool:
    """Let the default validator validate a shipped sample (:meth:`~fel_rules.engine.Validator.warm_up`), unless
    ``until()`` says a call has come: the next calls find the signature verifier, the rules' compiled functions and
    the certificate parser made too. True when it was done."""
    return _validator("es", None).warm_up(until=until, certificates=True)


def warm_up_rendering(until: Callable[[], bool], roots: Sequence[Path] = ()) -> bool:
    """Let the default validator's PDF be made once (:func:`fel_rules.warm_up_rendering`: the PDF
    libraries, the fonts, the layout) and load the tools' output models, unless ``until()`` says a call has come:
    the first ``fel_render`` of a session then takes some milliseconds instead of some hundreds. The logo is read
    inside ``roots`` (the server's), as the calls read it. True when it was done."""
    if until():
        return False
    if not fel_rules.warm_up_rendering(_validator("es", None), roots=roots, until=until) or until():
        return False
    from . import tools  # noqa: F401 - the models of the tools' outputs, which a fel_render result is made with

    return True


def _profile(profile: str | None, ctx: ToolContext) -> str | None:
    """A profile name (rules/profiles/NAME.yaml) as given; a profile given as a file, like every path a tool
    reads, must be inside the allowed roots."""
    if profile and (Path(profile).suffix in (".yaml", ".yml") or "/" in profile):
        return str(ctx.roots.check(profile))
    return profile


# --- fel_validate ---------------------------------------------------------------------------------


def validate(args: SimpleNamespace, ctx: ToolContext) -> tuple[dict, str]:
    """fel_validate: the report (``ok`` first), and a summary line with the first errors."""
    validator = _validator(args.lang, _profile(args.profile, ctx))
    if args.xml_path is not None:
        report = validator.validate_path(ctx.roots.check(args.xml_path), name=args.xml_path,
                                         roots=ctx.roots.paths)  # (judged again on the opened file)
    else:
        report = validator.validate_bytes(args.xml_text.encode("utf-8"), path="xml_text")
    data = {"ok": report.valid, **report.to_dict()}
    text = _summary_text(report, data["counts"], args.lang)
    if args.compact:
        for key in _COMPACT_DROPS:
            data.pop(key, None)
    return data, text


def _summary_text(report: Any, counts: dict, lang: str) -> str:
    """A one-line verdict, then the first errors (rule, line, message) and how many more there are."""
    verdict = "valid" if report.valid else ("unknown" if report.could_not_validate else "invalid")
    lines = [render_text(Text("mcp.summary", {"verdict": Text(f"report.verdict.{verdict}"), **counts}), lang)]
    errors = [issue for issue in report.issues if issue.severity.value == "error"]
    for issue in errors[:_SHOWN_ERRORS]:
        where = Text.of("mcp.line", number=issue.location.line) if issue.location.line else None
        lines.append(f"- {issue.rule_id}" + (f" ({render_text(where, lang)})" if where else "") + f": {issue.message}")
    if len(errors) > _SHOWN_ERRORS:
        lines.append(render_text(Text.of("mcp.more_errors", count=len(errors) - _SHOWN_ERRORS), lang))
    return "\n".join(lines)


# --- fel_render -------------------------------------------------------------------------------------


def render(args: SimpleNamespace, ctx: ToolContext) -> tuple[dict, str]:
    """fel_render: validate, then print the PDF (an invalid document is refused unless ``force``)."""
    from fel_rules import RenderError, RenderSettings, Report

    from .tools import RenderOutput

    logo = ctx.roots.check(args.logo_path) if args.logo_path else None
    settings = RenderSettings.from_env(logo=logo, theme=args.theme, lang=args.lang, page=args.page)
    validator = _validator(args.lang, None)
    try:
        if args.xml_path is not None:
            source = ctx.roots.check(args.xml_path)
            default = settings.output_dir / fel_rules.output_paths(_default_name(source, ctx.roots).as_posix())[1]
            result = fel_rules.render_file(source, _out(args, default, ctx), settings=settings, force=args.force,
                                           validator=validator, roots=ctx.roots.paths)  # checked again when written
        else:
            data = args.xml_text.encode("utf-8")
            default = settings.output_dir / f"xml_text-{hashlib.sha256(data).hexdigest()[:12]}.pdf"
            target = _out(args, default, ctx)
            if isinstance(target, str):  # a folder
                target = f"{target}{default.name}"
            result = fel_rules.render_xml(data, target, settings=settings, force=args.force, validator=validator,
                                          roots=ctx.roots.paths, name="xml_text")
    except RenderError as exc:
        if exc.reason == "invalid" and isinstance(exc.report, Report):
            raise ToolFailure(_refusal(exc.report, args.lang)) from exc
        raise
    errors = [f"{i.rule_id}: {i.message}" for i in result.report.issues if i.severity.value == "error"]
    output = RenderOutput(ok=result.report.valid, pdf_path=str(result.path), valid=result.report.valid,
                          counts=result.report.counts, watermarks=result.view.watermarks, errors=errors,
                          warnings=[render_text(warning, args.lang) for warning in result.warnings])
    return output.model_dump(mode="json"), "\n".join([f"PDF: {result.path}", *output.warnings])


def _out(args: SimpleNamespace, default: Path, ctx: ToolContext) -> Path | str:
    """Where the PDF goes: ``out_path`` (a folder when it ends in ``/``, even a missing one) or ``default``."""
    target = ctx.roots.check(args.out_path or str(default), must_exist=False)
    return f"{target}/" if (args.out_path or "").endswith("/") else target


def _refusal(report: Any, lang: str) -> str:
    """An invalid document is not printed: said for an MCP client (the argument is force: true, not --force)."""
    return render_text(Text.of("mcp.render_refused", errors=fel_rules.errors_in_brief(report, lang, _SHOWN_ERRORS)),
                       lang)


def _default_name(path: Path, roots: Roots) -> Path:
    """A default output name for the resolved ``path`` that no other input shares: its path inside the first
    root (``2024/enero``), else its name with a digest of the full path (``enero-1f2e3d4c5b6a``)."""
    first = roots.paths[0]
    if first in path.parents:
        return path.relative_to(first)
    digest = hashlib.sha256(os.fsencode(path)).hexdigest()[:12]
    return Path(f"{path.stem}-{digest}{path.suffix}")


# --- fel_batch --------------------------------------------------------------------------------------


def batch(args: SimpleNamespace, ctx: ToolContext) -> tuple[dict, str]:
    """fel_batch: every XML of a folder; the invalid or failed documents with their first error."""
    from fel_rules import BatchCancelled, BatchOptions, RenderSettings

    from .tools import SHOWN_PROBLEMS, BatchOutput

    folder = ctx.roots.check(args.dir_xml)
    out = ctx.roots.check(args.out_dir or str(Path("out") / _default_name(folder, ctx.roots)), must_exist=False)
    logo = ctx.roots.check(args.logo_path) if args.logo_path else None
    on_progress = None
    if ctx.progress is not None:
        on_progress = lambda done, total: ctx.progress(done, total, f"{done}/{total}")  # noqa: E731
    options = BatchOptions(input_dir=folder, out_dir=out, workers=args.workers, render=args.render,
                           recursive=args.recursive, resume=args.resume, progress=False, on_progress=on_progress,
                           cancel=ctx.cancel, roots=tuple(ctx.roots.paths),
                           render_settings=RenderSettings.from_env(logo=logo, theme=args.theme, page=args.page))
    try:
        result = fel_rules.run_batch(options)
    except BatchCancelled as exc:
        raise ToolFailure(str(exc)) from exc
    problems = _problems(result)
    s = result.summary
    output = BatchOutput(ok=s.errors == 0, count=s.files, out_dir=str(out), manifest_path=str(result.path),
                         report_html=str(result.report_html), ledger_csv=str(result.ledger_csv), summary=s,
                         exit_code=result.exit_code, problems=problems[:SHOWN_PROBLEMS],
                         more_problems=max(0, len(problems) - SHOWN_PROBLEMS))
    return output.model_dump(mode="json"), render_text(Text.of("mcp.batch_summary", **s.model_dump(),
                                                               where=str(result.path)))


def _problems(result: fel_rules.BatchResult) -> list:
    """Every entry of the manifest that is not valid, with its first error (read from its report), and every valid
    one whose PDF has warnings. The manifest and the reports are read as a batch reads back what it wrote: regular
    files only, judged inside the roots once open."""
    from fel_rules import first_error

    from .tools import BatchProblem

    manifest, roots = result.manifest, result.roots
    problems = []
    for entry in manifest.entries:
        if not entry.valid or entry.error:
            unread = (None, render_text(Text("mcp.report_unreadable")))
            rule_id, message = first_error(result.path.parent, entry, roots=roots) or unread
        elif entry.pdf_warnings:
            rule_id, message = None, entry.pdf_warnings[0]
        else:
            continue
        problems.append(BatchProblem(path=entry.path, rule_id=rule_id, message=message,
                                     pdf_warnings=entry.pdf_warnings))
    return problems


# --- fel_rules --------------------------------------------------------------------------------------


def rules(args: SimpleNamespace, ctx: ToolContext) -> tuple[dict, str]:
    """fel_rules: the rules in force with the given profile, filtered by id prefix or SAT code."""
    from fel_rules import list_rules, rules_listing

    catalog = _validator(args.lang, _profile(args.profile, ctx)).catalog
    rows = list_rules(catalog, lang=args.lang, id_prefix=args.id_prefix, sat_code=args.sat_code)
    data = rules_listing(catalog, rows, detail=args.detail)
    return data, render_text(Text.of("cli.rule_count", count=len(rows)), args.lang)

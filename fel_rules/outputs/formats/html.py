"""HTML output: one self-contained page over many documents — a summary (counts, verdicts, findings by severity,
the most frequent rules) and a table of every document with its findings, which a small inline script sorts,
filters and expands. No network: CSS and script are inline, and the page's Content-Security-Policy allows no
other source (the script by its hash). Every value read from a document, a file name or a message is
HTML-escaped, its control characters written visibly. The same input gives the same bytes.

The page is written in one pass over the documents (:class:`HtmlPage`): each document's rows are rendered as it
comes and spooled, then the summary, which needs them all, is written before them. Rows of consecutive documents
can also be rendered elsewhere (another process: :meth:`HtmlPage.rows_of`) and put on the page in order
(:meth:`HtmlPage.add_rows`).
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from importlib.resources import files
from string import Template
from typing import BinaryIO
from urllib.parse import quote

from ...core.catalogue import MESSAGES, render_text
from ...core.money import format_money, parse_decimal
from ...core.printable import CONTROL_CLASS, escape_controls
from ...core.report import Issue, Report, RulesetRef, SchemaInfo
from ...core.text import Text
from .listing import Listed, Verdict

__all__ = ["TOP_RULES", "HtmlPage", "PageContext", "PageRows", "render_html"]

#: How many rules the summary names.
TOP_RULES = 10
_SPOOL_BYTES = 8 << 20  # rows beyond this wait on disk, not in memory
_MAX_SAID = 4096  # texts with values a page keeps said (dates, line numbers: a batch repeats them)
_VERDICTS: tuple[Verdict, ...] = ("valid", "invalid", "unknown")
_SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class PageContext:
    """What the page says about the run: rule sets and schema set, for a batch the number of PDFs (``None``
    outside a batch: no PDF card and no column of outputs) and the authorization numbers (upper case) that a
    valid annulment of the batch annuls."""

    rulesets: Sequence[RulesetRef] = ()
    schema: SchemaInfo = SchemaInfo()
    pdfs: int | None = None
    annulled: frozenset[str] = frozenset()

    @property
    def batch(self) -> bool:
        """True for a batch's page (links to its outputs)."""
        return self.pdfs is not None


def render_html(documents: Iterable[Listed], *, lang: str = "es", context: PageContext | None = None) -> str:
    """The page over ``documents`` as text (rule sets and schema from the first report that names them unless
    ``context`` says)."""
    documents = list(documents)
    if context is None:
        named = next((d.report for d in documents if d.report is not None and d.report.rulesets), None)
        context = PageContext(named.rulesets, named.schema) if named is not None else PageContext()
    page = HtmlPage(lang=lang, context=context)
    for document in documents:
        page.add(document)
    stream = io.BytesIO()
    page.write(stream)
    return stream.getvalue().decode("utf-8")


@dataclass
class PageRows:
    """The rows of consecutive documents of a page, and what its summary counts of them (plain data: it can be made
    in another process)."""

    rows: str = ""
    count: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    severities: Counter[str] = field(default_factory=Counter)
    rule_files: Counter[str] = field(default_factory=Counter)  # per rule: documents with an error or warning of it
    rule_titles: dict[str, str] = field(default_factory=dict)  # per rule: the title it has in the first of them


class HtmlPage:
    """The page, built one document at a time: :meth:`add` each (or :meth:`add_rows` the rows of several), then
    :meth:`write` once."""

    def __init__(self, *, lang: str = "es", context: PageContext = PageContext()) -> None:
        self.lang, self.context = lang, context
        self._rows = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES)
        self._verdicts: Counter[str] = Counter()
        self._severities: Counter[str] = Counter()
        self._rule_files: Counter[str] = Counter()
        self._rule_titles: dict[str, str] = {}
        self._count = 0
        self._said: dict[object, str] = {}

    def say(self, id: str, **values: object) -> str:
        """Catalogue text ``id`` in the page's language, HTML-escaped."""
        key = (id, *values.items()) if values else id
        said = self._said.get(key)
        if said is None:
            if len(self._said) >= _MAX_SAID:
                self._said.clear()
            said = self._said[key] = _escape(render_text(Text(id, values), self.lang))
        return said

    def add(self, document: Listed) -> None:
        """Render the rows of ``document`` and count it in the summary."""
        self.add_rows(self.rows_of([document], self._count + 1))

    def rows_of(self, documents: Iterable[Listed], first: int) -> PageRows:
        """The rows of ``documents`` (consecutive on the page, the first of them its document number ``first``,
        from 1) and what the summary counts of them, not yet on this page: :meth:`add_rows` puts them there."""
        part = PageRows()
        rows = []
        for index, document in enumerate(documents, first):
            part.count += 1
            part.verdicts[document.verdict] += 1
            report = document.report
            if report is not None:
                for severity in _SEVERITIES:
                    part.severities[severity] += getattr(report.counts, severity)
                for issue in report.issues:
                    if issue.severity.rank >= 1:
                        part.rule_titles.setdefault(issue.rule_id, issue.title)
                part.rule_files.update({i.rule_id for i in report.issues if i.severity.rank >= 1})
            rows.append(self._document(document, index))
        part.rows = "".join(rows)
        return part

    def add_rows(self, part: PageRows) -> None:
        """Put on the page rows made by :meth:`rows_of` (of a page with the same language and context) for the
        documents that come next."""
        self._count += part.count
        self._verdicts.update(part.verdicts)
        self._severities.update(part.severities)
        self._rule_files.update(part.rule_files)
        for rule, title in part.rule_titles.items():
            self._rule_titles.setdefault(rule, title)
        self._rows.write(part.rows.encode("utf-8"))

    def write(self, stream: BinaryIO) -> None:
        """Write the whole page to ``stream`` (once)."""
        head, tail = _template().split("${body}")
        values = {"lang": _escape(self.lang), "title": self.say("html.title"), "script_hash": _script_hash()}
        stream.write(Template(head).substitute(values).encode("utf-8"))
        stream.write(self._opening().encode("utf-8"))
        self._rows.seek(0)
        while chunk := self._rows.read(1 << 16):
            stream.write(chunk)
        self._rows.close()
        stream.write(self._closing().encode("utf-8"))
        stream.write(Template(tail).substitute(script=_script()).encode("utf-8"))

    # ---- summary ------------------------------------------------------------------------------------------

    def _opening(self) -> str:
        """Header, summary, and the documents' table up to its first row."""
        lead = ("html.lead_batch", {"files": self._count, "pdfs": self.context.pdfs}) if self.context.batch \
            else ("html.lead", {"files": self._count})
        return "".join([
            f'<header class="top"><h1>{self.say("html.title")}</h1><p>{self.say(lead[0], **lead[1])}</p></header>\n',
            "<main>\n",
            self._summary(),
            self._table_head(),
        ])

    def _summary(self) -> str:
        unknown = "html.card.errors" if self.context.batch else "html.card.unknown"
        cards = [("", self._count, "html.card.files"), ("valid", self._verdicts["valid"], "html.card.valid"),
                 ("invalid", self._verdicts["invalid"], "html.card.invalid"),
                 ("unknown", self._verdicts["unknown"], unknown)]
        if self.context.pdfs is not None:
            cards.append(("pdfs", self.context.pdfs, "html.card.pdfs"))
        parts = ['<section class="summary" aria-labelledby="summary-title">\n',
                 f'<h2 id="summary-title">{self.say("html.summary")}</h2>\n<div class="cards">']
        for kind, number, label in cards:
            parts.append(f'<div class="{f"card {kind}" if kind else "card"}"><strong>{number}</strong>'
                         f"<span>{self.say(label)}</span></div>")
        parts.append("</div>\n")
        parts.append(self._bar(unknown))
        parts.append('<div class="columns">\n<div>')
        parts.append(f'<h3>{self.say("html.findings")}</h3>\n<ul class="severities">')
        for severity in _SEVERITIES:
            parts.append(f'<li><span class="badge {severity}">{self.say(f"report.severity.{severity}")}</span>'
                         f"<b>{self._severities[severity]}</b></li>")
        parts.append("</ul>\n</div>\n<div>")
        parts.append(f'<h3>{self.say("html.top_rules")}</h3>\n')
        parts.append(self._top_rules())
        parts.append("</div>\n</div>\n</section>\n")
        return "".join(parts)

    def _bar(self, unknown: str) -> str:
        """The verdicts as one stacked bar (widths in per cent of the documents)."""
        if not self._count:
            return ""
        labels = {"valid": "html.card.valid", "invalid": "html.card.invalid", "unknown": unknown}
        said = ", ".join(f"{self._verdicts[v]} {render_text(Text(labels[v]), self.lang)}" for v in _VERDICTS)
        spans = "".join(f'<span class="{v}" style="width:{self._verdicts[v] * 100 / self._count:.3f}%"></span>'
                        for v in _VERDICTS if self._verdicts[v])
        return f'<div class="bar" role="img" aria-label="{_escape(said)}">{spans}</div>\n'

    def _top_rules(self) -> str:
        top = sorted(self._rule_files.items(), key=lambda item: (-item[1], item[0]))[:TOP_RULES]
        if not top:
            return f'<p class="none">{self.say("html.no_rules")}</p>\n'
        rows = [f'<table class="rules"><thead><tr><th>{self.say("html.rule")}</th><th>{self.say("html.rule_title")}'
                f'</th><th class="n">{self.say("html.rule_files")}</th></tr></thead><tbody>']
        for rule, files_count in top:
            rows.append(f'<tr><td><button type="button" class="rule" data-rule="{_escape(rule)}">{_escape(rule)}'
                        f'</button></td><td>{_escape(self._rule_titles.get(rule, ""))}</td>'
                        f'<td class="n">{files_count}</td></tr>')
        rows.append("</tbody></table>\n")
        return "".join(rows)

    # ---- the documents' table -------------------------------------------------------------------------------

    def _columns(self) -> list[tuple[str, str]]:
        """(catalogue id, sort type: text, number or none) of each column."""
        columns = [("html.col.file", "text"), ("html.col.type", "text"), ("html.col.number", "text"),
                   ("html.col.date", "text"), ("html.col.emisor", "text"), ("html.col.receptor", "text"),
                   ("html.col.total", "number"), ("html.col.verdict", "text"), ("html.col.issues", "number")]
        if self.context.batch:
            columns.append(("html.col.links", "none"))
        return columns

    def _table_head(self) -> str:
        options = "".join(f'<option value="{v}">{self.say(f"html.filter.{v}")}</option>' for v in _VERDICTS)
        heads = []
        for id, kind in self._columns():
            label = self.say(id)
            numeric = ' class="num"' if kind == "number" else ""
            if kind == "none":
                heads.append(f"<th>{label}</th>")
            else:
                heads.append(f'<th data-type="{kind}"{numeric}><button type="button">{label}</button></th>')
        return "".join([
            '<section class="documents" aria-labelledby="documents-title">\n',
            f'<h2 id="documents-title">{self.say("html.documents")}</h2>\n',
            '<div class="controls" id="controls" hidden>',
            f'<label>{self.say("html.search")} <input type="search" id="search" '
            f'placeholder="{self.say("html.search_hint")}"></label>',
            f'<label>{self.say("html.col.verdict")} <select id="verdict"><option value="">'
            f'{self.say("html.filter.all")}</option>{options}</select></label>',
            f'<button type="button" id="expand" data-expand="{self.say("html.expand_all")}" '
            f'data-collapse="{self.say("html.collapse_all")}">{self.say("html.expand_all")}</button>',
            f'<span id="count" data-template="{self._count_template()}"></span></div>\n',
            '<div class="scroll">\n<table class="documents" id="documents">\n',
            f'<thead><tr>{"".join(heads)}</tr></thead>\n',
        ])

    def _count_template(self) -> str:
        """"{shown} of {total} documents", its numbers left for the page's script to fill as the table is filtered."""
        return self.say("html.shown", shown="{shown}", total="{total}")

    def _closing(self) -> str:
        rulesets = "".join(f"<li>{_escape(r.id)} {_escape(r.version)}</li>" for r in self.context.rulesets)
        schema = self.context.schema
        schema_line = ""
        if schema.set:
            digest = f' <span class="nowrap">sha256 {_escape(schema.sha256)}</span>' if schema.sha256 else ""
            schema_line = f'<p>{self.say("html.schema")}: {_escape(schema.set)}{digest}</p>'
        details = ""
        if rulesets or schema_line:
            details = (f'<details><summary>{self.say("html.rules_and_schema")}</summary>{schema_line}'
                       f"<ul>{rulesets}</ul></details>")
        return (f'</table>\n</div>\n</section>\n</main>\n<footer>{details}<p>{self.say("html.generated")}</p>'
                "</footer>")

    def _document(self, document: Listed, index: int) -> str:
        """The rows of one document: the document itself, and its findings (shown on demand)."""
        report = document.report
        summary = report.document if report is not None else None
        cells = [
            f'<td class="path">{_escape(document.path)}</td>',
            self._type_cell(summary.tipo if summary else None),
            self._number_cell(document),
            self._date_cell(summary.fecha_emision if summary else None),
            self._party_cell(document.facts.nombre_emisor, summary.nit_emisor if summary else None, "NIT "),
            self._party_cell(document.facts.nombre_receptor, summary.id_receptor if summary else None, ""),
            self._total_cell(report),
            f'<td><span class="verdict {document.verdict}">{self.say(_VERDICT_TEXT[document.verdict])}</span></td>',
            self._issues_cell(document, index),
        ]
        if self.context.batch:
            cells.append(self._links_cell(document))
        rows = [f'<tbody data-verdict="{document.verdict}">\n<tr class="document">{"".join(cells)}</tr>\n']
        detail = self._detail(document)
        if detail:
            rows.append(f'<tr class="issues" id="issues-{index}"><td colspan="{len(cells)}">{detail}</td></tr>\n')
        rows.append("</tbody>\n")
        return "".join(rows)

    def _type_cell(self, tipo: str | None) -> str:
        if not tipo:
            return '<td><span class="none">—</span></td>'
        name = f"dte_type.{tipo}"  # the type's name as the catalogue (and the PDF) says it, when it has one
        title = f' title="{self.say(name)}"' if name in MESSAGES.texts else ""
        return f"<td><abbr{title}>{_escape(tipo)}</abbr></td>"

    def _number_cell(self, document: Listed) -> str:
        summary = document.report.document if document.report is not None else None
        serie, numero = (summary.serie, summary.numero) if summary else (None, None)
        uuid = summary.numero_autorizacion if summary else None
        title = f' title="{_escape(uuid)}"' if uuid else ""
        parts = []
        if serie or numero:
            parts.append(f'<span class="nowrap"{title}>{_escape(serie or "—")}</span>'
                         f'<span class="small">{_escape(numero or "")}</span>')
        if uuid and uuid.upper() in self.context.annulled:
            parts.append(f'<span class="tag">{self.say("html.annulled")}</span>')
        if document.facts.documento_anulado:
            parts.append(f'<span class="small">{self.say("html.annuls", uuid=document.facts.documento_anulado)}'
                         "</span>")
        key = f"{serie or ''} {numero or ''}".strip()
        return f'<td class="number" data-sort="{_escape(key)}">{"".join(parts) or _NONE}</td>'

    def _date_cell(self, moment: str | None) -> str:
        if not moment:
            return f'<td data-sort="">{_NONE}</td>'
        try:
            day = date.fromisoformat(moment[:10])
        except ValueError:
            return f'<td data-sort="{_escape(moment)}">{_escape(moment)}</td>'
        shown = self.say("html.date", day=f"{day.day:02d}", month=f"{day.month:02d}", year=f"{day.year:04d}")
        time = moment[11:16] if len(moment) >= 16 and moment[10] == "T" else ""
        extra = f'<span class="small">{_escape(time)}</span>' if time else ""
        return f'<td data-sort="{_escape(moment)}"><span class="nowrap">{shown}</span>{extra}</td>'

    def _party_cell(self, name: str | None, identifier: str | None, prefix: str) -> str:
        parts = []
        if name:
            parts.append(f"<span>{_escape(name)}</span>")
        if identifier:
            parts.append(f'<span class="small">{_escape(prefix + identifier)}</span>')
        key = name or identifier or ""
        return f'<td class="party" data-sort="{_escape(key)}">{"".join(parts) or _NONE}</td>'

    def _total_cell(self, report: Report | None) -> str:
        if report is None:
            return f'<td class="num" data-sort="">{_NONE}</td>'
        total = parse_decimal(report.totals.total)
        if total is None:  # an annulment, or a document without lines: its GranTotal, if it reads as a number
            total = parse_decimal(report.document.gran_total)
        if total is None:
            raw = report.document.gran_total
            return f'<td class="num" data-sort="">{_escape(raw) if raw else _NONE}</td>'
        shown = format_money(total, report.document.moneda)
        return f'<td class="num" data-sort="{_escape(str(total))}">{_escape(shown)}</td>'

    def _issues_cell(self, document: Listed, index: int) -> str:
        report = document.report
        counts = report.counts if report is not None else None
        key = (counts.error * 10**8 + counts.warning * 10**4 + counts.info) if counts else 0
        badges = []
        if counts is not None:
            for severity in _SEVERITIES:
                number = getattr(counts, severity)
                if number:
                    said = self.say(f"report.severity.{severity}")
                    badges.append(f'<span class="badge {severity}" title="{said}">{number}</span>')
        if (document.error or document.pdf_warnings) and not badges:
            badges.append('<span class="badge warning">!</span>')
        if not badges:
            return f'<td data-sort="0">{_NONE}</td>'
        return (f'<td data-sort="{key}"><button type="button" class="toggle" aria-expanded="false" '
                f'aria-controls="issues-{index}">{"".join(badges)}</button></td>')

    def _links_cell(self, document: Listed) -> str:
        links = []
        if document.pdf_link:
            links.append(f'<a href="{_href(document.pdf_link)}">PDF</a>')
        if document.report_link:
            links.append(f'<a href="{_href(document.report_link)}">JSON</a>')
        if document.pdf_note and not document.pdf_link:
            links.append(f'<span class="small">{_escape(document.pdf_note)}</span>')
        if document.pdf_warnings:
            said = _escape(" ".join(document.pdf_warnings))
            links.append(f'<span class="small notice" title="{said}">{self.say("html.pdf_warning")}</span>')
        return f'<td class="links">{"".join(links) or _NONE}</td>'

    def _detail(self, document: Listed) -> str:
        """The findings of a document (why a batch could not process it, what its PDF could not draw), or nothing
        when it has none."""
        parts = []
        if document.error:
            parts.append(f'<p class="failure">{_escape(document.error)}</p>')
        label = self.say("html.pdf_warning")
        parts.extend(f'<p class="notice">{label[:1].upper()}{label[1:]}: {_escape(warning)}</p>'
                     for warning in document.pdf_warnings)
        issues = document.report.issues if document.report is not None else []
        if issues:
            parts.append('<ol class="issue-list">')
            parts.extend(self._issue(issue) for issue in issues)
            parts.append("</ol>")
        return "".join(parts)

    def _issue(self, issue: Issue) -> str:
        severity = issue.severity.value
        where = []
        if issue.refs.sat_code:
            where.append(_escape(issue.refs.sat_code))
        if issue.location.line:
            where.append(self.say("html.line", number=issue.location.line))
        place = f'<span class="where">{" · ".join(where)}</span>' if where else ""
        hint = (f'<p class="hint">{self.say("report.hint").capitalize()}: {_escape(issue.hint)}</p>'
                if issue.hint else "")
        return (f'<li><span class="badge {severity}">{self.say(f"report.severity.{severity}")}</span>'
                f"<code>{_escape(issue.rule_id)}</code>{place}"
                f'<p class="message">{_escape(issue.message)}</p>{hint}</li>')


_NONE = '<span class="none">—</span>'
_VERDICT_TEXT = {"valid": "report.verdict.valid", "invalid": "report.verdict.invalid",
                 "unknown": "report.verdict.unknown"}


_MARKUP = re.compile("[&<>\"']")
_SPECIAL = re.compile(f"[&<>\"'{CONTROL_CLASS}]")  # what _escape changes: markup, or a control character


def _escape(text: object) -> str:
    """``text`` safe inside HTML text and quoted attributes: control characters written visibly, ``& < > " '``
    as references (most texts have none: they are given back as they are, after one search)."""
    text = str(text)
    if not _SPECIAL.search(text):
        return text
    text = escape_controls(text)
    return html.escape(text, quote=True) if _MARKUP.search(text) else text


def _href(path: str) -> str:
    """A relative link to an output of the batch: every character that is not plain in a URL path
    percent-encoded (``#``, ``?``, ``:``, spaces…) and ``./`` in front, so it can only name that file."""
    return _escape("./" + quote(path.lstrip("/"), safe="/"))


@cache
def _template() -> str:
    return files(__package__).joinpath("report_page.html").read_text(encoding="utf-8")


@cache
def _script() -> str:
    return files(__package__).joinpath("report_page.js").read_text(encoding="utf-8")


@cache
def _script_hash() -> str:
    """The Content-Security-Policy source that lets the page's own script run, and nothing else."""
    return "sha256-" + base64.b64encode(hashlib.sha256(_script().encode("utf-8")).digest()).decode("ascii")


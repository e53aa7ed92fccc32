"""The purchase/sales ledger (libro de compras y ventas) of a batch as CSV: one row per document, in date order.

Format: UTF-8 with a byte-order mark, comma-separated, CRLF line ends, ``.`` as the decimal point and no
thousands separator — what a spreadsheet under Guatemala's regional settings (es-GT: decimal point, comma as list
separator) opens with one double click, columns and numbers right. Amounts are the documents' own decimals,
never rounded (two decimals at least), computed as :class:`~decimal.Decimal`.

As SAT's ledgers record them: a credit note (NCRE) subtracts, so its amounts are negative; a debit note (NDEB)
and every other document add. An annulment (``GTAnulacionDocumento``) is a row of its own, amounts zero, state
*Anulación*, naming the document it annuls; a document that a valid annulment of the same batch annuls keeps its
row, with state *Anulado* and amounts zero (an annulled document has no fiscal effect). A cell of text that
starts with ``=``, ``+``, ``-`` or ``@`` gets a leading apostrophe, so no spreadsheet runs it as a formula;
amounts are written by this module as plain numbers and never need it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import BinaryIO

from ...core.catalogue import render_text
from ...core.money import MONEY_CONTEXT, parse_decimal
from ...core.printable import escape_controls
from ...core.text import Text
from .listing import Listed

__all__ = ["BOM", "COLUMNS", "Ledger", "ledger_header", "neutralised"]

BOM = "\ufeff"
#: The columns, in order; their titles are the catalogue's ``ledger.header`` (one CSV line per language).
COLUMNS = (
    "fecha", "tipo", "serie", "numero", "numero_autorizacion", "nit_emisor", "nombre_emisor", "id_receptor",
    "nombre_receptor", "moneda", "base_gravable", "iva", "otros_impuestos", "total", "estado", "documento_anulado",
    "veredicto", "archivo",
)
_NEGATIVE = frozenset({"NCRE"})  # credit notes subtract
_ANNULMENT = "ANULACION"
_FORMULA_STARTS = ("=", "+", "-", "@")
_CENTS = Decimal("0.01")


def ledger_header(lang: str) -> str:
    """The header line (without line end) in ``lang``."""
    return render_text(Text("ledger.header"), lang)


def neutralised(text: str) -> str:
    """A text cell that no spreadsheet reads as a formula: control characters written visibly, and an apostrophe
    before a leading ``= + - @``."""
    text = escape_controls(text)
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


@dataclass(frozen=True)
class _Row:
    key: tuple
    cells: tuple[str, ...]


class Ledger:
    """The ledger of a batch, one document at a time: :meth:`add` each, then :meth:`write` once. ``annulled``:
    the authorization numbers (upper case) that a valid annulment of the batch annuls."""

    def __init__(self, *, lang: str = "es", annulled: Collection[str] = frozenset()) -> None:
        self.lang, self.annulled = lang, frozenset(annulled)
        self._rows: list[_Row] = []
        self._said: dict[str, str] = {}  # catalogue text → its cell (a few states and verdicts, said for every row)

    def add(self, document: Listed) -> None:
        """Add the row of ``document``."""
        self._rows.append(self._row(document))

    def rows_of(self, documents: Iterable[Listed]) -> list[_Row]:
        """The rows of ``documents``, not yet in this ledger (plain data: made in any process); :meth:`add_rows`
        puts them there."""
        return [self._row(document) for document in documents]

    def add_rows(self, rows: Iterable[_Row]) -> None:
        """Add rows made by :meth:`rows_of` (of a ledger with the same language and annulled numbers)."""
        self._rows.extend(rows)

    def write(self, stream: BinaryIO) -> None:
        """The CSV, rows by date (then by file), to ``stream``."""
        text = io.StringIO()
        text.write(BOM + ledger_header(self.lang) + "\r\n")
        writer = csv.writer(text, lineterminator="\r\n")
        for row in sorted(self._rows, key=lambda row: row.key):
            writer.writerow(row.cells)
        stream.write(text.getvalue().encode("utf-8"))

    def _row(self, document: Listed) -> _Row:
        report = document.report
        summary = report.document if report is not None else None
        totals = report.totals if report is not None else None
        tipo = summary.tipo if summary else None
        uuid = summary.numero_autorizacion if summary else None
        state: str | None = "active" if tipo else None  # (no state for a file that could not be read)
        if tipo == _ANNULMENT:
            state = "annulment"
        elif uuid and uuid.upper() in self.annulled:
            state = "annulled"
        amounts: list[str | None] = [None, None, document.facts.otros_impuestos, None]
        if totals is not None:
            amounts = [totals.subtotal, totals.iva, document.facts.otros_impuestos, totals.total]
        if state in ("annulled", "annulment"):
            amounts = ["0", "0", "0", "0"]
        sign = -1 if tipo in _NEGATIVE else 1
        fecha = summary.fecha_emision if summary else None
        texts = [
            (fecha or "")[:10], tipo, summary.serie if summary else None, summary.numero if summary else None, uuid,
            summary.nit_emisor if summary else None, document.facts.nombre_emisor,
            summary.id_receptor if summary else None, document.facts.nombre_receptor,
            summary.moneda if summary else None,
        ]
        cells = [neutralised(text or "") for text in texts]
        cells += [_amount(amount, sign) for amount in amounts]
        cells += [self._say(f"ledger.state.{state}") if state else "",
                  neutralised(document.facts.documento_anulado or ""),
                  self._say(f"report.verdict.{document.verdict}"),
                  neutralised(document.path)]
        return _Row((fecha is None, fecha or "", document.path), tuple(cells))

    def _say(self, id: str) -> str:
        """The cell of catalogue text ``id`` in the ledger's language (said once per ledger)."""
        said = self._said.get(id)
        if said is None:
            said = self._said[id] = neutralised(render_text(Text(id), self.lang))
        return said


def _amount(text: str | None, sign: int) -> str:
    """An amount cell: the value with its sign, at least two decimals; empty when unknown."""
    value = parse_decimal(text)
    if value is None:
        return ""
    with localcontext(MONEY_CONTEXT):
        value = value * sign if value else abs(value)
        exponent = value.as_tuple().exponent
        if isinstance(exponent, int) and exponent > -2:
            value = value.quantize(_CENTS)  # only adds zeros: 100 → 100.00
    return format(value, "f")

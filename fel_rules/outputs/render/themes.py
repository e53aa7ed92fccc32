"""Visual themes of the PDF: colours only; the typeface (:mod:`.fonts`) and the layout are shared."""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib import colors

from .fonts import BOLD, REGULAR

__all__ = ["THEMES", "Theme"]


@dataclass(frozen=True)
class Theme:
    """Colours of one theme (and the faces it writes with)."""

    name: str
    accent: colors.Color
    accent_text: colors.Color
    header_fill: colors.Color
    zebra: colors.Color
    rule: colors.Color
    muted: colors.Color
    watermark: colors.Color
    ink: colors.Color = colors.HexColor("#1B1F24")
    font: str = REGULAR
    bold: str = BOLD


THEMES: dict[str, Theme] = {
    "clasico": Theme(
        name="clasico",
        accent=colors.HexColor("#1F3A5F"),
        accent_text=colors.white,
        header_fill=colors.HexColor("#1F3A5F"),
        zebra=colors.HexColor("#F2F5F9"),
        rule=colors.HexColor("#9AA9BC"),
        muted=colors.HexColor("#5B6675"),
        watermark=colors.Color(0.75, 0.1, 0.1, alpha=0.13),
    ),
    "moderno": Theme(
        name="moderno",
        accent=colors.HexColor("#0B7A53"),
        accent_text=colors.white,
        header_fill=colors.HexColor("#0B7A53"),
        zebra=colors.HexColor("#EEF7F3"),
        rule=colors.HexColor("#B9D8CB"),
        muted=colors.HexColor("#4F5B57"),
        watermark=colors.Color(0.8, 0.2, 0.1, alpha=0.12),
    ),
}

"""Message templates of rules: ``{name}`` placeholders only, checked at load, rendered safely.

Only plain names are accepted — no positional fields, attribute or index access, conversions or
format specs — so a template can neither crash a run nor reach into Python objects. ``{{`` and
``}}`` stand for literal braces.
"""

from __future__ import annotations

from collections.abc import Mapping
from string import Formatter

__all__ = ["TemplateError", "render_template", "template_fields"]

_FORMATTER = Formatter()


class TemplateError(ValueError):
    """A template that is not ``{name}`` placeholders and text: either its braces do not pair (``said``: Python's
    words) or a placeholder is not a plain name (``shown``)."""

    def __init__(self, message: str, *, said: str | None = None, shown: str | None = None) -> None:
        super().__init__(message)
        self.said, self.shown = said, shown


def template_fields(template: str) -> set[str]:
    """Names used by ``template``; :class:`TemplateError` (a Spanish text) for anything but ``{name}``."""
    try:
        parts = list(_FORMATTER.parse(template))
    except ValueError as exc:
        raise TemplateError("plantilla mal formada: las llaves { } no forman parejas; use {nombre} y {{ }} para "
                            "llaves literales", said=str(exc)) from None
    names: set[str] = set()
    for _literal, field, spec, conversion in parts:
        if field is None:
            continue
        if not field.isidentifier() or spec or conversion:
            shown = "{" + field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            raise TemplateError(f"marcador no permitido {shown}; solo se admite {{nombre}}", shown=shown)
        names.add(field)
    return names


def render_template(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each ``{name}`` replaced; unknown names are left as written."""
    out: list[str] = []
    for literal, field, _spec, _conversion in _FORMATTER.parse(template):
        out.append(literal)
        if field is not None:
            out.append(values.get(field, "{" + field + "}"))
    return "".join(out)

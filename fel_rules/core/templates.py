"""Message templates of rules: ``{name}`` placeholders only, checked at load, rendered safely.

Only plain names are accepted — no positional fields, attribute or index access, conversions or
format specs — so a template can neither crash a run nor reach into Python objects. ``{{`` and
``}}`` stand for literal braces.
"""

from __future__ import annotations

from collections.abc import Mapping
from string import Formatter

__all__ = ["render_template", "template_fields"]

_FORMATTER = Formatter()


def template_fields(template: str) -> set[str]:
    """Names used by ``template``; ``ValueError`` (Spanish text) for anything but ``{name}``."""
    try:
        parts = list(_FORMATTER.parse(template))
    except ValueError as exc:
        raise ValueError(f"plantilla mal formada ({exc}); use {{nombre}} y {{{{ }}}} para llaves literales") from None
    names: set[str] = set()
    for _literal, field, spec, conversion in parts:
        if field is None:
            continue
        if not field.isidentifier() or spec or conversion:
            shown = "{" + field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            raise ValueError(f"marcador no permitido {shown}; solo se admite {{nombre}}")
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

"""Bounded work for the schema engine that explains errors (xmlschema): a validation hook that counts the errors
each element certainly has before its content is validated, and stops once the report has all it can show.

xmlschema validates a whole document before it yields its first error, and builds one error object for every child
element its parent's content model does not admit, each found by indexing the parent's children (linear in lxml):
9,000 unexpected children in each of 100 items (3.7 MB) took 50 s and 1 GB, and the report shows 200 errors at
most. The hook (:class:`ErrorBudget`) sees each element the schema declares before its content is validated and
counts its *certain* errors: children beyond what the content model admits of their tag (a tag it does not admit
at all counts every time), and attributes the declaration does not have (without an attribute wildcard). Those
are schema errors whatever else the element holds, so the verdict is never in doubt:

* an element with more than :data:`CROWDED` certain errors is not explained child by child: it is skipped, and the
  report says how many children or attributes it has that the schema does not admit there (FEL-XSD-06);
* once the certain errors of the document exceed what the report shows, validation stops there (the report says
  there are more, FEL-XSD-05).

Counts are upper bounds of what a content model admits (every particle at its ``maxOccurs``, a choice as if each of
its branches could be taken; children its wildcards may take against all their occurrences together), and an element
with ``xsi:type`` is not counted (its type is not the declaration's), so the certain errors are errors of the
document. And the budget is only active for a document libxml2 refuses (or when the set has no libxml2 schema): a
document libxml2 accepts is validated whole. A validation the budget stopped, or that skipped an element, never
passes: :func:`~.schema.check_schema` says so when no error was found before the stop.
"""

from __future__ import annotations

from typing import Any

from xmlschema import XMLSchemaStopValidation
from xmlschema.validators import XsdAnyElement, XsdElement, XsdGroup

__all__ = ["CROWDED", "ErrorBudget"]

#: Certain errors of one element above which it is not explained child by child (the cost of the explanation grows
#: with the square of its children).
CROWDED = 50

_UNBOUNDED = float("inf")
_XSI = "{http://www.w3.org/2001/XMLSchema-instance}"
_XSI_TYPE = _XSI + "type"


class ErrorBudget:
    """A ``validation_hook`` for xmlschema's ``iter_errors`` (one per validation): ``limit`` is the number of errors
    the report shows; not ``active``, it counts nothing and never skips nor stops. After the validation,
    :attr:`crowded` holds the elements skipped and their certain errors, :attr:`counted` every element found with
    certain errors (the first ``limit``), :attr:`stopped` whether it stopped before the end. What it knows of each
    declaration is kept for this validation only (xmlschema makes new declarations for content under wildcards)."""

    def __init__(self, limit: int, *, active: bool = True) -> None:
        self.left = self.limit = limit
        self.active = active
        self.certain = 0  # the certain errors counted so far
        self.counted: list[tuple[Any, int]] = []
        self.crowded: list[tuple[Any, int]] = []
        self.stopped = False
        self._known: dict[int, _Admitted] = {}

    def __call__(self, element: Any, declaration: XsdElement) -> bool:
        if not self.active:
            return False
        if self.left < 0:
            self.stopped = True
            raise XMLSchemaStopValidation
        certain = certain_errors(element, declaration, self._known)
        if not certain:
            return False
        self.certain += certain
        self.left -= certain
        if len(self.counted) < self.limit:
            self.counted.append((element, certain))
        if certain > CROWDED:
            self.crowded.append((element, certain))
            return True  # skipped: its content is not validated
        return False


def certain_errors(element: Any, declaration: XsdElement, known: dict[int, _Admitted] | None = None) -> int:
    """The errors ``element`` certainly has against ``declaration``: children beyond what its content model admits
    of their tag (children its wildcards may take count against all the wildcards' occurrences together), and
    undeclared attributes. An element with ``xsi:type`` is validated against a type the declaration does not say
    (its attributes, its content): nothing is certain about it."""
    if _XSI_TYPE in element.attrib:
        return 0
    children, attributes = _admitted(declaration, {} if known is None else known)
    errors = 0
    if len(element):
        if children is None:  # simple content: one error, however many children
            errors = 1
        else:
            counts: dict[Any, int] = {}
            for child in element:
                tag = child.tag
                counts[tag] = counts.get(tag, 0) + 1
            maxima, wildcards, taken_by_wildcards = children
            left_to_wildcards = 0.0
            for tag, count in counts.items():
                if not isinstance(tag, str):  # (a comment, a PI or an entity: not an element)
                    continue
                beyond = count - maxima.get(tag, 0)
                if beyond <= 0:
                    continue
                if any(wildcard.is_matching(tag) for wildcard in wildcards):
                    left_to_wildcards += beyond
                else:
                    errors += int(beyond)
            if left_to_wildcards > taken_by_wildcards:
                errors += int(left_to_wildcards - taken_by_wildcards)
    if attributes is not None:
        errors += sum(1 for name in element.attrib if name not in attributes and not name.startswith(_XSI))
    return errors


_Children = tuple[dict[str, float], list[XsdAnyElement], float]
#: What a declaration admits: (the declaration; maxima by tag, the element wildcards of its content model and how
#: many children they may take together, or ``None`` for simple content; the names of its attributes, or ``None``
#: when an attribute wildcard admits others).
_Admitted = tuple[XsdElement, "_Children | None", "frozenset[str] | None"]


def _admitted(declaration: XsdElement, known: dict[int, _Admitted]) -> tuple[_Children | None, frozenset[str] | None]:
    """What ``declaration`` admits, worked out once per validation (``known``)."""
    found = known.get(id(declaration))
    if found is None or found[0] is not declaration:
        content = getattr(declaration.type, "content", None)
        children = None
        if isinstance(content, XsdGroup):
            maxima: dict[str, float] = {}
            wildcards: list[tuple[XsdAnyElement, float]] = []
            _count(content, 1, maxima, wildcards)
            children = (maxima, [wildcard for wildcard, _ in wildcards], sum(occurs for _, occurs in wildcards))
        group = declaration.attributes
        attributes = None if None in group else frozenset(name for name in group if isinstance(name, str))
        found = known[id(declaration)] = (declaration, children, attributes)
    return found[1], found[2]


def _count(group: XsdGroup, times: float, maxima: dict[str, float],
           wildcards: list[tuple[XsdAnyElement, float]]) -> None:
    """Add to ``maxima`` how many times each tag may occur in ``group`` taken ``times`` times, and to ``wildcards``
    each wildcard with how many children it may take (upper bounds)."""
    times = _product(times, group.max_occurs)
    for particle in group:
        if isinstance(particle, XsdGroup):
            _count(particle, times, maxima, wildcards)
        elif isinstance(particle, XsdAnyElement):
            if (occurs := _product(times, particle.max_occurs)):
                wildcards.append((particle, occurs))
        elif isinstance(particle, XsdElement):
            occurs = _product(times, particle.max_occurs)
            for admitted in (particle, *particle.iter_substitutes()):
                maxima[admitted.name] = maxima.get(admitted.name, 0) + occurs


def _product(times: float, occurs: int | None) -> float:
    """``times`` × ``occurs`` (``None``: unbounded), never NaN: nothing times unbounded is nothing."""
    if not times or occurs == 0:
        return 0
    return _UNBOUNDED if occurs is None else times * occurs

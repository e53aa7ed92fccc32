"""Checks that a record made without its constructor (:func:`fel_rules.core.record.build`) is the one the
constructor makes."""

from __future__ import annotations

from fel_rules.core.record import Record

__all__ = ["assert_as_constructed", "records"]


def records(value: object):
    """Every record in ``value``, depth first (lists, tuples and dicts looked into)."""
    if isinstance(value, Record):
        yield value
        for field_value in vars(value).values():
            yield from records(field_value)
    elif isinstance(value, list | tuple):
        for each in value:
            yield from records(each)
    elif isinstance(value, dict):
        for each in value.values():
            yield from records(each)


def assert_as_constructed(record: Record) -> None:
    made = type(record)(**vars(record))
    assert list(vars(record)) == list(vars(made)), type(record).__name__  # every field, in declaration order
    assert record == made and made == record
    assert repr(record) == repr(made)
    if not any(isinstance(value, list | dict) for value in vars(record).values()):  # (lists are never hashable)
        assert hash(record) == hash(made)

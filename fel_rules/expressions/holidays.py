"""Guatemala's public holidays as a rules folder states them, and its business days (días hábiles).

The holidays are data of the rule set: ``data/feriados-gt.yaml`` of the rules folder in force (see the header of
the shipped file), or the shipped file when the folder has none (the loader decides which). The file holds fixed
days (``fijos``), days counted from Easter Sunday (``semana_santa``), holidays also kept on a Monday
(``trasladables``, Decreto 19-2018) and one-off dates (``fechas``). The calendar is a value of the loaded
catalogue, so an edited file is read again wherever the catalogue is (every cache of it is keyed by the content of
its files). Errors name the file, line and column, like rule files.
"""

from __future__ import annotations

import re
from calendar import isleap
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core.errors import RuleFileError
from ..core.record import Record
from ..core.yamlfile import error_at, load_yaml

__all__ = ["HOLIDAYS_FILE", "HolidayCalendar", "load_holidays", "nth_business_day"]

#: Where a rules folder states its holidays.
HOLIDAYS_FILE = Path("data") / "feriados-gt.yaml"

_MONTH_DAY = re.compile(r"(\d\d)-(\d\d)")
_KEYS = ("schema_version", "source", "fijos", "semana_santa", "trasladables", "fechas")


class HolidayCalendar(Record):
    """The holidays of every year: fixed (month, day) pairs, offsets from Easter Sunday, (month, day) pairs whose
    holiday is (also) kept on a Monday, and one-off dates. Two calendars with the same days are equal."""

    fixed: tuple[tuple[int, int], ...] = ()
    easter: tuple[int, ...] = ()
    moved: tuple[tuple[int, int], ...] = ()
    dates: frozenset[date] = frozenset()

    def of_year(self, year: int) -> frozenset[date]:
        """The holidays of ``year``."""
        return _of_year(self, year)


def nth_business_day(start: date, n: int, calendar: HolidayCalendar) -> date:
    """The ``n``-th business day after ``start`` (``start`` itself does not count): Monday to Friday, holidays of
    ``calendar`` aside."""
    day = start
    while n > 0:
        day += timedelta(days=1)
        if day.weekday() < 5 and day not in calendar.of_year(day.year):
            n -= 1
    return day


def load_holidays(path: Path) -> HolidayCalendar:
    """The calendar of the holiday file ``path`` (no file: no holidays). :class:`~fel_rules.core.errors.RuleFileError`
    names what is wrong in it."""
    if not path.is_file():
        return HolidayCalendar()
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise RuleFileError("se esperaba un mapeo con fijos, semana_santa, trasladables y fechas",
                            message_en="expected a mapping with fijos, semana_santa, trasladables and fechas",
                            path=str(path), line=1)
    unknown = [key for key in data if key not in _KEYS]
    if unknown:
        raise error_at(path, data, (unknown[0],), f"clave desconocida '{unknown[0]}'", f"unknown key '{unknown[0]}'")
    return HolidayCalendar(
        fixed=tuple(_month_day(path, data, "fijos", index, value) for index, value in _items(path, data, "fijos")),
        easter=tuple(_offset(path, data, index, value) for index, value in _items(path, data, "semana_santa")),
        moved=tuple(_month_day(path, data, "trasladables", index, value)
                    for index, value in _items(path, data, "trasladables")),
        dates=frozenset(_date(path, data, index, value) for index, value in _items(path, data, "fechas")),
    )


def _items(path: Path, data: dict, key: str) -> list[tuple[int, Any]]:
    values = data.get(key)
    if values is None:
        return []
    if not isinstance(values, list):
        raise error_at(path, data, (key,), f"'{key}' debe ser una lista", f"'{key}' must be a list")
    return list(enumerate(values))


def _month_day(path: Path, data: dict, key: str, index: int, value: Any) -> tuple[int, int]:
    found = _MONTH_DAY.fullmatch(value) if isinstance(value, str) else None
    if found is not None:
        month, day = int(found[1]), int(found[2])
        try:
            date(2024, month, day)  # (a leap year: 02-29 is a day)
        except ValueError:
            pass
        else:
            return month, day
    raise error_at(path, data, (key, index), f"'{key}': {value!r} no es un día \"MM-DD\"",
                   f"'{key}': {value!r} is not a \"MM-DD\" day")


def _offset(path: Path, data: dict, index: int, value: Any) -> int:
    if type(value) is int and -60 <= value <= 60:
        return value
    raise error_at(path, data, ("semana_santa", index),
                   f"'semana_santa': {value!r} no es un número de días desde el domingo de Pascua (-60 a 60)",
                   f"'semana_santa': {value!r} is not a number of days from Easter Sunday (-60 to 60)")


def _date(path: Path, data: dict, index: int, value: Any) -> date:
    if type(value) is date:  # (YAML reads an unquoted 2026-03-10 as a date)
        return value
    if isinstance(value, str) and len(value) == 10:
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise error_at(path, data, ("fechas", index), f"'fechas': {value!r} no es una fecha \"AAAA-MM-DD\"",
                   f"'fechas': {value!r} is not a \"YYYY-MM-DD\" date")


@lru_cache(maxsize=64)
def _of_year(calendar: HolidayCalendar, year: int) -> frozenset[date]:
    days = {date(year, month, day) for month, day in calendar.fixed if _exists(year, month, day)}
    easter = _easter(year)
    days.update(easter + timedelta(days=offset) for offset in calendar.easter)
    for month, day in calendar.moved:
        if not _exists(year, month, day):
            continue
        moved = date(year, month, day)  # (the day itself is a holiday when the file also says so in "fijos")
        weekday = moved.weekday()  # Tuesday/Wednesday → the Monday before; Thursday to Sunday → the Monday after
        days.add(moved - timedelta(days=weekday) if weekday in (1, 2) else moved + timedelta(days=(7 - weekday) % 7))
    days.update(day for day in calendar.dates if day.year == year)
    return frozenset(days)


def _exists(year: int, month: int, day: int) -> bool:
    return not (month == 2 and day == 29) or isleap(year)


def _easter(year: int) -> date:
    """Easter Sunday (Gregorian calendar; anonymous algorithm of Meeus/Jones/Butcher)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    l = (32 + 2 * e + 2 * i - h - k) % 7  # noqa: E741
    m = (a + 11 * h + 22 * l) // 451
    month, day = divmod(h + l - 7 * m + 114, 31)
    return date(year, month, day + 1)

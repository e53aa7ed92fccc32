"""Guatemala's business days (días hábiles): weekdays that are not public holidays.

The holidays are data of the rule set (``rules/data/feriados-gt.yaml``): fixed dates, days relative to
Easter (Semana Santa), holidays moved to a Monday, and one-off dates.
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import cache
from pathlib import Path

from ..core.resources import BUILTIN_RULES_DIR

__all__ = ["HOLIDAYS_FILE", "nth_business_day"]

HOLIDAYS_FILE = BUILTIN_RULES_DIR / "data" / "feriados-gt.yaml"


def nth_business_day(start: date, n: int, path: Path = HOLIDAYS_FILE) -> date:
    """The ``n``-th business day after ``start`` (``start`` itself does not count)."""
    day = start
    while n > 0:
        day += timedelta(days=1)
        if day.weekday() < 5 and day not in _holidays(path, day.year):
            n -= 1
    return day


@cache
def _calendar(path: Path) -> dict:
    import yaml  # only a batch rule counts business days

    return yaml.safe_load(path.read_text(encoding="utf-8"))


@cache
def _holidays(path: Path, year: int) -> frozenset[date]:
    data = _calendar(path)
    on = lambda month_day: date(year, *map(int, month_day.split("-")))  # noqa: E731
    days = {on(month_day) for month_day in data.get("fijos", ())}
    easter = _easter(year)
    days.update(easter + timedelta(days=offset) for offset in data.get("semana_santa", ()))
    for month_day in data.get("trasladables", ()):
        moved = on(month_day)
        weekday = moved.weekday()  # Tuesday/Wednesday → the Monday before; Thursday to Sunday → the Monday after
        days.add(moved - timedelta(days=weekday) if weekday in (1, 2) else moved + timedelta(days=(7 - weekday) % 7))
    days.update(date.fromisoformat(str(day)) for day in data.get("fechas", ()) if str(day).startswith(str(year)))
    return frozenset(days)


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

"""The rounding functions of the expression language (``round2``, ``round_to``, ``round_as``) give exactly what
:func:`~fel_rules.core.money.round_half_up` gives with the decimals read from the value's exponent (``round_as``:
never fewer than cents), for every rounding mode: the same Decimal (digits and exponent) or the same error."""

from __future__ import annotations

import decimal
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from fel_rules.core.money import round_half_up
from fel_rules.expressions.language import MIN_ROUND_AS_PLACES, _configured_functions, _places, _rounder

_MODES = st.sampled_from([decimal.ROUND_HALF_UP, decimal.ROUND_HALF_EVEN, decimal.ROUND_DOWN, decimal.ROUND_CEILING])
_DECIMALS = st.one_of(
    st.decimals(allow_nan=True, allow_infinity=True, places=None),
    st.decimals(min_value=-10**6, max_value=10**6, places=2),
    st.integers(-10**30, 10**30).map(Decimal),
    st.tuples(st.integers(-10**40, 10**40), st.integers(-30, 30)).map(lambda t: Decimal(t[0]).scaleb(t[1])),
)


def _written_places(like: Decimal) -> int:
    exponent = like.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _round_as(mode: str):
    return _configured_functions(Decimal("0.01"), mode, None, None)["round_as"]


def _outcome(action):
    try:
        value = action()
    except (ArithmeticError, TypeError, ValueError, AttributeError) as exc:
        return "error", type(exc), str(exc)
    return "value", str(value), value.as_tuple() if isinstance(value, Decimal) else value


@settings(max_examples=500, deadline=None)
@given(_DECIMALS, _DECIMALS, _MODES)
def test_round_as_is_round_half_up_to_the_written_decimals(value: Decimal, like: Decimal, mode: str) -> None:
    assert _places(like) == _written_places(like)
    round_as = _round_as(mode)
    assert _outcome(lambda: round_as(value, like)) == _outcome(
        lambda: round_half_up(value, max(_written_places(like), MIN_ROUND_AS_PLACES), mode))


def test_round_as_keeps_cents_for_an_amount_written_without_them() -> None:
    """``6`` for an IVA of 6.12 is 0.12 off, not within half a unit of its own last digit."""
    round_as = _round_as(decimal.ROUND_HALF_UP)
    assert round_as(Decimal("6.12"), Decimal("6")) == Decimal("6.12")
    assert round_as(Decimal("6.125"), Decimal("6.1")) == Decimal("6.13")
    assert round_as(Decimal("6.1234567"), Decimal("6.123456")) == Decimal("6.123457")


@settings(max_examples=300, deadline=None)
@given(st.one_of(_DECIMALS, st.none(), st.just("1.5"), st.integers(-5, 5)), st.integers(-3, 14), _MODES)
def test_round_to_is_round_half_up(value: object, places: int, mode: str) -> None:
    assert _outcome(lambda: _rounder(mode)(value, places)) == _outcome(lambda: round_half_up(value, places, mode))

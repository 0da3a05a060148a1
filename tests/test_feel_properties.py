"""Properties the FEEL rules of DMN 1.5 state, checked on generated values (hypothesis):
exact decimal arithmetic to 34 digits, temporal arithmetic that undoes itself, null propagation."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal, localcontext

from hypothesis import given, settings
from hypothesis import strategies as st

from seams.lang.feel_interpreter import evaluate
from seams.lang.feel_temporal import YearsMonths, years_months_between
from seams.lang.feel_values import to_text

NUMBERS = st.decimals(min_value=Decimal("-1e12"), max_value=Decimal("1e12"), allow_nan=False,
                      allow_infinity=False, places=6)
DATES = st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 12, 31))
SPANS = st.timedeltas(min_value=timedelta(days=-20000), max_value=timedelta(days=20000))
VALUES = st.one_of(NUMBERS, st.text(max_size=5), st.booleans(), DATES, SPANS,
                   st.lists(st.integers(-5, 5), max_size=3))
FEW = settings(max_examples=60, deadline=None)


@FEW
@given(NUMBERS, NUMBERS)
def test_sums_and_products_are_exact_decimals(a, b):
    assert evaluate("a + b", {"a": a, "b": b}) == a + b  # 12 + 6 digits: exact within 34
    assert evaluate("a - b", {"a": a, "b": b}) == a - b
    with localcontext() as context:
        context.prec = 34
        assert evaluate("a * b", {"a": a, "b": b}) == +(a * b)
        if b:
            assert evaluate("a / b", {"a": a, "b": b}) == a / b


@FEW
@given(NUMBERS)
def test_a_number_written_and_read_back_is_the_same(a):
    assert evaluate(f"number(\"{to_text(a)}\")") == a
    assert evaluate(to_text(a) or "null") == a


@FEW
@given(DATES, SPANS)
def test_moving_a_date_and_time_by_a_duration_and_back(day, span):
    start = datetime(day.year, day.month, day.day, 12)
    moved = evaluate("t + d", {"t": start, "d": span})
    assert evaluate("m - d", {"m": moved, "d": span}) == start
    assert evaluate("m - t", {"m": moved, "t": start}) == span


@FEW
@given(DATES, st.integers(-600, 600))
def test_months_added_to_a_date_are_whole_months_between(day, months):
    moved = evaluate("d + duration(p)", {"d": day, "p": str(YearsMonths(months))})
    assert isinstance(moved, date)
    assert moved.day == day.day or moved.day < day.day  # clamped to the month's last day at most
    assert years_months_between(day, moved).months in (months, months - 1 if months > 0 else months + 1)


@FEW
@given(VALUES, st.sampled_from(["+", "-", "*", "/", "**"]))
def test_arithmetic_with_null_is_null(value, op):
    assert evaluate(f"x {op} null", {"x": value}) is None
    assert evaluate(f"null {op} x", {"x": value}) is None


@FEW
@given(VALUES, st.sampled_from(["<", "<=", ">", ">="]))
def test_ordering_against_null_is_null_and_equality_is_not(value, op):
    assert evaluate(f"x {op} null", {"x": value}) is None
    assert evaluate("x = null", {"x": value}) is False
    assert evaluate("x != null", {"x": value}) is True


@FEW
@given(VALUES, VALUES)
def test_equality_is_symmetric(a, b):
    assert evaluate("a = b", {"a": a, "b": b}) == evaluate("b = a", {"a": a, "b": b})

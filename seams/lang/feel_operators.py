"""FEEL's arithmetic on numbers, strings, dates, times and durations (DMN 1.5, table 57 and 10.3.2.3).

Each operator takes two FEEL values and gives a value or raises FeelError
(which the evaluator turns into null): operands of kinds the table does
not pair, a division by zero, a result outside what the types hold.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal, InvalidOperation

from seams.lang.feel_temporal import BEYOND_PYTHON, YearsMonths, add_months, offset_of, time_seconds
from seams.lang.feel_values import NUMBERS, FeelError, kind

_MICRO = Decimal(1_000_000)


def span_seconds(span: timedelta) -> Decimal:
    return Decimal(span.days * 86400 + span.seconds) + Decimal(span.microseconds) / _MICRO


def seconds_span(seconds: Decimal) -> timedelta:
    micro = int(NUMBERS.to_integral_value(seconds * _MICRO))
    try:
        return timedelta(microseconds=micro)
    except OverflowError as exc:
        raise FeelError("duration out of range") from exc


def arithmetic(op: str, a: object, b: object) -> object:
    if a is None or b is None:
        return None
    try:
        return _OPS[op](a, b)
    except OverflowError as exc:
        if isinstance(a, (date, time)) or isinstance(b, (date, time)):
            raise FeelError(f"a year outside 1-9999, {BEYOND_PYTHON}") from exc
        raise FeelError(f"{kind(a)} {op} {kind(b)}: {exc}") from exc
    except (ArithmeticError, InvalidOperation, ValueError) as exc:
        raise FeelError(f"{kind(a)} {op} {kind(b)}: {exc}") from exc


def _add(a: object, b: object) -> object:
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return NUMBERS.add(a, b)
    if isinstance(a, str) and isinstance(b, str):
        return a + b
    if isinstance(a, timedelta) and isinstance(b, timedelta):
        return a + b
    if isinstance(a, YearsMonths) and isinstance(b, YearsMonths):
        return YearsMonths(a.months + b.months)
    if isinstance(b, (date, time)) and isinstance(a, (timedelta, YearsMonths)):
        return _add(b, a)
    if isinstance(a, (date, time)) and isinstance(b, (timedelta, YearsMonths)):
        return _shift(a, b, 1)
    raise FeelError(f"cannot add {kind(b)} to {kind(a)}")


def _shift(moment: date | time, span: timedelta | YearsMonths, sign: int) -> object:
    if isinstance(moment, time):
        if not isinstance(span, timedelta):
            raise FeelError("a time moves by days-and-time durations only")
        total = (moment.hour * 3600 + moment.minute * 60 + moment.second) * 1_000_000 + moment.microsecond
        total = (total + sign * (span // timedelta(microseconds=1))) % (86400 * 1_000_000)
        seconds, micro = divmod(total, 1_000_000)
        return time(seconds // 3600, seconds % 3600 // 60, seconds % 60, micro, tzinfo=moment.tzinfo)
    if isinstance(span, YearsMonths):
        return add_months(moment, sign * span.months)
    if isinstance(moment, datetime):
        return moment + span if sign > 0 else moment - span
    start = datetime(moment.year, moment.month, moment.day)
    return (start + span if sign > 0 else start - span).date()


def _subtract(a: object, b: object) -> object:
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return NUMBERS.subtract(a, b)
    if isinstance(a, timedelta) and isinstance(b, timedelta):
        return a - b
    if isinstance(a, YearsMonths) and isinstance(b, YearsMonths):
        return YearsMonths(a.months - b.months)
    if isinstance(a, (date, time)) and isinstance(b, (timedelta, YearsMonths)):
        return _shift(a, b, -1)
    if isinstance(a, time) and isinstance(b, time):
        if (offset_of(a) is None) != (offset_of(b) is None):
            raise FeelError("a time with an offset minus one without")
        return seconds_span(time_seconds(a) - time_seconds(b))
    if isinstance(a, date) and isinstance(b, date):
        x, y = _as_date_time(a), _as_date_time(b)
        if isinstance(a, datetime) != isinstance(b, datetime):  # the date is its midnight UTC
            if (x.tzinfo or y.tzinfo) is None:
                raise FeelError("a date and time without an offset minus a date (or the reverse)")
            x, y = x.replace(tzinfo=x.tzinfo or timezone.utc), y.replace(tzinfo=y.tzinfo or timezone.utc)
        if (x.tzinfo is None) != (y.tzinfo is None):
            if isinstance(a, datetime) and isinstance(b, datetime):
                raise FeelError("a date and time with a zone minus one without")
            x, y = x.replace(tzinfo=x.tzinfo or timezone.utc), y.replace(tzinfo=y.tzinfo or timezone.utc)
        return x - y
    raise FeelError(f"cannot subtract {kind(b)} from {kind(a)}")


def _as_date_time(value: date) -> datetime:
    if isinstance(value, datetime):
        return value
    return datetime(value.year, value.month, value.day)


def _multiply(a: object, b: object) -> object:
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return NUMBERS.multiply(a, b)
    if isinstance(a, Decimal) and isinstance(b, (timedelta, YearsMonths)):
        return _multiply(b, a)
    if isinstance(a, timedelta) and isinstance(b, Decimal):
        return seconds_span(NUMBERS.multiply(span_seconds(a), b))
    if isinstance(a, YearsMonths) and isinstance(b, Decimal):
        return YearsMonths(int(NUMBERS.multiply(Decimal(a.months), b)))
    raise FeelError(f"cannot multiply {kind(a)} by {kind(b)}")


def _divide(a: object, b: object) -> object:
    if isinstance(b, Decimal) and b == 0:
        raise FeelError("division by zero")
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return NUMBERS.divide(a, b)
    if isinstance(a, timedelta) and isinstance(b, Decimal):
        return seconds_span(NUMBERS.divide(span_seconds(a), b))
    if isinstance(a, YearsMonths) and isinstance(b, Decimal):
        return YearsMonths(int(NUMBERS.divide(Decimal(a.months), b)))
    if isinstance(a, timedelta) and isinstance(b, timedelta):
        if not b:
            raise FeelError("division by a zero duration")
        return NUMBERS.divide(span_seconds(a), span_seconds(b))
    if isinstance(a, YearsMonths) and isinstance(b, YearsMonths):
        if not b.months:
            raise FeelError("division by a zero duration")
        return NUMBERS.divide(Decimal(a.months), Decimal(b.months))
    raise FeelError(f"cannot divide {kind(a)} by {kind(b)}")


def _power(a: object, b: object) -> object:
    if not (isinstance(a, Decimal) and isinstance(b, Decimal)):
        raise FeelError(f"cannot raise {kind(a)} to {kind(b)}")
    if b == b.to_integral_value() and abs(b) < 1_000_000:
        return NUMBERS.power(a, int(b))
    return NUMBERS.power(a, b)


def negate(a: object) -> object:
    if a is None:
        return None
    if isinstance(a, Decimal):
        return NUMBERS.minus(a)
    if isinstance(a, timedelta):
        return -a
    if isinstance(a, YearsMonths):
        return YearsMonths(-a.months)
    raise FeelError(f"cannot negate {kind(a)}")


_OPS = {"+": _add, "-": _subtract, "*": _multiply, "/": _divide, "**": _power}

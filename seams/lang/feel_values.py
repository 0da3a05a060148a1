"""FEEL values as seams holds them, and the rules that compare and name them (DMN 1.5, chapter 10.3.2).

Numbers are ``Decimal`` computed in ``NUMBERS`` (34 significant digits, half
even, as DMN's IEEE 754 decimal128 requires), strings ``str``, booleans
``bool``, temporal values as seams.lang.feel_temporal keeps them, lists
``list``, contexts ``dict`` (insertion-ordered), ranges ``Range``, functions
``Function`` and null ``None``. ``feel_value`` brings a Python value (an
``int``, a ``float``, a tuple) into this set.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_EVEN, Context, Decimal, DivisionByZero, InvalidOperation, Overflow

from seams.lang.feel_temporal import (
    YearsMonths,
    date_time_text,
    days_time_text,
    offset_of,
    time_seconds,
    time_text,
    years_months_text,
)

NUMBERS = Context(prec=34, rounding=ROUND_HALF_EVEN, Emax=6144, Emin=-6143,
                  traps=[InvalidOperation, Overflow, DivisionByZero])


class FeelError(Exception):
    """An evaluation error: FEEL makes it null (and the evaluator records the message)."""


class FeelUnsupported(Exception):
    """A FEEL construct seams does not evaluate (a Java or PMML ``external`` function): not null but refused,
    so a caller can say so rather than give a wrong value."""


@dataclass(frozen=True)
class Range:
    """A FEEL range: ends may be None (unbounded, ``< 5``); closed says whether each end is included."""

    start: object
    end: object
    start_closed: bool = True
    end_closed: bool = True

    def contains(self, value: object) -> bool | None:
        if value is None:
            return None
        low = high = True
        if self.start is not None:
            order = compare(self.start, value)
            if order is None:
                return None
            low = order < 0 or (order == 0 and self.start_closed)
        if self.end is not None:
            order = compare(value, self.end)
            if order is None:
                return None
            high = order < 0 or (order == 0 and self.end_closed)
        return low and high


@dataclass(eq=False)
class Function:
    """A FEEL function: a built-in, a ``function(...)`` definition, a BKM or a decision service.

    ``call`` takes positional arguments already matched to ``parameters``;
    ``variadic`` takes the rest as one list. ``types`` are parameter type
    names where declared (for ``instance of`` and coercion)."""

    name: str
    parameters: Sequence[str]
    call: Callable[..., object]
    variadic: bool = False
    types: Sequence[str | None] = field(default_factory=tuple)
    result_type: str | None = None


def feel_value(value: object) -> object:
    """A Python value as FEEL holds it: numbers as Decimal, tuples as lists, nested values too."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, dict):
        return {str(k): feel_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [feel_value(v) for v in value]
    return value


def is_number(value: object) -> bool:
    return isinstance(value, Decimal)


def kind(value: object) -> str:
    """The FEEL type name of a value (``number``, ``date and time``, ...)."""
    if value is None:
        return "Null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, Decimal):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, datetime):
        return "date and time"
    if isinstance(value, date):
        return "date"
    if isinstance(value, time):
        return "time"
    if isinstance(value, timedelta):
        return "days and time duration"
    if isinstance(value, YearsMonths):
        return "years and months duration"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "context"
    if isinstance(value, Range):
        return "range"
    if isinstance(value, Function):
        return "function"
    return type(value).__name__


_ORDERED = {"number", "string", "date", "date and time", "time", "days and time duration",
            "years and months duration"}


def compare(a: object, b: object) -> int | None:
    """-1, 0 or 1 when a and b are of one ordered kind, else None (FEEL's null)."""
    ka, kb = kind(a), kind(b)
    if ka != kb or ka not in _ORDERED:
        return None
    if ka == "time":
        assert isinstance(a, time) and isinstance(b, time)
        if (offset_of(a) is None) != (offset_of(b) is None):
            return None
        x: object = time_seconds(a)
        y: object = time_seconds(b)
    elif ka == "date and time":
        assert isinstance(a, datetime) and isinstance(b, datetime)
        if (a.tzinfo is None) != (b.tzinfo is None):
            return None
        x, y = a, b
    else:
        x, y = a, b
    try:
        return -1 if x < y else (1 if x > y else 0)  # type: ignore[operator]
    except TypeError:
        return None


def equal(a: object, b: object) -> bool | None:
    """FEEL ``=``: null equals only null; values of different kinds give null; lists and contexts deep."""
    if a is None or b is None:
        return a is None and b is None
    ka, kb = kind(a), kind(b)
    if ka != kb:
        return None
    if ka == "list":
        assert isinstance(a, list) and isinstance(b, list)
        if len(a) != len(b):
            return False
        return _all_equal(zip(a, b))
    if ka == "context":
        assert isinstance(a, dict) and isinstance(b, dict)
        if a.keys() != b.keys():
            return False
        return _all_equal((a[k], b[k]) for k in a)
    if ka == "date and time":
        assert isinstance(a, datetime) and isinstance(b, datetime)
        if (a.tzinfo is None) != (b.tzinfo is None):
            return False
        return a == b
    if ka == "time":
        order = compare(a, b)
        return order == 0 if order is not None else False
    if ka == "range":
        assert isinstance(a, Range) and isinstance(b, Range)
        return (a.start_closed == b.start_closed and a.end_closed == b.end_closed
                and bool(equal(a.start, b.start)) and bool(equal(a.end, b.end)))
    if ka == "function":
        return a is b
    return a == b


def _all_equal(pairs) -> bool | None:
    for x, y in pairs:
        same = equal(x, y)
        if same is not True:
            return same
    return True


def number_text(value: Decimal) -> str:
    """A number as FEEL's ``string()`` writes it: plain digits, no exponent, no trailing zeros."""
    if value == 0:
        return "0"
    text = format(value.normalize(NUMBERS), "f")
    return text


def to_text(value: object) -> str | None:
    """FEEL ``string(value)``."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return number_text(value)
    if isinstance(value, datetime):
        return date_time_text(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, time):
        return time_text(value)
    if isinstance(value, timedelta):
        return days_time_text(value)
    if isinstance(value, YearsMonths):
        return years_months_text(value)
    if isinstance(value, list):
        return "[" + ", ".join(_inner_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_inner_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Range):
        return (("[" if value.start_closed else "(") + _inner_text(value.start) + ".."
                + _inner_text(value.end) + ("]" if value.end_closed else ")"))
    return str(value)


def _inner_text(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    text = to_text(value)
    return "null" if text is None else text

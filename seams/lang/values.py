"""The kinds of value both rule languages compare, and how generated code tests them.

Gateway conditions and FEEL unary tests see process variables of any Python
type. Both languages follow the same rule, so that a condition rewritten into
a decision table keeps its meaning: a value is compared only with a value of
its own kind. Numbers (int, float, Decimal) are one kind and compare exactly
across their types; a bool is not a number (Python would say ``True == 1``,
a business rule must not); strings only meet strings; a date is a
``datetime.date`` and not a ``datetime`` (Python refuses to order the two).
Numbers and dates are recognised by exact type (a cheap check generated
code can repeat, and the one that keeps bool and datetime out); strings by
isinstance, so a str enum is still a string.

A NaN is of kind ``other``: it equals nothing and orders with nothing, so
putting it among the numbers would only make ``not(< 5)`` match it. Kind
checks use ``value == value`` to spot it, so a *signaling* Decimal NaN raises
``decimal.InvalidOperation`` here and in generated code alike, as it is meant to.

Generated code renders the same checks with builtins, ``Decimal`` and
``date`` only; the module that embeds them imports those two names.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from zoneinfo import ZoneInfo

NUMBER = "number"
STRING = "string"
BOOLEAN = "boolean"
DATE = "date"
NULL = "null"
OTHER = "other"

KINDS = (NUMBER, STRING, DATE, BOOLEAN, NULL, OTHER)
"""Every kind; they partition all Python values."""

ORDERED_KINDS = (NUMBER, STRING, DATE)
"""Kinds whose values `<`, `<=`, `>`, `>=` compare."""

TIME = "time"
ZONED_TIME = "time with offset"
DATE_TIME = "date and time"
ZONED_DATE_TIME = "date and time with offset"
DURATION = "duration"
TEMPORAL_KINDS = (TIME, ZONED_TIME, DATE_TIME, ZONED_DATE_TIME, DURATION)
"""FEEL's kinds beyond the ones gateway conditions know: a ``datetime.time``, a
``datetime.datetime`` (each without or with a UTC offset: Python orders the two
apart, FEEL gives null) and a days-and-time duration (``datetime.timedelta``)."""

FEEL_KINDS = (NUMBER, STRING, DATE, *TEMPORAL_KINDS, BOOLEAN, NULL, OTHER)
"""Every kind FEEL unary tests tell apart; they partition all Python values.
Conditions see the temporal values as ``other`` (see `kind_of`)."""

FEEL_ORDERED_KINDS = (NUMBER, STRING, DATE, *TEMPORAL_KINDS)


def kind_of(value: object) -> str:
    """The kind of a runtime value, as both languages see it."""
    if value is None:
        return NULL
    if value is True or value is False:
        return BOOLEAN
    if type(value) in (int, float, Decimal):
        return NUMBER if value == value else OTHER
    if isinstance(value, str):
        return STRING
    if type(value) is date:
        return DATE
    return OTHER


def feel_kind_of(value: object) -> str:
    """The kind of a runtime value as FEEL unary tests see it: `kind_of`, with
    times, date-times and durations told apart instead of ``other``."""
    kind = kind_of(value)
    if kind != OTHER:
        return kind
    if type(value) is datetime:
        return DATE_TIME if value.utcoffset() is None else ZONED_DATE_TIME
    if type(value) is time:
        return TIME if value.utcoffset() is None else ZONED_TIME
    if type(value) is timedelta:
        return DURATION
    return OTHER


def kind_guard(kind: str, expr: str) -> str:
    """Python source that is true iff the value of `expr` is of `kind` (not OTHER)."""
    if kind == NUMBER:
        return f"(type({expr}) in (int, float, Decimal) and {expr} == {expr})"
    if kind == STRING:
        return f"isinstance({expr}, str)"
    if kind == DATE:
        return f"type({expr}) is date"
    if kind == BOOLEAN:
        return f"isinstance({expr}, bool)"
    if kind == NULL:
        return f"{expr} is None"
    if kind in (DATE_TIME, ZONED_DATE_TIME, TIME, ZONED_TIME):
        python_type = "datetime" if kind in (DATE_TIME, ZONED_DATE_TIME) else "time"
        offset = "is None" if kind in (DATE_TIME, TIME) else "is not None"
        return f"(type({expr}) is {python_type} and {expr}.utcoffset() {offset})"
    if kind == DURATION:
        return f"type({expr}) is timedelta"
    raise ValueError(f"no guard for kind {kind!r}")


def render_literal(value: object) -> str:
    """Deterministic Python source for a literal of either language."""
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    if isinstance(value, Decimal):
        return f'Decimal("{value}")'
    if isinstance(value, str):
        return repr(value)
    if type(value) is date:
        return f"date({value.year}, {value.month}, {value.day})"
    if type(value) is datetime:
        fields = [value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond]
        return f"datetime({', '.join(map(str, fields))}{_zone_argument(value.tzinfo)})"
    if type(value) is time:
        fields = [value.hour, value.minute, value.second, value.microsecond]
        return f"time({', '.join(map(str, fields))}{_zone_argument(value.tzinfo)})"
    if type(value) is timedelta:
        return f"timedelta(days={value.days}, seconds={value.seconds}, microseconds={value.microseconds})"
    raise ValueError(f"no literal form for {value!r}")


def _zone_argument(zone: object) -> str:
    """``, tzinfo=...`` for a fixed UTC offset, or a named zone (``ZoneInfo("Europe/Paris")``, which
    the generated module imports from the standard library's ``zoneinfo``)."""
    if zone is None:
        return ""
    if isinstance(zone, ZoneInfo):
        return f", tzinfo=ZoneInfo({zone.key!r})"
    if not isinstance(zone, timezone):
        raise ValueError(f"no literal form for time zone {zone!r}")
    offset = zone.utcoffset(None)
    if offset == timedelta(0):
        return ", tzinfo=timezone.utc"
    return f", tzinfo=timezone(timedelta(days={offset.days}, seconds={offset.seconds}))"

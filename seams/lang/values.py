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

from datetime import date
from decimal import Decimal

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
    raise ValueError(f"no literal form for {value!r}")

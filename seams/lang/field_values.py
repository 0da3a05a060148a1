"""A value against its variable's datatype and form fields: the one definition of "valid".

The contract item of the pytest plugin judges a handler's outputs with these
functions, and ``seams check`` judges the model's examples and decision
outputs with the same ones, so the two never disagree about a value (see
docs/plugin.md, "Acceptance", and docs/model.md, "Types"). The plugin copies
their source text into the acceptance module it renders for the propose
prompt (``inspect.getsource``), hence: standard library only, and no name
beyond ``re``, ``Mapping``, ``date`` and ``Decimal``.

A rule is one form field as plain data (``seams.checks.types.field_rule``):
``shape`` (the shape's prefixed name) and any of ``datatype`` (an xsd local
name), ``in``, ``minInclusive``, ``maxInclusive``, ``minExclusive``,
``maxExclusive``, ``pattern``, ``minLength``, ``maxLength``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from decimal import Decimal


def same(actual, expected):
    """JSON-like equality: numbers compare by value across int, float and Decimal; a bool
    is not a number; a date equals its ISO string; mappings and lists item by item."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return isinstance(actual, bool) and isinstance(expected, bool) and actual == expected
    if is_number(actual) and is_number(expected):
        return as_decimal(actual) == as_decimal(expected)
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        return set(actual) == set(expected) and all(same(actual[k], expected[k]) for k in expected)
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        return len(actual) == len(expected) and all(map(same, actual, expected))
    if type(actual) is date or type(expected) is date:
        return as_date(actual) is not None and as_date(actual) == as_date(expected)
    if isinstance(actual, str) and isinstance(expected, str):
        return actual == expected
    return actual is None and expected is None


def is_number(value):
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def as_decimal(value):
    """The exact decimal a number means; a float by its shortest repr (12.5, not 12.4999...)."""
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def as_date(value):
    """A ``datetime.date``, or an ISO ``YYYY-MM-DD`` string read as one; None otherwise."""
    if type(value) is date:
        return value
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None


def show(value):
    """A value as a message shows it: 0.5 and 2024-01-31, not Decimal('0.5')."""
    if isinstance(value, Decimal) or type(value) is date:
        return str(value)
    return repr(value)


def datatype_problem(value, datatype):
    """Why ``value`` is not an ``xsd:<datatype>`` value of the process, or None."""
    checks = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "decimal": lambda v: is_number(v) and as_decimal(v).is_finite(),
        "boolean": lambda v: isinstance(v, bool),
        "date": lambda v: as_date(v) is not None,
    }
    if datatype not in checks or checks[datatype](value):
        return None
    return f"{show(value)} is not an xsd:{datatype}"


def constraint_problems(value, rule):
    """Why ``value`` breaks one form field (sh:datatype, sh:in, bounds, sh:pattern, lengths)."""
    where = f"(sh:property of {rule['shape']})"
    problems = []
    if datatype_problem(value, rule.get("datatype")):
        problems.append(("sh:datatype", f"{datatype_problem(value, rule['datatype'])} {where}"))
    if "in" in rule and not any(same(value, allowed) for allowed in rule["in"]):
        shown = ", ".join(show(v) for v in rule["in"])
        problems.append(("sh:in", f"{show(value)} is not one of {shown} {where}"))
    bounds = {"minInclusive": lambda a, b: a >= b, "maxInclusive": lambda a, b: a <= b,
              "minExclusive": lambda a, b: a > b, "maxExclusive": lambda a, b: a < b}
    for key, holds in bounds.items():
        if key in rule:
            a, b = ordered(value), ordered(rule[key])
            if a is None or b is None or a[0] != b[0] or not holds(a[1], b[1]):
                problems.append((f"sh:{key}", f"{show(value)} breaks sh:{key} {show(rule[key])} {where}"))
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if "pattern" in rule:
        try:
            if not re.search(rule["pattern"], text):
                problems.append(("sh:pattern", f"{show(value)} does not match {rule['pattern']!r} {where}"))
        except re.error as exc:
            problems.append(("sh:pattern", f"{rule['pattern']!r} is not a regular expression ({exc}) {where}"))
    if "minLength" in rule and len(text) < rule["minLength"]:
        problems.append(("sh:minLength", f"{show(value)} is shorter than {rule['minLength']} {where}"))
    if "maxLength" in rule and len(text) > rule["maxLength"]:
        problems.append(("sh:maxLength", f"{show(value)} is longer than {rule['maxLength']} {where}"))
    return problems


def ordered(value):
    """(kind, comparable) for bounds: numbers, dates and strings only meet their own kind."""
    if is_number(value):
        return ("number", as_decimal(value))
    if as_date(value) is not None:
        return ("date", as_date(value))
    return ("string", value) if isinstance(value, str) else None

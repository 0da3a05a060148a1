"""FEEL unary tests whose operands are names, evaluated at run time.

A test such as ``< limit`` or ``[min..max]`` has no exact value set until
the names have values, so the checks cannot analyse it and the generator
cannot render it as a fixed Python test. These functions evaluate such a
test with FEEL's three-valued logic (see seams.lang.feel). They are plain
standard-library Python: the evaluator calls them, and the decisions
generator copies their source into the module it writes (``runtime_source``),
so the two can never disagree. `_feel_kind` repeats
seams.lang.values.feel_kind_of in the same terms; a test keeps them equal.
"""

from __future__ import annotations

import inspect
from datetime import date, datetime, time, timedelta
from decimal import Decimal

_FEEL_ORDERED = frozenset({"number", "string", "date", "time", "time with offset", "date and time",
                           "date and time with offset", "duration"})


def _feel_kind(value):
    """The FEEL kind of a value (seams.lang.values.feel_kind_of)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "boolean"
    if type(value) in (int, float, Decimal):
        return "number" if value == value else "other"
    if isinstance(value, str):
        return "string"
    if type(value) is date:
        return "date"
    if type(value) is datetime:
        return "date and time" if value.utcoffset() is None else "date and time with offset"
    if type(value) is time:
        return "time" if value.utcoffset() is None else "time with offset"
    if type(value) is timedelta:
        return "duration"
    return "other"


def _feel_member(value, path):
    """A dotted path into a context (a dict); a missing member, or a non-context, is null."""
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _feel_compare(value, op, operand):
    """``value op operand`` in FEEL: True, False, or None (null) for values of different kinds."""
    kind, other = _feel_kind(value), _feel_kind(operand)
    if op == "=":
        if kind == "null" or other == "null":
            return kind == other
        return value == operand if kind == other != "other" else None
    if kind != other or kind not in _FEEL_ORDERED:
        return None
    if op == "<":
        return value < operand
    if op == "<=":
        return value <= operand
    if op == ">":
        return value > operand
    return value >= operand


def _feel_test(value, negated, tests):
    """An input entry: a list of tests (``(op, operand)`` or ``("..", lo, lo_closed, hi, hi_closed)``),
    true if any is true, else null if any is null; ``not(...)`` keeps null null; matches only on true.
    An ``=`` test against a list (a name whose value is one) holds when the value is in it."""
    results = []
    for test in tests:
        if test[0] == "..":
            _, low, low_closed, high, high_closed = test
            ends = [_feel_compare(value, ">=" if low_closed else ">", low),
                    _feel_compare(value, "<=" if high_closed else "<", high)]
            results.append(False if False in ends else (None if None in ends else True))
        elif test[0] == "=" and isinstance(test[1], list) and not isinstance(value, list):
            # a name whose value is a list: the input is tested for membership (DMN 1.3, 10.3.2.9)
            found = [_feel_compare(value, "=", item) for item in test[1]]
            results.append(True if True in found else (None if None in found else False))
        else:
            results.append(_feel_compare(value, test[0], test[1]))
    result = True if True in results else (None if None in results else False)
    if negated and result is not None:
        result = not result
    return result is True


RUNTIME_FUNCTIONS = (_feel_kind, _feel_member, _feel_compare, _feel_test)


def runtime_source() -> str:
    """The source of the run-time functions, for a generated module (which imports
    ``Decimal`` and ``date, datetime, time, timedelta`` itself)."""
    ordered = ", ".join(repr(kind) for kind in sorted(_FEEL_ORDERED))
    parts = [f"_FEEL_ORDERED = frozenset({{{ordered}}})"]
    parts += [inspect.getsource(function).rstrip() for function in RUNTIME_FUNCTIONS]
    return "\n\n\n".join(parts)

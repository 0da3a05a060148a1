"""Sample inputs around the literals of decision-table entries.

Generated tests of a decisions module feed it these values and compare its
answers with the table's. See seams.lang.feel.sample_values for why they suffice.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from datetime import date, timedelta
from decimal import Context, Decimal, localcontext
from typing import Any

from seams.lang.feel_parse import MAX_LENGTH, EqualTest, Name, Test
from seams.lang.values import BOOLEAN, DATE, NULL, NUMBER, STRING, TEMPORAL_KINDS, feel_kind_of

_EXACT = Context(prec=4 * MAX_LENGTH)
"""Enough digits that e ± 1 and midpoints of any literal a cell can hold are exact."""

Number = int | Decimal


def samples_for(tests: Iterable[Test]) -> list[object]:
    """Samples for a flat list of positive tests, in a fixed order of kinds."""
    found: dict[str, list[Any]] = {kind: [] for kind in (NUMBER, STRING, DATE, *TEMPORAL_KINDS, BOOLEAN, NULL)}
    strings_ordered = False
    for test in tests:  # a name's value is unknown here: it gives no sample
        if isinstance(test, EqualTest):
            if not isinstance(test.value, Name):
                found[feel_kind_of(test.value)].append(test.value)
            continue
        strings_ordered = strings_ordered or test.kind == STRING
        for end in (test.interval.lo, test.interval.hi):
            if end is not None and not isinstance(end, Name):
                found[feel_kind_of(end)].append(end)
    samples: list[object] = []
    return (
        samples
        + _number_samples(found[NUMBER])
        + _string_samples(found[STRING], strings_ordered)
        + _date_samples(found[DATE])
        + [value for kind in TEMPORAL_KINDS for value in _stepped_samples(found[kind])]
        + ([False, True] if found[BOOLEAN] else [])
        + ([None] if found[NULL] else [])
    )


def _exponent(number: Decimal) -> int:
    """The exponent of a finite Decimal (a FEEL literal is never NaN or infinite)."""
    exponent = number.as_tuple().exponent
    if not isinstance(exponent, int):
        raise ValueError(f"{number} is not a finite number")
    return exponent


def _number_samples(endpoints: list[Number]) -> list[Number]:
    samples: dict[Number, Number] = {}  # keyed by value: 5 and Decimal("5.0") are one sample
    with localcontext(_EXACT):
        for end in endpoints:
            step = 1 if isinstance(end, int) else Decimal(1).scaleb(_exponent(end))
            for value in (end - step, end, end + step):
                samples.setdefault(value, value)
        ordered = sorted(samples.values())
        cuts = sorted(dict.fromkeys(endpoints))
        for low, high in zip(cuts, cuts[1:]):
            after_low = bisect_right(ordered, low)
            if after_low == len(ordered) or not ordered[after_low] < high:
                middle = (Decimal(low) + Decimal(high)) / 2
                samples.setdefault(middle, middle)
    return sorted(samples.values())


def _string_samples(strings: list[str], ordered: bool) -> list[str]:
    if not strings:
        return []
    found = set(strings)
    if ordered:
        found.add("")
        found.update(text + "\0" for text in strings)
    fresh = next(
        name for name in ("other", *(f"other_{n}" for n in range(2, len(found) + 3))) if name not in found
    )
    return sorted(found | {fresh})


def _date_samples(days: list[date]) -> list[date]:
    ordinals = {
        ordinal
        for day in days
        for ordinal in (day.toordinal() - 1, day.toordinal(), day.toordinal() + 1)
        if 1 <= ordinal <= date.max.toordinal()
    }
    return [date.fromordinal(ordinal) for ordinal in sorted(ordinals)]


def _stepped_samples(ends: list) -> list:
    """Each time, date-time or duration and the microsecond before and after it (where Python has one)."""
    step = timedelta(microseconds=1)
    samples: dict = {}
    for end in ends:
        for value in (end, *_neighbours(end, step)):
            samples.setdefault(value, value)
    return sorted(samples.values())


def _neighbours(value, step: timedelta) -> list:
    from datetime import datetime, time

    found = []
    for delta in (-step, step):
        try:
            if type(value) is time:
                moved = datetime.combine(date(2000, 1, 1), value) + delta
                if moved.date() == date(2000, 1, 1):
                    found.append(moved.timetz())
            else:
                found.append(value + delta)
        except OverflowError:
            continue
    return found

"""Exact sets of values, for deciding whether two decision-table entries overlap.

A UNIQUE decision table is wrong if one input can satisfy two rules. Sampling
could miss a gap as thin as one point (``< 5`` against ``>= 5``), so entries
are turned into exact sets and intersected. A `ValueSet` has one part per
value kind (seams.lang.values): numbers, strings and dates are unions of
intervals with open or closed ends; booleans, null and "other" are finite
sets; times, date-times and durations are intervals too, counted in
whole microseconds as Python stores them. Endpoints keep their literal types (int, Decimal, str, date): Python
compares int and Decimal exactly, so no rounding enters.

Intervals are merged and cut with the rules of a dense order. Two orders are
not dense, and only emptiness needs to know: strings have a least element
("") and ``s + "\\0"`` is the successor of ``s`` (nothing lies strictly between
"a" and "a\\0"); dates are whole days between date.min and date.max.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from seams.lang.values import (
    BOOLEAN,
    DATE,
    DATE_TIME,
    DURATION,
    FEEL_KINDS,
    FEEL_ORDERED_KINDS,
    NULL,
    OTHER,
    STRING,
    TIME,
    ZONED_DATE_TIME,
    ZONED_TIME,
    kind_guard,
    render_literal,
)

KINDS = FEEL_KINDS
INTERVAL_KINDS = FEEL_ORDERED_KINDS
_UNIVERSES = {BOOLEAN: frozenset({False, True}), NULL: frozenset({None}), OTHER: frozenset({OTHER})}
_LAST_DAY = date.max.toordinal()
_MICROSECOND = timedelta(microseconds=1)
_EPOCH = datetime(1970, 1, 1)
_STEPPED_BOUNDS = {  # first and last step of each kind counted in microseconds; None: unbounded here
    TIME: (0, 86_400_000_000 - 1),
    DATE_TIME: ((datetime.min - _EPOCH) // _MICROSECOND, (datetime.max - _EPOCH) // _MICROSECOND),
    DURATION: (timedelta.min // _MICROSECOND, timedelta.max // _MICROSECOND),
    ZONED_TIME: (None, None),
    ZONED_DATE_TIME: (None, None),
}


def _microseconds(kind: str, value: object) -> int:
    """A value of a stepped kind as a whole number of microseconds, in the order Python compares them."""
    if kind == DURATION:
        return value // _MICROSECOND  # type: ignore[operator]
    if kind == DATE_TIME:
        return (value - _EPOCH) // _MICROSECOND  # type: ignore[operator]
    if kind == ZONED_DATE_TIME:
        return (value - _EPOCH.replace(tzinfo=UTC)) // _MICROSECOND  # type: ignore[operator]
    assert isinstance(value, time)
    since_midnight = ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
    offset = value.utcoffset()
    return since_midnight - (offset // _MICROSECOND if offset is not None else 0)


@dataclass(frozen=True)
class Interval:
    """lo..hi; a None end is unbounded (and then open)."""

    lo: Any  # a number, string or date of the set's kind (ordered), or None
    lo_closed: bool
    hi: Any
    hi_closed: bool

    def contains(self, value: object) -> bool:
        if self.lo is not None and (value < self.lo or (value == self.lo and not self.lo_closed)):
            return False
        return self.hi is None or value < self.hi or (value == self.hi and self.hi_closed)

    def is_empty(self, kind: str) -> bool:
        lo, lo_closed, hi, hi_closed = self.lo, self.lo_closed, self.hi, self.hi_closed
        if kind == DATE:
            first = 1 if lo is None else lo.toordinal() + (0 if lo_closed else 1)
            last = _LAST_DAY if hi is None else hi.toordinal() - (0 if hi_closed else 1)
            return first > last
        if kind in _STEPPED_BOUNDS:  # whole microseconds: an open end moves one step in
            least, most = _STEPPED_BOUNDS[kind]
            first = least if lo is None else _microseconds(kind, lo) + (0 if lo_closed else 1)
            last = most if hi is None else _microseconds(kind, hi) - (0 if hi_closed else 1)
            return first is not None and last is not None and first > last
        if kind == STRING:  # make the lower end closed: then the dense rule below is exact
            lo, lo_closed = ("", True) if lo is None else (lo if lo_closed else lo + "\0", True)
        if lo is None or hi is None:
            return False
        return lo > hi or (lo == hi and not (lo_closed and hi_closed))

    def is_point(self) -> bool:
        return self.lo is not None and self.lo == self.hi

    def to_python(self, expr: str) -> str:
        if self.is_point():
            return f"{expr} == {render_literal(self.lo)}"
        low = f"{render_literal(self.lo)} {'<=' if self.lo_closed else '<'} " if self.lo is not None else ""
        high = f" {'<=' if self.hi_closed else '<'} {render_literal(self.hi)}" if self.hi is not None else ""
        return f"{low}{expr}{high}"


def _tighter_lower(a: Interval, b: Interval) -> Interval:
    if a.lo is None or (b.lo is not None and (b.lo > a.lo or (b.lo == a.lo and not b.lo_closed))):
        return b
    return a


def _tighter_upper(a: Interval, b: Interval) -> Interval:
    if a.hi is None or (b.hi is not None and (b.hi < a.hi or (b.hi == a.hi and not b.hi_closed))):
        return b
    return a


@dataclass(frozen=True)
class IntervalSet:
    """A union of disjoint intervals of one kind, sorted by lower end."""

    kind: str
    intervals: tuple[Interval, ...]

    @classmethod
    def of(cls, kind: str, intervals: Iterable[Interval]) -> IntervalSet:
        """Drop empty intervals, sort, and merge those that overlap or touch."""
        live = sorted(
            (iv for iv in intervals if not iv.is_empty(kind)),
            key=lambda iv: (iv.lo is not None, iv.lo, not iv.lo_closed),
        )
        merged: list[Interval] = []
        for iv in live:
            last = merged[-1] if merged else None
            if last is not None and (
                last.hi is None or iv.lo is None or iv.lo < last.hi
                or (iv.lo == last.hi and (last.hi_closed or iv.lo_closed))
            ):
                upper = last if _tighter_upper(last, iv) is iv else iv
                merged[-1] = Interval(last.lo, last.lo_closed, upper.hi, upper.hi_closed)
            else:
                merged.append(iv)
        return cls(kind, tuple(merged))

    def union(self, other: IntervalSet) -> IntervalSet:
        return IntervalSet.of(self.kind, self.intervals + other.intervals)

    def intersection(self, other: IntervalSet) -> IntervalSet:
        pieces = []
        for a in self.intervals:
            for b in other.intervals:
                lower, upper = _tighter_lower(a, b), _tighter_upper(a, b)
                pieces.append(Interval(lower.lo, lower.lo_closed, upper.hi, upper.hi_closed))
        return IntervalSet.of(self.kind, pieces)

    def complement(self) -> IntervalSet:
        gaps, lo, lo_closed = [], None, False
        for iv in self.intervals:
            if iv.lo is not None:
                gaps.append(Interval(lo, lo_closed, iv.lo, not iv.lo_closed))
            if iv.hi is None:
                return IntervalSet.of(self.kind, gaps)
            lo, lo_closed = iv.hi, not iv.hi_closed
        gaps.append(Interval(lo, lo_closed, None, False))
        return IntervalSet.of(self.kind, gaps)

    def is_empty(self) -> bool:
        return not self.intervals

    def is_full(self) -> bool:
        return self.complement().is_empty()

    def to_python(self, expr: str) -> str:
        """Source testing a value already known to be of this kind; finite and
        co-finite sets read as ``==``/``in`` and ``!=``/``not in``."""
        if all(iv.is_point() for iv in self.intervals):
            return _membership(expr, [iv.lo for iv in self.intervals], "==", "in")
        holes = self.complement().intervals
        if holes and all(iv.is_point() for iv in holes):
            return _membership(expr, [iv.lo for iv in holes], "!=", "not in")
        tests = [iv.to_python(expr) for iv in self.intervals]
        return tests[0] if len(tests) == 1 else "(" + " or ".join(tests) + ")"


def _membership(expr: str, values: list[object], single: str, several: str) -> str:
    if len(values) == 1:
        return f"{expr} {single} {render_literal(values[0])}"
    return f"{expr} {several} ({', '.join(render_literal(value) for value in values)})"


@dataclass(frozen=True)
class FiniteSet:
    """A subset of a small universe: the booleans, {None}, or {OTHER} for every other value."""

    kind: str
    members: frozenset

    def union(self, other: FiniteSet) -> FiniteSet:
        return FiniteSet(self.kind, self.members | other.members)

    def intersection(self, other: FiniteSet) -> FiniteSet:
        return FiniteSet(self.kind, self.members & other.members)

    def complement(self) -> FiniteSet:
        return FiniteSet(self.kind, _UNIVERSES[self.kind] - self.members)

    def is_empty(self) -> bool:
        return not self.members

    def is_full(self) -> bool:
        return self.members == _UNIVERSES[self.kind]

    def to_python(self, expr: str) -> str:
        return " or ".join(f"{expr} is {member!r}" for member in sorted(self.members))


_Part = IntervalSet | FiniteSet


def _empty_part(kind: str) -> _Part:
    return IntervalSet(kind, ()) if kind in INTERVAL_KINDS else FiniteSet(kind, frozenset())


@dataclass(frozen=True)
class ValueSet:
    """A set of values of any kinds: one part per kind, in KINDS order."""

    parts: tuple[_Part, ...]

    @classmethod
    def empty(cls) -> ValueSet:
        return cls(tuple(_empty_part(kind) for kind in KINDS))

    @classmethod
    def of_kinds(cls, kinds: Iterable[str]) -> ValueSet:
        """Every value of the given kinds."""
        wanted = set(kinds)
        return cls(tuple(
            part.complement() if part.kind in wanted else part for part in cls.empty().parts
        ))

    @classmethod
    def interval(cls, kind: str, interval: Interval) -> ValueSet:
        return cls.empty()._with(IntervalSet.of(kind, [interval]))

    @classmethod
    def point(cls, value: object, kind: str) -> ValueSet:
        if kind in INTERVAL_KINDS:
            return cls.interval(kind, Interval(value, True, value, True))
        return cls.empty()._with(FiniteSet(kind, frozenset({value})))

    def _with(self, new: _Part) -> ValueSet:
        return ValueSet(tuple(new if part.kind == new.kind else part for part in self.parts))

    def union(self, other: ValueSet) -> ValueSet:
        return ValueSet(tuple(_combined(a, b, "union") for a, b in zip(self.parts, other.parts)))

    def intersection(self, other: ValueSet) -> ValueSet:
        return ValueSet(tuple(_combined(a, b, "intersection") for a, b in zip(self.parts, other.parts)))

    def complement(self) -> ValueSet:
        return ValueSet(tuple(part.complement() for part in self.parts))

    def difference(self, other: ValueSet) -> ValueSet:
        return self.intersection(other.complement())

    def is_empty(self) -> bool:
        return all(part.is_empty() for part in self.parts)

    def is_full(self) -> bool:
        return all(part.is_full() for part in self.parts)

    def overlaps(self, other: ValueSet) -> bool:
        # an empty part meets nothing: skip it before intersecting (most entries hold one or two kinds)
        return any(not a.is_empty() and not b.is_empty() and not _combined(a, b, "intersection").is_empty()
                   for a, b in zip(self.parts, other.parts))

    def part(self, kind: str) -> _Part:
        return self.parts[KINDS.index(kind)]

    def to_python(self, expr: str) -> str:
        """A Python boolean expression true iff the value of `expr` is in the set.

        "Other" values have no check of their own, so a set that holds them
        is rendered as the negation of its complement.
        """
        if self.is_full():
            return "True"
        if self.part(OTHER).is_empty():
            return self._known_kinds_python(expr)
        return f"(not ({self.complement()._known_kinds_python(expr)}))"

    def _known_kinds_python(self, expr: str) -> str:
        clauses: list[str] = []
        for part in self.parts:
            if part.is_empty() or part.kind == OTHER:
                continue
            guard = kind_guard(part.kind, expr)
            if part.is_full():
                clauses.append(guard)
            elif part.kind in INTERVAL_KINDS:
                clauses.append(f"({guard} and {part.to_python(expr)})")
            else:
                clauses.append(f"({part.to_python(expr)})")
        if not clauses:
            return "False"
        return clauses[0] if len(clauses) == 1 else "(" + " or ".join(clauses) + ")"


def _combined(a: _Part, b: _Part, how: str) -> _Part:
    """``a.union(b)`` or ``a.intersection(b)`` of two parts of the same kind (the parts of
    two value sets line up by kind, so they are always of the same class)."""
    if isinstance(a, IntervalSet) and isinstance(b, IntervalSet):
        return a.union(b) if how == "union" else a.intersection(b)
    if isinstance(a, FiniteSet) and isinstance(b, FiniteSet):
        return a.union(b) if how == "union" else a.intersection(b)
    raise TypeError(f"cannot combine {type(a).__name__} and {type(b).__name__}")

"""FEEL (DMN 1.3) simple unary tests and literals, as decision-table cells use them.

Input entries are simple unary tests: ``-`` (any), comparisons ``< 100``,
``<= 5``, ``> "m"``, ``>= date("2024-01-01")``, intervals ``[1..10]``,
``(1..10)``, ``]1..10[``, ``[1..10[``, plain literals (equality), a comma list
of those, or ``not(...)`` around such a list. Output entries are literals:
numbers (int, or Decimal when written with a point), strings with the ``\\"``
and ``\\\\`` escapes, ``true``/``false``, ``date("YYYY-MM-DD")`` and ``null``.
Names, other functions and arithmetic are not supported: the entry is an
ExpressionError naming its cell.

Matching follows FEEL's three-valued logic. A test against a value of another
kind (seams.value_kinds) is *null* rather than false, as ``5 < "a"`` is null in
FEEL; a list is true if any test is true, else null if any is null; ``not``
keeps null null; the cell matches only on true. Equality is the exception
FEEL makes for null: ``x = null`` is true or false, never null. So
``not("a")`` matches every string but "a", and null (``null = "a"`` is
false), but no number; ``not(< 5)`` matches numbers from 5 up and not null
(``null < 5`` is null); ``not(null)`` matches every value but null. ``-``
matches everything, None included.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from seams.lang.feel_parse import EqualTest, Test, parse_entry, parse_literal
from seams.lang.feel_samples import samples_for
from seams.lang.feel_sets import ValueSet
from seams.lang.values import KINDS, NULL, kind_of

__all__ = ["UnaryTests", "overlaps", "parse_literal", "parse_unary_tests", "sample_values"]


def parse_unary_tests(text: str, *, where: str) -> UnaryTests:
    """Parse an input entry, or raise ExpressionError naming `where`."""
    tests, negated = parse_entry(text, where=where)
    return UnaryTests(text, tests, negated)


@dataclass(frozen=True)
class UnaryTests:
    """One parsed input entry. No tests and not negated means ``-`` (any)."""

    text: str
    tests: tuple[Test, ...]
    negated: bool

    @property
    def is_any(self) -> bool:
        return not self.tests

    def matches(self, value: object) -> bool:
        if self.is_any:
            return True
        kind = kind_of(value)
        results = [_test_result(test, value, kind) for test in self.tests]
        result = True if True in results else (None if None in results else False)
        if self.negated and result is not None:
            result = not result
        return result is True

    def value_set(self) -> ValueSet:
        """The exact set of values this entry matches (see seams.feel_sets)."""
        return self._value_set

    @cached_property
    def _value_set(self) -> ValueSet:
        """Computed once: a UNIQUE check intersects each entry with every other rule's."""
        if self.is_any:
            return ValueSet.of_kinds(KINDS)
        if not self.negated:  # the null part only matters under not(...): skip it (large tables)
            true = _test_true(self.tests[0])
            for test in self.tests[1:]:
                true = true.union(_test_true(test))
            return true
        true, unknown = ValueSet.empty(), ValueSet.empty()
        for test in self.tests:
            test_true, test_unknown = _test_sets(test)
            true, unknown = true.union(test_true), unknown.union(test_unknown)
        unknown = unknown.difference(true)
        return true.union(unknown).complement() if self.negated else true

    def to_python(self, var: str) -> str:
        """A Python expression over `var` that is true exactly when `matches` is.

        Rendered from the value set, so it is canonical for the set and uses
        only builtins, ``Decimal`` and ``date``.
        """
        return self.value_set().to_python(var)


def overlaps(a: UnaryTests, b: UnaryTests) -> bool:
    """True iff some value matches both entries (exact, not sampled)."""
    return a.value_set().overlaps(b.value_set())


def _test_result(test: Test, value: object, kind: str) -> bool | None:
    if isinstance(test, EqualTest):
        literal_kind = kind_of(test.value)
        if NULL in (literal_kind, kind):
            return literal_kind == kind
        return value == test.value if kind == literal_kind else None
    return test.interval.contains(value) if kind == test.kind else None


def _test_true(test: Test) -> ValueSet:
    """The values for which `test` is true (the first half of `_test_sets`)."""
    if isinstance(test, EqualTest):
        kind = kind_of(test.value)
        return ValueSet.point(None if kind == NULL else test.value, kind)
    return ValueSet.interval(test.kind, test.interval)


def _test_sets(test: Test) -> tuple[ValueSet, ValueSet]:
    """The values for which `test` is true, and those for which it is null."""
    if isinstance(test, EqualTest):
        kind = kind_of(test.value)
        if kind == NULL:
            return ValueSet.point(None, NULL), ValueSet.empty()
        return ValueSet.point(test.value, kind), ValueSet.of_kinds(k for k in KINDS if k not in (kind, NULL))
    return ValueSet.interval(test.kind, test.interval), ValueSet.of_kinds(k for k in KINDS if k != test.kind)


def sample_values(tests: Iterable[UnaryTests]) -> list[object]:
    """Deterministic sample inputs that tell every entry's answers apart.

    An entry changes its answer only at its literals, so the samples are
    every literal and a value in each gap around and between them: for
    numbers e-1 and e+1 (one unit in the last written place for a decimal,
    e.g. 1.49 and 1.51 around 1.50) and the midpoint of any gap still empty;
    for dates the days before and after; for strings every string named, one
    named by none (for the ``not(...)`` sets) and, when strings are compared
    with < or >, "" and the successor s + "\\0" of each. Booleans give both,
    a ``null`` gives None. Two entries that differ on some input of these
    kinds therefore differ on a sample; an input of a kind no entry names
    (None, or any value for ``-``) is the caller's to add.
    """
    return samples_for(test for entry in tests for test in entry.tests)

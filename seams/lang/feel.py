"""FEEL (DMN 1.3) simple unary tests and literals, as decision-table cells use them.

Input entries are simple unary tests: ``-`` (any), comparisons ``< 100``,
``<= 5``, ``> "m"``, ``>= date("2024-01-01")``, intervals ``[1..10]``,
``(1..10)``, ``]1..10[``, ``[1..10[``, plain literals (equality), a comma list
of those, or ``not(...)`` around such a list. Output entries are literals:
numbers (int, or Decimal when written with a point), strings with the ``\\"``
and ``\\\\`` escapes, ``true``/``false``, ``date("YYYY-MM-DD")`` and ``null``.
Beyond those, DMN 1.3's full simple-unary-test grammar: FEEL string escapes
(``\\n``, ``\\t``, ``\\u00e9`` ...), ``time("10:30:00")``, ``date and
time("2024-01-01T10:30:00+01:00")`` and days-and-time ``duration("P1DT2H")``
literals, compared and ranged like dates, ``= x`` for equality, and names or
dotted paths (``< limit``, ``[min..max]``, ``Applicant.Age``) as operands and
interval ends, resolved against the decision's inputs when the table is
evaluated. Other functions and arithmetic are not supported: the entry is
an ExpressionError naming its cell.

Matching follows FEEL's three-valued logic. A test against a value of another
kind (seams.lang.values) is *null* rather than false, as ``5 < "a"`` is null in
FEEL; a list is true if any test is true, else null if any is null; ``not``
keeps null null; the cell matches only on true. Equality is the exception
FEEL makes for null: ``x = null`` is true or false, never null. So
``not("a")`` matches every string but "a", and null (``null = "a"`` is
false), but no number; ``not(< 5)`` matches numbers from 5 up and not null
(``null < 5`` is null); ``not(null)`` matches every value but null. ``-``
matches everything, None included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from seams.errors import ExpressionError
from seams.lang.feel_interpreter import compile_expression, compile_unary_tests, evaluate, matches
from seams.lang.feel_parse import EqualTest, Name, Test, parse_entry, parse_literal, test_names
from seams.lang.feel_runtime import _feel_member, _feel_test
from seams.lang.feel_samples import samples_for
from seams.lang.feel_sets import ValueSet
from seams.lang.values import FEEL_KINDS, NULL, feel_kind_of, render_literal

KINDS = FEEL_KINDS

__all__ = ["UnaryTests", "compile_expression", "compile_unary_tests", "evaluate", "matches", "overlaps",
           "parse_literal", "parse_unary_tests", "sample_values"]
"""``evaluate``, ``matches`` and the compile functions are all of FEEL (seams.lang.feel_interpreter), named
here too so a caller that knows ``seams.lang.feel`` finds the full language beside the table-cell tests."""


def parse_unary_tests(text: str, *, where: str) -> UnaryTests:
    """Parse an input entry, or raise ExpressionError naming `where`.

    An entry that parses is kept by its text (``where`` only names it in an error), so
    a text that recurs, in a table or across the model's tables, is parsed once and its
    value set and Python form (computed once per entry) are shared: a large model's
    tables repeat their texts, and the decision checks and the decisions generator
    read every table (docs/performance.md)."""
    found = _PARSED.get(text)
    if found is None:
        tests, negated = parse_entry(text, where=where)
        found = UnaryTests(text, tests, negated)
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.clear()  # a bounded memo: a long-lived process reading many models starts over
        _PARSED[text] = found
    return found


_PARSED: dict[str, UnaryTests] = {}
_PARSED_KEPT = 20_000


@dataclass(frozen=True)
class UnaryTests:
    """One parsed input entry. No tests and not negated means ``-`` (any)."""

    text: str
    tests: tuple[Test, ...]
    negated: bool

    @property
    def is_any(self) -> bool:
        return not self.tests

    @cached_property
    def names(self) -> tuple[Name, ...]:
        """The names and paths the entry refers to; an entry with names has no fixed value set."""
        return tuple(name for test in self.tests for name in test_names(test))

    def matches(self, value: object, env: Mapping[str, object] | None = None) -> bool:
        """Whether ``value`` matches; ``env`` gives the values of the names the entry uses
        (by name, as `resolve_name` finds them; a name it lacks is an ExpressionError)."""
        if self.is_any:
            return True
        if self.names:
            resolved = {name: _resolved_value(name, env or {}) for name in self.names}
            return _feel_test(value, self.negated, _runtime_tests(self.tests, lambda n: resolved[n]))
        kind = feel_kind_of(value)
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
        if self.names:
            raise ValueError(f"entry {self.text!r} refers to names: its value set is not known before evaluation")
        if not self.negated:  # the null part only matters under not(...): skip it (large tables)
            true = ValueSet.empty()
            for test in self.tests:
                true = true.union(_test_sets(test)[0])
            return true
        true, unknown = ValueSet.empty(), ValueSet.empty()
        for test in self.tests:
            test_true, test_unknown = _test_sets(test)
            true, unknown = true.union(test_true), unknown.union(test_unknown)
        unknown = unknown.difference(true)
        return true.union(unknown).complement() if self.negated else true

    @cached_property
    def _python_by_var(self) -> dict[str, str]:
        """``to_python(var)`` of an entry without names, by ``var`` (rendered once each)."""
        return {}

    def to_python(self, var: str, names: Mapping[str, str] | None = None) -> str:
        """A Python expression over `var` that is true exactly when `matches` is.

        Without names it is rendered from the value set, so it is canonical
        for the set and uses only builtins, ``Decimal`` and the ``datetime``
        types. With names it calls ``_feel_test`` (seams.lang.feel_runtime),
        each name rendered from ``names``: its Python expression by name
        (see `resolve_name`).
        """
        if not self.names or self.is_any:
            by_var = self._python_by_var
            if var not in by_var:
                by_var[var] = self.value_set().to_python(var)
            return by_var[var]

        def rendered(name: Name) -> str:
            head, members = resolve_name(name, names or {})
            expression = (names or {})[head]
            return f"_feel_member({expression}, {members!r})" if members else expression

        tests = [_source_tuple(t) for t in _runtime_tests(self.tests, rendered, literal=render_literal)]
        return f"_feel_test({var}, {self.negated!r}, ({''.join(f'{t}, ' for t in tests)}))"


def resolve_name(name: Name, scope: Iterable[str]) -> tuple[str, tuple[str, ...]]:
    """The longest leading part of a dotted name that is in ``scope`` and the members after it.

    ``Applicant.Monthly Income`` with ``Applicant`` in scope is
    (``Applicant``, (``Monthly Income``,)); a name with no part in scope is
    a KeyError naming it."""
    known = set(scope)
    for cut in range(len(name.parts), 0, -1):
        head = ".".join(name.parts[:cut])
        if head in known:
            return head, name.parts[cut:]
    raise KeyError(name.text)


def _resolved_value(name: Name, env: Mapping[str, object]) -> object:
    try:
        head, members = resolve_name(name, env)
    except KeyError:
        raise ExpressionError(f"name {name.text!r} is no input of the decision") from None
    return _feel_member(env[head], members)


def _runtime_tests(tests: Iterable[Test], operand, literal=lambda value: value) -> list:
    """The tests as ``_feel_test`` takes them; ``operand`` renders a Name, ``literal`` a literal."""
    def end(value: object):
        return operand(value) if isinstance(value, Name) else literal(value)

    out: list[tuple] = []
    for test in tests:
        if isinstance(test, EqualTest):
            out.append(("=", end(test.value)))
            continue
        interval = test.interval
        if interval.lo is None:
            out.append(("<=" if interval.hi_closed else "<", end(interval.hi)))
        elif interval.hi is None:
            out.append((">=" if interval.lo_closed else ">", end(interval.lo)))
        else:
            out.append(("..", end(interval.lo), interval.lo_closed, end(interval.hi), interval.hi_closed))
    return out


def _source_tuple(test: tuple) -> str:
    """A test tuple whose operands are already Python source, as source."""
    parts = [repr(test[0]), *(repr(p) if isinstance(p, bool) else str(p) for p in test[1:])]
    return "(" + ", ".join(parts) + ")"


def overlaps(a: UnaryTests, b: UnaryTests) -> bool | None:
    """True iff some value matches both entries (exact, not sampled); None when either
    entry refers to names, whose values are not known before evaluation (not analysed)."""
    if (a.names and not a.is_any) or (b.names and not b.is_any):
        return None
    return a.value_set().overlaps(b.value_set())


def _test_result(test: Test, value: object, kind: str) -> bool | None:
    if isinstance(test, EqualTest):
        literal_kind = feel_kind_of(test.value)
        if NULL in (literal_kind, kind):
            return literal_kind == kind
        return value == test.value if kind == literal_kind else None
    return test.interval.contains(value) if kind == test.kind else None


def _test_sets(test: Test) -> tuple[ValueSet, ValueSet]:
    """The values for which `test` is true, and those for which it is null."""
    if isinstance(test, EqualTest):
        kind = feel_kind_of(test.value)
        if kind == NULL:
            return ValueSet.point(None, NULL), ValueSet.empty()
        return ValueSet.point(test.value, kind), ValueSet.of_kinds(k for k in KINDS if k not in (kind, NULL))
    assert test.kind is not None, "a test with names has no value set"
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

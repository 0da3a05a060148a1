"""Overlapping rules of a UNIQUE decision table, found without comparing every pair.

Comparing each rule with every other is quadratic: 10,000 rules were 50
million exact set intersections (minutes). Two rules overlap only when their
entries overlap in *every* column, so one selective column is enough to rule
most pairs out. Per column, each rule's entry is boxed (per value kind: the
bounding interval of a number, string or date part; each member of a
boolean, null or "other" part), and a sort-and-sweep over the boxes lists the
pairs whose boxes meet. The column with the fewest such pairs (counted first,
with the same sweep) supplies the candidates, and each candidate is then
tested exactly, column by column, with the entries' value sets
(seams.lang.feel_sets), so the pairs reported are exactly the pairs the
quadratic test finds (a property test holds them to it). See
docs/performance.md for the figures.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from typing import Any

from seams.lang.feel import UnaryTests, overlaps
from seams.lang.feel_sets import FiniteSet, IntervalSet

_LOW_UNBOUNDED = (-1, 0)
_HIGH_UNBOUNDED = (1, 0)

# per column: {kind: [(lo key, hi key, rule index)]} for interval kinds,
# {(kind, member): [rule index]} for the finite ones
_Boxes = tuple[dict[str, list[tuple[Any, Any, int]]], dict[tuple[str, Any], list[int]]]


def overlapping_pairs(rows: Sequence[Sequence[UnaryTests]]) -> list[tuple[int, int]]:
    """Every pair ``(i, j)``, ``i < j``, of rows whose entries overlap in every column, sorted.

    The same pairs as testing every pair with ``all(overlaps(a, b) ...)``.
    """
    if len(rows) < 2:
        return []
    width = min(len(row) for row in rows)
    if width == 0:  # no input column: every pair of rules matches the same (empty) input
        return [(i, j) for i in range(len(rows)) for j in range(i + 1, len(rows))]
    columns = [_same_text_same_entry([row[column] for row in rows]) for column in range(width)]
    boxes = [_boxes(entries) for entries in columns]
    best = min(range(width), key=lambda column: _count(boxes[column]))
    order = [column for column in range(width) if column != best] + [best]
    matches_something = {id(entry): not entry.value_set().is_empty() for entries in columns for entry in entries}
    found = []
    for i, j in sorted(_candidates(boxes[best])):
        # entries with the same text overlap unless they match nothing: ask the sets only otherwise
        if all(matches_something[id(columns[c][i])] if columns[c][i] is columns[c][j]
               else overlaps(columns[c][i], columns[c][j]) for c in order):
            found.append((i, j))
    return found


def _same_text_same_entry(entries: Sequence[UnaryTests]) -> list[UnaryTests]:
    """One entry object per distinct text, so each distinct value set is computed once."""
    first: dict[str, UnaryTests] = {}
    return [first.setdefault(entry.text, entry) for entry in entries]


def _boxes(entries: Sequence[UnaryTests]) -> _Boxes:
    intervals: dict[str, list[tuple[Any, Any, int]]] = {}
    members: dict[tuple[str, Any], list[int]] = {}
    for index, entry in enumerate(entries):
        for part in entry.value_set().parts:
            kind = part.kind
            if isinstance(part, IntervalSet):
                if part.intervals:
                    first, last = part.intervals[0], part.intervals[-1]
                    lo = _LOW_UNBOUNDED if first.lo is None else (0, first.lo)
                    hi = _HIGH_UNBOUNDED if last.hi is None else (0, last.hi)
                    intervals.setdefault(kind, []).append((lo, hi, index))
            elif isinstance(part, FiniteSet):
                for member in part.members:
                    members.setdefault((kind, member), []).append(index)
    for boxes in intervals.values():
        boxes.sort(key=lambda box: (box[0], box[2]))
    return intervals, members


def _sweep(boxes: list[tuple[Any, Any, int]]) -> Iterator[tuple[int, list[tuple[Any, int]]]]:
    """For each box in order of its low end: the boxes before it whose high end reaches it.

    A high end equal to the low end is kept (closed or open ends alike): the
    boxes are a filter, the exact test comes after.
    """
    active: list[tuple[Any, int]] = []
    for lo, hi, index in boxes:
        while active and active[0][0] < lo:
            heapq.heappop(active)
        yield index, active
        heapq.heappush(active, (hi, index))


def _count(column: _Boxes) -> int:
    intervals, members = column
    total = sum(len(active) for boxes in intervals.values() for _, active in _sweep(boxes))
    return total + sum(len(rules) * (len(rules) - 1) // 2 for rules in members.values())


def _candidates(column: _Boxes) -> set[tuple[int, int]]:
    intervals, members = column
    pairs: set[tuple[int, int]] = set()
    for boxes in intervals.values():
        for index, active in _sweep(boxes):
            pairs.update((min(index, other), max(index, other)) for _, other in active)
    for rules in members.values():
        pairs.update((rules[a], rules[b]) for a in range(len(rules)) for b in range(a + 1, len(rules)))
    return pairs

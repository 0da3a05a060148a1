"""Conditions and decisions only the FEEL interpreter reads, against those seams states in its own trees.

A Camunda 8 condition beyond the condition tree (``count``, ``some``, a filter)
is one ``FeelExpr`` the interpreter evaluates (docs/conditions.md, "FEEL"); a
decision that is a boxed expression is read by seams.lang.dmn_expression and
evaluated by the DMN interpreter (docs/generators.md, ``decisions``). The rows
compare, in this process and best of ``repeats``: evaluating such a condition
against a condition tree comparing as many variables, and reading the boxed-
expression decisions of tests/fixtures/dmn_expressions for the check against
reading the decision table of the leave example.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from measure import Row

ROOT = Path(__file__).resolve().parents[1]
PRICING = ROOT / "tests" / "fixtures" / "dmn_expressions" / "pricing.dmn"
LEAVE = ROOT / "examples" / "leave" / "model" / "leave.dmn"


def _best(repeats: int, action: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def feel_rows(*, repeats: int, evaluations: int = 2000) -> list[Row]:
    from lxml import etree

    from seams.lang.condition import parse_condition
    from seams.lang.dmn_expression import read_expression_decision
    from seams.lang.dmn_support import read_decision

    interpreted = parse_condition("=count(items) > 2 and (some i in items satisfies i > limit)", where="bench")
    tree = parse_condition("=n > 2 and m > limit", where="bench")
    items = [Decimal(n) for n in range(8)]
    env_interpreted = {"items": items, "limit": Decimal(5)}
    env_tree = {"n": Decimal(8), "m": Decimal(7), "limit": Decimal(5)}

    def evaluate(condition, env) -> Callable[[], object]:
        return lambda: [condition.evaluate(env) for _ in range(evaluations)]

    pricing = [d for d in etree.parse(str(PRICING)).getroot().iter("{*}decision")]
    leave = [d for d in etree.parse(str(LEAVE)).getroot().iter("{*}decision")]
    return [
        Row(f"{evaluations} evaluations of a FEEL condition the interpreter reads (count, some) vs one the "
            "condition tree states", _best(repeats, evaluate(interpreted, env_interpreted)),
            _best(repeats, evaluate(tree, env_tree)), target=20.0, enforced=False),
        Row("reading the three boxed-expression decisions of a DMN file for seams check vs the leave example's "
            "decision table", _best(repeats, lambda: [read_expression_decision(d) for d in pricing]),
            _best(repeats, lambda: [read_decision(d) for d in leave]), target=10.0, enforced=False),
    ]


if __name__ == "__main__":
    for row in feel_rows(repeats=5):
        print(f"{row.name}: {row.measured:.4f} s vs {row.baseline:.4f} s = {row.ratio:.2f}x (target <= {row.target}x)")

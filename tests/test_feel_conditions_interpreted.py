"""Camunda 8 conditions the FEEL interpreter evaluates: the names they read and the answers they give.

A condition beyond the condition tree (a built-in function, a filter, ``some``, ``for``)
is one FeelExpr node (seams.lang.feel_expression): its variables are the expression's
free names (seams.lang.feel_names), and its answer is the interpreter's; a result that is not a
boolean stops, as a Zeebe incident. The properties compare that answer with the rule written out in Python, and the
Python form of the condition (Condition.to_python) with the evaluator.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seams.errors import ExpressionError
from seams.lang.condition import parse_condition
from seams.lang.condition_tree import FeelExpr
from seams.lang.feel_grammar import parse_expression
from seams.lang.feel_interpreter import FUNCTION_NAMES
from seams.lang.feel_names import filter_names, free_names

NUMBERS = st.one_of(st.integers(-1000, 1000), st.decimals(-1000, 1000, places=2, allow_nan=False))
ITEMS = st.lists(st.one_of(NUMBERS, st.none()), max_size=6)


def _python(condition, env):
    return eval(condition.to_python(lambda name: f"env[{name!r}]"), {"env": env, "Decimal": Decimal, "date": date})


@settings(max_examples=60, deadline=None)
@given(ITEMS, NUMBERS)
def test_some_count_and_filters_answer_as_their_rule(xs, n):
    """None in a rule is FEEL's null: not a boolean, so the condition stops (a Zeebe incident)."""
    env = {"xs": xs, "n": n}
    numbers = [x for x in xs if x is not None]
    every = False if any(x <= n for x in numbers) else (None if None in xs else True)
    rules = {
        "=count(xs) > n": len(xs) > n,
        "=some x in xs satisfies x > n": True if any(x > n for x in numbers) else (None if None in xs else False),
        "=every x in xs satisfies x > n": every,
        "=xs[item > n] != []": any(x > n for x in numbers),
        "=sum(for x in xs return if x = null then 0 else x) >= n": (sum(numbers) >= n) if xs else None,
    }
    for text, holds in rules.items():
        condition = parse_condition(text, where="Flow_P")
        assert isinstance(condition.tree, FeelExpr)
        assert condition.names == ({"xs"} if "[item" in text else {"xs", "n"})
        if holds is None:
            with pytest.raises(ExpressionError, match="not a boolean"):
                condition.evaluate(env)
            continue
        assert condition.evaluate(env) is holds, text
        if "[item" not in text:  # a filter's names are not passed to the Python form (the module docstring)
            assert _python(condition, env) is holds, text


@pytest.mark.parametrize(("text", "free", "in_filters"), [
    ("order.items[price > limit].sku", ("order",), ("price", "limit")),
    ("for i in xs, j in i.parts return j + k + partial", ("xs", "k"), ()),
    ("{a: 1, b: a + c}.b", ("c",), ()),
    ("(function(p) p * q)(r)", ("q", "r"), ()),
    ("count(items) + string length(lower case(name))", ("items", "name"), ()),
    ("f(x: 1)", ("f",), ()),
    ("some s in xs satisfies s.v > t", ("xs", "t"), ()),
    ("xs[item.a = 1]", ("xs",), ()),
    ("x instance of number and y in [1..z]", ("x", "y", "z"), ()),
])
def test_free_names_are_what_the_expression_reads_from_outside(text, free, in_filters):
    tree = parse_expression(text, where="t", names=FUNCTION_NAMES)
    assert free_names(tree, FUNCTION_NAMES) == free
    assert filter_names(tree, FUNCTION_NAMES) == in_filters

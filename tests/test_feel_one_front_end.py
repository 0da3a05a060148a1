"""One FEEL front-end: a literal means the same value in a decision-table cell, an output entry, a Camunda 8
condition and the FEEL interpreter, because all read it with seams.lang.feel_temporal and the one grammar."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from seams.errors import ExpressionError
from seams.lang.condition_python import engine_python
from seams.lang.condition_semantics import evaluate_engine
from seams.lang.condition_tree import FEEL, Compare, Lit
from seams.lang.feel_expression import parse_feel_expression
from seams.lang.feel_interpreter import evaluate
from seams.lang.feel_parse import parse_literal

LITERALS = [
    'date("2024-02-29")',
    'date and time("2024-01-01T10:30:00")',
    'date and time("2024-01-01T10:30:00+01:00")',
    'date and time("2024-01-01T10:30:00Z")',
    'date and time("2024-06-01T10:30:00@Europe/Paris")',
    'date and time("2024-01-01T24:00:00")',
    'duration("P1DT2H30M")',
    'duration("-PT0.5S")',
]


@pytest.mark.parametrize("text", LITERALS)
def test_a_literal_is_one_value_in_every_front_end(text):
    in_table = parse_literal(text, where="cell")
    tree = parse_feel_expression(f"=x = {text}", where="Flow_X", max_depth=50)
    assert isinstance(tree, Compare) and isinstance(tree.operands[1], Lit)
    assert in_table == tree.operands[1].value == evaluate(text)


@pytest.mark.parametrize("text", ['date("2024-02-30")', 'date and time("2024-01-01T10:30:00@Nowhere/Atlantis")',
                                  'duration("P")'])
def test_text_that_is_no_value_is_refused_by_each(text):
    with pytest.raises(ExpressionError):
        parse_literal(text, where="cell")
    with pytest.raises(ExpressionError):
        parse_feel_expression(f"=x = {text}", where="Flow_X", max_depth=50)
    assert evaluate(text) is None


def run_both(condition: str, env: dict) -> tuple:
    tree = parse_feel_expression(condition, where="Flow_X", max_depth=50)
    source = engine_python(tree, FEEL, lambda name: f"env[{name!r}]")
    try:
        engine: object = evaluate_engine(tree, FEEL, env, "Flow_X")
    except ExpressionError:
        engine = "error"
    try:
        generated: object = eval(source, {"Decimal": Decimal, "date": date, "datetime": datetime,  # noqa: S307
                                          "env": env})
    except ValueError:  # the generated module's error for a condition that is no boolean
        generated = "error"
    return engine, generated


def test_zoned_conditions_answer_alike_in_the_evaluator_and_the_generated_python():
    paris = datetime(2024, 3, 1, 9, tzinfo=timezone(timedelta(hours=1)))
    assert run_both('=t >= date and time("2024-03-01T08:00:00Z")', {"t": paris}) == (True, True)
    assert run_both('=t > date and time("2024-03-01T08:00:00Z")', {"t": paris}) == (False, False)
    # one with an offset against one without orders to null, which stops the engine
    assert run_both('=t >= date and time("2024-03-01T08:00:00")', {"t": paris}) == ("error", "error")

"""Output entries that are FEEL expressions: read, evaluated and generated alike.

The tables follow the shapes of the DMN TCK's tables whose output entries compute
(0008-listGen: an output naming an input; 0039-dt-list-semantics: a string
concatenation) and of Camunda Modeler tables that compute a fee (``amount * 0.1``);
each is written for this test. The evaluator (OutputExpression.evaluate, FEEL
semantics of seams.lang.condition_semantics) and the generated module must give the
same value for every sample, nulls included.
"""

from __future__ import annotations

from datetime import UTC
from decimal import Decimal

import pytest
from test_dmn_tables import outcome, project, table

from seams.errors import ExpressionError
from seams.lang.feel_output import OutputExpression, parse_output

SAMPLES = [0, 5, 30, Decimal("12.5"), None, "x", True]


@pytest.mark.parametrize("text, names", [
    ("Age * 0.1", ("Age",)),
    ('Risk Category + " risk"', ("Risk Category",)),
    ("Age", ("Age",)),
    ("if Age > 18 then Age - 18 else 0", ("Age",)),
    ("-Age", ("Age",)),
    ("(Age + 1) / 2", ("Age",)),
])
def test_an_output_expression_reads_the_inputs_it_names(text, names):
    parsed = parse_output(text, where="output", scope=["Age", "Risk Category"])
    assert isinstance(parsed, OutputExpression) and parsed.names == names


@pytest.mark.parametrize("text, value", [('"a"', "a"), ("1.5", Decimal("1.5")), ("null", None), ("true", True)])
def test_a_literal_stays_a_value(text, value):
    assert parse_output(text, where="output", scope=["Age"]) == value


@pytest.mark.parametrize("text, message", [
    ("Salary * 2", "name 'Salary' is no input of the decision (its inputs: Age)"),
    ("sum([Salary, 2])", "name 'Salary' is no input of the decision (its inputs: Age)"),
    ("{a: Bonus}.a", "name 'Bonus' is no input of the decision (its inputs: Age)"),
    ('duration("P1X")', 'duration() needs an ISO 8601'),
])
def test_what_is_not_read_is_named(text, message):
    with pytest.raises(ExpressionError) as caught:
        parse_output(text, where="output", scope=["Age"])
    assert message in str(caught.value)


@pytest.mark.parametrize("entry", ["Age * 0.1", "Age + 1", "if Age > 18 then Age - 18 else 0", "Age / (Age - 5)",
                                   "sum([Age, 1])", "{a: Age, b: a * 2}.b", "count([1, 2, 3][item > Age])",
                                   "string length(string(Age)) + 0"])
def test_the_generated_module_computes_what_the_evaluator_does(tmp_path, entry):
    root = project(tmp_path, table("FIRST", ["Age"], [("Fee", None)], [(["-"], [entry])]),
                   inputs=["Age"], outputs=["Fee"])
    findings, function = outcome(root)
    assert findings == []
    expression = parse_output(entry, where="output", scope=["Age"])
    assert isinstance(expression, OutputExpression)
    for value in SAMPLES:
        assert function(age=value) == expression.evaluate({"Age": value}), value
    if "if" not in entry and "count" not in entry and "string" not in entry:  # FEEL: null for what does not compute (a null test takes the else branch)
        assert function(age=None) is None and function(age="x") is None


def test_a_concatenation_and_a_name_in_a_collect_table(tmp_path):
    rules = [(['"cough", "fever"', "-"], ['Risk Category + " symptom"']), (["-", "-"], ["Age"])]
    root = project(tmp_path, table("COLLECT", ["Age", "Risk Category"], [("Notes", None)], rules),
                   inputs=["Age", "Risk Category"], outputs=["Notes"])
    findings, function = outcome(root)
    assert findings == []
    assert function(age="cough", risk_category="high") == ["high symptom", "cough"]
    assert function(age="none", risk_category=3) == ["none"]


def test_a_name_whose_value_is_a_list_tests_membership(tmp_path):
    """0039-dt-list-semantics: an input entry naming a list input holds when the input is in it."""
    rules = [(["limit", "-"], ['Age + " is listed"'])]
    root = project(tmp_path, table("COLLECT", ["Age", "limit"], [("Notes", None)], rules),
                   inputs=["Age", "limit"], outputs=["Notes"])
    findings, function = outcome(root)
    assert findings == []
    assert function(age="cough", limit=["fever", "cough"]) == ["cough is listed"]
    assert function(age="rash", limit=["fever", "cough"]) == []
    assert function(age="cough", limit="cough") == ["cough is listed"]


def test_a_zone_name_is_the_offset_the_zone_has_at_that_moment(tmp_path):
    """A Camunda-style appointment table: the zone's offset follows daylight saving time."""
    from datetime import datetime, timedelta, timezone

    rules = [(['< date and time("2024-03-31T03:00:00@Europe/Paris")'], ['"winter"']), (["-"], ['"summer"'])]
    root = project(tmp_path, table("FIRST", ["Age"], [("Season", None)], rules), inputs=["Age"], outputs=["Season"])
    findings, function = outcome(root)
    assert findings == []
    paris_winter = timezone(timedelta(hours=1))
    assert function(age=datetime(2024, 3, 31, 0, 59, tzinfo=UTC)) == "winter"  # 01:59 in Paris (+01:00)
    assert function(age=datetime(2024, 3, 31, 1, 0, tzinfo=UTC)) == "summer"  # 03:00 in Paris (+02:00)
    assert function(age=datetime(2024, 3, 31, 1, 59, tzinfo=paris_winter)) == "winter"
    assert function(age=datetime(2024, 3, 31, 1, 59)) == "summer"  # no offset: null test, FIRST falls through


def test_a_whole_feel_expression_reads_the_inputs_it_names():
    parsed = parse_output('sum(Order.items[price > Limit].price) + count([Age])', where="output",
                          scope=["Age", "Order.items", "Limit", "Unused"])
    assert isinstance(parsed, OutputExpression)
    assert parsed.names == ("Order.items", "Age", "Limit")
    order = {"price": Decimal(5)}
    assert parsed.evaluate({"Age": 1, "Order.items": [order, {"price": 20}], "Limit": 10}) == Decimal(21)


@pytest.mark.parametrize("text, message", [
    ('date and time("2024-01-01T10:00:00@Mars/Olympus")', "time zone 'Mars/Olympus' is not in this machine"),
])
def test_temporal_constructs_out_of_scope_are_named(text, message):
    with pytest.raises(ExpressionError, match=message):
        parse_output(text, where="output", scope=["Age"])


def test_the_module_builds_the_feel_runtime_once_for_all_its_output_expressions(tmp_path):
    from seams.generators.decisions import decisions_source
    from seams.model.loading import load_model
    from seams.project.layout import load_project

    rules = [(["> 10"], ["Age * 2"]), (["> 5"], ["Age + 1"]), (["-"], ["0"])]
    root = project(tmp_path, table("FIRST", ["Age"], [("Score", None)], rules), inputs=["Age"], outputs=["Score"])
    source = decisions_source(load_model(load_project(root))) or ""
    assert source.count("\n_FEEL_R = ") == 1
    assert "(lambda R: R['farith']('*', (age), 2))(_FEEL_R)" in source

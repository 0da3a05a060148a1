"""The rest of DMN 1.3's simple-unary-test grammar: string escapes, time / date and time / duration
literals, ``=``, names and dotted paths as operands (resolved against the decision's inputs), and the
run-time helpers the generated module copies. Every entry is judged twice, by the evaluator and by the
Python source the generator writes, on the same values."""

from __future__ import annotations

import builtins
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal

import pytest

from seams.errors import ExpressionError
from seams.lang import feel_runtime
from seams.lang.feel import overlaps, parse_literal, parse_unary_tests, sample_values
from seams.lang.values import feel_kind_of

WHERE = "Decision_Test rule 1 input amount"
PLUS_ONE = timezone(timedelta(hours=1))
RUNTIME: dict = {"Decimal": Decimal, "date": date, "datetime": datetime, "time": time, "timedelta": timedelta}
exec(feel_runtime.runtime_source(), RUNTIME)  # as the generated module holds it


def entry(text: str):
    return parse_unary_tests(text, where=WHERE)


def generated_matches(tests, value, env=None):
    """Evaluate the generated test: names become variables of the same values."""
    scope = {name: f"_in_{number}" for number, name in enumerate(sorted(env or {}))}
    source = tests.to_python("value", scope)
    namespace = {**RUNTIME, "__builtins__": builtins, "timezone": timezone}
    local = {"value": value, **{scope[name]: v for name, v in (env or {}).items()}}
    return eval(compile(source, "<generated>", "eval"), namespace, local)


@pytest.mark.parametrize(("text", "value"), [
    (r'"a\nb"', "a\nb"), (r'"tab\there"', "tab\there"), (r'"\u00e9t\u00e9"', "été"),
    (r'"\U01F600"', "\U0001F600"), (r'"it\'s"', "it's"), (r'"q\"q"', 'q"q'), (r'"back\\slash"', "back\\slash"),
    ('time("10:30:00")', time(10, 30)), ('time("10:30:00.25Z")', time(10, 30, 0, 250000, tzinfo=UTC)),
    ('time("23:59:59+01:00")', time(23, 59, 59, tzinfo=PLUS_ONE)),
    ('date and time("2024-02-29T08:00:00")', datetime(2024, 2, 29, 8)),
    ('date and time("2024-02-29")', datetime(2024, 2, 29)),
    ('date and time("2024-02-29T08:00:00-05:30")',
     datetime(2024, 2, 29, 8, tzinfo=timezone(-timedelta(hours=5, minutes=30)))),
    ('duration("P2DT3H4M5.5S")', timedelta(days=2, hours=3, minutes=4, seconds=5.5)),
    ('duration("-PT1H")', -timedelta(hours=1)), ('duration("P10D")', timedelta(days=10)),
])
def test_literals(text, value):
    parsed = parse_literal(text, where=WHERE)
    assert parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize(("text", "problem"), [
    ('duration("P1Y2M")', "years and months durations are not supported"),
    ('duration("PT")', "days and time duration"),
    ('time("10:30:00@Europe/Paris")', "a time with a zone name has no fixed offset without a date"),
    ('date and time("2024-01-01T10:30:00@Nowhere/Atlantis")', "time zone 'Nowhere/Atlantis' is not in"),
    ('time("10:30:00.1234567")', 'time() needs "hh:mm:ss"'),
    ('date and time("2024-02-30T00:00:00")', "no such date and time"),
    ('time("24:00:00")', "no such time"),
    ("limit", "name 'limit' (only literals are supported)"),
])
def test_literal_refusals(text, problem):
    with pytest.raises(ExpressionError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        parse_literal(text, where=WHERE)


MATCHES = [
    ('< time("12:00:00")', [time(11, 59, 59, 999999), time(0)], [time(12), time(11, tzinfo=UTC), None]),
    ('[time("09:00:00Z")..time("17:00:00Z")]', [time(10, tzinfo=PLUS_ONE), time(9, tzinfo=UTC)],
     [time(8, 59, tzinfo=UTC), time(10)]),
    ('>= date and time("2024-01-01T00:00:00")', [datetime(2024, 1, 1), datetime(2030, 5, 5, 5)],
     [datetime(2023, 12, 31, 23, 59), datetime(2024, 6, 1, tzinfo=UTC), date(2024, 6, 1)]),
    ('date and time("2024-01-01T10:00:00+01:00")', [datetime(2024, 1, 1, 9, tzinfo=UTC)],
     [datetime(2024, 1, 1, 10, tzinfo=UTC), datetime(2024, 1, 1, 10)]),
    ('(duration("P1D")..duration("P7D")]', [timedelta(days=2), timedelta(days=7)], [timedelta(days=1), 3, None]),
    ('not(duration("PT0S"))', [timedelta(seconds=1), None], [timedelta(0), 0]),
    ("= 5", [5, Decimal("5.0")], [6, "5"]),
    (r'"caf\u00e9"', ["café"], ["cafe"]),
]


@pytest.mark.parametrize(("text", "good", "bad"), MATCHES)
def test_temporal_and_escaped_entries_match_as_generated(text, good, bad):
    tests = entry(text)
    for value in good:
        assert tests.matches(value) is True and generated_matches(tests, value) is True, value
    for value in bad:
        assert tests.matches(value) is False and generated_matches(tests, value) is False, value


NAMED = [
    # entry, inputs, matching values, non-matching values
    ("< limit", {"limit": 10}, [9, Decimal("9.99")], [10, "9", None]),
    ("< limit", {"limit": None}, [], [1, None]),  # null < 1 is null: no match
    ("[low..high]", {"low": 1, "high": 5}, [1, 5], [0, 6]),
    ("[low..high]", {"low": date(2024, 1, 1), "high": date(2024, 1, 31)}, [date(2024, 1, 15)], [5]),
    ("(0..limit)", {"limit": 3}, [1, 2], [0, 3]),
    ("Monthly Income", {"Monthly Income": 3000}, [3000], [3001]),  # a name with a space, as equality
    ("> Applicant.Monthly Income", {"Applicant": {"Monthly Income": 10}}, [11], [10]),
    ("> Applicant.Missing", {"Applicant": {"Monthly Income": 10}}, [], [11, None]),  # a missing member is null
    ("= other", {"other": None}, [None], [0]),  # x = null is true for null only
    ("not(< limit)", {"limit": 5}, [5, 7], [4, None, "a"]),
    ('limit, "x"', {"limit": 1}, [1, "x"], [2]),
]


@pytest.mark.parametrize(("text", "env", "good", "bad"), NAMED)
def test_names_resolve_against_the_inputs_as_generated(text, env, good, bad):
    tests = entry(text)
    assert tests.names
    for value in good:
        assert tests.matches(value, env) is True and generated_matches(tests, value, env) is True, value
    for value in bad:
        assert tests.matches(value, env) is False and generated_matches(tests, value, env) is False, value


def test_a_name_no_input_gives_is_an_error():
    with pytest.raises(ExpressionError, match="name 'limit' is no input"):
        entry("< limit").matches(5, {})


def test_overlaps_are_exact_over_times_and_not_analysed_with_names():
    assert overlaps(entry('< time("10:00:00")'), entry('>= time("10:00:00")')) is False
    assert overlaps(entry('<= time("10:00:00")'), entry('>= time("10:00:00")')) is True
    # nothing lies between two adjacent microseconds
    assert overlaps(entry('(time("10:00:00")..time("10:00:00.000001"))'), entry("-")) is False
    assert overlaps(entry('(duration("PT0S")..duration("PT0.000002S"))'), entry('duration("PT0.000001S")')) is True
    assert overlaps(entry('< date and time("2024-01-01T00:00:00")'),
                    entry('> date and time("2023-01-01T00:00:00Z")')) is False  # with and without offset
    assert overlaps(entry("< limit"), entry("> 5")) is None
    assert overlaps(entry("< limit"), entry("-")) is None


def test_samples_tell_temporal_entries_apart():
    found = sample_values([entry('< time("10:00:00")'), entry('duration("P1D")'), entry("< limit")])
    assert time(9, 59, 59, 999999) in found and time(10) in found and time(10, 0, 0, 1) in found
    assert timedelta(days=1) in found


@pytest.mark.parametrize("value", [
    None, True, 0, 1.5, Decimal("NaN"), float("nan"), "s", date(2024, 1, 1), datetime(2024, 1, 1),
    datetime(2024, 1, 1, tzinfo=UTC), time(1), time(1, tzinfo=PLUS_ONE), timedelta(1), [1], {"a": 1},
])
def test_the_runtime_kind_is_the_evaluators(value):
    assert RUNTIME["_feel_kind"](value) == feel_kind_of(value)

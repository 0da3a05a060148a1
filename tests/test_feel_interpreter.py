"""seams.lang.feel_interpreter: FEEL expressions and unary tests as DMN 1.5 defines them (chapter 10).

Each case is an expression and the value the standard gives it; errors are null, as FEEL makes them.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from seams.errors import ExpressionError
from seams.lang.feel_interpreter import compile_expression, evaluate, matches
from seams.lang.feel_temporal import YearsMonths
from seams.lang.feel_values import Range

D = Decimal

EXPRESSIONS = [
    # numbers: exact decimals, 34 significant digits, division by zero is null
    ("1 + 2 * 3", D(7)),
    ("0.1 + 0.2", D("0.3")),
    ("1 / 3", D("0.3333333333333333333333333333333333")),
    ("10 / 0", None),
    ("2 ** 10", D(1024)),
    ("10 ** 99999", None),  # beyond decimal128: an error, so null
    ("-(3 - 5)", D(2)),
    ("decimal(2.5, 0) + decimal(3.5, 0)", D(6)),  # half even
    # strings, booleans, three-valued logic
    ('"a" + "b"', "ab"),
    ('"a" + 1', None),
    ("true and null", None),
    ("false and null", False),
    ("true or null", True),
    ("not(null)", None),
    # comparison and null
    ("null = null", True),
    ("1 = null", False),
    ('1 = "1"', None),
    ("3 between 1 and 3", True),
    ("5 in (< 3, > 4)", True),
    ("5 in [1..5)", False),
    ("2 in [[1..3], [7..9]]", True),
    # lists, filters, paths, contexts
    ("[1, 2, 3][item > 1]", [D(2), D(3)]),
    ("[1, 2, 3][-1]", D(3)),
    ("[1, 2, 3][4]", None),
    ("[{a: 1}, {a: 2}].a", [D(1), D(2)]),
    ("[{a: 1, b: 2}, {a: 3, b: 4}][a > 2].b", [D(4)]),
    ("{first name: \"Ann\", greeting: \"Hi \" + first name}.greeting", "Hi Ann"),
    ('{"a b": 1}.a b', D(1)),
    # loops, quantifiers, conditionals
    ("for x in 1..3 return x * x", [D(1), D(4), D(9)]),
    ("for x in [1, 2], y in [10, 20] return x + y", [D(11), D(21), D(12), D(22)]),
    ("for i in 0..4 return if i = 0 then 1 else i * partial[-1]", [D(1), D(1), D(2), D(6), D(24)]),
    ("some x in [1, 5] satisfies x > 4", True),
    ("every x in [1, 5] satisfies x > 4", False),
    ("if null then 1 else 2", D(2)),
    # functions: definitions, named arguments, built-ins
    ("(function(a, b) a - b)(b: 1, a: 5)", D(4)),
    ("{sq: function(x) x * x, r: sq(4)}.r", D(16)),
    ('substring(string: "foobar", start position: 3)', "obar"),
    ('string length("abc") + count([1, 2])', D(5)),
    ('upper case("a") + lower case("B")', "Ab"),
    ('replace("abc", "b", "X")', "aXc"),
    ('matches("Hello", "^h", "i")', True),
    ('split("a,b", ",")', ["a", "b"]),
    ('string join(["a", null, "b"], "-")', "a-b"),
    ("sum([1, 2, 3]) + mean(2, 4) + min([5, 3]) + max(1, 9)", D(21)),
    ("sort([3, 1, 2], function(x, y) x > y)", [D(3), D(2), D(1)]),
    ("distinct values([1, 1, 2])", [D(1), D(2)]),
    ("flatten([1, [2, [3]]])", [D(1), D(2), D(3)]),
    ("index of([1, 2, 1], 1)", [D(1), D(3)]),
    ("modulo(-7, 3)", D(2)),
    ("floor(-1.5) + ceiling(1.2)", D(0)),
    ("round half up(2.5, 0)", D(3)),
    ('number("1,000.5", ",", ".")', D("1000.5")),
    ("get value({a: 1}, \"a\")", D(1)),
    ('context put({a: 1}, "b", 2)', {"a": D(1), "b": D(2)}),
    ("get entries({a: 1})", [{"key": "a", "value": D(1)}]),
    ("before(1, [2..3])", True),
    ("overlaps([1..5], [3..8])", True),
    ("1 instance of number", True),
    ('"a" instance of number', False),
    ("[1, 2] instance of list<number>", True),
    ("count()", None),  # a built-in given the wrong arguments is null
    ("unknown name + 1", None),
    # dates, times, durations
    ('date("2024-01-31") + duration("P1M")', date(2024, 2, 29)),
    ('date("2024-03-01") - date("2024-02-01")', timedelta(days=29)),
    ('date and time("2024-01-01T23:00:00") + duration("PT2H")', datetime(2024, 1, 2, 1)),
    ('time("23:30:00") + duration("PT1H")', time(0, 30)),
    ('date and time("2024-01-01T10:00:00+01:00") = date and time("2024-01-01T09:00:00Z")', True),
    ('years and months duration(date("2020-03-15"), date("2024-03-14"))', YearsMonths(47)),
    ('duration("P1Y") + duration("P2M")', YearsMonths(14)),
    ('duration("P1D") / duration("PT12H")', D(2)),
    ('date("2024-05-17").weekday', D(5)),
    ('string(date and time("2024-06-01T12:00:00@Europe/Paris"))', "2024-06-01T12:00:00@Europe/Paris"),
    ('@"2024-01-01T24:00:00"', datetime(2024, 1, 2)),
    ('date("2024-01-01") - date and time("2024-01-01T00:00:00")', None),
    ('date("10000-01-01")', None),  # FEEL has it; Python's date has not: an error, so null
    ("[1..3].start included and not([1..3).end included)", True),
]


@pytest.mark.parametrize(("text", "expected"), EXPRESSIONS)
def test_expression_values(text, expected):
    assert evaluate(text) == expected
    assert type(evaluate(text)) is type(expected)


def test_variables_with_spaces_and_python_values_in_the_context():
    context = {"Monthly Salary": 3000, "order": {"items": [{"price": 2.5, "qty": 2}, {"price": 1, "qty": 3}]}}
    assert evaluate("Monthly Salary * 12", context) == D(36000)
    assert evaluate("sum(for i in order.items return i.price * i.qty)", context) == D(8)
    assert evaluate('{"total": sum(order.items.price)}', context) == {"total": D("3.5")}
    assert evaluate("order.items[1].price * 2", context) == D(5)


def test_zone_names_and_offsets_are_kept():
    paris = evaluate('date and time("2024-06-01T12:00:00@Europe/Paris")')
    assert paris.tzinfo == ZoneInfo("Europe/Paris")
    assert evaluate('time("10:00:00+02:00")') == time(10, tzinfo=timezone(timedelta(hours=2)))
    assert evaluate('date and time("2024-06-01T12:00:00@Europe/Paris").time offset') == timedelta(hours=2)


def test_errors_are_null_and_kept():
    outcome = compile_expression('1 + "a"').run()
    assert outcome.value is None and outcome.errors and "cannot add" in outcome.errors[0]


@pytest.mark.parametrize("text", ["1 +", "(1", "[1..", "{a 1}", "if 1 then 2", "a ** ", '"open'])
def test_syntax_errors_name_the_offset(text):
    with pytest.raises(ExpressionError, match="FEEL syntax error"):
        compile_expression(text, where="mapping")


def test_hostile_nesting_is_refused_not_a_crash():
    with pytest.raises(ExpressionError, match="nesting deeper than"):
        compile_expression("(" * 500 + "1" + ")" * 500)
    with pytest.raises(ExpressionError, match="operators in a row"):
        compile_expression("+".join(["1"] * 1000))
    assert evaluate("(function(f) f(f))(function(f) f(f))") is None  # endless recursion: null


UNARY_TESTS = [
    ("-", None, True),
    ("< 10", D(5), True),
    ("< 10", "a", None),
    ("[1..10], > 100", D(500), True),
    ('not("a", "b")', "c", True),
    ('not("a", "b")', "a", False),
    ("null", None, True),
    ("? > 5 and ? < 10", D(7), True),
    ("[1, 2, 3]", D(2), True),
    ("<= limit", D(5), True),
]


@pytest.mark.parametrize(("tests", "value", "expected"), UNARY_TESTS)
def test_unary_tests(tests, value, expected):
    assert matches(tests, value, {"limit": 5}) is expected


def test_a_range_value_is_a_feel_value():
    assert evaluate("[1..5)") == Range(D(1), D(5), True, False)
    assert evaluate("< 5") == Range(None, D(5), False, False)

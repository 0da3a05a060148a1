"""FEEL unary tests and literals: parsing, matching, exact overlap, samples, generated code."""

from __future__ import annotations

import builtins
from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seams.errors import ExpressionError
from seams.lang.feel import overlaps, parse_literal, parse_unary_tests, sample_values
from seams.lang.feel_parse import MAX_LENGTH

WHERE = "Decision_Test rule 1 input amount"


def entry(text):
    return parse_unary_tests(text, where=WHERE)


def generated_matches(tests, value):
    source = tests.to_python("value")
    namespace = {"__builtins__": builtins, "Decimal": Decimal, "date": date}
    return eval(compile(source, "<generated>", "eval"), namespace, {"value": value})


# Values of every kind, including the awkward ones, for equivalence checks.
EXTRAS = [
    None, True, False, 0, -7, 0.25, float("inf"), float("-inf"), float("nan"), Decimal("NaN"),
    Decimal("1E+3"), "", "zzz", date(2000, 1, 1), date.min, date.max, datetime(2024, 1, 31),
    Fraction(1, 2), [1], object(),
]


# --- literals ---------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("42", 42),
        ("-17", -17),
        ("  7  ", 7),
        ("1.5", Decimal("1.5")),
        ("-0.25", Decimal("-0.25")),
        (".5", Decimal("0.5")),
        ("1.50", Decimal("1.50")),
        ('"travel"', "travel"),
        ('""', ""),
        ('"say \\"hi\\""', 'say "hi"'),
        ('"back\\\\slash"', "back\\slash"),
        ('"a, b (c) [d..e]"', "a, b (c) [d..e]"),
        ("true", True),
        ("false", False),
        ("null", None),
        ('date("2024-01-31")', date(2024, 1, 31)),
        ('date( "2024-02-29" )', date(2024, 2, 29)),
    ],
)
def test_parse_literal(text, expected):
    value = parse_literal(text, where=WHERE)
    assert value == expected and type(value) is type(expected)


def test_decimal_literal_keeps_its_written_precision():
    assert str(parse_literal("1.50", where=WHERE)) == "1.50"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "expected a literal, found end of text"),
        ("   ", "expected a literal"),
        ("abc", "name 'abc'"),
        ("TRUE", "name 'TRUE'"),
        ("1 + 2", "unexpected '+'"),
        ("1, 2", "unexpected ','"),
        ("1 2", "unexpected '2'"),
        ("1.", "unexpected '.'"),
        ("1e5", "unexpected 'e5'"),
        ("- 5", "expected a literal, found '-'"),
        ('"open', "unterminated string"),
        ('"a\\qb"', "unsupported escape \\q"),
        ('"\\uD800"', "names no character"),
        ("'single'", "unexpected \"'\""),
        ('date("2024-02-30")', "no such date"),
        ('date("20240131")', "YYYY-MM-DD"),
        ("date(2024)", "date() needs a string"),
        ('date("2024-01-31"', "expected ')'"),
        ('time("10:00")', 'time() needs "hh:mm:ss"'),
        ('duration("P1Y")', "years and months durations are not supported"),
        ('date and time("2024-01-01T25:00:00")', "no such date and time"),
        ('upper("a")', "name 'upper'"),
        ("< 5", "expected a literal, found '<'"),
        ("1" * (MAX_LENGTH + 1), "longer than"),
    ],
)
def test_parse_literal_refuses_naming_where(text, problem):
    with pytest.raises(ExpressionError) as raised:
        parse_literal(text, where=WHERE)
    assert str(raised.value).startswith(f"{WHERE}: ")
    assert problem in str(raised.value)
    assert "in FEEL literal" in str(raised.value)


# --- unary tests: matching --------------------------------------------------

MATCHES = [
    # entry, matching values, non-matching values
    ("-", [1, "a", None, True, date(2024, 1, 1), [1]], []),
    ("", [1, None], []),
    ("   ", [1, None], []),
    ("< 100", [99, 99.99, Decimal("-1e9"), float("-inf")], [100, 101, "50", True, None]),
    ("<= 5", [5, Decimal("5.00"), 5.0], [Decimal("5.0001"), False]),
    ("> 1.5", [Decimal("1.51"), 2], [Decimal("1.5"), 1.5, 1]),
    (">= 5", [5, 6, float("inf")], [4, "5", float("nan"), Decimal("NaN")]),
    ('> "m"', ["n", "ma", "z"], ["m", "a", "", 5]),
    ('>= date("2024-01-31")', [date(2024, 1, 31), date(2025, 1, 1)], [date(2024, 1, 30), datetime(2024, 2, 1), "2024-02-01"]),
    ("[1..10]", [1, 10, Decimal("5.5")], [0, 11, Decimal("10.01"), True]),
    ("(1..10)", [2, Decimal("1.0001")], [1, 10]),
    ("]1..10[", [2, 9.99], [1, 10]),
    ("[1..10[", [1, 9], [10]),
    ("(1..10]", [10], [1]),
    ("[10..1]", [], [1, 5, 10]),
    ('["a".."c"]', ["a", "b", "bzz", "c"], ["c0", "", 1]),
    ('[date("2024-01-01")..date("2024-01-03")[', [date(2024, 1, 2)], [date(2024, 1, 3)]),
    ("5", [5, 5.0, Decimal("5.000")], [True, "5", 6, None]),
    ("1", [1], [True]),
    ('"travel"', ["travel"], ["Travel", "travel ", None]),
    ('"a","b"', ["a", "b"], ["c", None]),
    ("true", [True], [False, 1, "true", None]),
    ("false", [False], [True, 0, None]),
    ("null", [None], [0, "", False]),
    ('date("2024-01-31")', [date(2024, 1, 31)], [datetime(2024, 1, 31), "2024-01-31"]),
    ("5, [7..9], > 100", [5, 8, 101], [6, 10, 100]),
    ('not("a")', ["b", "", None], ["a", 1, True]),  # null = "a" is false, so not() is true
    ('not("a", "b")', ["c"], ["a", "b", 0]),
    ("not(< 5)", [5, 6], [4, "a", None]),  # null < 5 is null, and stays null under not()
    ("not([1..5])", [0, Decimal("5.5")], [1, 3, 5, None]),
    ("not(null)", [0, "", False, date(2024, 1, 1), [1]], [None]),
    ("not(true)", [False, None], [True, 1, "true"]),
    ('not(5, "a")', [None], [5, "a", 6, "b", True]),  # any other value meets a null test
    ('not(5, "a", null)', [], [5, "a", 6, "b", True, None]),
    ("-5", [-5], [5]),
    ("< -1.5", [-2], [Decimal("-1.5"), -1]),
]


@pytest.mark.parametrize(("text", "good", "bad"), MATCHES)
def test_matches(text, good, bad):
    tests = entry(text)
    for value in good:
        assert tests.matches(value) is True, value
        assert generated_matches(tests, value) is True, value
    for value in bad:
        assert tests.matches(value) is False, value
        assert generated_matches(tests, value) is False, value


def test_is_any_and_text():
    assert entry("-").is_any and entry(" ").is_any and entry("").is_any
    assert not entry("not(1)").is_any
    assert entry(" < 5 ").text == " < 5 "


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("!= 5", "unexpected '!'"),
        ("amount > 5", "unexpected '>'"),
        ('upper("a")', "function 'upper'"),
        ("a.", "expected a name after '.'"),
        ("? > 5", "unexpected '?'"),
        ("1 + 2", "unexpected '+'"),
        ("1 - 2", "unexpected '-'"),
        ("5 6", "unexpected '6'"),
        ("not(not(1))", "function 'not'"),
        ("not()", "expected a literal, found ')'"),
        ("not(1", "expected ')', found end of text"),
        ("1, not(2)", "function 'not'"),
        ("-, 1", "unexpected ','"),
        ("1, -", "expected a literal, found '-'"),
        ("1,", "expected a literal, found end of text"),
        (",1", "expected a literal, found ','"),
        ("< true", "true cannot be compared"),
        ("> null", "null cannot be compared"),
        ("[true..false]", "true cannot be compared"),
        ('[1.."a"]', "different kinds"),
        ("[1..2", "closing the interval"),
        ("[1 2]", "expected '..'"),
        ("[1..2..3]", "closing the interval"),
        ("<", "expected a literal, found end of text"),
        ("<< 1", "expected a literal, found '<'"),
        ("@\"2024-01-01\"", "unexpected '@'"),
        ("1 ; 2", "unexpected ';'"),
        ("\u0663", "unexpected '\u0663'"),  # digits are ASCII digits
        ("1" * (MAX_LENGTH + 1), "longer than"),
    ],
)
def test_unary_tests_refuse_naming_where(text, problem):
    with pytest.raises(ExpressionError) as raised:
        parse_unary_tests(text, where=WHERE)
    message = str(raised.value)
    assert message.startswith(f"{WHERE}: ") and "in FEEL unary tests" in message
    assert problem in message
    assert "\n" not in message


# --- exact overlap ----------------------------------------------------------

OVERLAPS = [
    ("[1..5]", "(5..10]", False),
    ("[1..5]", "[5..10]", True),
    ("[1..5)", "[5..10]", False),
    ("< 5", ">= 5", False),
    ("<= 5", ">= 5", True),
    ("< 5", "> 4.999", True),
    ("(1..2)", "(1..2)", True),
    ("(1..1]", "-", False),  # empty interval overlaps nothing, not even any
    ("[10..1]", "[1..10]", False),
    ("-", "-", True),
    ("-", "null", True),
    ("5", "5.0", True),
    ("5", "[5..5]", True),
    ("5", "(5..6)", False),
    ("< 5", "> 6", False),
    ("not(< 5)", "< 5", False),
    ("not([1..5])", "[3..5]", False),
    ("not([1..5])", "[5..6]", True),
    ('"a","b"', 'not("a")', True),
    ('"a"', 'not("a")', False),
    ('not("a")', 'not("b")', True),
    ('not("a")', "5", False),  # not("a") holds no numbers
    ('not("a")', "not(5)", True),  # both hold null: null = "a" and null = 5 are false
    ("not(< 5)", 'not("a")', False),
    ('"a"', '"A"', False),
    ("true", "false", False),
    ("true", "not(false)", True),
    ("null", "not(null)", False),
    ("not(null)", "5", True),
    ("1", "true", False),
    ('> "a"', '< "b"', True),
    ('("a".."b")', '"a"', False),
    ('("a".."a\0")', "-", False),  # nothing lies strictly between "a" and its successor
    ('("a".."a\0"]', '"a\0"', True),
    ('< ""', "-", False),
    ('<= ""', '""', True),
    ('< date("2024-01-02")', '> date("2024-01-01")', False),  # whole days: no date between
    ('<= date("2024-01-02")', '> date("2024-01-01")', True),
    ('< date("0001-01-01")', "-", False),
    ('> date("9999-12-31")', "-", False),
    ('date("2024-01-01")', '"2024-01-01"', False),
    ('[1.10..1.20]', "(1.2..1.3]", False),
    ('[1.10..1.20]', "1.2", True),
]


@pytest.mark.parametrize(("a", "b", "expected"), OVERLAPS)
def test_overlaps_is_exact(a, b, expected):
    first, second = entry(a), entry(b)
    assert overlaps(first, second) is expected
    assert overlaps(second, first) is expected
    samples = sample_values([first, second]) + EXTRAS
    assert any(first.matches(v) and second.matches(v) for v in samples) is expected


def test_value_set_is_empty_only_for_entries_matching_nothing():
    assert entry("[5..1]").value_set().is_empty()
    assert entry("(1..1)").value_set().is_empty()
    assert entry('not(5, "a", null)').value_set().is_empty()
    assert not entry("[1..1]").value_set().is_empty()
    assert entry("-").value_set().is_full()
    assert not entry("not(null)").value_set().is_full()


# --- samples ----------------------------------------------------------------

def test_sample_values_cover_every_boundary_and_gap():
    tests = [entry(text) for text in ["< 5", "> 6", '"a","b"', 'not("a")', "[1.50..2]", "true", '>= date("2024-01-31")']]
    assert sample_values(tests) == [
        1, Decimal("1.49"), Decimal("1.50"), Decimal("1.51"), 2, 3, 4, 5, Decimal("5.5"), 6, 7,
        "a", "b", "other",
        date(2024, 1, 30), date(2024, 1, 31), date(2024, 2, 1),
        False, True,
    ]


def test_sample_values_details():
    assert sample_values([]) == [] and sample_values([entry("-")]) == []
    assert sample_values([entry("null")]) == [None]
    assert sample_values([entry('"other", "other_2"')]) == ["other", "other_2", "other_3"]
    assert sample_values([entry('> "b"'), entry('"a"')]) == ["", "a", "a\0", "b", "b\0", "other"]
    assert sample_values([entry('< date("0001-01-01")')]) == [date(1, 1, 1), date(1, 1, 2)]
    assert sample_values([entry("5"), entry("5.0")]) == [4, Decimal("4.9"), 5, Decimal("5.1"), 6]
    big = "9" * 60 + ".5"
    assert Decimal("9" * 60 + ".6") in sample_values([entry(f"< {big}")])  # exact, not rounded to 28 digits
    assert sample_values([entry("< 5")]) == sample_values([entry("< 5")])


# --- generated code ---------------------------------------------------------

def test_to_python_is_deterministic_and_uses_only_allowed_names():
    source = entry('[1.5..2], "a", date("2024-01-31"), true').to_python("row['x']")
    assert source == entry('[1.5..2], "a", date("2024-01-31"), true').to_python("row['x']")
    assert 'Decimal("1.5")' in source and "date(2024, 1, 31)" in source
    assert entry("-").to_python("v") == "True"
    assert entry("[2..1]").to_python("v") == "False"


@pytest.mark.parametrize("text", [row[0] for row in MATCHES] + [row[0] for row in OVERLAPS])
def test_to_python_agrees_with_matches_on_samples(text):
    tests = entry(text)
    for value in sample_values([tests]) + EXTRAS:
        assert generated_matches(tests, value) is tests.matches(value), value


# --- property tests ---------------------------------------------------------

TOKENS = [
    "-", "1", "-2", "1.5", ".5", '"a"', '"b"', '""', "true", "false", "null", "not", "(", ")", "[",
    "]", "..", ",", "<", "<=", ">", ">=", "date", '("2024-01-01")', "x", "+", "=", '"', "\\", " ",
    "\n", "@", "'", "1e3", ")(", "not(", "1..2",
]


def parses_or_refuses(text):
    for parse in (parse_unary_tests, parse_literal):
        try:
            result = parse(text, where=WHERE)
        except ExpressionError as error:
            assert str(error).startswith(f"{WHERE}: ")
            continue
        if parse is parse_unary_tests:
            result.to_python("v", {name.text: "w" for name in result.names})
            sample_values([result])


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_parses_or_raises_expression_error(text):
    parses_or_refuses(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=20).map(lambda parts: "".join(parts)))
def test_token_soup_parses_or_raises_expression_error(text):
    parses_or_refuses(text)


numbers = st.sampled_from(["-1", "0", "1", "2", "1.5", "2.0", "-0.5", "3"])
strings = st.sampled_from(['""', '"a"', '"ab"', '"b"'])
dates = st.sampled_from(['date("2024-01-01")', 'date("2024-01-02")', 'date("2024-01-04")'])
endpoints = numbers | strings | dates
same_kind_pairs = st.one_of(*(st.tuples(kind, kind) for kind in (numbers, strings, dates)))
single_tests = st.one_of(
    st.tuples(st.sampled_from(["<", "<=", ">", ">="]), endpoints).map(" ".join),
    st.tuples(st.sampled_from("[(]"), same_kind_pairs, st.sampled_from("])[")).map(
        lambda t: f"{t[0]}{t[1][0]}..{t[1][1]}{t[2]}"
    ),
    endpoints,
    st.sampled_from(["true", "false", "null"]),
)
entries = st.one_of(
    st.just("-"),
    st.lists(single_tests, min_size=1, max_size=3).map(", ".join),
    st.lists(single_tests, min_size=1, max_size=3).map(lambda ts: f"not({', '.join(ts)})"),
)


@settings(max_examples=300, deadline=None)
@given(entries)
def test_generated_code_agrees_with_matches(text):
    tests = entry(text)
    for value in sample_values([tests]) + EXTRAS:
        assert generated_matches(tests, value) is tests.matches(value), value


@settings(max_examples=300, deadline=None)
@given(entries, entries)
def test_overlaps_agrees_with_a_witness_among_the_samples(a, b):
    first, second = entry(a), entry(b)
    witnesses = [v for v in sample_values([first, second]) + EXTRAS if first.matches(v) and second.matches(v)]
    assert overlaps(first, second) is bool(witnesses)

"""The gateway condition language: what it accepts, how it evaluates, what it generates."""

from __future__ import annotations

import builtins
from datetime import date, datetime
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seams.errors import ExpressionError
from seams.lang.condition import MAX_DEPTH, MAX_LENGTH, parse_condition

WHERE = "Flow_Test"


def run_generated(condition, env):
    """Evaluate the generated source the way a generated module would."""
    source = condition.to_python(lambda name: f"inputs[{name!r}]")
    namespace = {"__builtins__": builtins, "Decimal": Decimal, "date": date}
    return eval(compile(source, "<generated>", "eval"), namespace, {"inputs": env})


def check(text, env):
    """Evaluate `text` both ways and insist they agree."""
    condition = parse_condition(text, where=WHERE)
    result = condition.evaluate(env)
    assert run_generated(condition, env) is result
    return result


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ("amount > 100", {"amount": 150}, True),
        ("amount > 100", {"amount": 100}, False),
        ("amount >= 100", {"amount": 100}, True),
        ("amount < 100", {"amount": 99.5}, True),
        ("amount <= 100", {"amount": Decimal("100.0")}, True),
        ("amount == 100", {"amount": 100.0}, True),
        ("amount != 100", {"amount": 101}, True),
        ("category == 'travel'", {"category": "travel"}, True),
        ('category == "travel"', {"category": "meals"}, False),
        ("1 < x <= 10", {"x": 10}, True),
        ("1 < x <= 10", {"x": 1}, False),
        ("1 < x <= 10 < y", {"x": 5, "y": 11}, True),
        ("1 < x <= 10 < y", {"x": 5, "y": 10}, False),
        ("x in [1, 2, 3]", {"x": 2}, True),
        ("x in (1, 2, 3)", {"x": 4}, False),
        ("x not in ['a', 'b']", {"x": "c"}, True),
        ("x not in ['a', 'b']", {"x": "a"}, False),
        ("x in []", {"x": 1}, False),
        ("x not in ()", {"x": 1}, True),
        ("a and b", {"a": True, "b": True}, True),
        ("a and b", {"a": True, "b": False}, False),
        ("a or b", {"a": False, "b": True}, True),
        ("not a", {"a": False}, True),
        ("not (a or b) and c", {"a": False, "b": False, "c": True}, True),
        ("flag == true", {"flag": True}, True),
        ("flag == True", {"flag": True}, True),
        ("flag == false", {"flag": False}, True),
        ("flag != False", {"flag": False}, False),
        ("true", {}, True),
        ("False or x > 1", {"x": 2}, True),
        ("x > -5", {"x": -4}, True),
        ("x == -1.5", {"x": Decimal("-1.5")}, True),
        ("name < 'm'", {"name": "alice"}, True),
        ("start < end", {"start": date(2024, 1, 1), "end": date(2024, 1, 2)}, True),
        ("a == b", {"a": "x", "b": "x"}, True),
        ("a == b", {"a": None, "b": None}, True),
        ("(amount > 100\n and category == 'travel')", {"amount": 101, "category": "travel"}, True),
        ("x == 'a' 'b'", {"x": "ab"}, True),
        ("x == 1_000", {"x": 1000}, True),
    ],
)
def test_evaluates_supported_constructs(text, env, expected):
    assert check(text, env) is expected


def test_decimal_literals_are_exact_not_floats():
    # 0.1 as a float is a little more than one tenth; the literal means one tenth.
    assert check("x >= 0.1", {"x": Decimal("0.1")}) is True
    assert check("x == 0.1", {"x": Decimal("0.1")}) is True
    assert parse_condition("x == 1e3", where=WHERE).boundaries() == {"x": [Decimal("1e3")]}


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ("x == 1", {"x": True}, False),  # a bool is not a number
        ("x != 1", {"x": True}, True),
        ("x > 0", {"x": True}, False),
        ("x == 'a'", {"x": 1}, False),
        ("x != 'a'", {"x": 1}, True),
        ("x < 5", {"x": "a"}, False),  # ordering across kinds is False, not an error
        ("not x < 5", {"x": "a"}, True),
        ("x < 5", {"x": None}, False),
        ("x > 5", {"x": float("nan")}, False),
        ("x < 5", {"x": Decimal("NaN")}, False),  # would raise if compared
        ("x == x", {"x": float("nan")}, False),
        ("a < b", {"a": 1, "b": "2"}, False),
        ("a < b", {"a": date(2024, 1, 1), "b": datetime(2024, 1, 2)}, False),
        ("a == b", {"a": [1], "b": [1]}, False),  # other kinds equal nothing
        ("a", {"a": 1}, False),  # only the boolean True is true
        ("a", {"a": "yes"}, False),
        ("not a", {"a": None}, True),
        ("x in [1, 'a']", {"x": True}, False),
    ],
)
def test_values_meet_only_values_of_their_kind(text, env, expected):
    assert check(text, env) is expected


def test_missing_variable_names_it_and_where():
    condition = parse_condition("amount > 100 and category == 'x'", where="Flow_7")
    with pytest.raises(ExpressionError, match=r"Flow_7: variable 'category' is not set"):
        condition.evaluate({"amount": 150})


def test_and_or_short_circuit_like_python():
    condition = parse_condition("a or missing > 1", where=WHERE)
    assert condition.evaluate({"a": True}) is True
    assert parse_condition("a and missing", where=WHERE).evaluate({"a": False}) is False


def test_names_and_boundaries():
    condition = parse_condition(
        "1 < amount <= 1000.5 and category in ['a', 'b'] or not approved or a < b or amount == 1",
        where=WHERE,
    )
    assert condition.names == frozenset({"amount", "category", "approved", "a", "b"})
    assert condition.boundaries() == {
        "a": [],
        "amount": [1, Decimal("1000.5")],
        "approved": [],
        "b": [],
        "category": ["a", "b"],
    }
    # true and 1 are different literals; both are kept
    assert parse_condition("x == 1 or x == true", where=WHERE).boundaries() == {"x": [1, True]}


@pytest.mark.parametrize(
    ("text", "construct"),
    [
        ("f(x)", "function call"),
        ("x.y == 1", "attribute access"),
        ("x[0] == 1", "subscript"),
        ("x + 1 > 2", "arithmetic"),
        ("-x < 1", "arithmetic"),
        ("~x", "arithmetic"),
        ("(lambda: 1)()", "function call"),
        ("lambda: 1", "lambda"),
        ('f"{x}" == "a"', "f-string"),
        ("(y := 1)", "assignment expression"),
        ("a if b else c", "conditional expression"),
        ("x in {1, 2}", "literal list"),
        ("x == {1: 2}", "dict"),
        ("[v for v in x]", "comprehension"),
        ("x in y", "literal list"),
        ("[1] == x", "list"),
        ("x == None", "unsupported literal 'None'"),
        ("x == b'a'", "unsupported literal"),
        ("x == 1j", "unsupported literal"),
        ("x == ...", "unsupported literal"),
        ("x == -'a'", "unsupported literal"),
        ("x == -True", "unsupported literal '-True'"),
        ("x == 1e99999999999999999999999", "out of range"),
        ("x in [y]", "variable 'y' where a literal is needed"),
        ("x < True", "ordering comparison '<' with a boolean"),
        ("(not x) == y", "'not' inside a comparison"),
        ("5", "literal 5 used as a condition"),
        ("'a' or x", "used as a condition"),
        ("x is None", "unsupported operator 'is'"),
        ("x is not y", "unsupported operator 'is not'"),
        ("a ==", "not a valid condition"),
        ("x = 1", "not a valid condition"),
        ("x == '\\d'", "invalid escape sequence"),
        ("import os", "not a valid condition"),
        ("   ", "empty condition"),
        ("\x00", "not a valid condition"),
        ("(" * 300 + "x" + ")" * 300, "not a valid condition"),
        ("not " * (MAX_DEPTH + 1) + "x", "nesting deeper"),
        ("x == " + "1" * (MAX_LENGTH + 1), "longer than"),
    ],
)
def test_rejects_everything_else_naming_where(text, construct):
    with pytest.raises(ExpressionError) as raised:
        parse_condition(text, where="Flow_Bad")
    message = str(raised.value)
    assert message.startswith("Flow_Bad: ")
    assert construct in message
    assert "\n" not in message


def test_to_python_renders_variables_with_var_expr_and_literals_deterministically():
    condition = parse_condition("amount > 1.5 and category in ['a', 'b']", where=WHERE)
    source = condition.to_python(lambda name: f"row.get({name!r})")
    assert "row.get('amount')" in source and "row.get('category')" in source
    assert 'Decimal("1.5")' in source
    assert "amount" not in source.replace("row.get('amount')", "")
    assert source == parse_condition("amount > 1.5 and category in ['a', 'b']", where="other").to_python(
        lambda name: f"row.get({name!r})"
    )


def test_to_python_of_constant_comparisons_is_the_constant():
    assert parse_condition("1 < 2", where=WHERE).to_python(str) == "True"
    assert parse_condition("'a' == 1", where=WHERE).to_python(str) == "False"


POOL = [
    None, True, False, 0, 1, 2, -1, 1.5, Decimal("1.5"), Decimal("2.0"), float("nan"),
    Decimal("NaN"), float("inf"), "", "a", "b", "m", date(2024, 1, 1), date(2024, 1, 2),
    datetime(2024, 1, 1), [1], {"a": 1},
]
CONDITIONS = [
    "x > 1", "x >= 1.5", "x < 'b'", "x == y", "x != y", "x < y", "x >= y", "x in [1, 'a', true]",
    "x not in (2.0, 'm')", "x == false", "not x", "x", "0 <= x < 2 <= y", "x == 'a' or y > 1 and not y < 2",
]


@pytest.mark.parametrize("text", CONDITIONS)
def test_to_python_agrees_with_evaluate_on_every_pair_of_values(text):
    condition = parse_condition(text, where=WHERE)
    for x in POOL:
        for y in POOL:
            env = {"x": x, "y": y}
            assert run_generated(condition, env) is condition.evaluate(env), (text, x, y)


# --- property tests -------------------------------------------------------

TOKENS = [
    "x", "y", "true", "false", "True", "None", "1", "-2", "1.5", "1e3", "'a'", '"b"', "==", "!=", "<",
    "<=", ">", ">=", "in", "not", "and", "or", "is", "(", ")", "[", "]", ",", "+", ".", "f(", "lambda",
    ":", ":=", "if", "else", "'", "\\", "\n", " ", "{", "}", "*", "**", "@", "#", "\x00",
]


def parses_or_refuses(text):
    try:
        condition = parse_condition(text, where=WHERE)
    except ExpressionError as error:
        assert str(error).startswith(f"{WHERE}: ")
        return
    assert isinstance(condition.names, frozenset)
    condition.to_python(lambda name: f"inputs[{name!r}]")
    condition.boundaries()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_parses_or_raises_expression_error(text):
    parses_or_refuses(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=30).map(" ".join))
def test_token_soup_parses_or_raises_expression_error(text):
    parses_or_refuses(text)


literals = st.sampled_from(["1", "-1", "1.5", "2.0", "'a'", "'m'", "True", "false"])
operands = st.sampled_from(["x", "y"]) | literals
ops = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])


@st.composite
def comparisons(draw):
    parts = [draw(operands)]
    for _ in range(draw(st.integers(1, 3))):
        op = draw(ops | st.sampled_from(["in", "not in"]))
        if op in ("in", "not in"):
            items = draw(st.lists(literals, max_size=3))
            parts += [op, "[" + ", ".join(items) + "]"]
            break
        parts += [op, draw(operands)]
    return " ".join(parts)


conditions = st.recursive(
    comparisons() | st.sampled_from(["x", "y", "true"]),
    lambda inner: st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    | inner.map(lambda c: f"not {c}"),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(conditions, st.sampled_from(POOL), st.sampled_from(POOL))
def test_generated_conditions_agree_with_evaluate(text, x, y):
    try:
        condition = parse_condition(text, where=WHERE)
    except ExpressionError as error:
        assert "with a boolean" in str(error)  # the one refusal the strategy can build
        return
    env = {"x": x, "y": y}
    assert run_generated(condition, env) is condition.evaluate(env)

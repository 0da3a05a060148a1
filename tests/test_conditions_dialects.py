"""Gateway conditions in JUEL (Camunda 7) and FEEL (Camunda 8): parsing, semantics, printing.

The tables of docs/conditions.md are checked here case by case; the property
tests print random trees in each dialect and parse them back, and evaluate
them in every dialect on inputs where the dialects' rules agree.
"""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seams.errors import ExpressionError
from seams.lang.condition import dialect_of, parse_condition
from seams.lang.condition_print import print_condition
from seams.lang.condition_tree import (
    FEEL,
    JUEL,
    SEAMS,
    Arith,
    Between,
    BoolOp,
    Compare,
    Empty,
    FeelExpr,
    Lit,
    LitList,
    Neg,
    Not,
    Path,
    Range,
    Ternary,
    Var,
)

WHERE = "Flow_X"


def holds(text, **env):
    return parse_condition(text, where=WHERE).evaluate(env)


# --- dialect detection --------------------------------------------------------


@pytest.mark.parametrize(("text", "dialect"), [
    ("${a > 1}", JUEL), ("#{approved}", JUEL), ("  ${a}  ", JUEL),
    ("=a > 1", FEEL), ("= not(a)", FEEL),
    ("a > 1", SEAMS), ("a == '${x}'", SEAMS),
])
def test_the_body_says_its_dialect(text, dialect):
    assert dialect_of(text) == dialect
    assert parse_condition(text, where=WHERE).dialect == dialect


def test_the_same_rule_gives_the_same_tree_in_every_dialect():
    trees = {parse_condition(text, where=WHERE).tree for text in (
        'days > 20 or leave_type == "unpaid"',
        "${days > 20 || leave_type == 'unpaid'}",
        "#{days gt 20 or leave_type eq \"unpaid\"}",
        '=days > 20 or leave_type = "unpaid"',
    )}
    assert trees == {BoolOp("or", (Compare((Var("days"), Lit(20)), (">",)),
                                   Compare((Var("leave_type"), Lit("unpaid")), ("==",))))}


def test_names_are_the_variables_read_whatever_the_dialect():
    assert parse_condition("${execution.getVariable('amount') > limit.max}", where=WHERE).names == {"amount", "limit"}
    assert parse_condition("=order total between 1 and max", where=WHERE).names == {"order total", "max"}


# --- refusals -------------------------------------------------------------------


@pytest.mark.parametrize(("text", "message"), [
    ("${x.isEmpty()}", "JUEL method call x.isEmpty() is not supported"),
    ("${execution.getVariable(name) == 1}", "JUEL method call execution.getVariable(name) is not supported"),
    ("${fn:trim(x) == 'a'}", "JUEL function call fn:trim(x) is not supported"),
    ("${items[0] > 1}", "JUEL index items[0] is not supported"),
    ("${a} and ${b}", "JUEL composite text"),
    ("${a = 1}", "JUEL operator '='"),
    ("${x > }", "JUEL syntax error: unexpected '}'"),
    ("${'a\\n'}", "JUEL string escape"),
    ("=1 < x < 5", "FEEL chained comparison"),
    ('=d < date("2024-02-30")', 'FEEL date("2024-02-30") is not a supported date literal'),
    ("=f(function(x) external {java: {}})", "FEEL an external (Java or PMML) function definition is not supported"),
    ("=count(items) >", "FEEL syntax error"),
])
def test_a_construct_outside_the_subset_is_refused_by_name(text, message):
    with pytest.raises(ExpressionError) as caught:
        parse_condition(text, where=WHERE)
    assert str(caught.value).startswith(f"{WHERE}: {message}"), str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("text", "names", "env", "holds"), [
    ("=count(items) > 2", {"items"}, {"items": [1, 2, 3]}, True),
    ('=upper case(x) = "A"', {"x"}, {"x": "a"}, True),
    ("=items[1] > 2", {"items"}, {"items": [1, 5]}, False),
    ("={a: 1}.a = 1", set(), {}, True),
    ("=some x in xs satisfies x > 1", {"xs"}, {"xs": [0, 2]}, True),
    ("=x ** 2 > 4", {"x"}, {"x": 3}, True),
    ('=d < date("2024-01-01") + duration("P1Y")', {"d"}, {"d": date(2024, 6, 1)}, True),
    ("=x in < 5", {"x"}, {"x": 4}, True),
    ("=order.items[price > limit] != []", {"order"}, {"order": {"items": [{"price": 5}]}, "limit": 1}, True),
])
def test_any_feel_expression_is_a_condition_the_interpreter_evaluates(text, names, env, holds):
    condition = parse_condition(text, where=WHERE)
    assert isinstance(condition.tree, FeelExpr)
    assert condition.names == names
    assert condition.evaluate(env) is holds
    assert condition.in_dialect("feel") == text
    generated = condition.to_python(lambda name: f"env[{name!r}]")
    passed = {name: value for name, value in env.items() if name in names}  # a filter's names are not passed
    assert eval(generated, {"env": env, "Decimal": Decimal, "date": date}) is condition.evaluate(passed)


@pytest.mark.parametrize(("text", "env"), [
    ("=for i in 1..n return i * k", {"n": 2, "k": 1}),  # a list, not a boolean
    ("=upper case(x) > \"B\"", {"x": None}),  # upper case(null) is null, so is null > "B"
])
def test_an_interpreted_condition_that_is_not_a_boolean_stops_as_zeebe_does(text, env):
    """Zeebe raises an incident when a condition is not a boolean ("Expected result of the expression
    ... to be 'BOOLEAN'"); seams stops the same way whether the tree or the interpreter reads it."""
    condition = parse_condition(text, where=WHERE)
    with pytest.raises(ExpressionError, match="not a boolean"):
        condition.evaluate(env)
    generated = condition.to_python(lambda name: f"env[{name!r}]")
    with pytest.raises(ValueError, match="not a boolean"):
        eval(generated, {"env": env, "Decimal": Decimal, "date": date})


def test_a_feel_expression_condition_needs_its_variables_set():
    with pytest.raises(ExpressionError, match=r"^Flow_X: variable 'items' is not set$"):
        parse_condition("=count(items) > 2", where=WHERE).evaluate({})


def test_a_script_condition_is_not_analysable():
    with pytest.raises(ExpressionError, match=r'^Flow_X: script condition \(language="groovy"\) is not analysable'):
        parse_condition("amount > 100", where=WHERE, language="groovy")


def test_deep_nesting_is_refused_in_every_dialect():
    for text in ("${" + "(" * 200 + "a" + ")" * 200 + "}", "=" + "not(" * 200 + "a" + ")" * 200,
                 "${" + "!" * 300 + "a}", "=" + "-" * 300 + "a > 1"):
        with pytest.raises(ExpressionError, match="nesting deeper than"):
            parse_condition(text, where=WHERE)


# --- JUEL semantics (docs/conditions.md, "JUEL") --------------------------------


@pytest.mark.parametrize(("text", "env", "expected"), [
    ("${a == 5}", {"a": "5"}, True),            # a string meets a number: coerced to a number
    ("${a == 5}", {"a": Decimal("5.0")}, True),
    ("${a == 'true'}", {"a": True}, True),       # a boolean meets a string: coerced to a boolean
    ("${a == '5'}", {"a": "5"}, True),
    ("${a == null}", {"a": None}, True),
    ("${a == null}", {"a": 0}, False),
    ("${a != null}", {"a": ""}, True),
    ("${a > 1}", {"a": None}, False),            # an ordering with null is false
    ("${a < 'b'}", {"a": "a"}, True),
    ("${a && true}", {"a": "true"}, True),       # && || ! ?: coerce a string to a boolean
    ("${!a}", {"a": None}, True),                # ... and null to false
    ("${a && b}", {"a": False, "b": "not a boolean"}, False),  # short-circuit
    ("${empty a}", {"a": None}, True),
    ("${empty a}", {"a": ""}, True),
    ("${empty a}", {"a": []}, True),
    ("${empty a}", {"a": "x"}, False),
    ("${a + 1 == 1}", {"a": None}, True),        # arithmetic takes null as 0
    ("${a / 2 == 2.5}", {"a": 5}, True),
    ("${a div 2 == 2.5}", {"a": 5}, True),
    ("${a % 3 == -1}", {"a": -7}, True),         # the remainder has the dividend's sign
    ("${a mod 3 == -1}", {"a": -7}, True),
    ("${a.b == 1}", {"a": {"b": 1}}, True),
    ("${a['b c'] == 1}", {"a": {"b c": 1}}, True),
    ("${a.b == null}", {"a": None}, True),
    ("${a ? b : c}", {"a": True, "b": True, "c": False}, True),
    ("${-a < 0}", {"a": 3}, True),
])
def test_juel_follows_the_el_coercions(text, env, expected):
    assert holds(text, **env) is expected


@pytest.mark.parametrize(("text", "env", "message"), [
    ("${a > 5}", {"a": "abc"}, "cannot coerce 'abc' to a number"),
    ("${a == 5}", {"a": True}, "cannot coerce True to a number"),
    ("${a || false}", {"a": 1}, "cannot coerce 1 to a boolean"),
    ("${a}", {"a": "true"}, "condition gives 'true', not a boolean"),
    ("${a == 1 ? 'x' : 'y'}", {"a": 1}, "condition gives 'x', not a boolean"),
    ("${a / 0 > 1}", {"a": 1}, "division by zero"),
])
def test_what_stops_camunda_7_is_an_expression_error(text, env, message):
    with pytest.raises(ExpressionError, match=message):
        holds(text, **env)


# --- FEEL semantics (docs/conditions.md, "FEEL") --------------------------------


@pytest.mark.parametrize(("text", "env", "expected"), [
    ("=a = 5", {"a": Decimal("5.00")}, True),
    ("=a = null", {"a": None}, True),
    ("=a = null", {"a": 0}, False),
    ("=a != null", {"a": 0}, True),
    ("=a = null or a = false", {"a": None}, True),
    ("=a > 1 or b", {"a": None, "b": True}, True),     # null or true is true
    ("=a > 1 and b", {"a": None, "b": False}, False),  # null and false is false
    ("=a in (1, 2, 3)", {"a": 2}, True),
    ("=a in [1..5]", {"a": 5}, True),
    ("=a in [1..5)", {"a": 5}, False),
    ("=a in (1..5]", {"a": 1}, False),
    ("=a in ]1..5]", {"a": 1}, False),
    ('=a in ("x", [2..3])', {"a": 2}, True),
    ("=a between 1 and 5", {"a": 1}, True),
    ("=a between 1 and 5", {"a": 6}, False),
    ('=d < date("2024-03-01")', {"d": date(2024, 2, 29)}, True),
    ('=t >= date and time("2024-03-01T08:00:00")', {"t": datetime(2024, 3, 1, 8)}, True),
    ('=w > duration("P1DT2H")', {"w": timedelta(days=1, hours=3)}, True),
    ("=modulo(a, 3) = 2", {"a": -7}, True),            # FEEL's modulo has the divisor's sign
    ("=a / b > 1", {"a": 3, "b": 2}, True),
    ('=greeting + " there" = "hi there"', {"greeting": "hi"}, True),
    ("=order.total > 100", {"order": {"total": 150}}, True),
    ("=order.total = null", {"order": {}}, True),
    ("=order total > 100", {"order total": 150}, True),
    ("=if a then b else c", {"a": None, "b": False, "c": True}, True),
    ("=not(a)", {"a": False}, True),
])
def test_feel_follows_its_three_valued_logic(text, env, expected):
    assert holds(text, **env) is expected


@pytest.mark.parametrize(("text", "env"), [
    ("=a > 1", {"a": None}),            # an ordering with null is null
    ('=a = "5"', {"a": 5}),             # values of two types compare to null
    ("=not(a)", {"a": "x"}),
    ("=a > 1 and b", {"a": None, "b": True}),
    ("=a / 0 > 1", {"a": 1}),           # division by zero is null
    ("=a", {"a": 1}),
])
def test_a_feel_condition_that_is_not_true_or_false_stops_camunda_8(text, env):
    with pytest.raises(ExpressionError, match="not a boolean; the engine stops with an error"):
        holds(text, **env)


def test_a_missing_variable_is_an_error_in_seams_and_juel():
    for text in ("a > 1", "${a > 1}", "#{!a}"):
        with pytest.raises(ExpressionError, match="variable 'a' is not set"):
            holds(text)


@pytest.mark.parametrize("text, expected", [
    ("=approved = false", False),        # null = false is false: Zeebe takes the other flow
    ("=approved = null", True),
    ("=approved != null", False),
    ("=not(approved = true)", True),
    ("=prices.oneTimePrice > 3000 or true", True),  # a path on null is null; or with true is true
])
def test_a_missing_variable_is_null_in_feel_as_zeebe_reads_it(text, expected):
    assert holds(text) is expected


def test_a_feel_condition_over_a_missing_variable_alone_is_null_and_stops():
    with pytest.raises(ExpressionError, match="condition gives null, not a boolean; the engine stops with an "
                                              "error; not set, so null: 'approved'"):
        holds("=approved")


def test_boundaries_come_from_every_dialect():
    assert parse_condition("=a between 1 and 5 or b in (\"x\", [2..3])", where=WHERE).boundaries() == {
        "a": [1, 5], "b": ["x", 2, 3]}
    assert parse_condition("${a > 20 || b == 'unpaid' || c == null}", where=WHERE).boundaries() == {
        "a": [20], "b": ["unpaid"], "c": []}


# --- printing in a dialect --------------------------------------------------------


@pytest.mark.parametrize(("text", "dialect", "printed"), [
    ('escalation == "hr"', JUEL, '${escalation == "hr"}'),
    ('escalation == "hr"', FEEL, '=escalation = "hr"'),
    ('${escalation == "hr"}', SEAMS, 'escalation == "hr"'),
    ("=escalation = \"hr\"", FEEL, "=escalation = \"hr\""),  # a condition in its own dialect keeps its text
    ("x in [1, 2]", JUEL, "${x == 1 || x == 2}"),
    ("x not in [1, 2]", FEEL, "=not(x in (1, 2))"),
    ("1 < x <= 10", FEEL, "=1 < x and x <= 10"),
    ("not (a or b)", JUEL, "${!(a || b)}"),
    ("=a between 1 and 5", SEAMS, "1 <= a <= 5"),
    ("=a between 1 and 5", JUEL, "${a >= 1 && a <= 5}"),
    ("${a mod 2 == 0}", FEEL, "=modulo(a, 2) = 0"),
    ("=x in [1..5)", JUEL, "${(x >= 1 && x < 5)}"),
    ("=x > 1.5", SEAMS, "x > 1.5"),
    ("${execution.getVariable('order total') > 1}", FEEL, "=order total > 1"),
    ("=order total > 1", JUEL, '${execution.getVariable("order total") > 1}'),
])
def test_a_condition_prints_in_another_dialect(text, dialect, printed):
    assert parse_condition(text, where=WHERE).in_dialect(dialect) == printed


@pytest.mark.parametrize(("text", "dialect", "message"), [
    ("=d < date(\"2024-01-01\")", JUEL, "JUEL cannot state the literal datetime.date"),
    ("${a == null}", SEAMS, "seams cannot state null"),
    ("${empty a}", FEEL, "FEEL cannot state 'empty'"),
    ("${a + 1 > 2}", SEAMS, "seams cannot state arithmetic"),
])
def test_what_a_dialect_cannot_state_is_an_expression_error(text, dialect, message):
    with pytest.raises(ExpressionError, match=f"^{WHERE}: {message}"):
        parse_condition(text, where=WHERE).in_dialect(dialect)


# --- property tests -------------------------------------------------------------


def key(node):
    """A tree as nested tuples that tell literal types apart (``Lit(1) == Lit(True)`` in Python)."""
    if isinstance(node, Lit):
        return ("Lit", type(node.value).__name__, node.value)
    if dataclasses.is_dataclass(node):
        return (type(node).__name__, *(key(getattr(node, f.name)) for f in dataclasses.fields(node)))
    if isinstance(node, tuple):
        return tuple(key(item) for item in node)
    return node


NUMBER_VARS, STRING_VARS, BOOLEAN_VARS = ["days", "amount"], ["leave_type", "region"], ["approved", "urgent"]
numbers = st.integers(-1000, 1000) | st.integers(-10**5, 10**5).map(lambda n: Decimal(n).scaleb(-2))
strings = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=8)
ORDERINGS = ["<", "<=", ">", ">="]


@st.composite
def comparisons(draw):
    kind = draw(st.sampled_from(["number", "string", "boolean"]))
    if kind == "boolean":
        var = Var(draw(st.sampled_from(BOOLEAN_VARS)))
        if draw(st.booleans()):
            return var
        other = draw(st.sampled_from([Lit(True), Lit(False), Var(draw(st.sampled_from(BOOLEAN_VARS)))]))
        return Compare((var, other), (draw(st.sampled_from(["==", "!="])),))
    names, values = (NUMBER_VARS, numbers) if kind == "number" else (STRING_VARS, strings)
    var = Var(draw(st.sampled_from(names)))
    other = draw(st.sampled_from(names).map(Var) | values.map(Lit))
    operands = (var, other) if draw(st.booleans()) else (other, var)
    return Compare(operands, (draw(st.sampled_from(["==", "!=", *ORDERINGS])),))


def conditions(leaves):
    return st.recursive(leaves, lambda inner: st.one_of(
        inner.map(Not),
        st.tuples(st.sampled_from(["and", "or"]), st.lists(inner, min_size=2, max_size=3))
        .map(lambda pair: BoolOp(pair[0], tuple(pair[1]))),
    ), max_leaves=8)


environments = st.fixed_dictionaries({
    **{name: numbers for name in NUMBER_VARS},
    **{name: strings for name in STRING_VARS},
    **{name: st.booleans() for name in BOOLEAN_VARS},
})


@settings(max_examples=300, deadline=None)
@given(conditions(comparisons()))
def test_a_tree_printed_in_each_dialect_parses_back_to_itself(tree):
    for dialect in (SEAMS, JUEL, FEEL):
        text = print_condition(tree, dialect)
        parsed = parse_condition(text, where=WHERE)
        assert parsed.dialect == dialect
        assert key(parsed.tree) == key(tree), (dialect, text)


@settings(max_examples=300, deadline=None)
@given(conditions(comparisons()), environments)
def test_the_dialects_agree_on_well_typed_inputs(tree, env):
    answers = {dialect: parse_condition(print_condition(tree, dialect), where=WHERE).evaluate(env)
               for dialect in (SEAMS, JUEL, FEEL)}
    assert len(set(answers.values())) == 1, answers


values = st.recursive(
    st.sampled_from(NUMBER_VARS).map(Var) | st.integers(-50, 50).map(Lit)
    | st.sampled_from(NUMBER_VARS).map(lambda n: Path(Var(n), "limit")),
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(["+", "-", "*", "/", "%"]), inner, inner).map(lambda t: Arith(*t)),
        st.sampled_from(NUMBER_VARS).map(lambda n: Neg(Var(n))),
    ), max_leaves=4)
value_comparisons = st.tuples(values, st.sampled_from(["==", "!=", *ORDERINGS]), values).map(
    lambda t: Compare((t[0], t[2]), (t[1],)))


@settings(max_examples=200, deadline=None)
@given(conditions(value_comparisons | st.sampled_from(STRING_VARS).map(lambda n: Empty(Var(n)))
                  | st.sampled_from(NUMBER_VARS).map(lambda n: Compare((Var(n), Lit(None)), ("==",)))))
def test_juel_arithmetic_empty_and_null_print_and_parse_back(tree):
    if isinstance(tree, BoolOp) and len(tree.values) > 1:
        tree = BoolOp(tree.op, tree.values[:-1] + (Ternary(tree.values[0], tree.values[-1], tree.values[0]),))
    text = print_condition(tree, JUEL)
    assert key(parse_condition(text, where=WHERE).tree) == key(tree), text


temporals = (st.dates(date(1900, 1, 1), date(2100, 1, 1))
             | st.datetimes(datetime(1900, 1, 1), datetime(2100, 1, 1)).map(lambda d: d.replace(microsecond=0))
             | st.timedeltas(timedelta(days=-999), timedelta(days=999)).map(lambda d: d - timedelta(
                 microseconds=d.microseconds)))
feel_items = st.one_of(
    numbers.map(Lit), strings.map(Lit),
    st.tuples(st.integers(-9, 9), st.integers(-9, 9), st.booleans(), st.booleans())
    .map(lambda t: Range(Lit(t[0]), Lit(t[1]), t[2], t[3])),
)
feel_leaves = st.one_of(
    value_comparisons.filter(lambda c: not any(isinstance(n, Arith) and n.op == "%" for n in c.operands)),
    st.tuples(st.sampled_from(NUMBER_VARS), numbers, numbers).map(lambda t: Between(Var(t[0]), Lit(t[1]), Lit(t[2]))),
    st.tuples(st.sampled_from(NUMBER_VARS), st.lists(feel_items, max_size=3))
    .map(lambda t: Compare((Var(t[0]), LitList(tuple(t[1]))), ("in",))),
    st.tuples(st.sampled_from(["due", "order date"]), temporals, st.sampled_from(["==", *ORDERINGS]))
    .map(lambda t: Compare((Var(t[0]), Lit(t[1])), (t[2],))),
    st.sampled_from(STRING_VARS).map(lambda n: Compare((Path(Var(n), "code"), Lit(None)), ("!=",))),
)


@settings(max_examples=200, deadline=None)
@given(conditions(feel_leaves))
def test_feel_between_lists_ranges_and_temporals_print_and_parse_back(tree):
    text = print_condition(tree, FEEL)
    assert key(parse_condition(text, where=WHERE).tree) == key(tree), text


# --- the Python form of JUEL and FEEL conditions -----------------------------------


def outcome(function):
    """The value, or ``error`` when it raises (ExpressionError from evaluate, ValueError etc. from generated code)."""
    try:
        return ("value", function())
    except (ExpressionError, ArithmeticError, ValueError, TypeError, KeyError):
        return ("error", None)


def run_python(condition, env):
    """The condition's Python form run as a generated module runs it: its inputs global."""
    import builtins
    source = condition.to_python(lambda name: f"inputs[{name!r}]")
    namespace = {"__builtins__": builtins, "Decimal": Decimal, "date": date, "inputs": env}
    return eval(compile(source, "<generated>", "eval"), namespace)


any_value = st.one_of(st.none(), st.booleans(), st.integers(-20, 20), numbers,
                      st.sampled_from(["", "5", "5.5", "true", "abc", "unpaid"]),
                      st.dates(date(2023, 1, 1), date(2025, 1, 1)),
                      st.fixed_dictionaries({"limit": st.integers(-5, 5)}))
any_environment = st.fixed_dictionaries({name: any_value for name in NUMBER_VARS + STRING_VARS + BOOLEAN_VARS})


@settings(max_examples=300, deadline=None)
@given(conditions(value_comparisons | comparisons() | st.sampled_from(STRING_VARS).map(lambda n: Empty(Var(n)))),
       any_environment)
def test_the_python_form_of_a_juel_condition_answers_as_evaluate(tree, env):
    condition = parse_condition(print_condition(tree, JUEL), where=WHERE)
    assert outcome(lambda: run_python(condition, env)) == outcome(lambda: condition.evaluate(env))


@settings(max_examples=300, deadline=None)
@given(conditions(feel_leaves | comparisons()), any_environment.map(
    lambda env: {**env, "due": env["days"], "order date": env["amount"]}))
def test_the_python_form_of_a_feel_condition_answers_as_evaluate(tree, env):
    condition = parse_condition(print_condition(tree, FEEL), where=WHERE)
    assert outcome(lambda: run_python(condition, env)) == outcome(lambda: condition.evaluate(env))

"""FEEL built-ins in gateway conditions: ``matches``, ``list contains``, ``is defined`` and lists.

The rows of docs/conditions.md ("FEEL functions and lists") are checked here
case by case; property tests print random trees with these nodes in FEEL and
parse them back, run their Python form against the evaluator, and check that
a translated ``matches`` pattern searches as the pattern itself does where
Java's and Python's regular expressions agree (ASCII text without line
terminators).
"""

from __future__ import annotations

import builtins
import re
from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seams.errors import ExpressionError
from seams.lang.condition import parse_condition
from seams.lang.condition_print import print_condition
from seams.lang.condition_tree import (
    FEEL,
    JUEL,
    SEAMS,
    BoolOp,
    Compare,
    IsDefined,
    ListContains,
    ListLit,
    Lit,
    Matches,
    Not,
    Path,
    Var,
)
from seams.lang.feel_regex import MAX_PATTERN, PatternError, translate

WHERE = "Flow_X"


def holds(text, **env):
    return parse_condition(text, where=WHERE).evaluate(env)


@pytest.mark.parametrize(("text", "tree"), [
    ('=matches(route, "LEGAL|SALES")', Matches(Var("route"), "LEGAL|SALES")),
    ('=matches(route, "SALES", "i")', Matches(Var("route"), "SALES", "i")),
    ('=list contains(["merge", "close"], payload.action)',
     ListContains(ListLit((Lit("merge"), Lit("close"))), Path(Var("payload"), "action"))),
    ("=is defined(breakfast)", IsDefined(Var("breakfast"))),
    ("=breakfast is defined", IsDefined(Var("breakfast"))),
    ("=order total is defined", IsDefined(Var("order total"))),
    ("=parcel.label is defined", IsDefined(Path(Var("parcel"), "label"))),
    ("=orders.mobile != []", Compare((Path(Var("orders"), "mobile"), ListLit(())), ("!=",))),
    ("=tags = [1, 2]", Compare((Var("tags"), ListLit((Lit(1), Lit(2)))), ("==",))),
    ("=not (list contains(xs, 1))", Not(ListContains(Var("xs"), Lit(1)))),
])
def test_feel_functions_and_lists_parse_into_the_tree(text, tree):
    assert parse_condition(text, where=WHERE).tree == tree


@pytest.mark.parametrize(("text", "env", "expected"), [
    ('=matches(route, "SALES")', {"route": "to SALES now"}, True),        # a search, not a whole match
    ('=matches(route, "^SALES$")', {"route": "to SALES now"}, False),
    ('=matches(route, "LEGAL|SALES")', {"route": "LEGAL"}, True),
    ('=matches(route, "sales", "i")', {"route": "SALES"}, True),
    ('=matches(route, "sales")', {"route": "SALES"}, False),
    ('=matches(code, "^[A-Z]{3}-\\\\d{4}$")', {"code": "ABC-1234"}, True),
    ('=matches(code, "^[A-Z]{3}-\\\\d{4}$")', {"code": "ABC-12345"}, False),
    ('=matches(code, "^\\\\d+$")', {"code": "\u0661\u0662"}, False),      # Java's \d is ASCII
    ('=matches(code, "^\\\\w+$")', {"code": "caf\u00e9"}, False),          # so is \w
    ('=matches(code, "a.b")', {"code": "a\rb"}, False),                   # '.' stops at any line end
    ('=matches(code, "a.b")', {"code": "a\u2028b"}, False),
    ('=matches(code, "ab$")', {"code": "ab\r\n"}, True),                  # '$' before a final line end
    ('=matches(code, "ab$")', {"code": "ab\n\n"}, False),
    ('=matches(code, "k", "i")', {"code": "\u212a"}, False),              # ASCII case folding only
    ('=matches(code, "[^a-c]")', {"code": "abc"}, False),
    ('=matches(code, "a\\\\.b")', {"code": "axb"}, False),
    ('=matches(code, "x") or true', {"code": 5}, True),                   # not a string: null
    ('=list contains(["merge", "close"], action)', {"action": "close"}, True),
    ('=list contains(["merge", "close"], action)', {"action": "open"}, False),
    ("=list contains(tags, 1)", {"tags": [Decimal("1.0"), 2]}, True),
    ('=list contains(tags, "1")', {"tags": [1, 2]}, False),
    ("=list contains(tags, null)", {"tags": [None]}, True),
    ("=is defined(x)", {"x": None}, True),                                 # exists, even if null
    ("=is defined(x)", {}, False),
    ("=not(is defined(x))", {}, True),
    ("=x is defined", {"x": 0}, True),
    ("=p.label is defined", {"p": {"label": None}}, True),
    ("=p.label is defined", {"p": {}}, False),
    ("=p.label is defined", {"p": None}, False),
    ("=p.label is defined", {}, False),
    ("=xs != []", {"xs": []}, False),
    ("=xs != []", {"xs": ["a"]}, True),
    ("=xs = []", {"xs": []}, True),
    ("=xs != []", {"xs": None}, True),                                     # null is not a list
    ("=xs = [1, 2]", {"xs": [1, Decimal("2.00")]}, True),
    ("=xs = [1, 2]", {"xs": [2, 1]}, False),
])
def test_feel_functions_and_lists_answer_as_camunda_8(text, env, expected):
    assert holds(text, **env) is expected


@pytest.mark.parametrize(("text", "env"), [
    ('=matches(code, "x")', {"code": None}),
    ("=list contains(tags, 1)", {"tags": "1"}),
    ('=xs = []', {"xs": ""}),           # a string and a list: null
    ('=xs = ["a", 1]', {"xs": ["a", "1"]}),
])
def test_a_feel_function_of_the_wrong_kind_is_null_and_stops_camunda_8(text, env):
    with pytest.raises(ExpressionError, match="not a boolean; the engine stops with an error"):
        holds(text, **env)


@pytest.mark.parametrize(("text", "message"), [
    ('=matches(x, "(a)\\\\1")', "escape '\\1' at offset 3 of the pattern is not supported"),
    ('=matches(x, "a(?=b)")', "group construct '(?=' at offset 1 of the pattern is not supported"),
    ('=matches(x, "\\\\bword")', "escape '\\b' at offset 0 of the pattern is not supported"),
    ('=matches(x, "\\\\p{L}")', "escape '\\p' at offset 0 of the pattern is not supported"),
    ('=matches(x, "a*+")', "possessive quantifier at offset 2 of the pattern is not supported"),
    ('=matches(x, "[a-z&&[^e]]")', "nested class or class intersection"),
    ('=matches(x, "*a")', "quantifier '*' with nothing to repeat"),
    ('=matches(x, "a{2,1}")', "quantifier {2,1}"),
    ('=matches(x, "a", "s")', "flags 's' (only \"i\" is supported)"),
    ('=matches(x, "(a")', "unbalanced '('"),
    ("=list contains(xs)", "list contains(list, value) takes two arguments"),
    ("=is defined(1)", "is defined(...) takes one name or path"),
    ("=(a + 1) is defined", "a + 1) is defined: only a name or path can be tested"),
])
def test_what_no_exact_translation_exists_for_is_refused_by_name(text, message):
    with pytest.raises(ExpressionError) as caught:
        parse_condition(text, where=WHERE)
    assert str(caught.value).startswith(f"{WHERE}: FEEL "), str(caught.value)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_pattern_longer_than_the_bound_is_refused():
    with pytest.raises(PatternError, match=f"longer than {MAX_PATTERN}"):
        translate("a" * (MAX_PATTERN + 1))
    with pytest.raises(ExpressionError, match="pattern longer than"):
        parse_condition(f'=matches(x, "{"a" * (MAX_PATTERN + 1)}")', where=WHERE)


@pytest.mark.parametrize(("text", "dialect", "what"), [
    ('=matches(x, "a")', JUEL, "matches(...)"),
    ('=matches(x, "a")', SEAMS, "matches(...)"),
    ("=list contains(xs, 1)", JUEL, "list contains(...)"),
    ("=is defined(x)", JUEL, "is defined(...)"),
    ("=is defined(x)", SEAMS, "is defined(...)"),
    ("=xs != []", JUEL, "a list"),
])
def test_a_dialect_without_the_construct_refuses_to_print_it(text, dialect, what):
    name = {JUEL: "JUEL", SEAMS: "seams"}[dialect]
    with pytest.raises(ExpressionError, match=f"^{WHERE}: {name} cannot state {re.escape(what)}"):
        parse_condition(text, where=WHERE).in_dialect(dialect)


@pytest.mark.parametrize(("tree", "printed"), [
    (IsDefined(Var("x")), "=is defined(x)"),
    (Matches(Var("x"), "a\\.b", "i"), '=matches(x, "a\\\\.b", "i")'),
    (Compare((Var("xs"), ListLit(())), ("!=",)), "=xs != []"),
    (Not(ListContains(ListLit((Lit("a"),)), Path(Var("p"), "q"))), '=not(list contains(["a"], p.q))'),
])
def test_feel_prints_the_functions_it_reads(tree, printed):
    assert print_condition(tree, FEEL) == printed


def test_list_contains_gives_its_literals_as_boundaries():
    condition = parse_condition('=list contains(["merge", "close"], action) or xs != []', where=WHERE)
    assert condition.boundaries() == {"action": ["merge", "close"], "xs": []}


def test_a_pattern_of_literal_alternatives_gives_probes_as_boundaries():
    condition = parse_condition('=matches(route, "^Legal$|SALES", "i") or matches(code, "[A-Z]+")', where=WHERE)
    assert condition.boundaries() == {
        "route": ["Legal", "lEGAL", "xLegalx", "SALES", "sales", "xSALESx"], "code": []}
    probes = condition.boundaries()["route"]
    assert [condition.evaluate({"route": p, "code": ""}) for p in probes] == [True, True, False, True, True, True]


# --- property tests -------------------------------------------------------------

PIECES = ["a", "b", "ab", ".", "\\d", "\\w", "\\s", "\\.", "[a-c]", "[^b]", "[\\d.]", "(a|b)", "(?:ab)",
          "^", "$", "|", "-"]
QUANTIFIERS = ["", "", "*", "+", "?", "{2}", "{1,2}", "*?", "{0,}"]


@st.composite
def patterns(draw):
    parts = []
    for _ in range(draw(st.integers(1, 5))):
        piece = draw(st.sampled_from(PIECES))
        parts.append(piece + ("" if piece in ("^", "$", "|") else draw(st.sampled_from(QUANTIFIERS))))
    return "".join(parts)


ascii_text = st.text(st.sampled_from("abcxyz019 .-_AB"), max_size=8)


@settings(max_examples=300, deadline=None)
@given(patterns(), ascii_text, st.sampled_from(["", "i"]))
def test_a_translated_pattern_searches_as_the_pattern_where_java_and_python_agree(pattern, text, flags):
    translated, python_flags = translate(pattern, flags)
    native = re.search(pattern, text, re.IGNORECASE if flags else 0)
    assert (re.search(translated, text, python_flags) is not None) == (native is not None), translated


STRING_VARS, LIST_VARS = ["route", "code"], ["tags", "orders"]
strings = st.text(st.sampled_from("abAB01.\n\r \u212a\u0661\u00e9"), max_size=6)
literals = st.one_of(strings, st.integers(-3, 3), st.none()).map(Lit)
leaves = st.one_of(
    st.tuples(st.sampled_from(STRING_VARS), patterns(), st.sampled_from(["", "i"]))
    .map(lambda t: Matches(Var(t[0]), t[1], t[2])),
    st.tuples(st.lists(literals, max_size=3), st.sampled_from(STRING_VARS))
    .map(lambda t: ListContains(ListLit(tuple(t[0])), Var(t[1]))),
    st.tuples(st.sampled_from(LIST_VARS), literals).map(lambda t: ListContains(Var(t[0]), t[1])),
    st.sampled_from(STRING_VARS + LIST_VARS + ["missing"]).map(lambda n: IsDefined(Var(n))),
    st.sampled_from(LIST_VARS).map(lambda n: IsDefined(Path(Var("box"), n))),
    st.tuples(st.sampled_from(LIST_VARS), st.lists(literals, max_size=2), st.sampled_from(["==", "!="]))
    .map(lambda t: Compare((Var(t[0]), ListLit(tuple(t[1]))), (t[2],))),
)
trees = st.recursive(leaves, lambda inner: st.one_of(
    inner.map(Not),
    st.tuples(st.sampled_from(["and", "or"]), st.lists(inner, min_size=2, max_size=3))
    .map(lambda pair: BoolOp(pair[0], tuple(pair[1]))),
), max_leaves=6)
any_value = st.one_of(st.none(), strings, st.integers(-3, 3), st.lists(literals.map(lambda lit: lit.value),
                                                                       max_size=3))
environments = st.fixed_dictionaries({
    **{name: any_value for name in STRING_VARS + LIST_VARS},
    "box": st.one_of(st.none(), st.fixed_dictionaries({}, optional={name: any_value for name in LIST_VARS})),
})


@settings(max_examples=300, deadline=None)
@given(trees)
def test_a_tree_with_feel_functions_prints_and_parses_back_to_itself(tree):
    text = print_condition(tree, FEEL)
    assert parse_condition(text, where=WHERE).tree == tree, text


def outcome(function):
    try:
        return ("value", function())
    except (ExpressionError, ValueError):
        return ("error", None)


@settings(max_examples=300, deadline=None)
@given(trees.filter(lambda t: "missing" not in repr(t)), environments)
def test_the_python_form_answers_as_the_evaluator(tree, env):
    condition = parse_condition(print_condition(tree, FEEL), where=WHERE)
    source = condition.to_python(lambda name: f"inputs[{name!r}]")
    namespace = {"__builtins__": builtins, "Decimal": Decimal, "date": date, "inputs": env}
    generated = outcome(lambda: eval(compile(source, "<generated>", "eval"), namespace))
    assert generated == outcome(lambda: condition.evaluate(env))

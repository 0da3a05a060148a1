"""The one FEEL entry point: compile an expression or unary tests once, evaluate them in a context.

This is the API the engine, IO mappings, conditions, the DMN interpreter and
the generated decisions module call::

    evaluate("sum(items.price) * 2", {"items": [...]})        -> Decimal
    matches("[1..10], > 100", 5)                               -> True
    compile_expression(text, names).evaluate(context)          -> value

Contexts may hold plain Python values (ints, floats, tuples); they are taken
as FEEL values (seams.lang.feel_values.feel_value). Results are FEEL values:
numbers are ``Decimal``. A syntax error is ExpressionError; an evaluation
error is null, its message kept in ``Outcome.errors`` by ``run``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from seams.lang.feel_eval import Scope, evaluate_node, test_entry
from seams.lang.feel_grammar import Node, normal_name, parse_expression, parse_unary_tests
from seams.lang.feel_library import BUILTINS
from seams.lang.feel_values import feel_value

_SIMPLE = re.compile(r"[^\W\d][\w]*")
BUILTIN_NAMES = frozenset(name for name in BUILTINS if not _SIMPLE.fullmatch(name))
FUNCTION_NAMES = frozenset(BUILTINS)
"""Every built-in function's name: called, such a name is not a variable (seams.lang.feel_names)."""
ROOT = Scope(BUILTINS)


@dataclass(frozen=True)
class Outcome:
    value: object
    errors: tuple[str, ...]


@dataclass(frozen=True)
class Expression:
    """A compiled FEEL expression."""

    text: str
    tree: Node

    def evaluate(self, context: Mapping[str, object] | Scope | None = None) -> object:
        return evaluate_node(self.tree, scope_of(context))

    def run(self, context: Mapping[str, object] | Scope | None = None) -> Outcome:
        scope = scope_of(context)
        before = len(scope.errors)
        value = evaluate_node(self.tree, scope)
        return Outcome(value, tuple(scope.errors[before:]))


@dataclass(frozen=True)
class UnaryTests:
    """A compiled list of unary tests (a decision-table input entry, an ``allowedValues`` constraint)."""

    text: str
    tree: Node

    def matches(self, value: object, context: Mapping[str, object] | Scope | None = None) -> bool | None:
        return test_entry(self.tree, feel_value(value), scope_of(context))


def scope_of(context: Mapping[str, object] | Scope | None) -> Scope:
    if isinstance(context, Scope):
        return context
    if not context:
        return Scope({}, ROOT)
    return Scope({str(k): feel_value(v) for k, v in context.items()}, ROOT)


def relevant_names(text: str, names: Iterable[str]) -> frozenset[str]:
    """The names with spaces or operator characters that occur in text: all the parser needs to know."""
    return frozenset(n for n in (normal_name(n) for n in names) if not _SIMPLE.fullmatch(n) and n in text)


def compile_expression(text: str, names: Iterable[str] = (), *, where: str = "FEEL") -> Expression:
    """text compiled with names (the variables it may use) known; ExpressionError on a syntax error."""
    return _compiled(text, relevant_names(text, names), where)


def compile_unary_tests(text: str, names: Iterable[str] = (), *, where: str = "FEEL") -> UnaryTests:
    return _compiled_tests(text, relevant_names(text, names), where)


@lru_cache(maxsize=4096)
def _compiled(text: str, names: frozenset[str], where: str) -> Expression:
    return Expression(text, parse_expression(text, where=where, names=names | BUILTIN_NAMES))


@lru_cache(maxsize=4096)
def _compiled_tests(text: str, names: frozenset[str], where: str) -> UnaryTests:
    return UnaryTests(text, parse_unary_tests(text, where=where, names=names | BUILTIN_NAMES))


def evaluate(expression: str, context: Mapping[str, object] | None = None, *, where: str = "FEEL") -> object:
    """The value of a FEEL expression in a context of variables (null on an evaluation error)."""
    scope = scope_of(context)
    return compile_expression(expression, scope.names(), where=where).evaluate(scope)


def matches(tests: str, value: object, context: Mapping[str, object] | None = None, *,
            where: str = "FEEL") -> bool | None:
    """Whether value passes FEEL unary tests (``-``, ``< 5``, ``[1..10]``, ``not("a", "b")``); null if unknown."""
    scope = scope_of(context)
    return compile_unary_tests(tests, scope.names(), where=where).matches(value, scope)

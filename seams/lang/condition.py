"""Gateway conditions: the one entry point for every dialect, and seams' own language.

``parse_condition`` reads a condition in whichever dialect its body is written
(docs/conditions.md): ``${...}``/``#{...}`` is Camunda 7 JUEL
(seams.lang.juel), a leading ``=`` Camunda 8 FEEL (seams.lang.feel_expression),
anything else seams' own language below. All three give one expression tree
(seams.lang.condition_tree); a ``Condition`` evaluates it by its dialect's
rules (seams.lang.condition_semantics for the engines) and prints it in any
dialect (seams.lang.condition_print), so every caller gets every dialect
through this one function.

seams' own language is a small, safe subset of Python expressions. A
sequence flow's ``conditionExpression`` is model text that anyone (a
modeler, an LLM suggestion) may have written, so it is parsed with
``ast.parse(mode="eval")`` and never run: the tree is walked, only the nodes
of the language are accepted and turned into a private tree that this module
evaluates itself. The language is

* comparisons ``== != < <= > >=``, chained as in Python (``1 < x <= 10``);
* ``in`` / ``not in`` with a literal list or tuple (``x in ["a", "b"]``);
* ``and``, ``or``, ``not`` and parentheses;
* number literals (a leading ``-`` allowed), string literals, booleans
  (``True``/``False`` and also ``true``/``false``, as a modeler would type);
* variable names.

Semantics follow seams.value_kinds: values meet only values of their own kind,
so ``==`` across kinds is False, ``!=`` across kinds is True (it is ``not ==``)
and an ordering comparison across kinds, or on booleans, is False. A bare
variable or literal in a boolean position counts as true only if it is the
boolean ``True``. Decimal literals become ``Decimal`` (``0.1`` means one tenth,
not the nearest float). Newlines are allowed only inside brackets, as in Python.
"""

from __future__ import annotations

import ast
import operator
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, cast

from seams.errors import ExpressionError
from seams.lang.condition_print import print_condition
from seams.lang.condition_python import engine_python
from seams.lang.condition_semantics import evaluate_engine
from seams.lang.condition_tree import (
    FEEL,
    JUEL,
    SEAMS,
    Between,
    BoolOp,
    Compare,
    ListContains,
    ListLit,
    Lit,
    LitList,
    Matches,
    Node,
    Not,
    Range,
    Var,
    depth,
    walk,
)
from seams.lang.feel_expression import is_feel, parse_feel_expression
from seams.lang.feel_regex import probe_strings
from seams.lang.juel import is_juel, parse_juel
from seams.lang.token_stream import quote as _quote
from seams.lang.values import BOOLEAN, KINDS, ORDERED_KINDS, OTHER, kind_guard, kind_of, render_literal

MAX_LENGTH = 2000
"""Longest condition accepted; bounds parse time and memory."""

MAX_DEPTH = 50
"""Deepest nesting accepted; keeps the walkers far from Python's recursion limit."""

_COMPARISON_OPS = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=",
    ast.Gt: ">", ast.GtE: ">=", ast.In: "in", ast.NotIn: "not in",
}
_ORDERINGS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_EQUALITY_KINDS = tuple(kind for kind in KINDS if kind != OTHER)
_BOOLEAN_NAMES = {"true": True, "false": False}
_CONSTRUCT_NAMES = {
    ast.Call: "function call", ast.Attribute: "attribute access", ast.Subscript: "subscript",
    ast.BinOp: "arithmetic", ast.Lambda: "lambda", ast.JoinedStr: "f-string",
    ast.NamedExpr: "assignment expression (:=)", ast.IfExp: "conditional expression",
    ast.Dict: "dict", ast.Set: "set", ast.ListComp: "comprehension", ast.SetComp: "comprehension",
    ast.DictComp: "comprehension", ast.GeneratorExp: "generator expression",
    ast.Starred: "starred expression", ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield",
    ast.Slice: "slice", ast.UnaryOp: "arithmetic",
    ast.List: "list (only allowed after 'in')", ast.Tuple: "tuple (only allowed after 'in')",
}


_Node = Node
"""The nodes seams' own dialect builds; JUEL and FEEL add the rest of seams.lang.condition_tree."""

@dataclass(frozen=True)
class Operand:
    """One side of a comparison, as `Condition.comparisons` shows it.

    ``kind`` is ``"variable"`` (``value`` its name), ``"literal"`` (the value),
    ``"list"`` (a tuple of literal values, after ``in``) or ``"expression"``
    (anything else: arithmetic, a path, a range; ``value`` None), which type
    checks leave alone."""

    kind: str
    value: object


def _operand(node: object) -> Operand:
    if isinstance(node, Var):
        return Operand("variable", node.name)
    if isinstance(node, Lit):
        return Operand("literal", node.value)
    if isinstance(node, LitList) and all(isinstance(item, Lit) for item in node.items):
        return Operand("list", tuple(item.value for item in node.items if isinstance(item, Lit)))
    return Operand("expression", None)


@dataclass(frozen=True)
class Condition:
    """A parsed gateway condition; `where` names it in error messages, `dialect` says how it was written."""

    text: str
    where: str
    _tree: Node
    dialect: str = SEAMS

    @property
    def tree(self) -> Node:
        """The expression tree (seams.lang.condition_tree), the same shape for every dialect."""
        return self._tree

    @property
    def names(self) -> frozenset[str]:
        """The variables the condition reads (a path ``a.b`` reads ``a``)."""
        return frozenset(node.name for node in walk(self._tree) if isinstance(node, Var))

    def comparisons(self) -> list[tuple[str, Operand, Operand]]:
        """Each link of each comparison chain as ``(operator, left, right)``, in order of
        appearance. Type checks read conditions through this and `truth_names`, whatever
        dialect the text was written in."""
        return [(op, _operand(left), _operand(right))
                for compare in walk(self._tree) if isinstance(compare, Compare)
                for op, left, right in zip(compare.ops, compare.operands, compare.operands[1:])]

    def truth_names(self) -> list[str]:
        """Variables used directly as a condition (``approved``, ``not approved``), in order."""
        found: list[str] = []
        todo: list[object] = [self._tree]
        while todo:
            node = todo.pop(0)
            if isinstance(node, Var):
                found.append(node.name)
            elif isinstance(node, BoolOp):
                todo.extend(node.values)
            elif isinstance(node, Not):
                todo.append(node.operand)
        return found

    def evaluate(self, env: Mapping[str, object]) -> bool:
        """The condition's truth for `env`, by its dialect's rules (docs/conditions.md).

        A variable missing from `env` is an ExpressionError; so is, for JUEL
        and FEEL, what stops the engine (a refused coercion, a result that is
        not a boolean).
        """
        if self.dialect == SEAMS:
            return _truth(self._tree, env, self.where)
        return evaluate_engine(self._tree, self.dialect, env, self.where)

    def boundaries(self) -> dict[str, list[object]]:
        """Per variable (sorted), the literals it is compared with, in order of appearance.

        Sample inputs for generated tests are built around these values: a
        condition changes its answer only at them.
        """
        found: dict[str, dict[tuple[str, object], object]] = {name: {} for name in sorted(self.names)}
        for name, value in _boundary_literals(self._tree):
            if value is not None:
                found[name].setdefault((kind_of(value), value), value)
        return {name: list(values.values()) for name, values in found.items()}

    def to_python(self, var_expr: Callable[[str], str]) -> str:
        """Python source equivalent to `evaluate`, each variable rendered by `var_expr`.

        The source uses builtins, ``Decimal`` and ``date`` only; kind checks
        are spelled out so it answers exactly as `evaluate` does. seams'
        own dialect is rendered with its kind checks; a JUEL or FEEL condition is
        rendered with a small runtime of its engine's rules
        (seams.lang.condition_python), raising ValueError where the engine stops.
        """
        if self.dialect != SEAMS:
            return engine_python(self._tree, self.dialect, var_expr)
        return _render(self._tree, var_expr)

    def in_dialect(self, dialect: str) -> str:
        """The condition written in `dialect` (``${...}``, ``=...`` or seams'), its own text when it is one.

        A construct the dialect cannot state is an ExpressionError naming it.
        """
        if dialect == self.dialect:
            return self.text
        try:
            return print_condition(self._tree, dialect)
        except ExpressionError as exc:
            raise ExpressionError(f"{self.where}: {exc}") from None


def dialect_of(text: str) -> str:
    """The dialect a condition body is written in: ``${``/``#{`` JUEL, ``=`` FEEL, else seams."""
    source = text.strip()
    if is_juel(source):
        return JUEL
    if is_feel(source):
        return FEEL
    return SEAMS


def parse_condition(text: str, *, where: str, language: str | None = None) -> Condition:
    """Parse a condition in whichever dialect its body is written, or raise ExpressionError naming
    `where` and the fault. `language` is the ``conditionExpression``'s ``language`` attribute: with
    one (``groovy``, ``javascript``, ...) Camunda runs the body as a script, which is refused as not
    analysable."""
    if language is not None and language.strip():
        raise ExpressionError(f'{where}: script condition (language="{language}") is not analysable; '
                              "seams reads JUEL ${...}, FEEL =... and its own conditions")
    if not isinstance(text, str):
        raise ExpressionError(f"{where}: condition is not text")
    source = text.strip()
    if not source:
        raise ExpressionError(f"{where}: empty condition")
    if len(source) > MAX_LENGTH:
        raise ExpressionError(f"{where}: condition longer than {MAX_LENGTH} characters")
    dialect = dialect_of(source)
    if dialect != SEAMS:
        parse = parse_juel if dialect == JUEL else parse_feel_expression
        tree = parse(source, where=where, max_depth=MAX_DEPTH)
        if depth(tree) > MAX_DEPTH * 2:
            raise ExpressionError(f"{where}: nesting deeper than {MAX_DEPTH}")
        return Condition(source, where, tree, dialect)
    try:
        with warnings.catch_warnings():  # an invalid escape is refused, not printed
            warnings.simplefilter("error")
            syntax = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError) as exc:
        reason = exc.msg if isinstance(exc, SyntaxError) else type(exc).__name__
        raise ExpressionError(f"{where}: not a valid condition ({reason}): {_quote(source)}") from None
    return Condition(source, where, _Converter(source, where).boolean(syntax.body, 1))


class _Converter:
    """Turns an accepted Python AST into the private tree, refusing everything else."""

    def __init__(self, source: str, where: str):
        self.source = source
        self.where = where

    def fail(self, problem: str) -> ExpressionError:
        return ExpressionError(f"{self.where}: {problem} in condition {_quote(self.source)}")

    def unsupported(self, node: ast.AST) -> ExpressionError:
        name = _CONSTRUCT_NAMES.get(type(node), type(node).__name__)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            name = "'not' inside a comparison"
        return self.fail(f"unsupported {name} {_quote(ast.get_source_segment(self.source, node) or '')}")

    def boolean(self, node: ast.expr, depth: int) -> _Node:
        if depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH}")
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            return BoolOp(op, tuple(self.boolean(value, depth + 1) for value in node.values))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return Not(self.boolean(node.operand, depth + 1))
        if isinstance(node, ast.Compare):
            return self.compare(node)
        operand = self.operand(node)
        if isinstance(operand, Lit) and kind_of(operand.value) != BOOLEAN:
            raise self.fail(f"literal {operand.value!r} used as a condition")
        return operand

    def compare(self, node: ast.Compare) -> Compare:
        for cmp in node.ops:
            if type(cmp) not in _COMPARISON_OPS:
                raise self.fail(f"unsupported operator {'is' if isinstance(cmp, ast.Is) else 'is not'!r}")
        ops = tuple(_COMPARISON_OPS[type(cmp)] for cmp in node.ops)
        operands: list[Var | Lit | LitList] = [self.operand(node.left)]
        for op, comparator in zip(ops, node.comparators):
            if op in ("in", "not in"):
                if not isinstance(comparator, (ast.List, ast.Tuple)):
                    shown = _quote(ast.get_source_segment(self.source, comparator) or "")
                    raise self.fail(f"'{op}' needs a literal list, not {shown}")
                operands.append(LitList(tuple(self.literal(item) for item in comparator.elts)))
            else:
                operands.append(self.operand(comparator))
        for op, left, right in zip(ops, operands, operands[1:]):
            if isinstance(left, LitList) or (isinstance(right, LitList) and op not in ("in", "not in")):
                raise self.fail("a list may only follow 'in' or 'not in'")
            if op in _ORDERINGS and any(isinstance(o, Lit) and kind_of(o.value) == BOOLEAN for o in (left, right)):
                raise self.fail(f"ordering comparison '{op}' with a boolean")
        return Compare(tuple(operands), ops)

    def operand(self, node: ast.expr) -> Var | Lit:
        if isinstance(node, ast.Name) and node.id not in _BOOLEAN_NAMES:
            return Var(node.id)
        return self.literal(node)

    def literal(self, node: ast.expr) -> Lit:
        if isinstance(node, ast.Name):
            if node.id in _BOOLEAN_NAMES:
                return Lit(_BOOLEAN_NAMES[node.id])
            raise self.fail(f"variable {node.id!r} where a literal is needed")
        negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
        constant = cast(ast.UnaryOp, node).operand if negative else node
        if not isinstance(constant, ast.Constant):
            raise self.unsupported(node)
        value = constant.value
        if isinstance(value, bool):
            if not negative:
                return Lit(value)
        elif isinstance(value, int):
            return Lit(-value if negative else value)
        elif isinstance(value, float):
            number = self.decimal(constant)
            return Lit(number.copy_negate() if negative else number)
        elif isinstance(value, str) and not negative:
            return Lit(value)
        raise self.fail(f"unsupported literal {_quote(ast.get_source_segment(self.source, node) or repr(value))}")

    def decimal(self, node: ast.Constant) -> Decimal:
        """The exact decimal the literal's text says, not the float Python would make of it."""
        segment = ast.get_source_segment(self.source, node) or repr(node.value)
        try:
            return Decimal(segment.replace("_", ""))
        except InvalidOperation:
            raise self.fail(f"number {_quote(segment)} out of range") from None


def _boundary_literals(tree: Node):
    """(variable name, literal value) for each literal a variable is compared with, in order."""
    for node in walk(tree):
        if isinstance(node, Compare):
            for left, right in zip(node.operands, node.operands[1:]):
                for var, other in ((left, right), (right, left)):
                    if isinstance(var, Var) and isinstance(other, (Lit, LitList)):
                        yield from ((var.name, value) for value in _literal_values(other))
        elif isinstance(node, Between) and isinstance(node.value, Var):
            for bound in (node.low, node.high):
                if isinstance(bound, Lit):
                    yield node.value.name, bound.value
        elif isinstance(node, ListContains) and isinstance(node.value, Var) and isinstance(node.items, ListLit):
            yield from ((node.value.name, item.value) for item in node.items.items if isinstance(item, Lit))
        elif isinstance(node, Matches) and isinstance(node.value, Var):
            yield from ((node.value.name, text) for text in probe_strings(node.pattern))


def _literal_values(node: Lit | LitList):
    for item in node.items if isinstance(node, LitList) else (node,):
        if isinstance(item, Range):
            yield item.low.value
            yield item.high.value
        else:
            yield item.value


def _equal(a: object, b: object) -> bool:
    kind = kind_of(a)
    return kind != OTHER and kind == kind_of(b) and a == b


def _compare_values(op: str, a: object, b: object) -> bool:
    if op == "==":
        return _equal(a, b)
    if op == "!=":
        return not _equal(a, b)
    if op in ("in", "not in"):
        found = any(_equal(a, item) for item in b)  # type: ignore[attr-defined]
        return found if op == "in" else not found
    kind = kind_of(a)
    return kind in ORDERED_KINDS and kind == kind_of(b) and _ORDERINGS[op](cast(Any, a), cast(Any, b))


def _truth(node: _Node, env: Mapping[str, object], where: str) -> bool:
    if isinstance(node, BoolOp):
        results = (_truth(value, env, where) for value in node.values)
        return all(results) if node.op == "and" else any(results)
    if isinstance(node, Not):
        return not _truth(node.operand, env, where)
    if isinstance(node, Compare):
        values = [_value(operand, env, where) for operand in node.operands]
        return all(_compare_values(op, a, b) for op, a, b in zip(node.ops, values, values[1:]))
    return _value(node, env, where) is True


def _value(operand: object, env: Mapping[str, object], where: str) -> object:
    """The value of an operand of seams' own dialect (a variable, a literal or a literal list)."""
    if isinstance(operand, Var):
        if operand.name not in env:
            raise ExpressionError(f"{where}: variable {operand.name!r} is not set")
        return env[operand.name]
    if isinstance(operand, LitList):
        return tuple(item.value for item in operand.items if isinstance(item, Lit))
    if isinstance(operand, Lit):
        return operand.value
    raise ExpressionError(f"{where}: {type(operand).__name__} is not an operand of seams' own conditions")


def _render(node: _Node, var_expr: Callable[[str], str]) -> str:
    if isinstance(node, BoolOp):
        return "(" + f" {node.op} ".join(_render(value, var_expr) for value in node.values) + ")"
    if isinstance(node, Not):
        return f"(not {_render(node.operand, var_expr)})"
    if isinstance(node, Var):
        return f"({var_expr(node.name)} is True)"
    if isinstance(node, Lit):
        return repr(node.value)
    if not isinstance(node, Compare):
        raise ExpressionError(f"{type(node).__name__} is not a node of seams' own conditions")
    pairs = [
        _render_pair(op, left, right, var_expr)
        for op, left, right in zip(node.ops, node.operands, node.operands[1:])
    ]
    return pairs[0] if len(pairs) == 1 else "(" + " and ".join(pairs) + ")"


def _render_pair(op: str, left, right, var_expr: Callable[[str], str]) -> str:
    """One link of a comparison chain, with the kind checks `_compare_values` makes."""
    if isinstance(left, Lit) and isinstance(right, (Lit, LitList)):
        return repr(_compare_values(op, left.value, _value(right, {}, "")))
    if op in ("!=", "not in"):
        return f"(not {_render_pair('==' if op == '!=' else 'in', left, right, var_expr)})"
    if op == "in":
        tests = [_render_pair("==", left, item, var_expr) for item in right.items]
        return "(" + " or ".join(tests) + ")" if tests else "False"
    kinds = _EQUALITY_KINDS if op == "==" else ORDERED_KINDS
    for operand in (left, right):
        if isinstance(operand, Lit):
            kinds = tuple(kind for kind in kinds if kind == kind_of(operand.value))
    if not kinds:
        return "False"
    variables = [var_expr(o.name) for o in (left, right) if isinstance(o, Var)]
    alternatives = [" and ".join(kind_guard(kind, v) for v in variables) for kind in kinds]
    guard = alternatives[0] if len(alternatives) == 1 else "(" + " or ".join(f"({a})" for a in alternatives) + ")"
    rendered = [var_expr(o.name) if isinstance(o, Var) else render_literal(o.value) for o in (left, right)]
    if kinds == (BOOLEAN,):
        return f"({rendered[0]} is {rendered[1]})"
    return f"({guard} and {rendered[0]} {op} {rendered[1]})"

"""Camunda 8 gateway conditions: FEEL expressions read by seams' one FEEL grammar, lowered to condition trees.

A Camunda 8 (Zeebe) condition is a FEEL expression after a leading ``=``.
It is parsed by seams.lang.feel_grammar — the grammar and literal rules the
FEEL interpreter, decision tables and output entries share, so a date, a
zone name or a string escape means the same everywhere — and the part that
states a rule over process variables (docs/conditions.md, "FEEL") is lowered
into the one condition tree (seams.lang.condition_tree) the checks, the
printer and the Python generator walk. The rest (a function call other
than the ``date``/``date and time``/``duration`` literals, ``not(...)``,
``modulo(a, b)``, ``matches`` with a literal pattern, ``list contains`` and
``is defined``; filters, contexts, ``for``/``some``/``every``, ...) becomes
one ``FeelExpr`` node that seams.lang.feel_interpreter, which takes all of
FEEL, evaluates; its variables are its free names (seams.lang.feel_names).
Refused by name are only what is wrong in every engine: a syntax error, a
literal that is no value, a chained comparison, a ``matches`` pattern
seams.lang.feel_regex cannot translate exactly, an ``external`` function.

These are FEEL *expressions* (``amount > 1000``), not the unary tests of a
decision table's input entries (``> 1000``), which seams.lang.feel reads.
A name may contain spaces, as FEEL allows (``order total > 100``): words
that are not keywords and follow each other are one name.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from seams.errors import ExpressionError
from seams.lang.condition_tree import (
    Arith,
    Between,
    BoolOp,
    Compare,
    FeelExpr,
    IsDefined,
    ListContains,
    ListLit,
    Lit,
    LitList,
    Matches,
    Neg,
    Node,
    Not,
    Path,
    Range,
    Ternary,
    Var,
)
from seams.lang.feel_grammar import FeelParser
from seams.lang.feel_grammar import Node as Tree
from seams.lang.feel_interpreter import BUILTIN_NAMES, FUNCTION_NAMES
from seams.lang.feel_names import filter_names, free_names, unsupported_construct
from seams.lang.feel_regex import PatternError, translate
from seams.lang.feel_temporal import YearsMonths, days_time_text, parse_date, parse_date_time, parse_duration
from seams.lang.token_stream import quote as _quote
from seams.lang.token_stream import segment as _segment

_COMPARISONS = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_LITERAL_FUNCTIONS = {"date and time": parse_date_time, "date": parse_date, "duration": parse_duration}
_FUNCTIONS = ("matches", "list contains", "is defined")
_DEFINED = " is defined"


def is_feel(text: str) -> bool:
    """Whether a condition body is written in FEEL: it starts with ``=``."""
    return text.startswith("=")


class _ConditionParser(FeelParser):
    SKIP = 1  # after "="


def parse_feel_expression(text: str, *, where: str, max_depth: int) -> Node:
    """The tree of an ``=...`` condition, or an ExpressionError naming the construct at fault.

    What the condition tree states in its own nodes is lowered into them (the checks then decide
    types and "never true" on it); any other expression the FEEL grammar accepts becomes one
    ``FeelExpr`` node, evaluated by seams.lang.feel_interpreter, whose free names are the variables
    it reads. Only a syntax error, or a construct the interpreter does not evaluate either (an
    ``external`` Java or PMML function), is an ExpressionError."""
    parser = _ConditionParser(text, where=where, names=BUILTIN_NAMES)
    parser.max_depth = max_depth
    tree = parser.expression_text()
    try:
        return _Lowering(parser).lower(tree)
    except _NoNode:
        unsupported = unsupported_construct(tree)
        if unsupported is not None:
            raise parser.fail(f"{unsupported} is not supported") from None
        return FeelExpr(text[1:].strip() if text.startswith("=") else text.strip(), free_names(tree, FUNCTION_NAMES),
                        filter_names(tree, FUNCTION_NAMES))


class _NoNode(ExpressionError):
    """Raised by the lowering where the condition tree has no node for a construct FEEL has."""




class _Lowering:
    """FEEL grammar trees to condition trees; what the condition tree has no node for is refused by name."""

    def __init__(self, parser: FeelParser):
        self.parser = parser

    def fail(self, problem: str):
        return self.parser.fail(problem)

    def no_node(self, problem: str) -> _NoNode:
        """A construct the condition tree has no node for: the whole expression becomes a FeelExpr."""
        return _NoNode(str(self.parser.fail(problem)))

    def shown(self, node: Tree) -> str:
        start, end = self.parser.spans.get(id(node), (0, len(self.parser.text)))
        return _segment(self.parser.text[start:end])

    def lower(self, node: Tree) -> Node:
        kind = node[0]
        handler = getattr(self, f"_{kind}", None)
        if handler is None:
            raise self.no_node(_REFUSED.get(kind, f"{kind} is not supported"))
        return handler(node)

    def _lit(self, node: Tree) -> Node:
        value = node[1]
        if isinstance(value, Decimal) and value.as_tuple().exponent == 0:
            return Lit(int(value))
        return Lit(value)

    def _error(self, node: Tree) -> Node:
        raise self.fail(node[1])

    def _name(self, node: Tree) -> Node:
        name = node[1]
        if name.endswith(_DEFINED) and len(name) > len(_DEFINED):
            return IsDefined(Var(name[:-len(_DEFINED)]))
        return Var(name)

    def _path(self, node: Tree) -> Node:
        base = self.lower(node[1])
        member = node[2]
        if member.endswith(_DEFINED) and len(member) > len(_DEFINED):
            return IsDefined(Path(base, member[:-len(_DEFINED)]))
        return Path(base, member)

    def _if(self, node: Tree) -> Node:
        return Ternary(self.lower(node[1]), self.lower(node[2]), self.lower(node[3]))

    def _boolean(self, node: Tree) -> Node:
        """``a and b and c`` as one BoolOp of three; a group in parentheses stays one operand."""
        op = node[0]
        values = [node[2]]
        node = node[1]
        while node[0] == op and id(node) not in self.parser.parens:
            values.insert(0, node[2])
            node = node[1]
        values.insert(0, node)
        return BoolOp(op, tuple(self.lower(v) for v in values))

    _or = _and = _boolean

    def _comparison_operand(self, node: Tree, op: str) -> Node:
        if node[0] in ("cmp", "between", "in"):
            raise self.fail(f"chained comparison ({op!r} after a comparison) is not supported; "
                            "join the comparisons with 'and'")
        return self.lower(node)

    def _cmp(self, node: Tree) -> Node:
        left = self._comparison_operand(node[2], node[1])
        return Compare((left, self.lower(node[3])), (_COMPARISONS[node[1]],))

    def _between(self, node: Tree) -> Node:
        value = self._comparison_operand(node[1], "between")
        return Between(value, self.lower(node[2]), self.lower(node[3]))

    def _in(self, node: Tree) -> Node:
        value = self._comparison_operand(node[1], "in")
        items: list[Lit | Range] = []
        for test in node[2]:
            if test[0] == "test":
                raise self.no_node(f"unary test {test[1]!r} after 'in' is not supported; compare with the value "
                                "instead")
            if test[0] == "list" and len(node[2]) == 1:
                items.extend(self.literal(item) for item in test[1])
            elif test[0] == "range" and test[1] is not None and test[2] is not None:
                items.append(Range(self.literal(test[1]), self.literal(test[2]), test[3], test[4]))
            elif test[0] == "range":
                raise self.no_node(f"unary test {self.shown(test)!r} after 'in' is not supported; compare with the "
                                "value instead")
            else:
                items.append(self.literal(test))
        return Compare((value, LitList(tuple(items))), ("in",))

    def literal(self, node: Tree) -> Lit:
        lowered = self.lower(node)
        if not isinstance(lowered, Lit):
            raise self.no_node(f"{_quote(self.shown(node))} where a literal is needed")
        return lowered

    def _arith(self, node: Tree) -> Node:
        if node[1] == "**":
            raise self.no_node("exponentiation ** is not supported")
        return Arith(node[1], self.lower(node[2]), self.lower(node[3]))

    def _neg(self, node: Tree) -> Node:
        operand = self.lower(node[1])
        if isinstance(operand, Lit) and isinstance(operand.value, (int, Decimal)) \
                and not isinstance(operand.value, bool):
            return Lit(-operand.value)
        return Neg(operand)

    def _list(self, node: Tree) -> Node:
        return ListLit(tuple(self.lower(item) for item in node[1]))

    def _range(self, node: Tree) -> Node:
        raise self.no_node("range outside 'in' is not supported")

    def _filter(self, node: Tree) -> Node:
        raise self.no_node(f"filter {self.shown(node)} is not supported")

    def _call(self, node: Tree) -> Node:
        function, arguments, named = node[1], node[2], node[3]
        name = function[1] if function[0] == "name" else None
        shown = self.shown(node)
        if named or name not in (*_LITERAL_FUNCTIONS, "not", "modulo", *_FUNCTIONS):
            raise self.no_node(f"function call {shown} is not supported")
        lowered = [self.lower(argument) for argument in arguments]
        if name == "not":
            if len(lowered) != 1:
                raise self.fail(f"not(...) takes one argument, not {len(lowered)}: {shown}")
            return Not(lowered[0])
        if name == "modulo":
            if len(lowered) != 2:
                raise self.fail(f"modulo(a, b) takes two arguments: {shown}")
            return Arith("%", lowered[0], lowered[1])
        if name in _FUNCTIONS:
            return self.function(name, lowered, shown, arguments[0] if len(node) > 4 else None)
        assert name is not None
        if len(lowered) != 1 or not (isinstance(lowered[0], Lit) and isinstance(lowered[0].value, str)):
            raise self.no_node(f"{name}(...) with anything but one string literal is not supported: {shown}")
        try:
            value = _LITERAL_FUNCTIONS[name](lowered[0].value)
        except ValueError as exc:
            raise self.fail(f"{shown} is not a supported {name} literal ({exc})") from None
        if isinstance(value, YearsMonths):
            raise self.no_node(f"{shown} is not a supported duration literal (a years and months duration: "
                            "conditions compare days and time durations)")
        return Lit(value)

    def function(self, name: str, arguments: list[Node], shown: str, after: Tree | None = None) -> Node:
        """``matches``, ``list contains`` and ``is defined`` (docs/conditions.md, "FEEL functions")."""
        if name == "is defined":
            if len(arguments) != 1 or not isinstance(arguments[0], (Var, Path)):
                if after is not None:
                    raise self.fail(f"{self.shown(after)} is defined: only a name or path can be tested")
                raise self.fail(f"is defined(...) takes one name or path: {shown}")
            return IsDefined(arguments[0])
        if name == "list contains":
            if len(arguments) != 2:
                raise self.fail(f"list contains(list, value) takes two arguments: {shown}")
            return ListContains(arguments[0], arguments[1])
        if len(arguments) not in (2, 3) or not all(
                isinstance(a, Lit) and isinstance(a.value, str) for a in arguments[1:]):
            raise self.no_node(f"matches(value, pattern[, flags]) with anything but string literals for the "
                            f"pattern and flags is not supported: {shown}")
        pattern = arguments[1].value  # type: ignore[union-attr]
        flags = arguments[2].value if len(arguments) == 3 else ""  # type: ignore[union-attr]
        try:
            translate(pattern, flags)  # type: ignore[arg-type]
        except PatternError as exc:
            raise self.fail(f"{shown}: {exc}") from None
        return Matches(arguments[0], pattern, flags)  # type: ignore[arg-type]


_REFUSED = {
    "for": "'for' expression is not supported", "some": "'some' expression is not supported",
    "every": "'every' expression is not supported", "function": "function definition is not supported",
    "instance": "'instance of' is not supported", "context": "context {...} is not supported",
}


def duration_text(value: timedelta) -> str:
    """A days-and-time duration as FEEL writes it (``P2DT3H``), the inverse of ``duration("...")``."""
    return days_time_text(value)

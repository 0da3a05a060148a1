"""How JUEL and FEEL conditions evaluate: each engine's rules on the one tree.

seams' own dialect keeps its kind-strict rules (seams.lang.condition). A
Camunda condition must answer as its engine would, because the routing check
compares a gateway before and after a rewrite on sample inputs, so the two
engine dialects are evaluated here, each with its own rules
(docs/conditions.md has a table per dialect):

* **JUEL** (Camunda 7, the EL specification's coercions): ``==`` with null
  is true only for null; a number meets a string by coercing the string to a
  number (``"5" == 5``); a boolean meets a string by coercing it to a boolean;
  a string meets anything else by coercing that to a string; ``&&``, ``||``,
  ``!`` and ``? :`` coerce null to false and a string to ``"true"``-or-not;
  arithmetic coerces null to 0. A coercion the engine refuses (``"abc" > 5``)
  is an ExpressionError, as it is an error in the engine.
* **FEEL** (Camunda 8): three-valued logic. A comparison of values of two
  kinds, or an ordering with null, is null; ``x = null`` is true only for
  null; ``and`` is false if any operand is false, true if all are true, else
  null; ``or`` likewise; ``not(null)`` is null; arithmetic with null is null.

In both engines a condition whose value is not a boolean stops the process
with an error (Camunda 7 "condition expression returns non-Boolean", a
Camunda 8 incident: "Expected result of the expression ... to be 'BOOLEAN'"),
so that is an ExpressionError here too, for a condition the tree reads and for one
only the interpreter reads (``FeelExpr``) alike. A variable the input does not
have is null in FEEL (as Zeebe reads it) and an ExpressionError in JUEL and
seams' own dialect.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from decimal import ROUND_FLOOR, Decimal, InvalidOperation

from seams.errors import ExpressionError
from seams.lang.condition_tree import (
    JUEL,
    Arith,
    Between,
    BoolOp,
    Compare,
    ConditionVisitor,
    Empty,
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
    walk,
)
from seams.lang.feel_regex import translate

_LONG = re.compile(r"[+-]?\d+")


class _Engine(ConditionVisitor[object]):
    """Evaluation of one condition's tree in one engine dialect: each ``visit_`` method gives a node's value."""

    def __init__(self, dialect: str, env: Mapping[str, object], where: str):
        self.dialect, self.env, self.where = dialect, env, where
        self.juel = dialect == JUEL

    def fail(self, problem: str) -> ExpressionError:
        return ExpressionError(f"{self.where}: {'JUEL' if self.juel else 'FEEL'} {problem}")

    def value(self, node: Node) -> object:
        return self.visit(node)

    def visit_Lit(self, node: Lit) -> object:
        return node.value

    def visit_Var(self, node: Var) -> object:
        if node.name not in self.env:
            if not self.juel:
                return None  # FEEL: a variable nothing set is null, as Zeebe reads it (docs/conditions.md)
            raise ExpressionError(f"{self.where}: variable {node.name!r} is not set")
        return self.env[node.name]

    def visit_Path(self, node: Path) -> object:
        return self.path(self.value(node.base), node.attr)

    def visit_Not(self, node: Not) -> object:
        operand = self.value(node.operand)
        if self.juel:
            return not self.to_boolean(operand)
        return (not operand) if isinstance(operand, bool) else None

    def visit_Arith(self, node: Arith) -> object:
        left, right = self.value(node.left), self.value(node.right)
        return self.juel_arith(node.op, left, right) if self.juel else _feel_arith(node.op, left, right)

    def visit_Neg(self, node: Neg) -> object:
        return self.negate(self.value(node.operand))

    def visit_Ternary(self, node: Ternary) -> object:
        test = self.value(node.test)
        holds = self.to_boolean(test) if self.juel else test is True
        return self.value(node.then if holds else node.orelse)

    def visit_Empty(self, node: Empty) -> object:
        operand = self.value(node.operand)
        return operand is None or (isinstance(operand, (str, list, tuple, dict, set, frozenset))
                                   and len(operand) == 0)

    def visit_Between(self, node: Between) -> object:
        value = self.value(node.value)
        low, high = self.value(node.low), self.value(node.high)
        return _and3([_feel_order(">=", value, low), _feel_order("<=", value, high)])

    def visit_ListLit(self, node: ListLit) -> object:
        return [self.value(item) for item in node.items]

    def visit_Matches(self, node: Matches) -> object:
        value = self.value(node.value)
        if not isinstance(value, str):
            return None
        pattern, flags = translate(node.pattern, node.flags)
        return re.search(pattern, value, flags) is not None

    def visit_ListContains(self, node: ListContains) -> object:
        items, wanted = self.value(node.items), self.value(node.value)
        if not isinstance(items, list):
            return None
        return any(_feel_equal(item, wanted) is True for item in items)

    def visit_IsDefined(self, node: IsDefined) -> object:
        return self.defined(node.operand)

    def visit_FeelExpr(self, node: FeelExpr) -> object:
        """The value seams.lang.feel_interpreter gives (an evaluation error is null, as FEEL makes it)."""
        from seams.lang.feel_interpreter import compile_expression

        for name in node.names:
            if name not in self.env:
                raise ExpressionError(f"{self.where}: variable {name!r} is not set")
        return compile_expression(node.text, self.env.keys(), where=self.where).run(dict(self.env)).value

    def defined(self, node: Node) -> bool:
        """FEEL 1.x ``is defined``: the variable, or the context entry, exists (its value may be null)."""
        if isinstance(node, Var):
            return node.name in self.env
        if isinstance(node, Path):
            if not self.defined(node.base):
                return False
            base = self.value(node.base)
            return isinstance(base, dict) and node.attr in base
        raise self.fail("'is defined' of anything but a name or path")

    # -- paths and booleans

    def path(self, base: object, attr: str) -> object:
        if isinstance(base, dict):
            return base.get(attr)
        if base is None or not self.juel:
            return None
        raise self.fail(f"property {attr!r} of a {type(base).__name__} value cannot be read")

    def to_boolean(self, value: object) -> bool:
        """JUEL's coercion to Boolean: null and "" are false, a string is "true" or not."""
        if value is None or value == "":
            return False
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            return value.lower() == "true"
        raise self.fail(f"cannot coerce {_shown(value)} to a boolean")

    def visit_BoolOp(self, node: BoolOp) -> object:
        if self.juel:
            for operand in node.values:  # short-circuit, as the engine does
                truth = self.to_boolean(self.value(operand))
                if truth == (node.op == "or"):
                    return truth
            return node.op == "and"
        results = [self.value(operand) for operand in node.values]
        return _and3(results) if node.op == "and" else _or3(results)

    # -- comparisons

    def visit_Compare(self, node: Compare) -> object:
        values = [v if isinstance(v, LitList) else self.value(v) for v in node.operands]
        results = [self.pair(op, a, b) for op, a, b in zip(node.ops, values, values[1:])]
        if self.juel:
            return all(results)
        return results[0] if len(results) == 1 else _and3(results)

    def pair(self, op: str, a: object, b: object) -> object:
        if isinstance(b, LitList):
            found = _or3([self.item(a, item) for item in b.items])
            if op == "in":
                return found
            return None if found is None else not found
        if self.juel:
            if op in ("==", "!="):
                equal = self.juel_equal(a, b)
                return equal if op == "==" else not equal
            return self.juel_order(op, a, b)
        if op in ("==", "!="):
            same = _feel_equal(a, b)
            return same if op == "==" or same is None else not same
        return _feel_order(op, a, b)

    def item(self, value: object, item: Lit | Range) -> object:
        if isinstance(item, Range):
            low = _feel_order(">=" if item.low_closed else ">", value, item.low.value)
            high = _feel_order("<=" if item.high_closed else "<", value, item.high.value)
            return _and3([low, high])
        if self.juel:
            return self.juel_equal(value, item.value)
        return _feel_equal(value, item.value)

    def juel_equal(self, a: object, b: object) -> bool:
        if a is b:
            return True
        if a is None or b is None:
            return False
        if _is_number(a) or _is_number(b):
            x, y = self.juel_numbers(a, b)
            return x == y
        if isinstance(a, bool) or isinstance(b, bool):
            return self.to_boolean(a) == self.to_boolean(b)
        if isinstance(a, str) or isinstance(b, str):
            return _java_string(a) == _java_string(b)
        return a == b

    def juel_order(self, op: str, a: object, b: object) -> bool:
        if a is None or b is None:
            return False
        if _is_number(a) or _is_number(b):
            x, y = self.juel_numbers(a, b)
        elif isinstance(a, str) or isinstance(b, str):
            x, y = _java_string(a), _java_string(b)
        elif type(a) is type(b) and isinstance(a, (bool, date, datetime, timedelta)):
            x, y = a, b
        else:
            raise self.fail(f"cannot order {_shown(a)} and {_shown(b)}")
        return _ordered(op, x, y)

    def juel_numbers(self, a: object, b: object) -> tuple:
        """Both operands coerced the way EL coerces for a numeric comparison."""
        exact = any(isinstance(v, (Decimal, float)) for v in (a, b))
        return self.to_number(a, exact), self.to_number(b, exact)

    def to_number(self, value: object, exact: bool) -> int | Decimal:
        if value is None or value == "":
            return 0
        if isinstance(value, bool):
            raise self.fail(f"cannot coerce {_shown(value)} to a number")
        if isinstance(value, int):
            return value
        if isinstance(value, (Decimal, float)):
            number = Decimal(str(value)) if isinstance(value, float) else value
            if not number.is_finite():
                raise self.fail(f"cannot compute with {_shown(value)}")
            return number
        if isinstance(value, str):
            if not exact and _LONG.fullmatch(value):
                return int(value)
            if exact:
                try:
                    number = Decimal(value.strip())
                except InvalidOperation:
                    number = Decimal("NaN")
                if number.is_finite():
                    return number
        raise self.fail(f"cannot coerce {_shown(value)} to a number")

    # -- arithmetic

    def juel_arith(self, op: str, a: object, b: object) -> object:
        if a is None and b is None:
            return 0
        exact = op == "/" or any(isinstance(v, (Decimal, float)) or (isinstance(v, str) and any(
            c in v for c in ".eE")) for v in (a, b))
        x, y = self.to_number(a, exact), self.to_number(b, exact)
        if op in ("/", "%") and y == 0:
            raise self.fail("division by zero")
        if op == "/":
            return Decimal(x) / Decimal(y)
        if op == "%":
            remainder = Decimal(x) % Decimal(y)  # Decimal's remainder has the dividend's sign, as Java's
            return int(remainder) if isinstance(x, int) and isinstance(y, int) else remainder
        return _arith(op, x, y)

    def negate(self, value: object) -> object:
        if self.juel:
            return -self.to_number(value, False)
        if _is_number(value):
            return -_exact(value)  # type: ignore[operator]
        return -value if isinstance(value, timedelta) else None


def engine_value(tree: Node, dialect: str, env: Mapping[str, object], where: str) -> object:
    """The value of a JUEL or FEEL expression (a decision table's output entry, say)."""
    return _Engine(dialect, env, where).value(tree)


def evaluate_engine(tree: Node, dialect: str, env: Mapping[str, object], where: str) -> bool:
    """The truth of a JUEL or FEEL condition; a non-boolean result is an ExpressionError."""
    engine = _Engine(dialect, env, where)
    result = engine.value(tree)
    if not isinstance(result, bool):
        unset = sorted({node.name for node in walk(tree) if isinstance(node, Var) and node.name not in env})
        nulls = f"; not set, so null: {', '.join(repr(name) for name in unset)}" if unset else ""
        raise engine.fail(f"condition gives {_shown(result)}, not a boolean; the engine stops with an error{nulls}")
    return result


def _is_number(value: object) -> bool:
    return type(value) in (int, float, Decimal)


def _exact(value: object) -> object:
    return Decimal(str(value)) if isinstance(value, float) else value


def _shown(value: object) -> str:
    return "null" if value is None else repr(value)


def _java_string(value: object) -> str:
    """EL's coercion to String: null is "", a boolean "true"/"false", anything else its text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)


def feel_kind(value: object) -> str:
    """FEEL's type of a value: number, string, boolean, date, date and time, duration, null, other."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number" if value == value else "other"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if type(value) is datetime:
        return "date and time"
    if type(value) is date:
        return "date"
    if type(value) is timedelta:
        return "duration"
    return "other"


_ORDERED = ("number", "string", "date", "date and time", "duration")


def _feel_equal(a: object, b: object) -> bool | None:
    if a is None or b is None:
        return a is None and b is None
    kind = feel_kind(a)
    if kind != feel_kind(b):
        return None
    if kind == "number" and not (a == a and b == b):
        return None
    if kind == "list":  # same length and each pair equal (null where a pair is of two kinds)
        if len(a) != len(b):  # type: ignore[arg-type]
            return False
        return _and3([_feel_equal(x, y) for x, y in zip(a, b)])  # type: ignore[call-overload]
    return a == b


def _feel_order(op: str, a: object, b: object) -> bool | None:
    kind = feel_kind(a)
    if kind not in _ORDERED or kind != feel_kind(b):
        return None
    if getattr(a, "tzinfo", None) is None and getattr(b, "tzinfo", None) is not None \
            or getattr(a, "tzinfo", None) is not None and getattr(b, "tzinfo", None) is None:
        return None  # a date and time with an offset or zone orders only against another with one
    return _ordered(op, a, b)


def _ordered(op: str, a, b) -> bool:
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    return a > b if op == ">" else a >= b


def _arith(op: str, x, y) -> object:
    if op == "+":
        return x + y
    return x - y if op == "-" else x * y


def _and3(values: list[object]) -> bool | None:
    if any(v is False for v in values):
        return False
    return True if all(v is True for v in values) else None


def _or3(values: list[object]) -> bool | None:
    if any(v is True for v in values):
        return True
    return False if all(v is False for v in values) else None


def _feel_arith(op: str, a: object, b: object) -> object:
    if a is None or b is None or isinstance(a, bool) or isinstance(b, bool):
        return None
    if _is_number(a) and _is_number(b):
        x, y = _exact(a), _exact(b)
        if op in ("/", "%") and y == 0:
            return None
        if op == "/":
            return Decimal(x) / Decimal(y)  # type: ignore[arg-type]
        if op == "%":  # FEEL's modulo takes the divisor's sign
            quotient = (Decimal(x) / Decimal(y)).to_integral_value(rounding=ROUND_FLOOR)  # type: ignore[arg-type]
            result = Decimal(x) - Decimal(y) * quotient  # type: ignore[arg-type]
            return int(result) if isinstance(x, int) and isinstance(y, int) else result
        return _arith(op, x, y)
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        return a + b
    if op in ("+", "-") and isinstance(a, (date, timedelta)) and type(b) is timedelta:
        return a + b if op == "+" else a - b  # a date, date and time or duration moved by a duration
    if op == "+" and type(a) is timedelta and isinstance(b, date):
        return b + a
    if op == "-" and type(a) is type(b) and type(a) in (date, datetime):
        return a - b  # type: ignore[operator]  # the duration between two dates, or two dates and times
    return None

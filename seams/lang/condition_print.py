"""Printing a condition tree in a dialect: seams' own, JUEL (``${...}``) or FEEL (``=...``).

``seams suggest`` writes a rewritten condition in the dialect of the one it
replaces, so the model still deploys on its engine; the property tests print
random trees in each dialect and parse them back. Printing is exact where
the dialect has the construct, and spells it out where it does not (a seams
chain ``1 < x <= 10`` becomes two comparisons joined by ``and``; ``in`` in
JUEL becomes ``==`` tests joined by ``||``). A construct a dialect cannot
state at all (a date in JUEL, null in seams) is an ExpressionError.
"""

from __future__ import annotations

import keyword
import re
from datetime import date, datetime, timedelta
from decimal import Decimal

from seams.errors import ExpressionError
from seams.lang.condition_tree import (
    DIALECT_NAMES,
    FEEL,
    JUEL,
    SEAMS,
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
)
from seams.lang.feel_expression import duration_text

_JUEL_RESERVED = {"and", "or", "not", "eq", "ne", "lt", "gt", "le", "ge", "true", "false", "null", "empty",
                  "div", "mod", "instanceof"}
_FEEL_KEYWORDS = {"and", "or", "between", "in", "if", "then", "else", "true", "false", "null", "for", "some",
                  "every", "satisfies", "return", "instance", "of", "function", "not"}
_JUEL_NAME = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_FEEL_WORD = re.compile(r"^[^\W\d][\w?]*$")
_TERNARY, _OR, _AND, _NOT_WORD, _COMPARE, _ADD, _MUL, _UNARY, _ATOM = range(1, 10)
_ARITH_LEVEL = {"+": _ADD, "-": _ADD, "*": _MUL, "/": _MUL, "%": _MUL}


def print_condition(tree: Node, dialect: str) -> str:
    """The condition's text in ``dialect``, wrapper included (``${...}``, ``=...``)."""
    if isinstance(tree, FeelExpr) and dialect == FEEL:
        return "=" + tree.text
    body = _Printer(dialect).text(tree)
    if dialect == JUEL:
        return "${" + body + "}"
    if dialect == FEEL:
        return "=" + body
    return body


class _Printer(ConditionVisitor[tuple[str, int]]):
    """Each ``visit_`` method gives a node's text and how tightly it binds."""

    def __init__(self, dialect: str):
        self.dialect = dialect

    def cannot(self, what: str) -> ExpressionError:
        return ExpressionError(f"{DIALECT_NAMES[self.dialect]} cannot state {what}")

    def wrap(self, node: Node, minimum: int) -> str:
        """``node``'s text, in parentheses unless it binds at least as tightly as ``minimum``."""
        text, level = self.visit(node)
        return text if level >= minimum else f"({text})"

    def text(self, node: Node) -> str:
        return self.visit(node)[0]

    def visit_Lit(self, node: Lit) -> tuple[str, int]:
        return self.literal(node.value), _ATOM if not _negative(node.value) else _UNARY

    def visit_Var(self, node: Var) -> tuple[str, int]:
        return self.name(node.name), _ATOM

    def visit_Path(self, node: Path) -> tuple[str, int]:
        return self.path(node), _ATOM

    def visit_BoolOp(self, node: BoolOp) -> tuple[str, int]:
        level = _AND if node.op == "and" else _OR
        word = {JUEL: {"and": "&&", "or": "||"}}.get(self.dialect, {}).get(node.op, node.op)
        return f" {word} ".join(self.wrap(v, level + 1) for v in node.values), level

    def visit_Not(self, node: Not) -> tuple[str, int]:
        if self.dialect == FEEL:
            return f"not({self.text(node.operand)})", _ATOM
        if self.dialect == JUEL:
            return "!" + self.wrap(node.operand, _ATOM), _UNARY
        return "not " + self.wrap(node.operand, _NOT_WORD), _NOT_WORD

    def visit_Neg(self, node: Neg) -> tuple[str, int]:
        if self.dialect == SEAMS:
            raise self.cannot("arithmetic")
        return f"-({self.text(node.operand)})", _UNARY

    def visit_Empty(self, node: Empty) -> tuple[str, int]:
        if self.dialect != JUEL:
            raise self.cannot("'empty'")
        return "empty " + self.wrap(node.operand, _UNARY), _UNARY

    def visit_Ternary(self, node: Ternary) -> tuple[str, int]:
        if self.dialect == JUEL:
            return (f"{self.wrap(node.test, _OR)} ? {self.text(node.then)} : {self.text(node.orelse)}",
                    _TERNARY)
        if self.dialect == FEEL:
            return f"if {self.text(node.test)} then {self.text(node.then)} else {self.text(node.orelse)}", \
                _TERNARY
        raise self.cannot("a conditional expression")

    # FEEL's list literal, ``matches``, ``list contains`` and ``is defined``; no other dialect has them

    def feel_only(self, what: str) -> None:
        if self.dialect != FEEL:
            raise self.cannot(what)

    def visit_ListLit(self, node: ListLit) -> tuple[str, int]:
        self.feel_only("a list")
        return "[" + ", ".join(self.text(item) for item in node.items) + "]", _ATOM

    def visit_Matches(self, node: Matches) -> tuple[str, int]:
        self.feel_only("matches(...)")
        flags = f", {self.string(node.flags)}" if node.flags else ""
        return f"matches({self.text(node.value)}, {self.string(node.pattern)}{flags})", _ATOM

    def visit_ListContains(self, node: ListContains) -> tuple[str, int]:
        self.feel_only("list contains(...)")
        return f"list contains({self.text(node.items)}, {self.text(node.value)})", _ATOM

    def visit_IsDefined(self, node: IsDefined) -> tuple[str, int]:
        self.feel_only("is defined(...)")
        return f"is defined({self.text(node.operand)})", _ATOM

    def visit_FeelExpr(self, node: FeelExpr) -> tuple[str, int]:
        self.feel_only(f"the FEEL expression {node.text!r}")
        return f"({node.text})", _ATOM

    # -- pieces

    def visit_Compare(self, node: Compare) -> tuple[str, int]:
        pairs = list(zip(node.ops, node.operands, node.operands[1:]))
        if self.dialect == SEAMS:
            parts = [self.operand(node.operands[0])]
            for op, _, right in pairs:
                if isinstance(right, LitList):
                    parts += [op, self.seams_list(right)]
                else:
                    parts += [op, self.operand(right)]
            return " ".join(parts), _COMPARE
        texts = [self.pair(op, left, right) for op, left, right in pairs]
        if len(texts) == 1:
            return texts[0]
        word = "&&" if self.dialect == JUEL else "and"
        return f" {word} ".join(t if level > _AND else f"({t})" for t, level in texts), _AND

    def operand(self, node) -> str:
        if isinstance(node, LitList):
            raise self.cannot("a list outside 'in'")
        return self.wrap(node, _COMPARE + 1)

    def pair(self, op: str, left, right) -> tuple[str, int]:
        if isinstance(right, LitList):
            if self.dialect == FEEL:
                text = f"{self.operand(left)} in {self.feel_list(right)}"
                return (f"not({text})", _ATOM) if op == "not in" else (text, _COMPARE)
            tests = [self.juel_item(left, item) for item in right.items]
            inside = " || ".join(tests) if tests else "false"
            if op == "not in":
                return f"!({inside})", _UNARY
            return (inside, _OR if len(tests) > 1 else _COMPARE) if tests else (inside, _ATOM)
        symbol = "=" if self.dialect == FEEL and op == "==" else op
        return f"{self.operand(left)} {symbol} {self.operand(right)}", _COMPARE

    def juel_item(self, left, item: Lit | Range) -> str:
        if isinstance(item, Lit):
            return f"{self.operand(left)} == {self.literal(item.value)}"
        low = ">=" if item.low_closed else ">"
        high = "<=" if item.high_closed else "<"
        return (f"({self.operand(left)} {low} {self.literal(item.low.value)} && "
                f"{self.operand(left)} {high} {self.literal(item.high.value)})")

    def feel_list(self, items: LitList) -> str:
        if len(items.items) == 1 and isinstance(items.items[0], Range):
            return self.feel_range(items.items[0])
        return "(" + ", ".join(self.feel_range(i) if isinstance(i, Range) else self.literal(i.value)
                               for i in items.items) + ")"

    def feel_range(self, item: Range) -> str:
        return (("[" if item.low_closed else "(") + self.literal(item.low.value) + ".."
                + self.literal(item.high.value) + ("]" if item.high_closed else ")"))

    def seams_list(self, items: LitList) -> str:
        if any(isinstance(item, Range) for item in items.items):
            raise self.cannot("a range")
        return "[" + ", ".join(self.literal(item.value) for item in items.items) + "]"  # type: ignore[union-attr]

    def visit_Between(self, node: Between) -> tuple[str, int]:
        value, low, high = (self.wrap(n, _ADD) for n in (node.value, node.low, node.high))
        if self.dialect == FEEL:
            return f"{value} between {low} and {high}", _COMPARE
        if self.dialect == SEAMS:
            return f"{low} <= {value} <= {high}", _COMPARE
        return f"{value} >= {low} && {value} <= {high}", _AND

    def visit_Arith(self, node: Arith) -> tuple[str, int]:
        if self.dialect == SEAMS:
            raise self.cannot("arithmetic")
        if node.op == "%" and self.dialect == FEEL:
            return f"modulo({self.text(node.left)}, {self.text(node.right)})", _ATOM
        level = _ARITH_LEVEL[node.op]
        return f"{self.wrap(node.left, level)} {node.op} {self.wrap(node.right, level + 1)}", level

    def path(self, node: Path) -> str:
        if self.dialect == SEAMS:
            raise self.cannot("a property path")
        base = self.wrap(node.base, _ATOM)
        if self.dialect == JUEL:
            if _JUEL_NAME.match(node.attr) and node.attr not in _JUEL_RESERVED:
                return f"{base}.{node.attr}"
            return f"{base}[{self.literal(node.attr)}]"
        if not _feel_name(node.attr) or " " in node.attr:
            raise self.cannot(f"the property name {node.attr!r}")
        return f"{base}.{node.attr}"

    def name(self, name: str) -> str:
        if self.dialect == SEAMS:
            if not name.isidentifier() or keyword.iskeyword(name) or name in ("true", "false"):
                raise self.cannot(f"the variable name {name!r}")
            return name
        if self.dialect == JUEL:
            if _JUEL_NAME.match(name) and name not in _JUEL_RESERVED and name != "execution":
                return name
            return f"execution.getVariable({self.literal(name)})"
        if not _feel_name(name):
            raise self.cannot(f"the variable name {name!r}")
        return name

    def literal(self, value: object) -> str:
        if value is None:
            if self.dialect == SEAMS:
                raise self.cannot("null")
            return "null"
        if isinstance(value, bool):
            return ("True" if value else "False") if self.dialect == SEAMS else ("true" if value else "false")
        if isinstance(value, int):
            return str(value)
        if isinstance(value, Decimal):
            if not value.is_finite():
                raise self.cannot(f"the number {value}")
            text = format(value, "f") if self.dialect == FEEL else str(value)
            return text if any(c in text for c in ".E") else text + ".0"
        if isinstance(value, str):
            return self.string(value)
        if self.dialect == FEEL:
            if type(value) is datetime:
                return f'date and time("{value.isoformat()}")'
            if type(value) is date:
                return f'date("{value.isoformat()}")'
            if type(value) is timedelta:
                return f'duration("{duration_text(value)}")'
        raise self.cannot(f"the literal {value!r}")

    def string(self, value: str) -> str:
        out = []
        for char in value:
            if char in '\\"':
                out.append("\\" + char)
            elif self.dialect == JUEL or char.isprintable() or char == " ":
                out.append(char)
            elif char in "\n\r\t":
                out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[char])
            elif self.dialect == FEEL and ord(char) <= 0xFFFF:
                out.append(f"\\u{ord(char):04x}")
            elif self.dialect == SEAMS:
                out.append(repr(char)[1:-1])
            else:
                raise self.cannot(f"the character {char!r} in a string")
        return '"' + "".join(out) + '"'


def _negative(value: object) -> bool:
    return isinstance(value, (int, Decimal)) and not isinstance(value, bool) and value < 0


def _feel_name(name: str) -> bool:
    words = name.split(" ")
    return all(_FEEL_WORD.match(w) and w not in _FEEL_KEYWORDS for w in words) and name == " ".join(words)

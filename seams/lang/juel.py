"""Camunda 7 gateway conditions: a JUEL (Unified Expression Language) subset.

A Camunda 7 condition is one ``${...}`` (or ``#{...}``) expression. This
module parses the part of JUEL that states a rule over process variables
(docs/conditions.md, "JUEL") into the one condition tree
(seams.lang.condition_tree) and refuses the rest by name: a method call
(``x.isEmpty()``), a function call (``fn:trim(x)``), an index
(``list[0]``), text around the expression. ``execution.getVariable('x')``
is how Camunda 7 models read a variable that may be missing; it is the
variable ``x``.

The parser is a hand-written precedence climber over a regex tokenizer, so
model text is never run; nesting is capped like the other dialects.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from seams.lang.condition_tree import (
    Arith,
    BoolOp,
    Compare,
    Empty,
    Lit,
    Neg,
    Node,
    Not,
    Path,
    Ternary,
    Var,
)
from seams.lang.token_stream import Token, TokenStream
from seams.lang.token_stream import quote as _quote
from seams.lang.token_stream import segment as _segment

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<name>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<op>==|!=|<=|>=|&&|\|\||->|\+=|[<>!+\-*/%?:().\[\],{};=])
""", re.X | re.S)

_KEYWORD_OPS = {"and": "&&", "or": "||", "not": "!", "eq": "==", "ne": "!=", "lt": "<", "gt": ">",
                "le": "<=", "ge": ">=", "div": "/", "mod": "%"}
_LITERALS = {"true": True, "false": False, "null": None}
_RESERVED = {"empty", "instanceof", *_KEYWORD_OPS, *_LITERALS}
_EQUALITY = {"==": "==", "!=": "!="}
_RELATIONAL = {"<": "<", ">": ">", "<=": "<=", ">=": ">="}
_STRING_ESCAPES = {"\\\\": "\\", "\\'": "'", '\\"': '"'}


class _Tok(Token):
    @property
    def op(self) -> str | None:
        """The operator this token spells (keyword operators normalised), else None."""
        if self.kind == "op":
            return self.text
        if self.kind == "name":
            return _KEYWORD_OPS.get(self.text)
        return None


def is_juel(text: str) -> bool:
    """Whether a condition body is written in JUEL: it starts with ``${`` or ``#{``."""
    return text.startswith(("${", "#{"))


def parse_juel(text: str, *, where: str, max_depth: int) -> Node:
    """The tree of a ``${...}`` condition, or an ExpressionError naming the construct at fault."""
    return _Parser(text, where, max_depth).condition()


class _Parser(TokenStream[_Tok]):
    DIALECT, PATTERN, SKIP, TOKEN = "JUEL", _TOKEN, 2, _Tok  # SKIP: after "${" / "#{"

    # -- grammar, lowest precedence first

    def condition(self) -> Node:
        node = self.expression()
        closing = self.tok
        if closing.kind != "op" or closing.text != "}":
            raise self.invalid(closing)
        self.take()
        if self.tok.kind != "end":
            raise self.fail(f"composite text (text after the closing brace: {_quote(self.text[closing.end:])}) "
                            "is not supported; write one ${...} expression")
        return node

    def expression(self) -> Node:
        self.depth += 1
        if self.depth > self.max_depth:
            raise self.fail(f"nesting deeper than {self.max_depth}")
        test = self.disjunction()
        if self.tok.op == "?":
            self.take()
            then = self.expression()
            self.expect(":")
            test = Ternary(test, then, self.expression())
        elif self.tok.op in ("=", "+=", ";", "->"):
            raise self.fail(f"operator {self.tok.text!r} (assignment, lambda or sequence) is not supported")
        self.depth -= 1
        return test

    def disjunction(self) -> Node:
        return self._boolean("||", "or", self.conjunction)

    def conjunction(self) -> Node:
        return self._boolean("&&", "and", self.equality)

    def _boolean(self, op: str, name: str, operand) -> Node:
        values = [operand()]
        while self.tok.op == op:
            self.take()
            values.append(operand())
        return values[0] if len(values) == 1 else BoolOp(name, tuple(values))

    def equality(self) -> Node:
        node = self.relational()
        while self.tok.op in _EQUALITY:
            op = _EQUALITY[self.take().op or ""]
            node = Compare((node, self.relational()), (op,))
        return node

    def relational(self) -> Node:
        node = self.additive()
        while self.tok.op in _RELATIONAL:
            op = _RELATIONAL[self.take().op or ""]
            node = Compare((node, self.additive()), (op,))
        if self.tok.kind == "name" and self.tok.text == "instanceof":
            raise self.fail("instanceof is not supported")
        return node

    def additive(self) -> Node:
        node = self.multiplicative()
        while self.tok.op in ("+", "-"):
            op = self.take().op or ""
            node = Arith(op, node, self.multiplicative())
        return node

    def multiplicative(self) -> Node:
        node = self.unary()
        while self.tok.op in ("*", "/", "%"):
            op = self.take().op or ""
            node = Arith(op, node, self.unary())
        return node

    def unary(self) -> Node:
        token = self.tok
        if token.op == "-":
            self.take()
            if self.tok.kind == "number":
                literal = self.value()
                if isinstance(literal, Lit):
                    return Lit(-literal.value)  # type: ignore[operator]
                return Neg(literal)
            return Neg(self._nested(self.unary))
        if token.op == "!":
            self.take()
            return Not(self._nested(self.unary))
        if token.kind == "name" and token.text == "empty":
            self.take()
            return Empty(self._nested(self.unary))
        return self.value()

    def _nested(self, parse) -> Node:
        self.depth += 1
        if self.depth > self.max_depth:
            raise self.fail(f"nesting deeper than {self.max_depth}")
        node = parse()
        self.depth -= 1
        return node

    def value(self) -> Node:
        start = self.tok.start
        node = self.primary()
        while self.tok.op in (".", "["):
            if self.take().op == ".":
                name = self.take()
                if name.kind != "name":
                    raise self.invalid(name)
                if self.tok.op == "(":
                    node = self._method_call(node, name.text, start)
                else:
                    node = Path(node, name.text)
            else:
                index = self.expression()
                self.expect("]")
                if not (isinstance(index, Lit) and isinstance(index.value, str)):
                    shown = _segment(self.text[start:self.tokens[self.pos - 1].end])
                    raise self.fail(f"index {shown} is not supported")
                node = Path(node, index.value)
        return node

    def _method_call(self, base: Node, method: str, start: int) -> Node:
        self.expect("(")
        arguments = []
        while self.tok.op != ")":
            arguments.append(self.expression())
            if self.tok.op != ",":
                break
            self.take()
        self.expect(")")
        call = self.text[start:self.tokens[self.pos - 1].end]
        if (base == Var("execution") and method == "getVariable" and len(arguments) == 1
                and isinstance(arguments[0], Lit) and isinstance(arguments[0].value, str)):
            return Var(arguments[0].value)
        raise self.fail(f"method call {_segment(call)} is not supported")

    def primary(self) -> Node:
        token = self.take()
        if token.kind == "number":
            return Lit(self._number(token.text))
        if token.kind == "string":
            return Lit(self._string(token.text))
        if token.op == "(":
            node = self.expression()
            self.expect(")")
            return node
        if token.kind == "name":
            if token.text in _LITERALS:
                return Lit(_LITERALS[token.text])
            if token.text in _RESERVED:
                raise self.invalid(token)
            if self.tok.op == "(" or (self.tok.op == ":" and self.tokens[self.pos + 1].kind == "name"
                                      and self.tokens[self.pos + 2].op == "("):
                end = self._closing_paren()
                raise self.fail(f"function call {_segment(self.text[token.start:end])} is not supported")
            return Var(token.text)
        if token.op in ("[", "{"):
            raise self.fail(f"{'list' if token.op == '[' else 'set or map'} literal is not supported")
        raise self.invalid(token)

    def _closing_paren(self) -> int:
        """The source offset just past the parenthesis that closes the call starting here."""
        level, index = 0, self.pos
        while self.tokens[index].kind != "end":
            op = self.tokens[index].op
            if op == "(":
                level += 1
            elif op == ")":
                level -= 1
                if level == 0:
                    return self.tokens[index].end
            index += 1
        return len(self.text)

    def _number(self, text: str) -> int | Decimal:
        if any(c in text for c in ".eE"):
            try:
                return Decimal(text)
            except InvalidOperation:
                raise self.fail(f"number {text!r} out of range") from None
        return int(text)

    def _string(self, text: str) -> str:
        body, out, index = text[1:-1], [], 0
        while index < len(body):
            if body[index] == "\\":
                pair = body[index:index + 2]
                if pair not in _STRING_ESCAPES:
                    raise self.fail(f"string escape {pair!r} is not supported (only \\\\, \\' and \\\")")
                out.append(_STRING_ESCAPES[pair])
                index += 2
            else:
                out.append(body[index])
                index += 1
        return "".join(out)

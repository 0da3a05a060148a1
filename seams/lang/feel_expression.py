"""Camunda 8 gateway conditions: a FEEL expression subset.

A Camunda 8 (Zeebe) condition is a FEEL expression after a leading ``=``.
This module parses the part of FEEL that states a rule over process
variables (docs/conditions.md, "FEEL") into the one condition tree
(seams.lang.condition_tree) and refuses the rest by name: a function call
other than the ``date``/``date and time``/``duration`` literals, ``not(...)``,
``modulo(a, b)``, ``matches`` (patterns as seams.lang.feel_regex translates
them), ``list contains`` and ``is defined``; filters, contexts,
``for``/``some``/``every``.

These are FEEL *expressions* (``amount > 1000``), not the unary tests of a
decision table's input entries (``> 1000``), which seams.lang.feel reads.
A name may contain spaces, as FEEL allows (``order total > 100``): words
that are not keywords and follow each other are one name.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation

from seams.lang.condition_tree import (
    Arith,
    Between,
    BoolOp,
    Compare,
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
from seams.lang.feel_regex import PatternError, translate
from seams.lang.token_stream import Token, TokenStream
from seams.lang.token_stream import quote as _quote
from seams.lang.token_stream import segment as _segment

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>\d+(?:\.\d+)?|\.\d+)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<name>[^\W\d][\w?]*)
  | (?P<op>\.\.|!=|<=|>=|\*\*|[=<>+\-*/(),.\[\]{}:])
""", re.X | re.S)

_KEYWORDS = {"and", "or", "between", "in", "if", "then", "else", "true", "false", "null", "for", "some",
             "every", "satisfies", "return", "instance", "of", "function"}
_LITERALS = {"true": True, "false": False, "null": None}
_COMPARISONS = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_STRING_ESCAPES = {'"': '"', "\\": "\\", "'": "'", "n": "\n", "r": "\r", "t": "\t"}
_DURATION = re.compile(r"^(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$")
_LITERAL_FUNCTIONS = ("date and time", "date", "duration")
_FUNCTIONS = ("matches", "list contains", "is defined")


def is_feel(text: str) -> bool:
    """Whether a condition body is written in FEEL: it starts with ``=``."""
    return text.startswith("=")


def parse_feel_expression(text: str, *, where: str, max_depth: int) -> Node:
    """The tree of an ``=...`` condition, or an ExpressionError naming the construct at fault."""
    return _Parser(text, where, max_depth).condition()


class _Parser(TokenStream[Token]):
    DIALECT, PATTERN, SKIP = "FEEL", _TOKEN, 1  # SKIP: after "="

    def expect_word(self, word: str) -> None:
        if not self.tok.is_word(word):
            raise self.invalid(self.tok)
        self.take()

    # -- grammar, lowest precedence first

    def condition(self) -> Node:
        node = self.expression()
        if self.tok.kind != "end":
            raise self.invalid(self.tok)
        return node

    def expression(self) -> Node:
        self.depth += 1
        if self.depth > self.max_depth:
            raise self.fail(f"nesting deeper than {self.max_depth}")
        token = self.tok
        if token.is_word("if"):
            self.take()
            test = self.expression()
            self.expect_word("then")
            then = self.expression()
            self.expect_word("else")
            node: Node = Ternary(test, then, self.expression())
        elif token.is_word("for", "some", "every"):
            raise self.fail(f"'{token.text}' expression is not supported")
        elif token.is_word("function"):
            raise self.fail("function definition is not supported")
        else:
            node = self.disjunction()
        self.depth -= 1
        return node

    def disjunction(self) -> Node:
        return self._boolean("or", self.conjunction)

    def conjunction(self) -> Node:
        return self._boolean("and", self.comparison)

    def _boolean(self, word: str, operand) -> Node:
        values = [operand()]
        while self.tok.is_word(word):
            self.take()
            values.append(operand())
        return values[0] if len(values) == 1 else BoolOp(word, tuple(values))

    def comparison(self) -> Node:
        node = self.additive()
        token = self.tok
        if token.kind == "op" and token.text in _COMPARISONS:
            self.take()
            node = Compare((node, self.additive()), (_COMPARISONS[token.text],))
        elif token.is_word("between"):
            self.take()
            low = self.additive()
            self.expect_word("and")
            node = Between(node, low, self.additive())
        elif token.is_word("in"):
            self.take()
            node = Compare((node, self.tests()), ("in",))
        elif token.is_word("instance") and self.peek(1).is_word("of"):
            raise self.fail("'instance of' is not supported")
        following = self.tok
        if (following.kind == "op" and following.text in _COMPARISONS) or following.is_word("between", "in"):
            raise self.fail(f"chained comparison ({following.text!r} after a comparison) is not supported; "
                            "join the comparisons with 'and'")
        return node

    def tests(self) -> LitList:
        """What follows ``in``: ``(t, ...)``, a range, a list literal ``[a, b]`` or one literal."""
        if self.tok.is_op("(") and not self._range_ahead():
            self.take()
            items: list[Lit | Range] = []
            while not self.tok.is_op(")"):
                items.append(self.test_item())
                if not self.tok.is_op(","):
                    break
                self.take()
            self.expect(")")
            return LitList(tuple(items))
        if self.tok.is_op("[") and not self._range_ahead():
            self.take()
            items = []
            while not self.tok.is_op("]"):
                items.append(self.literal())
                if not self.tok.is_op(","):
                    break
                self.take()
            self.expect("]")
            return LitList(tuple(items))
        return LitList((self.test_item(),))

    def _range_ahead(self) -> bool:
        """Whether the bracket here opens an interval ``[a..b]`` (the literal before ``..``)."""
        index = self.pos + 1
        level = 0
        while self.tokens[index].kind != "end":
            token = self.tokens[index]
            if token.is_op("(", "["):
                level += 1
            elif token.is_op(")", "]"):
                if level == 0:
                    return False
                level -= 1
            elif token.is_op(",") and level == 0:
                return False
            elif token.is_op("..") and level == 0:
                return True
            index += 1
        return False

    def test_item(self) -> Lit | Range:
        token = self.tok
        if token.is_op("[", "(", "]") and self._range_ahead():
            self.take()
            low = self.literal()
            self.expect("..")
            high = self.literal()
            end = self.take()
            if not end.is_op("]", ")", "["):
                raise self.invalid(end)
            return Range(low, high, token.text == "[", end.text == "]")
        if token.kind == "op" and token.text in ("<", "<=", ">", ">=", "=", "!="):
            raise self.fail(f"unary test {token.text!r} after 'in' is not supported; compare with the value "
                            "instead")
        return self.literal()

    def literal(self) -> Lit:
        start = self.tok.start
        node = self.additive()
        if not isinstance(node, Lit):
            raise self.fail(f"{_quote(self.text[start:self.tokens[self.pos - 1].end])} where a literal "
                            "is needed")
        return node

    def additive(self) -> Node:
        node = self.multiplicative()
        while self.tok.is_op("+", "-"):
            op = self.take().text
            node = Arith(op, node, self.multiplicative())
        return node

    def multiplicative(self) -> Node:
        node = self.unary()
        while self.tok.is_op("*", "/"):
            op = self.take().text
            node = Arith(op, node, self.unary())
        if self.tok.is_op("**"):
            raise self.fail("exponentiation ** is not supported")
        return node

    def unary(self) -> Node:
        if self.tok.is_op("-"):
            self.take()
            if self.tok.kind == "number":
                literal = self.value()
                if isinstance(literal, Lit):
                    return Lit(-literal.value)  # type: ignore[operator]
                return Neg(literal)
            self.depth += 1
            if self.depth > self.max_depth:
                raise self.fail(f"nesting deeper than {self.max_depth}")
            node = Neg(self.unary())
            self.depth -= 1
            return node
        return self.value()

    def value(self) -> Node:
        start = self.tok.start
        node = self.primary()
        while self.tok.is_op(".", "["):
            if self.tok.is_op("["):
                raise self.fail(f"filter {_segment(self.text[start:self._closing('[', ']')])} is not supported")
            self.take()
            name = self.take()
            if name.kind != "name":
                raise self.invalid(name)
            node = Path(node, name.text)
        if self.tok.is_word("is") and self.peek(1).is_word("defined") and not self.peek(2).is_op("("):
            if not isinstance(node, (Var, Path)):
                raise self.fail(f"{_segment(self.text[start:self.tok.start])} is defined: only a name or path "
                                "can be tested")
            self.pos += 2
            node = IsDefined(node)
        return node

    def primary(self) -> Node:
        token = self.tok
        if token.kind == "number":
            self.take()
            return Lit(self._number(token.text))
        if token.kind == "string":
            self.take()
            return Lit(self._string(token.text))
        if token.is_op("("):
            self.take()
            node = self.expression()
            self.expect(")")
            return node
        if token.is_op("{"):
            raise self.fail("context {...} is not supported")
        if token.is_op("["):
            if self._range_ahead():
                raise self.fail("range outside 'in' is not supported")
            self.take()
            items = []
            while not self.tok.is_op("]"):
                items.append(self.expression())
                if not self.tok.is_op(","):
                    break
                self.take()
            self.expect("]")
            return ListLit(tuple(items))
        if token.kind == "name":
            if token.text in _LITERALS:
                self.take()
                return Lit(_LITERALS[token.text])
            if token.is_word("date") and self.peek(1).is_word("and") and self.peek(2).is_word("time") \
                    and self.peek(3).is_op("("):
                self.pos += 3
                return self.call("date and time", token.start)
            if token.is_word("not") and self.peek(1).is_op("("):
                self.take()
                return self.call("not", token.start)
            if token.text in _KEYWORDS:
                raise self.invalid(token)
            words = [self.take().text]
            while self.tok.kind == "name" and self.tok.text not in _KEYWORDS:
                words.append(self.take().text)
            if len(words) > 2 and words[-2:] == ["is", "defined"] and not self.tok.is_op("("):
                return IsDefined(Var(" ".join(words[:-2])))
            name = " ".join(words)
            if self.tok.is_op("("):
                return self.call(name, token.start)
            return Var(name)
        raise self.invalid(token)

    def call(self, name: str, start: int) -> Node:
        if name not in (*_LITERAL_FUNCTIONS, "not", "modulo", *_FUNCTIONS):
            raise self.fail(f"function call {_segment(self.text[start:self._closing('(', ')')])} is not supported")
        self.expect("(")
        arguments = []
        while not self.tok.is_op(")"):
            arguments.append(self.expression())
            if not self.tok.is_op(","):
                break
            self.take()
        self.expect(")")
        shown = _segment(self.text[start:self.tokens[self.pos - 1].end])
        if name == "not":
            if len(arguments) != 1:
                raise self.fail(f"not(...) takes one argument, not {len(arguments)}: {shown}")
            return Not(arguments[0])
        if name in _FUNCTIONS:
            return self.function(name, arguments, shown)
        if name == "modulo":
            if len(arguments) != 2:
                raise self.fail(f"modulo(a, b) takes two arguments: {shown}")
            return Arith("%", arguments[0], arguments[1])
        if len(arguments) != 1 or not (isinstance(arguments[0], Lit) and isinstance(arguments[0].value, str)):
            raise self.fail(f"{name}(...) with anything but one string literal is not supported: {shown}")
        return Lit(self._temporal(name, arguments[0].value, shown))

    def function(self, name: str, arguments: list[Node], shown: str) -> Node:
        """``matches``, ``list contains`` and ``is defined`` (docs/conditions.md, "FEEL functions")."""
        if name == "is defined":
            if len(arguments) != 1 or not isinstance(arguments[0], (Var, Path)):
                raise self.fail(f"is defined(...) takes one name or path: {shown}")
            return IsDefined(arguments[0])
        if name == "list contains":
            if len(arguments) != 2:
                raise self.fail(f"list contains(list, value) takes two arguments: {shown}")
            return ListContains(arguments[0], arguments[1])
        if len(arguments) not in (2, 3) or not all(
                isinstance(a, Lit) and isinstance(a.value, str) for a in arguments[1:]):
            raise self.fail(f"matches(value, pattern[, flags]) with anything but string literals for the "
                            f"pattern and flags is not supported: {shown}")
        pattern = arguments[1].value  # type: ignore[union-attr]
        flags = arguments[2].value if len(arguments) == 3 else ""  # type: ignore[union-attr]
        try:
            translate(pattern, flags)  # type: ignore[arg-type]
        except PatternError as exc:
            raise self.fail(f"{shown}: {exc}") from None
        return Matches(arguments[0], pattern, flags)  # type: ignore[arg-type]

    def _closing(self, opening: str, closing: str) -> int:
        """The source offset past the bracket closing the first ``opening`` from here on."""
        level, index = 0, self.pos
        while self.tokens[index].kind != "end":
            token = self.tokens[index]
            if token.is_op(opening):
                level += 1
            elif token.is_op(closing):
                level -= 1
                if level == 0:
                    return token.end
            index += 1
        return len(self.text)

    def _temporal(self, name: str, text: str, shown: str) -> object:
        try:
            if name == "date":
                return date.fromisoformat(text)
            if name == "date and time":
                value = datetime.fromisoformat(text)
                if "T" not in text or value.tzinfo is not None:
                    raise ValueError
                return value
            return _duration(text)
        except ValueError:
            raise self.fail(f"{shown} is not a supported {name} literal "
                            f"({'a days-and-time duration' if name == 'duration' else 'ISO 8601, no zone'})"
                            ) from None

    def _number(self, text: str) -> int | Decimal:
        if "." in text:
            try:
                return Decimal(text)
            except InvalidOperation:
                raise self.fail(f"number {text!r} out of range") from None
        return int(text)

    def _string(self, text: str) -> str:
        body, out, index = text[1:-1], [], 0
        while index < len(body):
            char = body[index]
            if char != "\\":
                out.append(char)
                index += 1
                continue
            code = body[index + 1:index + 2]
            if code == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", body[index + 2:index + 6]):
                out.append(chr(int(body[index + 2:index + 6], 16)))
                index += 6
            elif code in _STRING_ESCAPES:
                out.append(_STRING_ESCAPES[code])
                index += 2
            else:
                raise self.fail(f"string escape {body[index:index + 2]!r} is not supported")
        return "".join(out)


def _duration(text: str) -> timedelta:
    match = _DURATION.match(text)
    if match is None or text in ("P", "PT", "-P", "-PT") or text.endswith("T"):
        raise ValueError(text)
    sign, days, hours, minutes, seconds = match.groups()
    value = timedelta(days=int(days or 0), hours=int(hours or 0), minutes=int(minutes or 0),
                      seconds=float(Decimal(seconds or 0)))
    return -value if sign else value


def duration_text(value: timedelta) -> str:
    """A days-and-time duration as FEEL writes it (``P2DT3H``), the inverse of ``duration("...")``."""
    sign = "-" if value < timedelta(0) else ""
    value = abs(value)
    days, rest = value.days, value.seconds
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    micro = value.microseconds
    time = ""
    if hours:
        time += f"{hours}H"
    if minutes:
        time += f"{minutes}M"
    if seconds or micro:
        time += f"{seconds}.{micro:06d}".rstrip("0").rstrip(".") + "S"
    if not days and not time:
        return "PT0S"
    return f"{sign}P" + (f"{days}D" if days else "") + (f"T{time}" if time else "")

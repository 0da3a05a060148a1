"""Tokenizer and parser for FEEL simple unary tests and literals (see seams.lang.feel).

The grammar is flat (``not(...)`` only around a whole entry, no nesting), so a
token list and a cursor are all it takes; no recursion can run away on
hostile text, and every token that is not in the grammar is an
ExpressionError naming the cell.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from seams.errors import ExpressionError
from seams.lang.feel_sets import Interval
from seams.lang.values import ORDERED_KINDS, kind_of

MAX_LENGTH = 2000
"""Longest entry accepted; bounds the work any one cell can cause."""

_TOKENS = re.compile(
    r"""\s*(?:
      (?P<string>"(?:[^"\\]|\\.)*")
    | (?P<range>\.\.)
    | (?P<number>-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+))
    | (?P<op><=|>=|<|>)
    | (?P<punct>[\[\]\(\),])
    | (?P<dash>-)
    | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
    )""",
    re.VERBOSE | re.DOTALL,
)
_ESCAPES = re.compile(r"\\(.)", re.DOTALL)
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_NAMED_LITERALS = {"true": True, "false": False, "null": None}


@dataclass(frozen=True)
class _Token:
    kind: str  # a group name of _TOKENS, or "end"
    text: str


@dataclass(frozen=True)
class EqualTest:
    """A plain literal: the input equals it."""

    value: object


@dataclass(frozen=True)
class RangeTest:
    """A comparison or interval over one ordered kind."""

    kind: str
    interval: Interval


Test = EqualTest | RangeTest


def parse_entry(text: str, *, where: str) -> tuple[tuple[Test, ...], bool]:
    """An input entry's tests and whether they are negated; no tests means any."""
    parser = _Parser(text, where, "unary tests")
    if parser.peek().kind == "dash":
        parser.take()
        parser.expect_end()
    if parser.peek().kind == "end":
        return (), False
    negated = parser.peek() == _Token("name", "not")
    if negated:
        parser.take()
        parser.expect("(")
    tests = [parser.test()]
    while parser.peek() == _Token("punct", ","):
        parser.take()
        tests.append(parser.test())
    if negated:
        parser.expect(")")
    parser.expect_end()
    return tuple(tests), negated


def parse_literal(text: str, *, where: str) -> object:
    """Parse an output entry: int, Decimal, str, bool, datetime.date or None."""
    parser = _Parser(text, where, "literal")
    value = parser.literal(parser.take())
    parser.expect_end()
    return value


class _Parser:
    """A cursor over the token list; FEEL cells do not nest, so no recursion is needed."""

    def __init__(self, text: str, where: str, what: str):
        self.text, self.where, self.what = text, where, what
        if not isinstance(text, str):
            raise ExpressionError(f"{where}: FEEL {what} is not text")
        if len(text) > MAX_LENGTH:
            raise self.fail(f"longer than {MAX_LENGTH} characters")
        self.tokens = list(self._tokenize())
        self.position = 0

    def fail(self, problem: str) -> ExpressionError:
        shown = self.text if len(self.text) <= 80 else self.text[:77] + "..."
        return ExpressionError(f"{self.where}: {problem} in FEEL {self.what} {shown!r}")

    def _tokenize(self) -> Iterator[_Token]:
        position, end = 0, len(self.text.rstrip())
        while position < end:
            match = _TOKENS.match(self.text, position)
            if match is None or match.lastgroup is None:
                bad = self.text[position:].lstrip()[:1]
                raise self.fail(f"unexpected {bad!r}" if bad != '"' else "unterminated string")
            yield _Token(match.lastgroup, match.group(match.lastgroup))
            position = match.end()
        yield _Token("end", "")

    def peek(self) -> _Token:
        return self.tokens[self.position]

    def take(self) -> _Token:
        token = self.tokens[self.position]
        if token.kind != "end":
            self.position += 1
        return token

    def expect(self, punct: str) -> None:
        token = self.take()
        if token != _Token("punct", punct):
            raise self.fail(f"expected {punct!r}, found {self.describe(token)}")

    def expect_end(self) -> None:
        token = self.peek()
        if token.kind != "end":
            raise self.fail(f"unexpected {self.describe(token)}")

    @staticmethod
    def describe(token: _Token) -> str:
        return "end of text" if token.kind == "end" else repr(token.text)

    def test(self) -> Test:
        token = self.take()
        if token.kind == "op":
            endpoint = self.endpoint(self.take())
            kind = kind_of(endpoint)
            if token.text.startswith("<"):
                return RangeTest(kind, Interval(None, False, endpoint, token.text == "<="))
            return RangeTest(kind, Interval(endpoint, token.text == ">=", None, False))
        if token.kind == "punct" and token.text in "[(]":
            low = self.endpoint(self.take())
            if self.take().kind != "range":
                raise self.fail("expected '..' in interval")
            high = self.endpoint(self.take())
            closing = self.take()
            if closing.kind != "punct" or closing.text not in "])[":
                raise self.fail(f"expected ']', ')' or '[' closing the interval, found {self.describe(closing)}")
            if kind_of(low) != kind_of(high):
                raise self.fail(f"interval ends {low!r} and {high!r} are of different kinds")
            return RangeTest(kind_of(low), Interval(low, token.text == "[", high, closing.text == "]"))
        return EqualTest(self.literal(token))

    def endpoint(self, token: _Token) -> object:
        value = self.literal(token)
        if kind_of(value) not in ORDERED_KINDS:
            raise self.fail(f"{token.text} cannot be compared with < or >")
        return value

    def literal(self, token: _Token) -> object:
        if token.kind == "number":
            return Decimal(token.text) if "." in token.text else int(token.text)
        if token.kind == "string":
            return self.string(token.text)
        if token.kind == "name":
            if token.text in _NAMED_LITERALS:
                return _NAMED_LITERALS[token.text]
            if token.text == "date":
                return self.date()
            raise self.fail(f"name {token.text!r} (only literals are supported)")
        raise self.fail(f"expected a literal, found {self.describe(token)}")

    def string(self, quoted: str) -> str:
        def unescape(match: re.Match) -> str:
            if match.group(1) not in '"\\':
                raise self.fail(f"unsupported escape \\{match.group(1)}")
            return match.group(1)

        return _ESCAPES.sub(unescape, quoted[1:-1])

    def date(self) -> date:
        self.expect("(")
        token = self.take()
        if token.kind != "string":
            raise self.fail('date() needs a "YYYY-MM-DD" string')
        text = self.string(token.text)
        self.expect(")")
        if not _ISO_DATE.fullmatch(text):
            raise self.fail('date() needs a "YYYY-MM-DD" string')
        try:
            return date.fromisoformat(text)
        except ValueError:
            raise self.fail(f"no such date {text!r}") from None

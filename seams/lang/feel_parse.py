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
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from seams.errors import ExpressionError
from seams.lang.feel_sets import Interval
from seams.lang.values import FEEL_ORDERED_KINDS, feel_kind_of

MAX_LENGTH = 2000
"""Longest entry accepted; bounds the work any one cell can cause."""

_TOKENS = re.compile(
    r"""\s*(?:
      (?P<string>"(?:[^"\\]|\\.)*")
    | (?P<range>\.\.)
    | (?P<number>-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+))
    | (?P<op><=|>=|<|>|=)
    | (?P<punct>[\[\]\(\),])
    | (?P<dash>-)
    | (?P<dot>\.)
    | (?P<name>[^\W\d]\w*)
    )""",
    re.VERBOSE | re.DOTALL,
)
_ESCAPES = re.compile(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{6}|.)", re.DOTALL)
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "'": "'", "n": "\n", "r": "\r", "t": "\t"}
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,6}))?(Z|[+-][0-9]{2}:[0-9]{2})?")
_DURATION = re.compile(r"(-)?P(?:([0-9]+)D)?(?:T(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+)(?:\.([0-9]{1,6}))?S)?)?")
_YEARS_MONTHS = re.compile(r"-?P(?:[0-9]+Y)?(?:[0-9]+M)?")
_ZONE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+-]{0,29}(?:/[A-Za-z0-9][A-Za-z0-9_+-]{0,29}){0,2}")
"""An IANA time zone name (``Europe/Paris``, ``America/Argentina/Buenos_Aires``, ``UTC``)."""
_NAMED_LITERALS = {"true": True, "false": False, "null": None}
_TEMPORAL = ("date", "time", "date and time", "duration")


@dataclass(frozen=True)
class _Token:
    kind: str  # a group name of _TOKENS, or "end"
    text: str


@dataclass(frozen=True)
class Name:
    """A FEEL name or dotted path used as an operand (``limit``, ``Applicant.Monthly Income``).

    Its value is not known when the table is read: it is resolved against the
    decision's inputs when the table is evaluated (see seams.lang.feel_names)."""

    parts: tuple[str, ...]

    @property
    def text(self) -> str:
        return ".".join(self.parts)


@dataclass(frozen=True)
class EqualTest:
    """A plain literal or name: the input equals it."""

    value: object


@dataclass(frozen=True)
class RangeTest:
    """A comparison or interval over one ordered kind; ``kind`` is None when every end is a Name."""

    kind: str | None
    interval: Interval

    @property
    def has_names(self) -> bool:
        return isinstance(self.interval.lo, Name) or isinstance(self.interval.hi, Name)


def test_names(test: Test) -> tuple[Name, ...]:
    """The names a test refers to, in order."""
    if isinstance(test, EqualTest):
        return (test.value,) if isinstance(test.value, Name) else ()
    return tuple(end for end in (test.interval.lo, test.interval.hi) if isinstance(end, Name))


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


def parse_name(text: str) -> Name | None:
    """An input expression that is a FEEL name or dotted path (``Monthly Income``,
    ``Applicant.Age``), or None when it is any other expression."""
    try:
        parser = _Parser(text, "input expression", "name")
        first = parser.take()
        if first.kind != "name" or first.text in _NAMED_LITERALS:
            return None
        name = parser.operand(first)
        parser.expect_end()
    except ExpressionError:
        return None
    return name if isinstance(name, Name) else None


def parse_literal(text: str, *, where: str) -> object:
    """Parse an output entry: int, Decimal, str, bool, None or a date, time, date-time or duration."""
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
            if token.text == "=":
                return EqualTest(self.operand(self.take()))
            endpoint = self.endpoint(self.take())
            kind = None if isinstance(endpoint, Name) else feel_kind_of(endpoint)
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
            kinds = {feel_kind_of(end) for end in (low, high) if not isinstance(end, Name)}
            if len(kinds) > 1:
                raise self.fail(f"interval ends {low!r} and {high!r} are of different kinds")
            kind = kinds.pop() if kinds else None
            return RangeTest(kind, Interval(low, token.text == "[", high, closing.text == "]"))
        return EqualTest(self.operand(token))

    def endpoint(self, token: _Token) -> object:
        value = self.operand(token)
        if not isinstance(value, Name) and feel_kind_of(value) not in FEEL_ORDERED_KINDS:
            raise self.fail(f"{token.text} cannot be compared with < or >")
        return value

    def operand(self, token: _Token) -> object:
        """A literal, or a name or dotted path (words joined by single spaces, parts by dots)."""
        if token.kind != "name" or token.text in _NAMED_LITERALS or self.temporal_ahead(token):
            return self.literal(token)
        parts = [self.words(token)]
        while self.peek().kind == "dot":
            self.take()
            following = self.take()
            if following.kind != "name":
                raise self.fail(f"expected a name after '.', found {self.describe(following)}")
            parts.append(self.words(following))
        return Name(tuple(parts))

    def words(self, first: _Token) -> str:
        words = [first.text]
        while self.peek().kind == "name" and self.peek().text not in _NAMED_LITERALS:
            words.append(self.take().text)
        if words[-1] in _TEMPORAL and self.peek() == _Token("punct", "("):
            raise self.fail(f"call of {' '.join(words)!r} (only literals and names are supported)")
        if self.peek() == _Token("punct", "("):
            raise self.fail(f"function {' '.join(words)!r} (only date, time, date and time and duration literals)")
        return " ".join(words)

    def temporal_ahead(self, token: _Token) -> bool:
        """Whether ``token`` starts a ``date(``, ``time(``, ``date and time(`` or ``duration(`` literal."""
        at = self.position
        if token.text == "date" and self.tokens[at:at + 2] == [_Token("name", "and"), _Token("name", "time")]:
            at += 2
        return token.text in ("date", "time", "duration") and self.tokens[at] == _Token("punct", "(")

    def literal(self, token: _Token) -> object:
        if token.kind == "number":
            return Decimal(token.text) if "." in token.text else int(token.text)
        if token.kind == "string":
            return self.string(token.text)
        if token.kind == "name":
            if token.text in _NAMED_LITERALS:
                return _NAMED_LITERALS[token.text]
            if self.temporal_ahead(token):
                return self.temporal(token.text)
            raise self.fail(f"name {token.text!r} (only literals are supported)")
        raise self.fail(f"expected a literal, found {self.describe(token)}")

    def string(self, quoted: str) -> str:
        """FEEL's string escapes: ``\\"``, ``\\\\``, ``\\'``, ``\\n``, ``\\r``, ``\\t``, ``\\uXXXX``, ``\\UXXXXXX``."""
        def unescape(match: re.Match) -> str:
            escape = match.group(1)
            if escape[0] in "uU" and len(escape) > 1:
                code = int(escape[1:], 16)
                if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                    raise self.fail(f"escape \\{escape} names no character")
                return chr(code)
            if escape not in _SIMPLE_ESCAPES:
                raise self.fail(f"unsupported escape \\{escape}")
            return _SIMPLE_ESCAPES[escape]

        return _ESCAPES.sub(unescape, quoted[1:-1])

    def temporal(self, word: str) -> object:
        """``date("…")``, ``time("…")``, ``date and time("…")`` or ``duration("…")``, the cursor after ``word``."""
        if word == "date" and self.peek() == _Token("name", "and"):
            self.take()
            self.take()
            word = "date and time"
        self.expect("(")
        token = self.take()
        if token.kind != "string":
            raise self.fail(f"{word}() needs a string")
        text = self.string(token.text)
        self.expect(")")
        try:
            if word == "date":
                return self.date(text)
            if word == "time":
                return self.time(text)
            if word == "duration":
                return self.duration(text)
            day, separator, clock = text.partition("T")
            start = datetime.combine(self.date(day), time())
            if not separator:
                return start
            clock, at, zone_name = clock.partition("@")
            moment = self.time(clock)
            if at:  # a zone name: the offset the zone has at that date and time
                if moment.tzinfo is not None:
                    raise self.fail("a date and time has an offset or a zone name, not both")
                return datetime.combine(start.date(), moment, tzinfo=self.zone(zone_name))
            return datetime.combine(start.date(), moment, tzinfo=moment.tzinfo)
        except ValueError:
            raise self.fail(f"no such {word} {text!r}") from None

    def date(self, text: str) -> date:
        if not _ISO_DATE.fullmatch(text):
            raise self.fail('date() needs a "YYYY-MM-DD" string')
        return date.fromisoformat(text)

    def zone(self, name: str) -> ZoneInfo:
        """An IANA time zone of the machine's time zone database (``zoneinfo``)."""
        if not _ZONE_NAME.fullmatch(name):
            raise self.fail(f"{name!r} is not a time zone name such as Europe/Paris")
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            raise self.fail(f"time zone {name!r} is not in this machine's time zone database") from None

    def time(self, text: str) -> time:
        found = _TIME.fullmatch(text)
        if found is None:
            if "@" in text:
                raise self.fail("a time with a zone name has no fixed offset without a date; out of scope "
                                '(write an offset, time("10:00:00+01:00"), or a date and time with the zone)')
            raise self.fail('time() needs "hh:mm:ss" with an optional fraction and offset (Z, +hh:mm)')
        hours, minutes, seconds, fraction, offset = found.groups()
        zone = None
        if offset == "Z":
            zone = UTC
        elif offset:
            sign = -1 if offset[0] == "-" else 1
            zone = timezone(sign * timedelta(hours=int(offset[1:3]), minutes=int(offset[4:6])))
        micro = int((fraction or "").ljust(6, "0"))
        return time(int(hours), int(minutes), int(seconds), micro, tzinfo=zone)

    def duration(self, text: str) -> timedelta:
        found = _DURATION.fullmatch(text)
        if found is None or text in ("P", "-P") or text.endswith("T"):
            if _YEARS_MONTHS.fullmatch(text):
                raise self.fail("years and months durations are not supported (days and time durations are)")
            raise self.fail('duration() needs an ISO 8601 days and time duration such as "P1DT2H"')
        sign, days, hours, minutes, seconds, fraction = found.groups()
        value = timedelta(days=int(days or 0), hours=int(hours or 0), minutes=int(minutes or 0),
                          seconds=int(seconds or 0), microseconds=int((fraction or "").ljust(6, "0")))
        return -value if sign else value

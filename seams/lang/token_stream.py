"""What the JUEL and FEEL condition parsers share: tokens, the stream, its errors.

Both dialects read a condition body the same way (one regular expression of
named groups, whitespace skipped, an ``end`` token last) and report a
syntax error the same way (one line naming the dialect, the offset and the
condition); only their grammars differ (seams.lang.juel,
seams.lang.feel_expression).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar, cast

from seams.errors import ExpressionError


@dataclass(frozen=True)
class Token:
    kind: str  # number | string | name | op | end
    text: str
    start: int
    end: int

    def is_op(self, *ops: str) -> bool:
        return self.kind == "op" and self.text in ops

    def is_word(self, *words: str) -> bool:
        return self.kind == "name" and self.text in words


def quote(text: str) -> str:
    """A condition (or part of one) for a message: repr'd, at most 80 characters."""
    return repr(text if len(text) <= 80 else text[:77] + "...")


def segment(text: str) -> str:
    """A piece of the condition for a one-line message: whitespace runs as one space, at most 80 characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= 80 else flat[:77] + "..."


T = TypeVar("T", bound=Token)


class TokenStream(Generic[T]):
    """A recursive-descent parser's tokens and position; subclasses give the grammar.

    ``DIALECT`` names the language in messages, ``PATTERN`` is its tokenizer
    (a ``space`` group is skipped), ``SKIP`` the length of the opening
    marker (``${`` or ``=``) and ``TOKEN`` the token class to make.
    """

    DIALECT: ClassVar[str]
    PATTERN: ClassVar[re.Pattern[str]]
    SKIP: ClassVar[int]
    TOKEN: ClassVar[type[Token]] = Token

    def __init__(self, text: str, where: str, max_depth: int):
        self.text, self.where, self.max_depth = text, where, max_depth
        self.tokens = self._tokenize()
        self.pos = 0
        self.depth = 0

    def fail(self, problem: str) -> ExpressionError:
        return ExpressionError(f"{self.where}: {self.DIALECT} {problem}")

    def invalid(self, token: Token) -> ExpressionError:
        found = "the end" if token.kind == "end" else repr(token.text)
        return self.fail(f"syntax error: unexpected {found} at offset {token.start} in {quote(self.text)}")

    def _tokenize(self) -> list[T]:
        tokens: list[T] = []
        pos = self.SKIP
        while pos < len(self.text):
            match = self.PATTERN.match(self.text, pos)
            if match is None:
                raise self.fail(f"syntax error: unexpected {self.text[pos]!r} at offset {pos} in "
                                f"{quote(self.text)}")
            kind = match.lastgroup or "space"
            if kind != "space":
                tokens.append(cast(T, self.TOKEN(kind, match.group(), match.start(), match.end())))
            pos = match.end()
        tokens.append(cast(T, self.TOKEN("end", "", len(self.text), len(self.text))))
        return tokens

    @property
    def tok(self) -> T:
        return self.tokens[self.pos]

    def peek(self, ahead: int) -> T:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def take(self) -> T:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def expect(self, op: str) -> T:
        if not self.tok.is_op(op):
            raise self.invalid(self.tok)
        return self.take()

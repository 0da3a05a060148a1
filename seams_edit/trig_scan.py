"""A small TriG scanner: where each directive, graph block and statement sits.

Applying a patch must not parse a large model with rdflib (slow, and its
serializer reorders everything), so the editor only needs to know the byte
spans of statements and the names they are about. This module finds them with
one regular-expression pass that respects strings (long ones too), IRIs,
comments and nesting; the few statements a patch touches are parsed properly
later.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Iterator
from urllib.parse import urljoin

from rdflib.term import URIRef

from seams.errors import EditError

# one token per match; order matters (long strings before short ones)
_DELIMS = r"""\s#"'<>{}\[\](),;"""
TOKEN = re.compile(
    rf"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\r\n]*)
  | (?P<string>\"\"\"(?:(?:\"|\"\")?(?:[^\"\\]|\\[\s\S]))*\"\"\"
              | '''(?:(?:'|'')?(?:[^'\\]|\\[\s\S]))*'''
              | "(?:[^"\\\r\n]|\\.)*"
              | '(?:[^'\\\r\n]|\\.)*')
  | (?P<iri><(?:[^<>"{{}}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{{4}}|\\U[0-9A-Fa-f]{{8}})*>)
  | (?P<punct>[{{}}\[\](),;])
  | (?P<word>(?:[^{_DELIMS}.\\]|\\[\s\S]|\.(?=\d))
             (?:[^{_DELIMS}.\\]|\\[\s\S]|\.+(?=[^{_DELIMS}.]))*)
  | (?P<dot>\.)
    """,
    re.VERBOSE,
)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_UCHAR = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_LOCAL_ESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Token:
    kind: str
    start: int
    end: int
    text: str


@dataclass
class Statement:
    """One triples statement: ``start`` is its first token, ``end`` is after its ``.``."""

    start: int
    end: int
    terminated: bool
    subject: str | None  # token text; None when the subject is ``[ ... ]`` or ``( ... )``
    block: Block | None


@dataclass
class Block:
    """A graph block ``NAME { ... }``; ``name`` is None for the default-graph ``{ ... }``."""

    header_start: int
    name_text: str | None
    name: URIRef | None
    keyword: bool  # written as ``GRAPH NAME {``
    open: int  # offset of ``{``
    close: int = -1  # offset of ``}``
    statements: list[Statement] = field(default_factory=list)


@dataclass(frozen=True)
class Directive:
    """``@prefix``/``PREFIX`` (prefix set) or ``@base``/``BASE`` (prefix None)."""

    offset: int
    prefix: str | None
    iri: str


@dataclass
class Document:
    source: str
    text: str
    directives: list[Directive]
    blocks: list[Block]

    def context_at(self, offset: int) -> int:
        """How many directives are in force at ``offset`` (a key for prefix maps)."""
        return bisect.bisect_right([d.offset for d in self.directives], offset)

    def namespaces(self, context: int) -> tuple[str | None, dict[str, str]]:
        """The base and the prefix map after the first ``context`` directives."""
        base: str | None = None
        prefixes: dict[str, str] = {}
        for directive in self.directives[:context]:
            iri = absolute(directive.iri, base)
            if directive.prefix is None:
                base = iri
            else:
                prefixes[directive.prefix] = iri
        return base, prefixes

    def blocks_named(self, graph: URIRef) -> list[Block]:
        return [block for block in self.blocks if block.name == graph]


def tokens(text: str, start: int = 0, end: int | None = None, *, source: str) -> Iterator[Token]:
    """Tokens of ``text[start:end]``, whitespace and comments included."""
    end = len(text) if end is None else end
    position = start
    while position < end:
        match = TOKEN.match(text, position, end)
        if match is None:
            raise EditError(f"{source}: cannot read TriG at line {line_of(text, position)}")
        kind = match.lastgroup or ""
        yield Token(kind, position, match.end(), match.group())
        position = match.end()


def significant(text: str, start: int = 0, end: int | None = None, *, source: str) -> Iterator[Token]:
    return (t for t in tokens(text, start, end, source=source) if t.kind not in ("ws", "comment"))


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def absolute(iri: str, base: str | None) -> str:
    """Resolve a relative IRI against the base in force, as rdflib does."""
    if base is None or _SCHEME.match(iri):
        return iri
    return urljoin(base, iri)


def resolve_name(token_text: str, base: str | None, prefixes: dict[str, str]) -> URIRef | None:
    """The IRI an ``<IRI>`` or prefixed-name token stands for; None for anything else."""
    if token_text.startswith("<"):
        inner = _UCHAR.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), token_text[1:-1])
        return URIRef(absolute(inner, base))
    if ":" not in token_text or token_text.startswith(("_:", "@", "^", '"', "'")):
        return None
    prefix, local = token_text.split(":", 1)
    namespace = prefixes.get(prefix)
    if namespace is None:
        return None
    return URIRef(namespace + _LOCAL_ESCAPE.sub(r"\1", local))


class _Scanner:
    """Walks the significant tokens once and records directives, blocks and statements."""

    def __init__(self, text: str, source: str):
        self.text = text
        self.source = source
        self.stream = significant(text, source=source)
        self.directives: list[Directive] = []
        self.blocks: list[Block] = []

    def fail(self, token: Token | None, what: str) -> EditError:
        offset = len(self.text) if token is None else token.start
        return EditError(f"{self.source}: {what} at line {line_of(self.text, offset)}")

    def next(self, what: str) -> Token:
        token = next(self.stream, None)
        if token is None:
            raise self.fail(None, f"unexpected end of file, {what}")
        return token

    def run(self) -> Document:
        for token in self.stream:
            keyword = token.text.lower() if token.kind == "word" else ""
            if keyword in ("@prefix", "prefix"):
                name = self.next("expected a prefix")
                iri = self.next("expected an IRI")
                if not name.text.endswith(":") or iri.kind != "iri":
                    raise self.fail(name, "malformed prefix directive")
                self.directives.append(Directive(token.start, name.text[:-1], iri.text[1:-1]))
                self._directive_end(keyword)
            elif keyword in ("@base", "base"):
                iri = self.next("expected an IRI")
                if iri.kind != "iri":
                    raise self.fail(iri, "malformed base directive")
                self.directives.append(Directive(token.start, None, iri.text[1:-1]))
                self._directive_end(keyword)
            elif keyword == "graph":
                name = self.next("expected a graph name")
                brace = self.next("expected '{'")
                if brace.text != "{":
                    raise self.fail(brace, "expected '{' after the graph name")
                self._block(token.start, name, brace, keyword=True)
            elif token.text == "{":
                self._block(token.start, None, token, keyword=False)
            else:
                self._top_level(token)
        return Document(self.source, self.text, self.directives, self.blocks)

    def _directive_end(self, keyword: str) -> None:
        if keyword.startswith("@"):
            dot = self.next("expected '.'")
            if dot.kind != "dot":
                raise self.fail(dot, "expected '.' after the directive")

    def _top_level(self, first: Token) -> None:
        """A default-graph statement, or a named block whose name is ``first``."""
        last = self._skip_nested(first) if first.text in ("[", "(") else first
        following = self.next("expected a statement")
        if following.text == "{":
            self._block(first.start, first, following, keyword=False)
            return
        self._statement_from(first, last, following, None)

    def _block(self, header_start: int, name: Token | None, brace: Token, *, keyword: bool) -> None:
        name_iri = None
        if name is not None:
            base, prefixes = self._namespaces()
            name_iri = resolve_name(name.text, base, prefixes)
        block = Block(header_start, name.text if name else None, name_iri, keyword, brace.start)
        self.blocks.append(block)
        while True:
            token = self.next("expected '}'")
            if token.text == "}":
                block.close = token.start
                return
            last = self._skip_nested(token) if token.text in ("[", "(") else token
            if self._statement_from(token, last, self.next("expected '}'"), block):
                return

    def _statement_from(self, first: Token, last: Token, token: Token, block: Block | None) -> bool:
        """Consume the rest of a statement; True when it ended its block with ``}``."""
        subject = first.text if first.kind in ("word", "iri") else None
        while True:
            if token.kind == "dot":
                self._record(first, token.end, True, subject, block)
                return False
            if token.text == "}" and block is not None:
                self._record(first, last.end, False, subject, block)
                block.close = token.start
                return True
            if token.text in ("{", "}"):
                raise self.fail(token, f"unexpected '{token.text}'")
            last = self._skip_nested(token) if token.text in ("[", "(") else token
            token = self.next("expected '.'")

    def _skip_nested(self, opening: Token) -> Token:
        """Skip to the bracket closing ``opening``; return that closing token."""
        depth = 1
        while depth:
            token = self.next("unclosed bracket")
            if token.text in ("[", "("):
                depth += 1
            elif token.text in ("]", ")"):
                depth -= 1
            elif token.kind == "dot" or token.text in ("{", "}"):
                raise self.fail(token, f"unexpected '{token.text}' inside brackets")
        return token

    def _record(self, first: Token, end: int, terminated: bool, subject: str | None, block: Block | None) -> None:
        statement = Statement(first.start, end, terminated, subject, block)
        if block is not None:
            block.statements.append(statement)

    def _namespaces(self) -> tuple[str | None, dict[str, str]]:
        document = Document(self.source, self.text, self.directives, [])
        return document.namespaces(len(self.directives))


def scan(text: str, *, source: str) -> Document:
    """Locate every directive, graph block and statement of a TriG text."""
    return _Scanner(text, source).run()

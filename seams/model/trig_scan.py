"""A small TriG scanner: where each directive, graph block and statement sits.

Applying a patch must not parse a large model with rdflib (slow, and its
serializer reorders everything), so the editor only needs to know the byte
spans of statements and the names they are about. This module finds them with
one regular-expression pass that respects strings (long ones too), IRIs,
comments and nesting; the few statements a patch touches are parsed properly
later. The check's statement cache (seams.model.statement_cache) splits the
model with it too, which is why it lives in the core and not in seams_edit.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urljoin

from rdflib.term import URIRef

from seams.errors import EditError

# the pieces both scanners share: strings (long ones first) and IRIs are opaque units
_STRING = r"""\"\"\"(?:(?:\"|\"\")?(?:[^\"\\]|\\[\s\S]))*\"\"\"
              | '\'\'(?:(?:'|'')?(?:[^'\\]|\\[\s\S]))*'\'\'
              | "(?:[^"\\\r\n]|\\.)*"
              | '(?:[^'\\\r\n]|\\.)*'"""
_IRI = r"""<(?:[^<>"{}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>"""
_DELIMS = r"""\s#"'<>{}\[\](),;"""

# fine tokens, for the few statements that are parsed and for what lies between statements
TOKEN = re.compile(
    rf"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\r\n]*)
  | (?P<string>{_STRING})
  | (?P<iri>{_IRI})
  | (?P<punct>[{{}}\[\](),;])
  | (?P<word>(?:[^{_DELIMS}.\\]|\\[\s\S]|\.(?=\d))
             (?:[^{_DELIMS}.\\]|\\[\s\S]|\.+(?=[^{_DELIMS}.]))*)
  | (?P<dot>\.)
    """,
    re.VERBOSE,
)
# coarse chunks, to find where a statement ends: names, spaces, ';' and ',' go in one run
_COARSE = re.compile(
    rf"""
    (?P<run>[^"'<\#.{{}}\[\]()\\]+)
  | (?P<string>{_STRING})
  | (?P<iri>{_IRI})
  | (?P<comment>\#[^\r\n]*)
  | (?P<open>[\[(]) | (?P<close>[\])]) | (?P<brace>[{{}}])
  | (?P<escape>\\[\s\S])
  | (?P<dots>\.+)
  | (?P<bad>[\s\S])
    """,
    re.VERBOSE,
)
_OPAQUE = frozenset({"run", "string", "iri", "escape"})
_NOT_WORD = frozenset(" \t\r\n#\"'<>{}[](),;.")
_BLANK = re.compile(r"(?:\s+|\#[^\r\n]*)*")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_UCHAR = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_LOCAL_ESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Token:
    kind: str
    start: int
    end: int
    text: str


@dataclass(eq=False)
class Statement:
    """One triples statement: ``start`` is its first token, ``end`` is after its ``.``."""

    start: int
    end: int
    terminated: bool
    subject: str | None  # token text; None when the subject is ``[ ... ]`` or ``( ... )``
    block: Block


@dataclass(eq=False)
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
    end: int = -1  # after its last token (its '.' when written with '@')


def namespaces(directives: list[Directive]) -> tuple[str | None, dict[str, str]]:
    """The base and the prefix map in force after ``directives``."""
    base: str | None = None
    prefixes: dict[str, str] = {}
    for directive in directives:
        iri = absolute(directive.iri, base)
        if directive.prefix is None:
            base = iri
        else:
            prefixes[directive.prefix] = iri
    return base, prefixes


@dataclass(eq=False)
class Document:
    source: str
    text: str
    directives: list[Directive]
    blocks: list[Block]
    loose: list[tuple[int, int]] = field(default_factory=list)
    """The (start, end) of each statement outside any graph block (the default graph)."""

    def __post_init__(self) -> None:
        self._offsets = [d.offset for d in self.directives]

    def context_at(self, offset: int) -> int:
        """How many directives are in force at ``offset``: a key for ``namespaces_at``."""
        return bisect.bisect_right(self._offsets, offset)

    def namespaces_at(self, context: int) -> tuple[str | None, dict[str, str]]:
        return namespaces(self.directives[:context])

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
    iri = resolve_text(token_text, base, prefixes)
    return None if iri is None else URIRef(iri)


def resolve_text(token_text: str, base: str | None, prefixes: dict[str, str]) -> str | None:
    """``resolve_name`` as a plain string: cheap enough to run on every subject of a block."""
    if token_text.startswith("<"):
        inner = token_text[1:-1]
        if "\\" in inner:
            inner = _UCHAR.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), inner)
        return absolute(inner, base)
    prefix, colon, local = token_text.partition(":")
    namespace = prefixes.get(prefix) if colon else None
    if namespace is None or prefix.startswith(("_", "@", "^", '"', "'")):
        return None
    return namespace + (_LOCAL_ESCAPE.sub(r"\1", local) if "\\" in local else local)


class _Scanner:
    """One pass over the text: fine tokens between statements, coarse runs inside them."""

    def __init__(self, text: str, source: str):
        self.text = text
        self.source = source
        self.position = 0
        self.directives: list[Directive] = []
        self.blocks: list[Block] = []
        self.loose: list[tuple[int, int]] = []

    def fail(self, offset: int, what: str) -> EditError:
        return EditError(f"{self.source}: {what} at line {line_of(self.text, offset)}")

    def next(self, what: str) -> Token:
        """The next significant token from the current position."""
        for token in tokens(self.text, self.position, source=self.source):
            self.position = token.end
            if token.kind not in ("ws", "comment"):
                return token
        raise self.fail(len(self.text), f"unexpected end of file, {what}")

    def at_end(self) -> bool:
        match = _BLANK.match(self.text, self.position)
        return match is not None and match.end() == len(self.text)

    def run(self) -> Document:
        while not self.at_end():
            token = self.next("expected a statement")
            keyword = token.text.lower() if token.kind == "word" else ""
            if keyword in ("@prefix", "prefix"):
                name = self.next("expected a prefix")
                iri = self.next("expected an IRI")
                if not name.text.endswith(":") or iri.kind != "iri":
                    raise self.fail(name.start, "malformed prefix directive")
                self._directive_end(keyword)
                self.directives.append(Directive(token.start, name.text[:-1], iri.text[1:-1], self.position))
            elif keyword in ("@base", "base"):
                iri = self.next("expected an IRI")
                if iri.kind != "iri":
                    raise self.fail(iri.start, "malformed base directive")
                self._directive_end(keyword)
                self.directives.append(Directive(token.start, None, iri.text[1:-1], self.position))
            elif keyword == "graph":
                name = self.next("expected a graph name")
                brace = self.next("expected '{'")
                if brace.text != "{":
                    raise self.fail(brace.start, "expected '{' after the graph name")
                self._block(token.start, name, brace, keyword=True)
            elif token.text == "{":
                self._block(token.start, None, token, keyword=False)
            else:
                self._top_level(token)
        return Document(self.source, self.text, self.directives, self.blocks, self.loose)

    def _directive_end(self, keyword: str) -> None:
        if keyword.startswith("@") and self.next("expected '.'").kind != "dot":
            raise self.fail(self.position, "expected '.' after the directive")

    def _top_level(self, first: Token) -> None:
        """A default-graph statement (kept as bytes), or a block named by ``first``."""
        if first.text not in ("[", "("):
            following = self.next("expected a statement")
            if following.text == "{":
                self._block(first.start, first, following, keyword=False)
                return
        end, _, _ = self._statement_end(first.start, in_block=False)
        self.loose.append((first.start, end))

    def _block(self, header_start: int, name: Token | None, brace: Token, *, keyword: bool) -> None:
        name_iri = None
        if name is not None:
            base, prefixes = namespaces(self.directives)
            name_iri = resolve_name(name.text, base, prefixes)
        block = Block(header_start, name.text if name else None, name_iri, keyword, brace.start)
        self.blocks.append(block)
        while True:
            first = self.next("expected '}'")
            if first.text == "}":
                block.close = first.start
                return
            end, terminated, closed = self._statement_end(first.start, in_block=True)
            subject = first.text if first.kind in ("word", "iri") else None
            block.statements.append(Statement(first.start, end, terminated, subject, block))
            if closed:
                block.close = self.position - 1
                return

    def _statement_end(self, start: int, *, in_block: bool) -> tuple[int, bool, bool]:
        """(end, terminated by '.', closed the block by '}') of the statement at ``start``.

        Runs over coarse chunks, so a large model costs a few matches per line.
        """
        text = self.text
        depth = 0
        last: re.Match[str] | None = None  # the last chunk that is not a comment
        for match in _COARSE.finditer(text, start):
            kind = match.lastgroup
            if kind in _OPAQUE:
                last = match
                continue
            if kind == "comment":
                continue
            if kind == "dots" and depth == 0 and _terminates(text, match.start(), match.end()):
                if match.end() - match.start() > 1:
                    raise self.fail(match.start(), "unexpected '..'")
                self.position = match.end()
                return match.end(), True, False
            if kind == "brace":
                if match.group() == "}" and in_block and depth == 0:
                    self.position = match.end()
                    return _content_end(last, start), False, True
                raise self.fail(match.start(), f"unexpected '{match.group()}'")
            if kind == "bad":
                raise self.fail(match.start(), "cannot read TriG")
            depth += 1 if kind == "open" else -1 if kind == "close" else 0
            if depth < 0:
                raise self.fail(match.start(), f"unbalanced '{match.group()}'")
            last = match
        raise self.fail(len(text), "unexpected end of file, expected '.'")


def _content_end(last: re.Match[str] | None, start: int) -> int:
    """Where a statement's last token ends (a run of names may end in white space)."""
    if last is None:
        return start
    if last.lastgroup == "run":
        return last.start() + len(last.group().rstrip())
    return last.end()


def _terminates(text: str, start: int, end: int) -> bool:
    """Whether the dots at [start, end) end a statement rather than sit inside a name or number."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    if before not in _NOT_WORD and after not in _NOT_WORD:
        return False  # ex:a.b, 1.5, ex:o.ex:s (one greedy prefixed name)
    return not (before in _NOT_WORD and end - start == 1 and after.isdigit())  # .5


def scan(text: str, *, source: str) -> Document:
    """Locate every directive, graph block and statement of a TriG text."""
    return _Scanner(text, source).run()

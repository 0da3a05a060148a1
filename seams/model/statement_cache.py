"""Parsing the TriG statement by statement, keeping each statement's parsed quads by its text.

A one-line edit of a large model changes one statement; rdflib parses a
document, not a statement, so ``seams check`` paid the whole parse again
(docs/performance.md, "The check cache: what is and is not incremental").
Here the TriG is split into its top-level statements with the scanner the
editor uses (seams.model.trig_scan), each statement is keyed by the sha256
of what decides its quads (the base, the text of every directive in force,
its graph block's name as written, its own text), and the quads of every
statement are kept in one *pack* under ``.seams/parse-cache/``. A check then
parses only the statements whose key the pack does not hold (all of them
in one rdflib parse, each followed by a marker triple that tells where its
quads end) and adds every statement's quads to the dataset **in document
order, through the same store calls the full parse makes**, then binds the
document's prefixes as the full parse does: the dataset is the one
``parse_trig`` builds, up to the names of blank nodes (which a parse draws
afresh each time anyway).

The cache only ever saves work. Whatever it is unsure of parses the whole
document with ``parse_trig`` instead, which also gives a syntax error its
one line with the document's own line number:

* a text that is not UTF-8, that the scanner cannot split, whose pieces do
  not cover it (anything but white space and comments between them), a
  labelled blank node (``_:x`` may join statements), the marker's IRI, or a
  directive where the scanner takes a statement (inside a graph block);
* a parse of the missing statements that fails;
* a pack that cannot be read, is larger than PACK_BYTES_PER_TRIG_BYTE times
  the TriG (plus 1 MB; never over MAX_PACK_BYTES), is not this format, was
  written by other seams sources or library versions
  (seams.project.check_cache.tool_digest), or holds an index out of range:
  it is ignored as a whole, as if there were none.

A pack is written whole through a temporary file and a rename: two checks
at once each write a pack that is right for every key it holds, and a
reader never sees half of one. It holds exactly the current document's
statements, so it never grows beyond one model.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

from seams import cache_json
from seams.errors import SeamsError
from seams.fs import atomic_write
from seams.model.trig_parse import model_dataset, parse_trig, quiet_parse
from seams.model.trig_scan import Document, scan
from seams.project.limits import LimitError, read_regular_file

FORMAT = 2
"""2: an entry is its term numbers as one string (1: a JSON list of numbers), decoded when read."""
PACK_NAME = "statements.json"
MAX_PACK_BYTES = 512 << 20
PACK_BYTES_PER_TRIG_BYTE = 8
"""A pack holds one model's statements (about 1-1.5 bytes per byte of TriG, up to twice that before
its term table is renumbered): a larger one is not read, so a planted file cannot eat the memory."""
_MARK = "urn:x-seams-statement-end:"
_MARK_PREDICATE = URIRef(_MARK)
_DIRECTIVE_WORD = re.compile(r"(?:@|(?:prefix|base|graph)(?=[\s<]))", re.IGNORECASE)
_BLANK_GAP = re.compile(r"(?:\s+|#[^\r\n]*)*")

Quad = tuple[Any, Any, Any, Any]  # (graph id, subject, predicate, object): rdflib terms


@dataclass(frozen=True)
class StatementPack:
    """Where the parsed statements are kept (None: nowhere safe, parse without a pack), the
    digest of the seams sources and library versions a pack must have been written by, and
    what makes the directory before a pack is written (the caller's safe way to do it)."""

    directory: Path | None
    tool: str
    prepare: Callable[[Path], None]


class _Piece(NamedTuple):
    """One statement in document order: its key, the directives in force, its block's header, its text
    (a tuple: a layout of a large model holds tens of thousands, made on every re-check)."""

    key: str
    context: int  # directives in force
    header: str | None  # the graph block's header as written ("" for ``{ ... }``); None outside a block
    text: str  # the statement, ending in '.'
    start: int = 0  # where it lies in the document (characters)
    end: int = 0
    terminated: bool = True  # ends in its own '.' (else the block's '}' ends it)


@dataclass(frozen=True)
class Statements:
    """The document's statements as the dataset was built from them: each one's key, text and
    quads, in document order (seams.checks.incremental splits the model along them)."""

    document: Document
    keys: tuple[str, ...]
    quads: tuple[tuple[Quad, ...], ...]
    layout: Layout | None = None  # where each statement lies (what a split after an edit starts from)


def parse_trig_statements(data: bytes, *, source: str, base: str | None, pack: StatementPack) -> Dataset:
    """``parse_trig(data, source=source, base=base)``, reusing the quads of the statements
    ``pack.directory``'s pack holds and storing the pack again when it changed; a directory
    of None (no safe place for one) is a plain ``parse_trig``. ``pack.tool`` names the seams
    sources and library versions the pack must have been written by."""
    return parse_trig_kept(data, source=source, base=base, pack=pack)[0]


def parse_trig_kept(data: bytes, *, source: str, base: str | None,
                    pack: StatementPack) -> tuple[Dataset, Statements | None]:
    """:func:`parse_trig_statements`, and the statements it was built from (None when the
    document was parsed whole)."""
    split = _split(data, source=source, base=base) if pack.directory is not None else None
    if split is None or pack.directory is None:
        return parse_trig(data, source=source, base=base), None
    document, pieces = split
    limit = min(MAX_PACK_BYTES, PACK_BYTES_PER_TRIG_BYTE * len(data) + (1 << 20))
    stored = _read_pack(pack.directory, pack.tool, limit)
    known = stored.entries if stored is not None else {}
    missing = [piece for piece in pieces if piece.key not in known]
    dataset = model_dataset()
    collected: list[tuple[Quad, ...]] = []
    if len(missing) == len(pieces):  # nothing stored: parse them all straight into the dataset
        fresh = _parse_pieces(dataset, document, missing, base)
        if fresh is not None:
            collected = [tuple(fresh[piece.key]) for piece in pieces]
    else:
        scratch = Dataset(default_union=True)
        fresh = _parse_pieces(scratch, document, missing, base) if missing else {}
        if fresh is not None and not _replay(dataset, pieces, known, stored, fresh, collected):
            fresh = None
    if fresh is None or not _bind_prefixes(dataset, document, base):
        return parse_trig(data, source=source, base=base), None
    current = dict.fromkeys(p.key for p in pieces)
    if fresh or len(known) != len(current):
        _write_pack(pack.directory, pack, stored, current, fresh)
    return dataset, Statements(document, tuple(p.key for p in pieces), tuple(collected), layout_of(document, pieces))


def _split(data: bytes, *, source: str, base: str | None) -> tuple[Document, list[_Piece]] | None:
    """The statements in document order, or None where splitting is not sure to be exact."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "_:" in text or _MARK in text:
        return None  # a labelled blank node may join statements ("_:" in a string: no matter); or our marker
    try:
        document = scan(text, source=source)
    except SeamsError:
        return None
    spans: list[tuple[int, int]] = [(d.offset, d.end) for d in document.directives]
    found: list[tuple[int, int, bool, str | None]] = [(start, end, True, None) for start, end in document.loose]
    for block in document.blocks:
        if block.close < 0:
            return None
        spans += [(block.header_start, block.open + 1), (block.close, block.close + 1)]
        header = "" if block.name_text is None else ("GRAPH " if block.keyword else "") + block.name_text
        found += [(s.start, s.end, s.terminated, header) for s in block.statements]
    spans += [(start, end) for start, end, _, _ in found]
    if any(start < 0 or end < start for start, end in spans) or not _covers(text, sorted(spans)):
        return None
    found.sort()
    context_key = {0: ""}
    directive_texts = [text[d.offset:d.end] for d in document.directives]
    pieces = []
    for start, end, terminated, written in found:
        statement = text[start:end] if terminated else text[start:end] + " ."
        if _DIRECTIVE_WORD.match(statement):
            return None  # a directive inside a block, or something the scanner took for a statement
        context = document.context_at(start)
        if context not in context_key:
            context_key[context] = "\n".join(directive_texts[:context])
        digest = hashlib.sha256(f"{FORMAT}\0{base if base is not None else '@' + os.getcwd()}\0"
                                f"{context_key[context]}\0{written}\0{statement}".encode())
        pieces.append(_Piece(digest.hexdigest(), context, written, statement, start, end, terminated))
    return document, pieces


def _covers(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether only white space and comments lie outside ``spans`` (sorted), none overlapping."""
    position = 0
    for start, end in spans:
        if start < position or not _blank(text, position, start):
            return False
        position = end
    return _blank(text, position, len(text))


def _blank(text: str, start: int, end: int) -> bool:
    match = _BLANK_GAP.match(text, start, end)
    return match is not None and match.end() == end


def _parse_pieces(dataset: Dataset, document: Document, missing: Sequence[_Piece],
                  base: str | None) -> dict[str, list[Quad]] | None:
    """Parse the missing statements into ``dataset``, in one rdflib parse, each in a block of
    its own and followed by a marker triple; returns each one's quads as the parser added
    them (the marker only ends a statement: it never reaches the store). None if it fails."""
    parts: list[str] = []
    context = 0
    for number, piece in enumerate(missing):
        if piece.context < context:
            return None  # directives only accumulate in document order
        parts += [document.text[d.offset:d.end] for d in document.directives[context:piece.context]]
        context = piece.context
        mark = f"<{_MARK}{number}> <{_MARK}> <{_MARK}> ."
        if piece.header is None:
            parts.append(f"{piece.text}\n{mark}")
        else:
            parts.append(f"{piece.header} {{\n{piece.text}\n{mark}\n}}")
    store = dataset.store
    added: list[Quad | None] = []
    add = store.add

    def recording_add(triple, context, quoted=False):
        if triple[1] == _MARK_PREDICATE:
            added.append(None)
            return
        added.append((context.identifier, *triple))
        add(triple, context, quoted=quoted)

    store.add = recording_add  # type: ignore[method-assign]
    try:
        quiet_parse(dataset, "\n".join(parts), base)
    except Exception:  # rdflib raises BadSyntax and assorted errors: the full parse will say which
        return None
    finally:
        del store.add  # the store's own method again
    quads: dict[str, list[Quad]] = {}
    current: list[Quad] = []
    for quad in added:
        if quad is not None:
            current.append(quad)
            continue
        if len(quads) >= len(missing):
            return None
        quads[missing[len(quads)].key] = current
        current = []
    if current or len(quads) != len(missing):
        return None
    return quads


def _replay(dataset: Dataset, pieces: Sequence[_Piece], known: dict[str, str], stored: _Pack | None,
            fresh: dict[str, list[Quad]], collected: list[tuple[Quad, ...]]) -> bool:
    """Add every statement's quads as the full parse does (``store.add`` with the statement's
    graph); False when a stored entry does not make sense (the caller parses it all instead)."""
    store = dataset.store
    add = store.add
    graphs: dict[Any, Graph] = {DATASET_DEFAULT_GRAPH_ID: dataset.default_context}
    terms: list[Any] = stored.terms if stored is not None else []
    seen: set[str] = set()
    try:
        for piece in pieces:
            quads = fresh.get(piece.key)
            if quads is None:
                quads = _decoded(known[piece.key], terms)
                if quads is None:
                    return False
            if piece.key in seen:
                quads = _fresh_bnodes(quads)
            seen.add(piece.key)
            collected.append(tuple(quads))
            for g, s, p, o in quads:
                graph = graphs.get(g)
                if graph is None:
                    graph = graphs[g] = Graph(store, g)
                add((s, p, o), graph, quoted=False)
    except (IndexError, TypeError, AssertionError):
        return False
    return True


def _decoded(entry: str, terms: list[Any]) -> list[Quad] | None:
    """A stored entry's quads (its term numbers, four a quad, separated by spaces); None
    for an entry that is not that or names a negative index (an index too large raises
    IndexError)."""
    try:
        flat = [int(n) for n in entry.split(" ")] if entry else []
    except ValueError:
        return None
    if len(flat) % 4 or (flat and min(flat) < 0):
        return None
    return [(terms[flat[i]], terms[flat[i + 1]], terms[flat[i + 2]], terms[flat[i + 3]])
            for i in range(0, len(flat) - 3, 4)]


def _fresh_bnodes(quads: list[Quad]) -> list[Quad]:
    """A stored statement's quads with its blank nodes named afresh, for a statement that occurs
    twice (the parser would give each occurrence its own)."""
    renamed: dict[BNode, BNode] = {}

    def fresh(term: Any) -> Any:
        if isinstance(term, BNode):
            if term not in renamed:
                renamed[term] = BNode()
            return renamed[term]
        return term

    return [(fresh(g), fresh(s), fresh(p), fresh(o)) for g, s, p, o in quads]


def _bind_prefixes(dataset: Dataset, document: Document, base: str | None) -> bool:
    """Bind the document's prefixes as the full parse does (at its end): parse its directives
    alone. False if that fails (it cannot, when the statements parsed with them)."""
    try:
        quiet_parse(dataset, "\n".join(document.text[d.offset:d.end] for d in document.directives), base)
    except Exception:  # rdflib raises BadSyntax and assorted errors
        return False
    return True


@dataclass
class _Pack:
    """A pack as read: its raw term table and entries (for writing it again) and the terms
    (converted when first asked for, for a reader of a few entries)."""

    raw_terms: list[object]
    _terms: list[Any] | None
    entries: dict[str, str]  # key -> the entry's term numbers (see _decoded)
    compacted: int  # how many terms the table had when it was last written from scratch

    @property
    def terms(self) -> list[Any]:
        return self.term_list()

    def term_list(self) -> list[Any]:
        if self._terms is None:
            self._terms = _LazyTerms(self.raw_terms)
        return self._terms


class _LazyTerms(list):
    """The term table, each term converted on first use (a TypeError for one that is no term)."""

    def __init__(self, raw: list[object]):
        super().__init__([None] * len(raw))
        self._raw = raw

    def __getitem__(self, index):
        term = list.__getitem__(self, index)
        if term is None:
            term = _term(self._raw[index])
            list.__setitem__(self, index, term)
        return term


def _read_pack(pack_dir: Path, tool: str, limit: int, eager: bool = True) -> _Pack | None:
    """The pack; None when there is none, it is over ``limit`` bytes or it cannot be trusted."""
    path = pack_dir / PACK_NAME
    try:
        raw = read_regular_file(path, max_bytes=limit)
    except (OSError, LimitError):
        return None  # none, over the limit, or no regular file (a planted FIFO would block a plain read)
    try:
        data = cache_json.loads(raw)
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("tool") != tool:
            return None
        raw_terms, entries, compacted = data["terms"], data["entries"], data["compacted"]
        if not isinstance(raw_terms, list) or not isinstance(entries, dict) or type(compacted) is not int:
            return None
        if not all(type(entry) is str for entry in entries.values()):
            return None  # what an entry says is checked when it is decoded
        return _Pack(raw_terms, [_term(item) for item in raw_terms] if eager else None, entries, compacted)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _term(item: object) -> Any:
    """A term of the pack: ``"u<iri>"``, ``"b<label>"`` or ``[lexical, datatype, language]``."""
    if isinstance(item, str) and item[:1] == "u":
        return URIRef(item[1:])
    if isinstance(item, str) and item[:1] == "b":
        return BNode(item[1:])
    if isinstance(item, list) and len(item) == 3 and isinstance(item[0], str) and all(
            v is None or isinstance(v, str) for v in item[1:]):
        lexical, datatype, language = item
        return Literal(lexical, lang=language, datatype=URIRef(datatype) if datatype is not None else None)
    raise TypeError("not a term")


def _raw_term(term: Any) -> object:
    if isinstance(term, Literal):
        return [str(term), None if term.datatype is None else str(term.datatype), term.language]
    return ("b" if isinstance(term, BNode) else "u") + str(term)


def _write_pack(pack_dir: Path, pack: StatementPack, stored: _Pack | None, current: dict[str, None],
                fresh: dict[str, list[Quad]]) -> None:
    """Store the pack of the ``current`` statements: the stored entries as they were, the
    ``fresh`` ones numbered against the stored term table (new terms appended); the table is
    written from scratch when it has grown to twice its size then. One that cannot be
    written is no error (it is only a cache)."""
    if stored is not None and len(stored.raw_terms) > 2 * max(stored.compacted, 1024):
        everything = dict(fresh)
        try:  # renumber every entry: the table holds too many terms no entry uses
            for key in current:
                quads = fresh[key] if key in fresh else _decoded(stored.entries[key], stored.terms)
                if quads is None:
                    return
                everything[key] = quads
        except (IndexError, TypeError, KeyError):
            return
        fresh, stored = everything, None
    index: dict[Any, int] = {}
    raw_terms: list[object] = []
    entries: dict[str, str] = {}
    if stored is not None:
        raw_terms = list(stored.raw_terms)
        entries = {key: stored.entries[key] for key in current if key in stored.entries and key not in fresh}
    for key in current:
        if key in entries:
            continue
        quads = fresh.get(key)
        if quads is None:
            return  # neither stored nor parsed now: cannot happen; write nothing rather than a gap
        flat = []
        for quad in quads:
            for term in quad:
                number = index.get(term)
                if number is None:
                    number = index[term] = len(raw_terms)
                    raw_terms.append(_raw_term(term))
                flat.append(str(number))
        entries[key] = " ".join(flat)
    compacted = stored.compacted if stored is not None else len(raw_terms)
    data = {"format": FORMAT, "tool": pack.tool, "compacted": compacted, "terms": raw_terms, "entries": entries}
    try:
        pack.prepare(pack_dir)
        atomic_write(pack_dir / PACK_NAME, cache_json.dumps(data))
    except (SeamsError, OSError, ValueError):
        return


# What seams.checks.incremental reads of a pack, without building the whole dataset.

def split_statements(data: bytes, *, source: str, base: str | None) -> tuple[Document, list[_Piece]] | None:
    """The document's statements in order (each with its key), or None where splitting is not sure to be exact."""
    return _split(data, source=source, base=base)


def parse_statements(document: Document, pieces: Sequence[_Piece], base: str | None) -> dict[str, list[Quad]] | None:
    """Each of ``pieces``' quads, parsed as the whole document would parse them; None if that fails."""
    return _parse_pieces(Dataset(default_union=True), document, pieces, base) if pieces else {}


class KeptStatements:
    """The quads a pack holds, decoded on demand (a re-check reads a few statements of many)."""

    def __init__(self, pack: StatementPack, data_size: int):
        limit = min(MAX_PACK_BYTES, PACK_BYTES_PER_TRIG_BYTE * data_size + (1 << 20))
        self.pack = pack
        self.stored = _read_pack(pack.directory, pack.tool, limit, eager=False) if pack.directory else None

    def quads(self, key: str) -> list[Quad] | None:
        if self.stored is None or key not in self.stored.entries:
            return None
        try:
            return _decoded(self.stored.entries[key], self.stored.term_list())
        except (IndexError, TypeError):
            return None

    def keep(self, keys: Sequence[str], fresh: dict[str, list[Quad]]) -> None:
        """Store the pack of exactly ``keys`` (``fresh``: the quads of those it did not hold)."""
        if self.pack.directory is not None and (fresh or self.stored is None
                                                or set(self.stored.entries) != set(keys)):
            _write_pack(self.pack.directory, self.pack, self.stored, dict.fromkeys(keys), fresh)


@dataclass(frozen=True)
class Layout:
    """Where a document's directives and statements lie: what a split after an edit starts from
    (seams.checks.incremental keeps it with the text it describes)."""

    text: str
    directives: tuple[tuple[int, int], ...]
    pieces: tuple[_Piece, ...]

    @property
    def document(self) -> Any:
        """The document as the parse of missing statements reads it: its text and directives' spans."""
        from types import SimpleNamespace

        return SimpleNamespace(text=self.text, directives=[SimpleNamespace(offset=start, end=end)
                                                           for start, end in self.directives])


def layout_of(document: Document, pieces: Sequence[_Piece]) -> Layout:
    return Layout(document.text, tuple((d.offset, d.end) for d in document.directives), tuple(pieces))


def split_after_edit(data: bytes, before: Layout, *, source: str, base: str | None) -> Layout | None:
    """:func:`split_statements` of ``data``, an edit of ``before``'s text, scanning only the
    statements about the edit: the text both share at its start and end keeps its statements
    (those after, shifted). None where that is not sure to split as the whole does (an edit
    that reaches a directive, a block's header or braces, or ends a statement elsewhere):
    the caller splits it whole."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "_:" in text or _MARK in text:
        return None
    old = before.text
    if text == old:
        return before
    prefix = _common_prefix(old, text)
    suffix = _common_suffix(old, text, limit=min(len(old), len(text)) - prefix)
    old_end, delta = len(old) - suffix, len(text) - len(old)
    pieces = before.pieces
    touching = [i for i, p in enumerate(pieces) if p.end >= prefix and p.start <= old_end]
    if not touching:  # the edit lies between statements: take the ones on either side
        after = next((i for i, p in enumerate(pieces) if p.start > old_end), None)
        touching = [i for i in (after - 1 if after is not None else len(pieces) - 1, after) if i is not None and i >= 0]
    first, last = min(touching), max(touching)
    if pieces[first].start >= prefix:  # the edit reaches the statement's start: take the one before too
        first = max(first - 1, 0)
    if pieces[last].end <= old_end:  # ... or its end: take the one after
        last = min(last + 1, len(pieces) - 1)
    group = pieces[first:last + 1]
    if not group or len({(p.context, p.header) for p in group}) != 1:
        return None
    start, end = group[0].start, group[-1].end
    if not (start < prefix and end > old_end) or any(
            d_start <= old_end and d_end >= prefix for d_start, d_end in before.directives):
        return None
    context, header = group[0].context, group[0].header
    head = "\n".join(old[a:b] for a, b in before.directives[:context]) + "\n"
    opening = "" if header is None else f"{header} {{\n"
    window = text[start:end + delta]
    mini = head + opening + window + ("" if header is None else "\n}")
    split = _split(mini.encode("utf-8"), source=source, base=base)
    if split is None:
        return None
    found = split[1]
    offset = len(head) + len(opening) - start
    if not found or any(p.context != context or p.header != header for p in found) \
            or found[-1].terminated != group[-1].terminated or found[0].start - offset != start \
            or found[-1].end - offset != end + delta:
        return None
    middle = [_Piece(p.key, p.context, p.header, p.text, p.start - offset, p.end - offset, p.terminated)
              for p in found]
    tail = [_Piece(p.key, p.context, p.header, p.text, p.start + delta, p.end + delta, p.terminated)
            for p in pieces[last + 1:]]
    directives = tuple((a, b) if b <= prefix else (a + delta, b + delta) for a, b in before.directives)
    return Layout(text, directives, (*pieces[:first], *middle, *tail))


def _common_prefix(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share at their start."""
    return _shared_length(lambda start, stop: a[start:stop] == b[start:stop], min(len(a), len(b)))


def _common_suffix(a: str, b: str, *, limit: int) -> int:
    """How many characters ``a`` and ``b`` share at their end, at most ``limit``."""
    ends = len(a), len(b)
    return _shared_length(lambda start, stop: a[ends[0] - stop:ends[0] - start] == b[ends[1] - stop:ends[1] - start],
                          max(limit, 0))


def _shared_length(same: Callable[[int, int], bool], limit: int) -> int:
    """The longest run ``0..n`` (at most ``limit``) for which ``same(0, n)`` holds, where
    ``same(start, stop)`` compares characters start..stop counted from one end.

    Blocks are compared in turn up to the first that differs, then that block by halves:
    each character is copied about once (halving the whole text copied it some twenty
    times, a measurable share of a re-check)."""
    low = 0
    while low < limit and same(low, min(low + _BLOCK, limit)):
        low = min(low + _BLOCK, limit)
    high = min(low + _BLOCK, limit)
    while low < high:  # the first low characters are shared; the answer is at most high
        middle = (low + high + 1) // 2
        if same(low, middle):
            low = middle
        else:
            high = middle - 1
    return low


_BLOCK = 1 << 14
"""Characters :func:`_shared_length` compares at once."""


def layout_json(layout: Layout) -> dict[str, Any]:
    """A layout without its text (kept beside it), as JSON."""
    return {"directives": [list(d) for d in layout.directives],
            "pieces": [[p.key, p.context, p.header, p.start, p.end, p.terminated] for p in layout.pieces]}


def layout_from_json(text: str, data: Any) -> Layout | None:
    """The layout :func:`layout_json` wrote, over ``text``; None when it does not fit that text."""
    try:
        directives = tuple((int(a), int(b)) for a, b in data["directives"])
        pieces = []
        size = len(text)
        for key, context, header, start, end, terminated in data["pieces"]:
            if not (type(key) is str and type(context) is int and (header is None or type(header) is str)
                    and type(start) is int and type(end) is int and 0 <= start <= end <= size):
                return None
            body = text[start:end] if terminated else text[start:end] + " ."
            pieces.append(_Piece(key, context, header, body, start, end, terminated is True))
    except (KeyError, TypeError, ValueError):
        return None
    if any(not 0 <= a <= b <= len(text) for a, b in directives):
        return None
    return Layout(text, directives, tuple(pieces))

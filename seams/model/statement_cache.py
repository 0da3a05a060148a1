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
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

from seams.errors import SeamsError
from seams.fs import atomic_write
from seams.model.trig_parse import model_dataset, parse_trig, quiet_parse
from seams.model.trig_scan import Document, scan
from seams.project.limits import LimitError, read_regular_file

FORMAT = 1
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


@dataclass(frozen=True)
class _Piece:
    """One statement in document order: its key, the directives in force, its block's header, its text."""

    key: str
    context: int  # directives in force
    header: str | None  # the graph block's header as written ("" for ``{ ... }``); None outside a block
    text: str  # the statement, ending in '.'


def parse_trig_statements(data: bytes, *, source: str, base: str | None, pack: StatementPack) -> Dataset:
    """``parse_trig(data, source=source, base=base)``, reusing the quads of the statements
    ``pack.directory``'s pack holds and storing the pack again when it changed; a directory
    of None (no safe place for one) is a plain ``parse_trig``. ``pack.tool`` names the seams
    sources and library versions the pack must have been written by."""
    split = _split(data, source=source, base=base) if pack.directory is not None else None
    if split is None or pack.directory is None:
        return parse_trig(data, source=source, base=base)
    document, pieces = split
    limit = min(MAX_PACK_BYTES, PACK_BYTES_PER_TRIG_BYTE * len(data) + (1 << 20))
    stored = _read_pack(pack.directory, pack.tool, limit)
    known = stored.entries if stored is not None else {}
    missing = [piece for piece in pieces if piece.key not in known]
    dataset = model_dataset()
    if len(missing) == len(pieces):  # nothing stored: parse them all straight into the dataset
        fresh = _parse_pieces(dataset, document, missing, base)
    else:
        scratch = Dataset(default_union=True)
        fresh = _parse_pieces(scratch, document, missing, base) if missing else {}
        if fresh is not None and not _replay(dataset, pieces, known, stored, fresh):
            fresh = None
    if fresh is None or not _bind_prefixes(dataset, document, base):
        return parse_trig(data, source=source, base=base)
    current = dict.fromkeys(p.key for p in pieces)
    if fresh or len(known) != len(current):
        _write_pack(pack.directory, pack, stored, current, fresh)
    return dataset


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
        pieces.append(_Piece(digest.hexdigest(), context, written, statement))
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


def _replay(dataset: Dataset, pieces: Sequence[_Piece], known: dict[str, list[int]], stored: _Pack | None,
            fresh: dict[str, list[Quad]]) -> bool:
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
            for g, s, p, o in quads:
                graph = graphs.get(g)
                if graph is None:
                    graph = graphs[g] = Graph(store, g)
                add((s, p, o), graph, quoted=False)
    except (IndexError, TypeError, AssertionError):
        return False
    return True


def _decoded(flat: list[int], terms: list[Any]) -> list[Quad] | None:
    """A stored entry's quads; None for a negative index (an index too large or not an
    integer raises IndexError or TypeError)."""
    if flat and min(flat) < 0:
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
    """A pack as read: its raw term table and entries (for writing it again) and the terms."""

    raw_terms: list[object]
    terms: list[Any]
    entries: dict[str, list[int]]
    compacted: int  # how many terms the table had when it was last written from scratch


def _read_pack(pack_dir: Path, tool: str, limit: int) -> _Pack | None:
    """The pack; None when there is none, it is over ``limit`` bytes or it cannot be trusted."""
    path = pack_dir / PACK_NAME
    try:
        raw = read_regular_file(path, max_bytes=limit)
    except (OSError, LimitError):
        return None  # none, over the limit, or no regular file (a planted FIFO would block a plain read)
    try:
        data = json.loads(raw)
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("tool") != tool:
            return None
        raw_terms, entries, compacted = data["terms"], data["entries"], data["compacted"]
        if not isinstance(raw_terms, list) or not isinstance(entries, dict) or type(compacted) is not int:
            return None
        if not all(isinstance(flat, list) and len(flat) % 4 == 0 for flat in entries.values()):
            return None
        return _Pack(raw_terms, [_term(item) for item in raw_terms], entries, compacted)
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
    entries: dict[str, list[int]] = {}
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
                flat.append(number)
        entries[key] = flat
    compacted = stored.compacted if stored is not None else len(raw_terms)
    data = {"format": FORMAT, "tool": pack.tool, "compacted": compacted, "terms": raw_terms, "entries": entries}
    try:
        pack.prepare(pack_dir)
        atomic_write(pack_dir / PACK_NAME, json.dumps(data, separators=(",", ":")).encode("utf-8"))
    except (SeamsError, OSError, ValueError):
        return

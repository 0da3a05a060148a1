"""The inside of the statements a patch touches: predicate groups, object spans, terms.

Only these few statements are parsed. Their layout (where each predicate and
object sits) comes from the fine tokenizer, so untouched objects can be
re-emitted byte for byte; their meaning (the rdflib term of each object and
the triples of a nested ``[ ... ]`` or ``( ... )``) comes from rdflib parsing
a small document made of the prefixes in force and one line per object.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import cast

from rdflib import Graph
from rdflib.term import BNode, Identifier, URIRef

from seams.errors import EditError
from seams.model.trig_scan import Document, Statement, Token, line_of, significant

Triple = tuple[Identifier, Identifier, Identifier]


@dataclass(eq=False)
class FileObject:
    """One object as written: its span, its term, and the triples nested under it."""

    start: int
    end: int
    bracketed: bool  # written as [ ... ] or ( ... ), so its nested triples are all here
    term: Identifier | None = None
    nested: frozenset[Triple] = frozenset()
    removed: bool = False


@dataclass(eq=False)
class Group:
    """A predicate with its object list, e.g. ``seam:reads ex:a , ex:b``."""

    start: int
    predicate_text: str
    objects: list[FileObject]
    predicate: URIRef | None = None

    @property
    def end(self) -> int:
        return self.objects[-1].end


@dataclass(eq=False)
class Shape:
    statement: Statement
    groups: list[Group] = field(default_factory=list)


def parse_shape(document: Document, statement: Statement) -> Shape:
    """Split a statement into predicate groups and object spans (no terms yet)."""
    toks = list(significant(document.text, statement.start, statement.end, source=document.source))
    return Shape(statement, _groups(document, toks, 1))  # token 0 is the subject


def nested_groups(document: Document, obj: FileObject) -> list[Group]:
    """The predicate groups inside a ``[ ... ]`` object (none for ``[]`` or a list)."""
    if document.text[obj.start] != "[":
        return []
    toks = list(significant(document.text, obj.start + 1, obj.end - 1, source=document.source))
    return _groups(document, toks, 0)


def _groups(document: Document, toks: list[Token], index: int) -> list[Group]:
    """The predicate-object list starting at ``toks[index]``, up to a ``.`` or the end."""
    groups: list[Group] = []
    while index < len(toks) and toks[index].kind != "dot":
        if toks[index].text == ";":
            index += 1
            continue
        predicate = toks[index]
        if predicate.kind not in ("word", "iri"):
            raise _unexpected(document, predicate)
        objects: list[FileObject] = []
        index += 1
        while True:
            after = _object_end(document, toks, index)
            objects.append(FileObject(toks[index].start, toks[after - 1].end, toks[index].text in ("[", "(")))
            index = after
            if index < len(toks) and toks[index].text == ",":
                index += 1
                continue
            break
        groups.append(Group(predicate.start, predicate.text, objects))
    return groups


def _object_end(document: Document, toks: list[Token], index: int) -> int:
    """Index just after the object starting at ``toks[index]``."""
    if index >= len(toks):
        raise EditError(f"{document.source}: statement ends where an object was expected")
    first = toks[index]
    if first.text in ("[", "("):
        depth = 0
        for position in range(index, len(toks)):
            text = toks[position].text
            depth += text in ("[", "(")
            depth -= text in ("]", ")")
            if depth == 0:
                return position + 1
        raise _unexpected(document, first)
    if first.kind == "string":
        following = toks[index + 1] if index + 1 < len(toks) else None
        if following is not None and following.kind == "word" and following.text.startswith(("@", "^^")):
            return index + (3 if following.text == "^^" else 2)
        return index + 1
    if first.kind in ("word", "iri"):
        return index + 1
    raise _unexpected(document, first)


def _unexpected(document: Document, token: Token) -> EditError:
    line = line_of(document.text, token.start)
    return EditError(f"{document.source}: unexpected '{token.text}' at line {line}")


def attach_terms(document: Document, shapes: list[Shape]) -> None:
    """Fill in each group's predicate and each object's term and nested triples.

    One rdflib parse per prefix context (normally one for the whole patch):
    line ``<urn:seams-edit:i> PREDICATE OBJECT .`` per object, in the file's own text.
    """
    by_context: dict[int, list[tuple[Group, FileObject]]] = defaultdict(list)
    for shape in shapes:
        context = document.context_at(shape.statement.start)
        for group in shape.groups:
            by_context[context].extend((group, obj) for obj in group.objects)
    text = document.text
    for context, items in sorted(by_context.items()):
        lines = [
            f"@base <{d.iri}> ." if d.prefix is None else f"@prefix {d.prefix}: <{d.iri}> ."
            for d in document.directives[:context]
        ]
        lines += [
            f"<urn:seams-edit:{i}> {group.predicate_text} {text[obj.start : obj.end]} .\n"
            for i, (group, obj) in enumerate(items)
        ]
        graph = Graph()
        try:
            graph.parse(data="\n".join(lines), format="turtle")
        except Exception as error:  # rdflib raises several unrelated types for bad syntax
            raise EditError(f"{document.source}: cannot parse a touched statement: {error}") from error
        nested_by_subject: dict[Identifier, list[Triple]] = defaultdict(list)
        roots: dict[URIRef, tuple[Identifier, Identifier]] = {}
        for s, p, o in cast("Iterable[Triple]", graph):
            if isinstance(s, URIRef) and s.startswith("urn:seams-edit:"):
                roots[s] = (p, o)
            else:
                nested_by_subject[s].append((s, p, o))
        for i, (group, obj) in enumerate(items):
            predicate, obj.term = roots[URIRef(f"urn:seams-edit:{i}")]
            group.predicate = cast(URIRef, predicate)  # a predicate is an IRI
            obj.nested = frozenset(reachable(obj.term, nested_by_subject))


def reachable(root: Identifier, by_subject: dict[Identifier, list[Triple]]) -> list[Triple]:
    """The triples under a blank node, following blank-node objects down."""
    found: list[Triple] = []
    pending = [root] if isinstance(root, BNode) else []
    seen: set[Identifier] = set()
    while pending:
        node = pending.pop()
        if node in seen:
            continue
        seen.add(node)
        for triple in by_subject.get(node, ()):
            found.append(triple)
            if isinstance(triple[2], BNode):
                pending.append(triple[2])
    return found

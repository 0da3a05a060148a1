"""The model facts an import produces, as plain data before they become TriG.

A :class:`Subject` is one statement block of the TriG file: its IRI, the
graph role it belongs in (``seams``, ``shapes``, ``ontology``), a section it
is listed under, and its facts in the order they are written. An object is
an IRI or literal, a :class:`Nested` node (written ``[ ... ]``) or a
:class:`ListOf` literals (written ``( ... )``). The same facts become quads
for a seams_edit patch (``--update``) or TriG text for a new file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF
from rdflib.term import Identifier


@dataclass(frozen=True)
class Nested:
    facts: tuple[tuple[URIRef, Object], ...]


@dataclass(frozen=True)
class ListOf:
    items: tuple[Literal, ...]


Object = URIRef | Literal | Nested | ListOf


@dataclass
class Subject:
    iri: URIRef
    role: str
    section: str
    facts: list[tuple[URIRef, Object]] = field(default_factory=list)

    def add(self, predicate: URIRef, obj: Object | None) -> None:
        if obj is not None:
            self.facts.append((predicate, obj))


@dataclass
class Plan:
    """New subjects in writing order, and what the user should hear about."""

    subjects: list[Subject] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    removed: list[tuple[str, str, str, URIRef]] = field(default_factory=list)  # kind, file, id, IRI
    counts: dict[str, int] = field(default_factory=dict)

    def quads(self, graphs: dict[str, URIRef]) -> list[tuple[Identifier, Identifier, Identifier, URIRef]]:
        """The subjects as quads; blank nodes get ids numbered in writing order."""
        out: list[tuple[Identifier, Identifier, Identifier, URIRef]] = []
        counter = [0]

        def emit(subject: Identifier, facts, graph: URIRef) -> None:
            for predicate, obj in facts:
                if isinstance(obj, Nested):
                    counter[0] += 1
                    node = BNode(f"import{counter[0]}")
                    out.append((subject, predicate, node, graph))
                    emit(node, obj.facts, graph)
                elif isinstance(obj, ListOf):
                    head: Identifier = RDF.nil
                    cells = []
                    for _ in obj.items:
                        counter[0] += 1
                        cells.append(BNode(f"import{counter[0]}"))
                    for index, cell in enumerate(cells):
                        out_next = cells[index + 1] if index + 1 < len(cells) else RDF.nil
                        out.append((cell, RDF.first, obj.items[index], graph))
                        out.append((cell, RDF.rest, out_next, graph))
                    head = cells[0] if cells else RDF.nil
                    out.append((subject, predicate, head, graph))
                else:
                    out.append((subject, predicate, obj, graph))

        for subject in self.subjects:
            emit(subject.iri, subject.facts, graphs[subject.role])
        return out

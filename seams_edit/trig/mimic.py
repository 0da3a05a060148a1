"""How a neighbour writes its predicates, so a new statement of the same rdf:type looks alike.

A modeler reads a new decision next to the old one: if the old one writes
``rdfs:label`` first and its inputs as ``[ dec:variable ... ; dec:fromPath
... ]`` on one line, the new one should too. The layout is read off the
neighbour's text only (no rdflib parse): predicate order, the separator
between several objects, and, for nested ``[ ... ]`` objects, whether they
sit on one line and how their own predicates are ordered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from rdflib.namespace import RDF
from rdflib.term import URIRef

from seams.model.trig_scan import Document, resolve_text
from seams_edit.trig.statement import Group, nested_groups

# a comma with at most one line break around it: copied as is, never a comment or blank lines
_OBJECT_SEPARATOR = re.compile(r"[ \t]*,[ \t]*(?:\n[ \t]*)?")
_INLINE_SEMICOLON = re.compile(r"[ \t]*;[ \t]*")


@dataclass(frozen=True)
class Layout:
    """An existing statement's (or nested node's) way of writing its predicates."""

    order: tuple[URIRef, ...] = ()  # predicates as written, first occurrence
    separators: Mapping[URIRef, str] = field(default_factory=dict)  # between a predicate's objects
    inline: frozenset[URIRef] = frozenset()  # predicates whose nested [ ... ] sit on one line
    nested: Mapping[URIRef, Layout] = field(default_factory=dict)  # a predicate's first nested node
    semicolon: str = " ; "  # between predicates, when written on one line

    def rank(self, predicate: URIRef) -> tuple[bool, int]:
        """Sort key: predicates the layout writes, in its order, before the others."""
        if predicate in self.order:
            return False, self.order.index(predicate)
        return True, 0


def read_layout(document: Document, groups: list[Group], offset: int) -> Layout:
    """The layout of ``groups``, whose prefixed names resolve as at ``offset``."""
    text = document.text
    namespaces = document.namespaces_at(document.context_at(offset))
    order: list[URIRef] = []
    separators: dict[URIRef, str] = {}
    inline: set[URIRef] = set()
    nested: dict[URIRef, Layout] = {}
    for group in groups:
        written = group.predicate_text
        iri = RDF.type if written == "a" else resolve_text(written, *namespaces)
        if iri is None or URIRef(iri) in order:
            continue
        predicate = URIRef(iri)
        order.append(predicate)
        objects = group.objects
        clean = [text[a.end : b.start] for a, b in zip(objects, objects[1:])]
        clean = [s for s in clean if _OBJECT_SEPARATOR.fullmatch(s)]
        if clean:
            separators[predicate] = clean[0]
        nodes = [(obj, inner) for obj in objects if (inner := nested_groups(document, obj))]
        if nodes:
            nested[predicate] = read_layout(document, nodes[0][1], offset)
            if all("\n" not in text[obj.start : obj.end] for obj, _ in nodes):
                inline.add(predicate)
    between = [text[a.end : b.start] for a, b in zip(groups, groups[1:])]
    semicolon = next((s for s in between if _INLINE_SEMICOLON.fullmatch(s)), Layout.semicolon)
    return Layout(tuple(order), separators, frozenset(inline), nested, semicolon)

"""A model change as data: the quads to add and to remove, each with its graph.

A patch is the only thing the rest of seams hands to the write path, so it
says nothing about layout: where a statement goes and how it is written is
the TriG editor's business. The caller picks each quad's graph (a new subject
goes to the graph of its role); the editor honours it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rdflib.term import BNode, Identifier, URIRef

from seams.errors import EditError

Quad = tuple[Identifier, Identifier, Identifier, Identifier]
"""(subject, predicate, object, graph): rdflib terms, graph a URIRef naming the graph."""


def _unique(quads: tuple[Quad, ...]) -> tuple[Quad, ...]:
    """Drop repeated quads but keep first-seen order (it decides object order in the file)."""
    return tuple(dict.fromkeys(quads))


@dataclass(frozen=True)
class Patch:
    """Quads to add and to remove; order is kept because it orders new objects."""

    add: tuple[Quad, ...] = ()
    remove: tuple[Quad, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "add", _unique(tuple(self.add)))
        object.__setattr__(self, "remove", _unique(tuple(self.remove)))
        for quad in self.add + self.remove:
            _check_quad(quad)

    @property
    def is_empty(self) -> bool:
        return not self.add and not self.remove

    def merged(self, other: Patch) -> Patch:
        """This patch followed by ``other``: both sets of quads, first-seen order."""
        return Patch(add=self.add + other.add, remove=self.remove + other.remove)


def _check_quad(quad: Quad) -> None:
    """Refuse shapes the editor cannot place, at construction rather than mid-edit."""
    if len(quad) != 4:
        raise EditError(f"patch quad {quad!r} is not (subject, predicate, object, graph)")
    subject, predicate, _, graph = quad
    if not isinstance(graph, URIRef):
        raise EditError(f"patch quad for {subject} {predicate}: graph {graph!r} is not an IRI")
    if not isinstance(predicate, URIRef):
        raise EditError(f"patch quad for {subject}: predicate {predicate!r} is not an IRI")
    if not isinstance(subject, (URIRef, BNode)):
        raise EditError(f"patch quad subject {subject!r} is neither an IRI nor a blank node")

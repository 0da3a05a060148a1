"""The shapes graph cut into independent parts, each with a name-blind structure key.

SHACL-SHACL (the shapes validating a shapes graph) only ever follows a
focus node's *outgoing* statements (paths forward, lists through
``rdf:rest``, ``sh:class`` through ``rdf:type``/``rdfs:subClassOf``), and
its targets are a subject's or an object's own statements. So the graph
splits into parts that validate independently: join each subject with every
object that is itself a subject of the graph; a part is one such group with
all the statements of its subjects. Whatever a focus node's validation
reads lies in its part; an object that is no subject (``xsd:string``, a
form's class) has no statements, so it reads the same in every part.

Two parts that differ only in their own names (IRIs outside the W3C
vocabularies, string values, blank nodes) get the same verdict: no
SHACL-SHACL constraint looks at such a name beyond its kind, and the
renaming keeps which values are equal. ``structure_key`` renames them by
their place in the structure, so a form copied a thousand times, or two
forms of the same fields, are one structure; each distinct structure is then
validated once (``seams.checks.shapes_wellformed``). The key is the whole
renamed part, so equal keys always mean isomorphic parts; the ordering only
decides how many copies are found equal, never whether a verdict is right.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from seams import vocab as V

Triple = tuple[Node, Node, Node]
KEPT_IRIS = ("http://www.w3.org/", "http://datashapes.org/")
"""IRIs SHACL-SHACL or pyshacl may compare with a fixed value: never renamed."""
_STRINGS = (None, V.XSD.string, V.RDF.langString)
_ROUNDS = 4


def parts(graph: Graph) -> list[list[Triple]]:
    """The graph's statements in independent parts."""
    triples = list(graph)
    parent: dict[Node, Node] = {s: s for s, _, _ in triples}

    def root(node: Node) -> Node:
        while parent[node] is not node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for s, _, o in triples:
        if o in parent:
            a, b = root(s), root(o)
            if a is not b:
                parent[a] = b
    grouped: dict[Node, list[Triple]] = defaultdict(list)
    for triple in triples:
        grouped[root(triple[0])].append(triple)
    return list(grouped.values())


def _renamed(term: Node) -> bool:
    if isinstance(term, BNode):
        return True
    if isinstance(term, URIRef):
        return not str(term).startswith(KEPT_IRIS)
    return isinstance(term, Literal) and term.datatype in _STRINGS


def _kind(term: Node) -> str:
    """What a renamed term keeps: its kind (and a string's datatype and language)."""
    if isinstance(term, BNode):
        return "B"
    if isinstance(term, URIRef):
        return "I"
    assert isinstance(term, Literal)
    return f"S|{term.datatype or ''}|{term.language or ''}"


def _kept(term: Node) -> str:
    if isinstance(term, Literal):
        return f"L|{term}|{term.datatype or ''}|{term.language or ''}"
    return f"{type(term).__name__}|{term}"


class StructureKeys:
    """Structure keys of parts, with colours shared across the parts of one graph."""

    def __init__(self) -> None:
        self._colours: dict[object, int] = {}
        self._terms: dict[Node, tuple[bool, int, str]] = {}

    def _colour(self, value: object) -> int:
        """A colour that is a digest of what it stands for, so a structure's key is the same in
        every graph and every run (seams.checks.incremental keeps the keys that conform)."""
        found = self._colours.get(value)
        if found is None:
            digest = hashlib.blake2b(repr(value).encode("utf-8"), digest_size=8).digest()
            found = self._colours[value] = int.from_bytes(digest, "big")
        return found

    def _term(self, term: Node) -> tuple[bool, int, str]:
        """Whether ``term`` is renamed, its first colour and what it keeps: once per term of the
        graph, since the parts share their vocabulary (``sh:path``, ``xsd:string``...)."""
        found = self._terms.get(term)
        if found is None:
            renamed = _renamed(term)
            shown = _kind(term) if renamed else _kept(term)
            found = self._terms[term] = (renamed, self._colour(shown), shown)
        return found

    def key(self, triples: list[Triple]) -> str:
        """A digest of the part with its own names replaced by their place in the structure."""
        renamed: dict[Node, bool] = {}
        colour: dict[Node, int] = {}
        for triple in triples:
            for term in triple:
                if term not in colour:
                    renamed[term], colour[term], _ = self._term(term)
        for _ in range(_ROUNDS):  # colour refinement: a term's colour takes in its neighbours'
            around: dict[Node, list[tuple[int, int, int]]] = defaultdict(list)
            for s, p, o in triples:
                around[s].append((0, colour[p], colour[o]))
                around[o].append((1, colour[p], colour[s]))
            colour = {t: self._colour((c, tuple(sorted(around[t])))) if renamed[t] else c
                      for t, c in colour.items()}
        names: dict[Node, str] = {}
        for term in sorted((t for t in colour if renamed[t]), key=lambda t: (colour[t], str(t))):
            names[term] = f"{_kind(term)}#{len(names)}"
        text = sorted("\t".join(names.get(t) or self._terms[t][2] for t in triple) for triple in triples)
        return hashlib.sha256("\n".join(text).encode()).hexdigest()


def structure_key(triples: list[Triple]) -> str:
    """The structure key of one part on its own."""
    return StructureKeys().key(triples)


def terms(triples: Iterable[Triple]) -> set[Node]:
    """Every subject and object of the part (where a result's focus node can be)."""
    return {term for s, _, o in triples for term in (s, o)}

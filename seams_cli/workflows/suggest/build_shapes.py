"""The TriG patches of ``merge-shapes`` and ``gist-anchor`` suggestions, built by code.

``merge-shapes`` (docs/suggest.md): the merged shape is the first named
shape's statement under a new IRI and label, targeting the suggested class
(one target-classed shape), with its property shapes copied (names, order
and every constraint); each old shape's statement is removed with its
nested property shapes; every statement that names an old shape as its
object (a task's ``seam:form``, an ``sh:node``, ...) names the merged shape
instead, in the graph it is in (a reference nested in blank nodes has its
outermost nested node written again, repointed); a new class gets its
``owl:Class`` statement, label and gist superclass in the ontology graph.

``gist-anchor``: one ``rdfs:subClassOf`` statement, in the graph the class
is stated in.

Both go through seams_edit's patch, so the TriG file keeps its layout.
"""

from __future__ import annotations

from itertools import count
from typing import Any

from rdflib import BNode, Literal, URIRef
from rdflib.term import Node

from seams import vocab as V
from seams.errors import GeneratorError
from seams.model.loading import Model
from seams.suggestions.gist_anchor import GistAnchor
from seams.suggestions.merge_shapes import TARGETS, MergeShapes, shapes_graph
from seams_cli.workflows.suggest.build import Change
from seams_edit import Patch


def build_merge_shapes(model: Model, suggestion: MergeShapes) -> Change:
    """The change for ``suggestion``; the same model and suggestion give the same bytes."""
    graph = shapes_graph(model)
    shapes_iri = model.project.graphs["shapes"]
    old = set(suggestion.shapes)
    remove: list[tuple] = []
    for shape in suggestion.shapes:
        remove += [(s, p, o, shapes_iri) for s, p, o in _subtree(graph, shape)]
    add: list[tuple] = [(suggestion.shape, V.RDF.type, V.SH.NodeShape, shapes_iri),
                        (suggestion.shape, V.RDFS.label, Literal(suggestion.label), shapes_iri),
                        (suggestion.shape, V.SH.targetClass, suggestion.cls, shapes_iri)]
    fresh = (BNode(f"merged{n}") for n in count())
    first = suggestion.shapes[0]
    for predicate, obj in sorted(graph.predicate_objects(first), key=lambda po: _order(graph, *po)):
        if predicate in TARGETS or predicate in (V.RDF.type, V.RDFS.label):
            continue
        add += _copied(graph, suggestion.shape, predicate, obj, shapes_iri, fresh)
    swap = {shape: suggestion.shape for shape in suggestion.shapes}
    nested: set[tuple] = set()  # (IRI subject, predicate, blank node, graph) holding a reference deeper in
    for subject, predicate, obj, context in sorted(model.dataset.quads((None, None, None, None)), key=_quad_key):
        if obj not in old or subject in old:
            continue
        where = getattr(context, "identifier", context)
        if isinstance(subject, URIRef):
            remove.append((subject, predicate, obj, where))
            add.append((subject, predicate, suggestion.shape, where))
        else:  # an sh:node in a property shape, say: the whole nested node is written again, repointed
            nested.add(_top(model.dataset.graph(where), subject, obj))
    for top, predicate, node, where in sorted(nested, key=_quad_key):
        if top in old:
            continue  # removed with its shape
        within = model.dataset.graph(where)
        remove += [(top, predicate, node, where), *((s, p, o, where) for s, p, o in _subtree(within, node))]
        add += _copied(within, top, predicate, node, where, fresh, swap)
    if suggestion.new_class is not None:
        ontology = model.project.graphs["ontology"]
        add += [(suggestion.cls, V.RDF.type, V.OWL.Class, ontology),
                (suggestion.cls, V.RDFS.label, Literal(suggestion.new_class.label), ontology),
                (suggestion.cls, V.RDFS.subClassOf, suggestion.new_class.superclass, ontology)]
    return Change(Patch(add=tuple(add), remove=tuple(remove)), {})


def build_gist_anchor(model: Model, suggestion: GistAnchor) -> Change:
    """One rdfs:subClassOf statement, in the graph that states the class."""
    graph = model.graph_of(suggestion.cls) or model.project.graphs["ontology"]
    return Change(Patch(add=((suggestion.cls, V.RDFS.subClassOf, suggestion.superclass, graph),)), {})


def _subtree(graph, node: Node, depth: int = 0) -> list[tuple]:
    """Every triple about ``node`` and, recursively, about the blank nodes it names."""
    if depth > 32:
        raise GeneratorError("a shape nests blank nodes too deeply to remove")
    triples = []
    for predicate, obj in sorted(graph.predicate_objects(node), key=lambda po: (str(po[0]), str(po[1]))):
        triples.append((node, predicate, obj))
        if isinstance(obj, BNode):
            triples += _subtree(graph, obj, depth + 1)
    return triples


def _copied(graph, subject: Node, predicate: Node, obj: Node, where: URIRef, fresh,
            swap: dict | None = None) -> list[tuple]:
    """(subject, predicate, obj) with a blank-node object copied under new blank nodes, and
    every IRI in ``swap`` replaced by its value."""
    if not isinstance(obj, BNode):
        return [(subject, predicate, (swap or {}).get(obj, obj), where)]
    copy = next(fresh)
    quads = [(subject, predicate, copy, where)]
    for inner_predicate, inner in sorted(graph.predicate_objects(obj), key=lambda po: _order(graph, *po)):
        quads += _copied(graph, copy, inner_predicate, inner, where, fresh, swap)
    return quads


def _top(graph, node: Node, named: Node) -> tuple:
    """(IRI subject, predicate, blank node, graph) of the IRI statement a blank node is nested in."""
    for _ in range(32):
        parents = sorted(graph.subject_predicates(node), key=lambda sp: (str(sp[0]), str(sp[1])))
        if len(parents) != 1:
            raise GeneratorError(f"{named} is named inside a blank node that is not nested once in one "
                                 f"statement; merge-shapes cannot repoint it")
        parent, predicate = parents[0]
        if isinstance(parent, URIRef):
            return parent, predicate, node, graph.identifier
        node = parent
    raise GeneratorError(f"{named} is named inside blank nodes nested too deeply to repoint")


def _order(graph, predicate: Node, obj: Node) -> tuple[Any, ...]:
    """Property shapes by sh:order then path, other statements by predicate and object."""
    if predicate == V.SH.property:
        order = graph.value(obj, V.SH.order)
        number = order.toPython() if isinstance(order, Literal) else None
        return (str(predicate), 0 if isinstance(number, (int, float)) else 1,
                number if isinstance(number, (int, float)) else 0, str(graph.value(obj, V.SH.path)))
    if predicate == V.RDF.first:
        return ("", 0, 0, "")  # a list's item before its rest
    return (str(predicate), 0, 0, str(obj) if not isinstance(obj, BNode) else "")


def _quad_key(quad) -> tuple[str, ...]:
    subject, predicate, obj, context = quad
    return str(subject), str(predicate), str(obj), str(getattr(context, "identifier", context))

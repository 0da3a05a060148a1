"""``merge-shapes``: node shapes that constrain the same properties, and answers that merge them.

A candidate is a set of two or more node shapes of the shapes graph (forms
and data shapes) whose constraints are equal once what does not constrain
is set aside: labels, names, descriptions, order and groups of property
shapes, and the shape's own targets. Paths and every other constraint
(``sh:datatype``, ``sh:minCount``, ``sh:in`` lists in their order, nested
shapes) must be the same. The answer names the shapes, the class the
merged shape targets (an existing owl:Class, or a new one with a label and
a gist superclass) and the merged shape's IRI and label (one
target-classed shape on that class).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from rdflib import BNode, Graph, URIRef
from rdflib.collection import Collection
from rdflib.term import Node

from seams import vocab as V
from seams.errors import GeneratorError, ResolutionError
from seams.model.loading import Model
from seams.suggestions.answer import answer_object, one_line
from seams.suggestions.gist import GIST_CLASSES, gist_class
from seams.suggestions.gist_anchor import ontology_classes
from seams.suggestions.terms import answer_iri

KIND = "merge-shapes"
_KEYS = ("kind", "shapes", "class", "shape")
NOT_CONSTRAINTS = frozenset({V.RDFS.label, V.RDFS.comment, V.SH.name, V.SH.description, V.SH.order, V.SH.group,
                             V.RDF.type})
"""Predicates that describe a shape or a property shape for people and forms, and do not constrain."""
TARGETS = frozenset({V.SH.targetClass, V.SH.targetNode, V.SH.targetObjectsOf, V.SH.targetSubjectsOf})
MAX_SHAPES = 100
"""Most shapes one answer merges."""
MAX_DEPTH = 16
"""Deepest nesting of blank nodes read in a shape (sh:or lists of property shapes, and so on)."""


@dataclass(frozen=True)
class ShapeGroup:
    """Alike node shapes, sorted by IRI."""

    shapes: tuple[URIRef, ...]


@dataclass(frozen=True)
class NewClass:
    label: str
    superclass: URIRef


@dataclass(frozen=True)
class MergeShapes:
    """A validated merge-shapes suggestion; ``new_class`` is None for an existing class."""

    shapes: tuple[URIRef, ...]
    cls: URIRef
    new_class: NewClass | None
    shape: URIRef
    label: str
    kind: str = KIND

    @property
    def subject(self) -> str:
        return " ".join(str(s) for s in self.shapes)

    def as_json(self) -> dict[str, Any]:
        cls: dict[str, str] = {"iri": str(self.cls)}
        if self.new_class is not None:
            cls.update(label=self.new_class.label, superclass=str(self.new_class.superclass))
        return {"kind": self.kind, "shapes": [str(s) for s in self.shapes], "class": cls,
                "shape": {"iri": str(self.shape), "label": self.label}}


def shapes_graph(model: Model) -> Graph:
    return model.dataset.graph(model.project.graphs["shapes"])


def node_shapes(model: Model) -> list[URIRef]:
    """The IRI node shapes of the shapes graph that have property shapes, sorted."""
    graph = shapes_graph(model)
    return sorted({s for s in graph.subjects(V.RDF.type, V.SH.NodeShape)
                   if isinstance(s, URIRef) and (s, V.SH.property, None) in graph}, key=str)


def constraint_key(graph: Graph, shape: URIRef) -> frozenset:
    """What ``shape`` constrains, as a value equal for alike shapes (labels, order and targets aside)."""
    return frozenset((p, _term_key(graph, o, 0)) for p, o in graph.predicate_objects(shape)
                     if p not in NOT_CONSTRAINTS and p not in TARGETS)


def _term_key(graph: Graph, node: Node, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise GeneratorError(f"a shape nests blank nodes deeper than {MAX_DEPTH}")
    if isinstance(node, BNode):
        if (node, V.RDF.first, None) in graph:
            return ("list", tuple(_term_key(graph, item, depth + 1) for item in Collection(graph, node)))
        return ("node", frozenset((p, _term_key(graph, o, depth + 1)) for p, o in graph.predicate_objects(node)
                                  if p not in NOT_CONSTRAINTS))
    if isinstance(node, URIRef) and (node, V.SH.path, None) in graph:  # a named property shape
        return ("node", frozenset((p, _term_key(graph, o, depth + 1)) for p, o in graph.predicate_objects(node)
                                  if p not in NOT_CONSTRAINTS))
    return node


def find_shape_candidates(model: Model) -> list[ShapeGroup]:
    """Every set of alike node shapes, ordered by their first IRI."""
    graph = shapes_graph(model)
    groups: dict[frozenset, list[URIRef]] = defaultdict(list)
    for shape in node_shapes(model):
        groups[constraint_key(graph, shape)].append(shape)
    return sorted((ShapeGroup(tuple(shapes)) for shapes in groups.values() if len(shapes) > 1),
                  key=lambda group: str(group.shapes[0]))


def property_paths(graph: Graph, shape: URIRef) -> dict[Any, frozenset]:
    """The keys of a shape's property shapes, by their sh:path's key."""
    found: dict[Any, set] = defaultdict(set)
    for prop in graph.objects(shape, V.SH.property):
        path = graph.value(prop, V.SH.path)
        found[_term_key(graph, path, 0) if path is not None else None].add(_term_key(graph, prop, 0))
    return {path: frozenset(keys) for path, keys in found.items()}


def first_difference(model: Model, first: URIRef, other: URIRef) -> str:
    """Where two shapes differ, in words naming the property path (or the shape's own constraint)."""
    graph = shapes_graph(model)
    mine, theirs = property_paths(graph, first), property_paths(graph, other)
    for path in sorted(set(mine) | set(theirs), key=str):
        if mine.get(path) != theirs.get(path):
            name = model.qname(path) if isinstance(path, URIRef) else "a complex path"
            if path not in theirs or path not in mine:
                holder, lacking = (first, other) if path in mine else (other, first)
                return f"{model.qname(holder)} constrains {name}, {model.qname(lacking)} does not"
            return f"their constraints on {name} differ"
    return "their shape-level constraints differ (sh:closed, sh:node, ...)"


def parse_merge_shapes(data: Any, model: Model, candidates: list[ShapeGroup]) -> MergeShapes:
    """Validate a decoded answer (or a stored suggestion) against the model."""
    data = answer_object(data, KIND, allowed=_KEYS, required=_KEYS)
    shapes = _shapes(data["shapes"], model, candidates)
    cls, new_class = _class(data["class"], model)
    shape, label = _shape(data["shape"], model)
    if shape == cls:
        raise GeneratorError(f"answer shape.iri: {model.qname(shape)} is also the class")
    return MergeShapes(shapes=shapes, cls=cls, new_class=new_class, shape=shape, label=label)


def _shapes(value: Any, model: Model, candidates: list[ShapeGroup]) -> tuple[URIRef, ...]:
    if not isinstance(value, list) or len(value) < 2:
        raise GeneratorError("answer shapes: must be an array of at least two shapes")
    if len(value) > MAX_SHAPES:
        raise GeneratorError(f"answer shapes: more than {MAX_SHAPES} shapes")
    shapes = [answer_iri(model, item, f"shapes[{n}]") for n, item in enumerate(value)]
    if len(set(shapes)) != len(shapes):
        raise GeneratorError("answer shapes: a shape is named twice")
    known = node_shapes(model)
    offered = [" ".join(model.qname(s) for s in group.shapes) for group in candidates]
    for shape in shapes:
        if shape not in known:
            raise ResolutionError(f"answer shapes: the shapes graph has no sh:NodeShape {model.qname(shape)} "
                                  f"with sh:property", offered)
    graph = shapes_graph(model)
    first = shapes[0]
    for other in shapes[1:]:
        if constraint_key(graph, other) != constraint_key(graph, first):
            raise GeneratorError(f"answer shapes: {model.qname(first)} and {model.qname(other)} are not alike: "
                                 f"{first_difference(model, first, other)}")
    return tuple(shapes)  # in the answer's order: the first one's field names and order are kept


def _class(value: Any, model: Model) -> tuple[URIRef, NewClass | None]:
    if not isinstance(value, dict) or "iri" not in value:
        raise GeneratorError("answer class: must be an object with 'iri' (and 'label' and 'superclass' "
                             "for a new class)")
    for key in sorted(value):
        if key not in ("iri", "label", "superclass"):
            raise GeneratorError(f"answer class: unknown key {key!r}")
    cls = answer_iri(model, value["iri"], "class.iri")
    if cls in ontology_classes(model):
        extra = sorted(set(value) - {"iri"})
        if extra:
            raise GeneratorError(f"answer class.{extra[0]}: {model.qname(cls)} is an existing class; "
                                 f"give only its iri")
        return cls, None
    if (cls, None, None) in model.union or (None, None, cls) in model.union:
        raise GeneratorError(f"answer class.iri: {model.qname(cls)} is in the model but is not an owl:Class "
                             f"of the ontology graph")
    if not str(cls).startswith(model.project.config.base):
        raise GeneratorError(f"answer class.iri: a new class must be under the project's base "
                             f"{model.project.config.base}, not {cls}")
    for key in ("label", "superclass"):
        if key not in value:
            raise GeneratorError(f"answer class.{key}: missing; a new class ({model.qname(cls)}) needs a "
                                 f"label and a gist superclass")
    label = one_line(value["label"], "class.label")
    superclass = answer_iri(model, value["superclass"], "class.superclass")
    if gist_class(superclass) is None:
        raise GeneratorError(f"answer class.superclass: {model.qname(superclass)} is not one of the gist classes "
                             f"listed ({', '.join('gist:' + row.name for row in GIST_CLASSES)})")
    return cls, NewClass(label, superclass)


def _shape(value: Any, model: Model) -> tuple[URIRef, str]:
    if not isinstance(value, dict) or sorted(value) != ["iri", "label"]:
        raise GeneratorError("answer shape: must be an object with exactly the keys 'iri' and 'label'")
    shape = answer_iri(model, value["iri"], "shape.iri")
    if (shape, None, None) in model.union or (None, None, shape) in model.union:
        raise GeneratorError(f"answer shape.iri: {model.qname(shape)} already names something in the model; "
                             f"the merged shape needs a new IRI")
    if not str(shape).startswith(model.project.config.base):
        raise GeneratorError(f"answer shape.iri: the merged shape must be under the project's base "
                             f"{model.project.config.base}, not {shape}")
    return shape, one_line(value["label"], "shape.label")

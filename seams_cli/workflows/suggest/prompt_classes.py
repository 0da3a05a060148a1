"""Filling ``suggest-merge-shapes-v1.txt`` and ``suggest-gist-anchor-v1.txt`` from the model.

As for ``condition-to-dmn`` (``prompt``): every piece of model text sits in a
DATA block, JSON is written with sorted keys, everything is listed in a
fixed order, and IRIs are shown as the model's prefixed names; the same
model gives the same prompt bytes.
"""

from __future__ import annotations

import json
from typing import Any

from rdflib import BNode, Literal, URIRef
from rdflib.collection import Collection
from rdflib.term import Node

from seams import vocab as V
from seams.model.loading import Model
from seams.suggestions.gist import GIST_CLASSES, is_gist
from seams.suggestions.gist_anchor import ClassCandidate, anchored, ontology_classes
from seams.suggestions.merge_shapes import NOT_CONSTRAINTS, TARGETS, ShapeGroup, shapes_graph
from seams_cli.llm.prompting import fill, load_template, quote

MERGE_SHAPES_TEMPLATE = "suggest-merge-shapes-v1.txt"
GIST_ANCHOR_TEMPLATE = "suggest-gist-anchor-v1.txt"


def merge_shapes_prompt(model: Model, candidates: list[ShapeGroup]) -> str:
    groups = [[_shape_facts(model, shape) for shape in group.shapes] for group in candidates]
    classes = [{"iri": model.qname(cls), "label": _text(model, cls, V.RDFS.label),
                "superclasses": _superclasses(model, cls), "targeted_by": _targeting(model, cls)}
               for cls in ontology_classes(model)]
    return fill(load_template(MERGE_SHAPES_TEMPLATE), {
        "candidates": quote(_json(groups), label="alike shapes"),
        "classes": quote(_json(classes), label="ontology classes"),
        "gist": quote(_json(_gist_table()), label="gist classes"),
        "base": model.project.config.base,
    })


def gist_anchor_prompt(model: Model, candidates: list[ClassCandidate]) -> str:
    loose = [{"iri": model.qname(c.iri), "label": c.label, "comment": _text(model, c.iri, V.RDFS.comment),
              "superclasses": [model.qname(p) for p in c.superclasses],
              "shapes": [{"shape": model.qname(shape), "fields": _field_names(model, shape)}
                         for shape in _targeting_iris(model, c.iri)]} for c in candidates]
    tied = [{"iri": model.qname(cls), "label": _text(model, cls, V.RDFS.label),
             "gist": sorted(model.qname(p) for p in model.union.objects(cls, V.RDFS.subClassOf)
                            if isinstance(p, URIRef) and is_gist(p))}
            for cls in ontology_classes(model) if anchored(model, cls)]
    return fill(load_template(GIST_ANCHOR_TEMPLATE), {
        "candidates": quote(_json(loose), label="unanchored classes"),
        "anchored": quote(_json(tied), label="anchored classes"),
        "gist": quote(_json(_gist_table()), label="gist classes"),
    })


def _gist_table() -> list[dict[str, str]]:
    return [{"name": f"gist:{row.name}", "label": row.label, "definition": row.definition} for row in GIST_CLASSES]


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def _text(model: Model, subject: URIRef, predicate: URIRef) -> str | None:
    value = model.union.value(subject, predicate)
    return str(value) if value is not None else None


def _superclasses(model: Model, cls: URIRef) -> list[str]:
    return sorted(model.qname(p) for p in model.union.objects(cls, V.RDFS.subClassOf) if isinstance(p, URIRef))


def _targeting_iris(model: Model, cls: URIRef) -> list[URIRef]:
    graph = shapes_graph(model)
    return sorted((s for s in graph.subjects(V.SH.targetClass, cls) if isinstance(s, URIRef)), key=str)


def _targeting(model: Model, cls: URIRef) -> list[str]:
    return [model.qname(s) for s in _targeting_iris(model, cls)]


def _field_names(model: Model, shape: URIRef) -> list[str]:
    graph = shapes_graph(model)
    names = []
    for prop in graph.objects(shape, V.SH.property):
        name = graph.value(prop, V.SH.name) or graph.value(prop, V.SH.path)
        names.append(str(name) if isinstance(name, Literal) else model.qname(name) if isinstance(name, URIRef) else "?")
    return sorted(names)


def _shape_facts(model: Model, shape: URIRef) -> dict[str, Any]:
    graph = shapes_graph(model)
    target = graph.value(shape, V.SH.targetClass)
    properties = []
    for prop in graph.objects(shape, V.SH.property):
        properties.append({model.qname(p): _term(model, graph, o) for p, o in graph.predicate_objects(prop)
                           if isinstance(p, URIRef) and (p not in NOT_CONSTRAINTS or p == V.SH.name)})
    other = {model.qname(p): _term(model, graph, o) for p, o in graph.predicate_objects(shape)
             if p not in NOT_CONSTRAINTS and p not in TARGETS and p != V.SH.property and isinstance(p, URIRef)}
    return {"iri": model.qname(shape), "label": _text(model, shape, V.RDFS.label),
            "target_class": model.qname(target) if isinstance(target, URIRef) else None,
            "form_of": sorted(model.qname(t) for t in model.union.subjects(V.SEAM.form, shape)
                              if isinstance(t, URIRef)),
            "properties": sorted(properties, key=lambda p: json.dumps(p, sort_keys=True, default=str)),
            **({"shape_constraints": other} if other else {})}


def _term(model: Model, graph, node: Node, depth: int = 0) -> Any:
    if depth > 8:
        return "..."
    if isinstance(node, URIRef):
        return model.qname(node)
    if isinstance(node, Literal):
        python = node.toPython()
        return python if isinstance(python, (bool, int, str)) else str(node)
    if isinstance(node, BNode) and (node, V.RDF.first, None) in graph:
        return [_term(model, graph, item, depth + 1) for item in Collection(graph, node)]
    return {model.qname(p): _term(model, graph, o, depth + 1) for p, o in graph.predicate_objects(node)
            if isinstance(p, URIRef)}


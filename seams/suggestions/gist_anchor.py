"""``gist-anchor``: ontology classes with no way up to gist, and answers that anchor one.

A model anchors its classes in gist (docs/suggest.md). A candidate is an ``owl:Class``
of the ontology graph from which no ``rdfs:subClassOf`` path (followed
through the whole model) reaches a class in gist's namespace. The answer
names one candidate, one class of the gist table (seams.suggestions.gist)
and a one-sentence reason the person reads before accepting; applied, it is
one ``rdfs:subClassOf`` statement in the ontology graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rdflib import URIRef

from seams import vocab as V
from seams.errors import GeneratorError, ResolutionError
from seams.model.loading import Model
from seams.suggestions.answer import answer_object, one_line
from seams.suggestions.gist import GIST_CLASSES, gist_class, is_gist
from seams.suggestions.terms import answer_iri

KIND = "gist-anchor"
_KEYS = ("kind", "class", "superclass", "reason")
MAX_REASON = 300
"""Characters of the reason: one sentence, shown as one line."""


@dataclass(frozen=True)
class ClassCandidate:
    iri: URIRef
    label: str | None
    superclasses: tuple[URIRef, ...]  # its direct rdfs:subClassOf, none of them reaching gist


@dataclass(frozen=True)
class GistAnchor:
    """A validated gist-anchor suggestion."""

    cls: URIRef
    superclass: URIRef
    reason: str
    kind: str = KIND

    @property
    def subject(self) -> str:
        return str(self.cls)

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "class": str(self.cls), "superclass": str(self.superclass),
                "reason": self.reason}


def ontology_classes(model: Model) -> list[URIRef]:
    """The owl:Classes of the ontology graph, sorted."""
    graph = model.dataset.graph(model.project.graphs["ontology"])
    return sorted({s for s in graph.subjects(V.RDF.type, V.OWL.Class) if isinstance(s, URIRef)}, key=str)


def anchored(model: Model, cls: URIRef) -> bool:
    """Whether an rdfs:subClassOf path from ``cls`` reaches a gist class (cycles are followed once)."""
    seen, todo = set(), [cls]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for parent in model.union.objects(current, V.RDFS.subClassOf):
            if is_gist(parent):
                return True
            if isinstance(parent, URIRef):
                todo.append(parent)
    return False


def find_class_candidates(model: Model) -> list[ClassCandidate]:
    """Every ontology class with no path to gist, by IRI."""
    found = []
    for cls in ontology_classes(model):
        if is_gist(cls) or anchored(model, cls):
            continue
        label = model.union.value(cls, V.RDFS.label)
        parents = sorted((p for p in model.union.objects(cls, V.RDFS.subClassOf) if isinstance(p, URIRef)), key=str)
        found.append(ClassCandidate(cls, str(label) if label is not None else None, tuple(parents)))
    return found


def parse_gist_anchor(data: Any, model: Model, candidates: list[ClassCandidate]) -> GistAnchor:
    """Validate a decoded answer (or a stored suggestion) against the model."""
    data = answer_object(data, KIND, allowed=_KEYS, required=_KEYS)
    cls = answer_iri(model, data["class"], "class")
    offered = [model.qname(c.iri) for c in candidates]
    if cls not in {c.iri for c in candidates}:
        if cls in ontology_classes(model):
            raise ResolutionError(f"answer class: {model.qname(cls)} is already anchored in gist", offered)
        raise ResolutionError(f"answer class: the ontology graph has no owl:Class {model.qname(cls)}", offered)
    superclass = answer_iri(model, data["superclass"], "superclass")
    if gist_class(superclass) is None:
        raise GeneratorError(f"answer superclass: {model.qname(superclass)} is not one of the gist classes "
                             f"listed ({', '.join('gist:' + row.name for row in GIST_CLASSES)})")
    reason = one_line(data["reason"], "reason")
    if len(reason) > MAX_REASON:
        raise GeneratorError(f"answer reason: longer than {MAX_REASON} characters; one sentence is asked for")
    return GistAnchor(cls=cls, superclass=superclass, reason=reason)

"""The model's own shapes graph, checked against SHACL's rules for shapes.

The shapes graph (forms: ``sh:pattern``, ``sh:maxLength``, ``sh:in``, ...)
is data the generators, the routing samples and the acceptance tests act
on, and pyshacl trusts it: a pattern that is not a regular expression made
every validation using it fail with an internal error, and a negative
``sh:maxLength`` or an ``sh:in`` that is not a list was silently accepted.
So the shapes graph is validated against the SHACL-SHACL shapes (the W3C
shapes graph for shapes graphs, shipped with pyshacl), and Python adds what
SHACL-SHACL leaves open: every ``sh:pattern`` (with its ``sh:flags``) must
compile, and lengths must be integers of 0 or more. Each problem is a
``shape`` finding naming the shape and the predicate (docs/model.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import pyshacl
from pyshacl import validate
from rdflib import Graph, Literal, URIRef
from rdflib.term import Node

from seams import vocab as V
from seams.findings import Finding

if TYPE_CHECKING:
    from seams.model.loading import Model

KIND = "shape"
SHACL_SHACL = Path(pyshacl.__file__).resolve().parent / "assets" / "shacl-shacl.ttl"
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}


@lru_cache(maxsize=1)
def shacl_shacl_graph() -> Graph:
    """The SHACL-SHACL shapes, parsed once per process."""
    return Graph().parse(SHACL_SHACL, format="turtle")


def wellformedness_findings(model: Model) -> list[Finding]:
    """Every problem of the model's shapes graph as a shape, sorted."""
    shapes = model.dataset.graph(model.project.graphs["shapes"])
    if len(shapes) == 0:
        return []
    found = set(_shacl_shacl_findings(model, shapes))
    found.update(_pattern_findings(model, shapes))
    found.update(_length_findings(model, shapes))
    return sorted(found)


def _shacl_shacl_findings(model: Model, shapes: Graph) -> Iterable[Finding]:
    conforms, report, _ = validate(shapes, shacl_graph=shacl_shacl_graph(), inference="none", advanced=False,
                                   js=False, meta_shacl=False, allow_infos=False, allow_warnings=False)
    if conforms:
        return
    for result in report.objects(report.value(predicate=V.RDF.type, object=V.SH.ValidationReport), V.SH.result):
        focus = report.value(result, V.SH.focusNode)
        path = report.value(result, V.SH.resultPath)
        message = str(report.value(result, V.SH.resultMessage) or "does not conform to SHACL-SHACL")
        yield Finding(KIND, _owner(model, shapes, focus), _name(model, path),
                      f"not a well-formed shape (SHACL-SHACL): {message}")


def _pattern_findings(model: Model, shapes: Graph) -> Iterable[Finding]:
    for shape, pattern in shapes.subject_objects(V.SH.pattern):
        flags = 0
        for letter in str(shapes.value(shape, V.SH.flags) or ""):
            flags |= _FLAGS.get(letter, 0)
        try:
            re.compile(str(pattern), flags)
        except (re.error, RecursionError, OverflowError) as error:
            yield Finding(KIND, _owner(model, shapes, shape), "sh:pattern",
                          f"{str(pattern)[:80]!r} is not a regular expression: {error}")


def _length_findings(model: Model, shapes: Graph) -> Iterable[Finding]:
    for predicate in (V.SH.minLength, V.SH.maxLength):
        for shape, value in shapes.subject_objects(predicate):
            number = value.toPython() if isinstance(value, Literal) and not value.ill_typed else None
            if not isinstance(number, int) or isinstance(number, bool) or number < 0:
                yield Finding(KIND, _owner(model, shapes, shape), _name(model, predicate),
                              f"{value} is not a length: expected an integer of 0 or more")


def _name(model: Model, term: Node | None) -> str | None:
    if not isinstance(term, URIRef):
        return None
    text = str(term)
    return f"sh:{text[len(str(V.SH)):]}" if text.startswith(str(V.SH)) else model.qname(term)


def _owner(model: Model, shapes: Graph, node: Node | None) -> str:
    """A named shape for a message: the node itself, or the named shape holding a nested one."""
    seen = set()
    while node is not None and not isinstance(node, URIRef) and node not in seen:
        seen.add(node)
        node = next(iter(sorted(shapes.subjects(None, node), key=str)), None)
    return model.qname(node) if isinstance(node, URIRef) else "[]"

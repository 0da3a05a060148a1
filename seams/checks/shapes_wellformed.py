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

Validating the whole shapes graph grew with every form of every process
(most of ``seams check`` on a 400-process model, docs/performance.md), so
each distinct shape structure is validated once
(seams.checks.shape_structures) with the same findings.
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
from seams.checks.shape_structures import StructureKeys, Triple, parts, terms
from seams.findings import Finding

if TYPE_CHECKING:
    from seams.model.loading import Model

KIND = "shape"
CONFORMING = "conforming shape structures"
"""``Model.memo`` key: the structure keys (seams.checks.shape_structures) SHACL-SHACL found
conforming; a structure a check finds there is not validated again (its verdict is its
structure's)."""
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
    """SHACL-SHACL's findings, validating each distinct part structure once.

    A part's verdict depends only on its structure (seams.checks.shape_structures),
    so one part of each structure is validated, all of them in one graph; only
    the structures that fail are validated again with every part that has
    them, so each finding names its own shape with pyshacl's own message, as
    a validation of the whole graph would. The cost grows with the number of
    distinct structures (and of failing parts), not with the number of forms.
    """
    by_structure: dict[str, list[list[Triple]]] = {}
    keys = StructureKeys()
    for part in parts(shapes):
        by_structure.setdefault(keys.key(part), []).append(part)
    conforming = model.memo.setdefault(CONFORMING, set())  # structures known to conform (kept by a re-check)
    by_structure = {key: found for key, found in by_structure.items() if key not in conforming}
    if not by_structure:
        return
    one_each = [found[0] for found in by_structure.values()]
    focus = _failing_focus_nodes(shapes, one_each)
    if focus is None:
        conforming.update(by_structure)
        return
    failing = [part for found in by_structure.values() if focus & terms(found[0]) for part in found]
    if not failing:  # every focus node lies in a part; validate them all should that ever not hold
        failing = [part for found in by_structure.values() for part in found]
    yield from _report_findings(model, shapes, _validate(shapes, failing))


def _validate(shapes: Graph, chosen: list[list[Triple]]) -> Graph | None:
    """pyshacl's report for the chosen parts validated together (None when they conform)."""
    data = Graph(namespace_manager=shapes.namespace_manager)
    for part in chosen:
        for triple in part:
            data.add(triple)
    conforms, report, _ = validate(data, shacl_graph=shacl_shacl_graph(), inference="none", advanced=False,
                                   js=False, meta_shacl=False, allow_infos=False, allow_warnings=False)
    return None if conforms else report


def _results(report: Graph | None) -> list[Node]:
    if report is None:
        return []
    return list(report.objects(report.value(predicate=V.RDF.type, object=V.SH.ValidationReport), V.SH.result))


def _failing_focus_nodes(shapes: Graph, chosen: list[list[Triple]]) -> set[Node] | None:
    """The focus nodes of the chosen parts' results; None when they conform."""
    report = _validate(shapes, chosen)
    if report is None:
        return None
    return {focus for result in _results(report) if (focus := report.value(result, V.SH.focusNode)) is not None}


def _report_findings(model: Model, shapes: Graph, report: Graph | None) -> Iterable[Finding]:
    for result in _results(report):
        assert report is not None
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

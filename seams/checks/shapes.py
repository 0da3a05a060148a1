"""The seam shapes: SHACL over the model, plus the few rules SHACL cannot say.

The shapes ship as ``seams/shapes/seam_shapes.ttl`` and are validated with
pyshacl over the model's union graph (readers use the union, D-model-is-data;
forms live in the shapes graph but a user task's ``seam:form`` must resolve
there). No inference, no advanced SHACL, no meta-SHACL: validation then
stays linear in the model's size. Python adds what SHACL cannot express:
Python keywords, JSON that parses to an object, example keys that name what
the task reads, writes and uses, and names unique per process or task.
"""

from __future__ import annotations

import keyword
import re
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, cast

from pyshacl import validate
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from seams import vocab as V
from seams.checks.flow import process_variables
from seams.findings import Finding
from seams.model.union_store import IndexedGraph
from seams.model.view import Example, JsonError, Task

if TYPE_CHECKING:
    from seams.model.loading import Model

KIND = "shape"
SHAPES_FILE = Path(__file__).resolve().parent.parent / "shapes" / "seam_shapes.ttl"

_LOCAL_NAME = re.compile(r"[A-Za-z_][\w-]*")
# fixed prefixes for predicates, so a message reads the same whatever the model binds
_PREFIXES = {
    "seam": str(V.SEAM), "dec": str(V.DEC), "rdfs": str(V.RDFS), "rdf": str(V.RDF),
    "sh": str(V.SH), "xsd": str(V.XSD), "owl": str(V.OWL),
}


@lru_cache(maxsize=1)
def seam_shapes_graph() -> Graph:
    """The shipped shapes, parsed once per process."""
    return Graph().parse(data=SHAPES_FILE.read_text(encoding="utf-8"), format="turtle")


_TARGETS = (V.SH.targetClass, V.SH.targetNode, V.SH.targetObjectsOf, V.SH.targetSubjectsOf)


@lru_cache(maxsize=1)
def validation_shapes() -> Graph:
    """The shipped shapes with each targeted node shape's property shapes targeted themselves.

    pyshacl validates a property shape nested in a node shape once per focus
    node, and its per-call overhead then costs more than the constraints
    (most of ``seams check``'s SHACL time on a large model). A property shape
    carrying the node shape's targets is validated once over all its focus
    nodes, with the same results (focus node, path, message). Shapes that
    other shapes refer to (``sh:node`` and the like) keep their properties.
    """
    shapes = seam_shapes_graph()
    hoisted = IndexedGraph()  # read per focus node: from its store's indexes (seams.model.union_store)
    for triple in shapes:
        hoisted.add(triple)
    referenced = {o for _, p, o in shapes if p != V.SH.property}
    for shape in set(shapes.subjects(V.SH.property, None)):
        targets = [(p, o) for p in _TARGETS for o in shapes.objects(shape, p)]
        if not targets or shape in referenced:
            continue
        for prop in shapes.objects(shape, V.SH.property):
            hoisted.remove((shape, V.SH.property, prop))
            for predicate, target in targets:
                hoisted.add((prop, predicate, target))
    return hoisted


def shape_findings(model: Model) -> list[Finding]:
    """Every shape problem of ``model``, sorted and without duplicates."""
    from seams.checks.examples import example_findings
    from seams.checks.field_types import field_type_findings
    from seams.checks.literals import ill_typed_findings
    from seams.checks.scenarios import scenario_findings
    from seams.checks.shapes_wellformed import wellformedness_findings

    found = set(_shacl_findings(model))
    found.update(wellformedness_findings(model))  # the model's own shapes graph (its forms)
    found.update(ill_typed_findings(model))
    found.update(_python_findings(model))
    found.update(example_findings(model))  # examples against their variables' types
    found.update(field_type_findings(model))  # form fields against their variables' datatypes
    found.update(scenario_findings(model))  # scenarios against the BPMN and the variables
    return sorted(found)


def term_name(model: Model, term: Node) -> str:
    """A predicate or class as a prefixed name with the fixed seams prefixes."""
    text = str(term)
    for prefix, ns in _PREFIXES.items():
        if text.startswith(ns) and _LOCAL_NAME.fullmatch(text[len(ns):]):
            return f"{prefix}:{text[len(ns):]}"
    return model.qname(term) if isinstance(term, URIRef) else str(term)


# ------------------------------------------------------------------ SHACL


def _shacl_findings(model: Model) -> Iterable[Finding]:
    conforms, report, _ = validate(
        model.union, shacl_graph=validation_shapes(), inference="none", advanced=False,
        js=False, meta_shacl=False, abort_on_first=False, allow_infos=False, allow_warnings=False,
    )
    if conforms:
        return
    # only the report's own results: nested sh:detail results repeat them in SHACL's words
    for result in report.objects(report.value(predicate=V.RDF.type, object=V.SH.ValidationReport),
                                 V.SH.result):
        focus = report.value(result, V.SH.focusNode)
        path = report.value(result, V.SH.resultPath)
        message = str(report.value(result, V.SH.resultMessage) or "does not conform to the seam shapes")
        subject, predicate, inner = _locate(model, focus)
        if predicate is None:
            predicate = term_name(model, path) if isinstance(path, URIRef) else None
        yield Finding(KIND, subject, predicate, f"{inner}{message}{_details(model, report, result)}")


def _details(model: Model, report: Graph, result: Node) -> str:
    """Name the nested nodes (form fields) an ``sh:node`` failure comes from."""
    names, todo, seen = set(), list(report.objects(result, V.SH.detail)), set()
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        focus = report.value(node, V.SH.focusNode)
        name = _describe(model, focus) if isinstance(focus, BNode) else ""
        if name:
            names.add(name)
        todo.extend(report.objects(node, V.SH.detail))
    return f" (failing: {', '.join(sorted(names))})" if names else ""


def _locate(model: Model, focus: Node) -> tuple[str, str | None, str]:
    """Name a focus node the way a user can find it.

    A blank node (an example, a decision input) or a literal where a node
    belongs is reported under the named subject that owns it and the
    predicate that links them, with the blank node's own label or variable
    name as a prefix of the message.
    """
    if isinstance(focus, URIRef):
        return model.qname(focus), None, ""
    node, link, seen = focus, None, set()
    while not isinstance(node, URIRef) and node not in seen:
        seen.add(node)
        owners = sorted(model.union.subject_predicates(node), key=lambda sp: (str(sp[1]), str(sp[0])))
        if not owners:
            break
        node, link = owners[0]
    subject = model.qname(node) if isinstance(node, URIRef) else "[]"
    name = _describe(model, focus) if isinstance(focus, BNode) else focus.n3()
    return subject, (term_name(model, link) if link is not None else None), f"{name}: " if name else ""


def _describe(model: Model, node: BNode) -> str:
    """A blank node's own name for a message: its label, variable or field name ("" if none)."""
    for predicate, what in ((V.RDFS.label, ""), (V.dec_variable, ""), (V.SH.name, "field ")):
        value = model.union.value(node, predicate)
        if isinstance(value, Literal):
            return f'{what}"{value}"'
    return ""


# ----------------------------------------------------------------- Python


def _python_findings(model: Model) -> Iterable[Finding]:
    view = model.view
    yield from _keyword_findings(model)
    yield from _handler_clashes(model)
    for task in view.service_tasks():
        yield from _contract_findings(model, task)
        for example in task.examples:
            yield from _example_findings(model, task, example)
    yield from _variable_name_clashes(model)
    yield from _binding_name_clashes(model)


def _contract_findings(model: Model, task: Task) -> Iterable[Finding]:
    """A service task must say what its handler works on.

    A handler with neither reads nor writes has no inputs and no outputs, so
    nothing can judge it: the usual cause is a task brought in by
    ``seams init --from``, whose reads and writes a BPMN file cannot tell
    (docs/init.md). One finding per task, worded as the to-do it is.
    """
    if not task.reads and not task.writes:
        yield Finding(KIND, model.qname(task.iri), term_name(model, V.reads),
                      "a service task needs seam:reads and/or seam:writes: the process variables its "
                      "handler reads and the ones it sets (neither is stated)")


def _keyword_findings(model: Model) -> Iterable[Finding]:
    view = model.view
    named = [
        *((t.iri, V.handler, t.handler, "a handler module name") for t in view.service_tasks()),
        *((v.iri, V.name, v.name, "a variable name") for v in view.variables.values()),
        *((b.iri, V.name, b.name, "a binding name") for b in view.bindings.values()),
    ]
    for iri, predicate, name, what in named:
        if name is not None and keyword.iskeyword(name):
            yield Finding(KIND, model.qname(iri), term_name(model, predicate),
                          f'"{name}" is a Python keyword and cannot be {what}')


def _repeats(named: Iterable[tuple[str | None, URIRef]]) -> Iterable[tuple[str, URIRef, URIRef]]:
    """``(name, first, other)`` for each IRI after the first (by IRI) that holds a name another holds."""
    by_name: dict[str, set[URIRef]] = defaultdict(set)
    for name, iri in named:
        if name:
            by_name[name].add(iri)
    for name in sorted(by_name):
        first, *others = sorted(by_name[name], key=str)
        for other in others:
            yield name, first, other


def _handler_clashes(model: Model) -> Iterable[Finding]:
    for handler, first, task in _repeats((t.handler, t.iri) for t in model.view.service_tasks()):
        yield Finding(KIND, model.qname(task), "seam:handler",
                      f'handler "{handler}" is also the handler of {model.qname(first)}; '
                      "each service task needs its own handler module")


_EXAMPLE_PARTS = (
    ("given", V.given, "variable the task reads"),
    ("replies", V.replies, "binding the task uses"),
    ("expect", V.expect, "variable the task writes"),
)


def _example_findings(model: Model, task: Task, example: Example) -> Iterable[Finding]:
    view = model.view
    allowed = {
        "given": {view.variable_name(v) for v in task.reads},
        "replies": {view.bindings[b].name if b in view.bindings else None for b in task.uses},
        "expect": {view.variable_name(v) for v in task.writes},
    }
    label = f'"{example.label}": ' if example.label else ""
    for attr, predicate, what in _EXAMPLE_PARTS:
        value = getattr(example, attr)
        where = f"{label}{term_name(model, predicate)}"
        if value is None:
            continue  # the SHACL shape reports the missing literal
        if isinstance(value, JsonError):
            yield Finding(KIND, model.qname(task.iri), "seam:example",
                          f"{where} is not valid JSON"
                          f"{f' ({value.reason})' if value.reason else ''}; expected a JSON object")
            continue
        if not isinstance(value, dict):
            yield Finding(KIND, model.qname(task.iri), "seam:example",
                          f"{where} is a JSON {type(value).__name__}; expected a JSON object")
            continue
        known = allowed[attr]
        if None in known:
            continue  # not a variable or binding, or one without a name: the SHACL shapes report it
        names = cast("set[str]", known)  # no None in it now
        for key in sorted(set(value) - names):
            expected = ", ".join(sorted(names)) or "none"
            yield Finding(KIND, model.qname(task.iri), "seam:example",
                          f'{where} names "{key}", which is no {what} (expected one of: {expected})')


def _variable_name_clashes(model: Model) -> Iterable[Finding]:
    view = model.view
    for process, variables in sorted(process_variables(view).items(), key=lambda kv: str(kv[0])):
        for name, first, iri in _repeats((view.variable_name(v), v) for v in variables):
            yield Finding(KIND, model.qname(iri), "seam:name",
                          f'name "{name}" is also the name of {model.qname(first)} in process '
                          f"{model.qname(process)}; variable names must be unique in a process")


def _binding_name_clashes(model: Model) -> Iterable[Finding]:
    view = model.view
    for task in view.service_tasks():
        named = ((view.bindings[b].name, b) for b in task.uses if b in view.bindings)
        for name, first, iri in _repeats(named):
            yield Finding(KIND, model.qname(task.iri), "seam:uses",
                          f'bindings {model.qname(first)} and {model.qname(iri)} are both named '
                          f'"{name}"; binding names must be unique in a task')

"""From read payloads to the facts of the seams graph and the form shapes.

Every fact written here is one the payloads state; nothing is guessed. A
re-import (``--update``) passes what the model already has as
:class:`Existing`: a subject the model already holds (same payload path and
BPMN/DMN id, or the same variable name) is referred to, never rewritten, so
hand-written facts stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from rdflib import Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SH, XSD

from seams import vocab as V
from seams.importer.bpmn_read import BpmnSpec, Element, ProcessSpec
from seams.importer.dmn_read import DecisionSpec
from seams.importer.forms import FieldSpec
from seams.importer.names import IDENTIFIER, Names, local_name, snake_case
from seams.importer.plan import ListOf, Nested, Plan, Subject

_KIND_CLASS = {"userTask": V.UserTask, "serviceTask": V.ServiceTask,
               "businessRuleTask": V.BusinessRuleTask, "exclusiveGateway": V.Gateway}


@dataclass(frozen=True)
class Source:
    """One payload to import: its file name in ``model/`` and what was read from it."""

    name: str
    format: str  # "bpmn" or "dmn"
    spec: BpmnSpec | list[DecisionSpec]


@dataclass
class Existing:
    """What the model already holds, by identity key (see :func:`key_of`)."""

    subjects: dict[tuple, URIRef] = field(default_factory=dict)
    iris: set[URIRef] = field(default_factory=set)
    handlers: set[str] = field(default_factory=set)


@dataclass
class _Variable:
    name: str
    label: str | None = None
    datatype: str | None = None  # an xsd local name, or "JSON" (rdf:JSON: a JSON object)
    many: bool = False  # holds a list of values of its datatype (seam:list true)


def datatype_iri(name: str) -> URIRef:
    """``string`` -> xsd:string; ``JSON`` -> rdf:JSON (a variable holding a JSON object)."""
    return RDF.JSON if name == "JSON" else XSD[name]


class _Builder:
    def __init__(self, base: str, existing: Existing):
        self.base = base
        self.existing = existing
        self.locals = Names({str(iri)[len(base):] for iri in existing.iris if str(iri).startswith(base)})
        self.handlers = Names(existing.handlers)
        self.plan = Plan()
        self.variables: dict[str, _Variable] = {}
        self.variable_iris: dict[str, URIRef] = {}
        self.seen: set[tuple] = set()

    # --------------------------------------------------------------- naming

    def iri_for(self, key: tuple, wanted: str) -> tuple[URIRef, bool]:
        """The IRI of the thing with identity ``key``; True when the model already has it."""
        self.seen.add(key)
        if key in self.existing.subjects:
            return self.existing.subjects[key], True
        iri = URIRef(self.base + self.locals.unique(local_name(wanted)))
        self.existing.subjects[key] = iri
        return iri, False

    def variable(self, name: str, *, label: str | None = None, datatype: str | None = None,
                 where: str = "", many: bool = False) -> URIRef:
        var = self.variables.setdefault(name, _Variable(name))
        var.many = var.many or many
        var.label = var.label or label
        if datatype and var.datatype and datatype != var.datatype:
            self.plan.notes.append(f'variable "{name}": {where} says {datatype}, kept {var.datatype} '
                                   "from earlier evidence")
        var.datatype = var.datatype or datatype
        if name not in self.variable_iris:
            self.variable_iris[name] = self.iri_for(("variable", name), name)[0]
        return self.variable_iris[name]

    def new(self, iri: URIRef, role: str, section: str) -> Subject:
        subject = Subject(iri, role, section)
        self.plan.subjects.append(subject)
        return subject


def key_of(kind: str, *parts: str) -> tuple:
    """The identity of an imported thing: kind and the payload path / ids that name it."""
    return (kind, *parts)


def build_import(base: str, sources: list[Source], existing: Existing | None = None) -> Plan:
    """The facts for ``sources`` (BPMN and DMN, in command-line order) under IRI ``base``."""
    b = _Builder(base, existing or Existing())
    before = dict(b.existing.subjects)
    payload_iris: dict[str, URIRef] = {}
    for source in sources:
        iri, known = b.iri_for(key_of("payload", source.name), f"{source.name.rsplit('.', 1)[0]}-{source.format}")
        payload_iris[source.name] = iri
        if not known:
            subject = b.new(iri, "seams", "Payloads: the native files, byte for byte as the modeler wrote them")
            subject.add(RDF.type, V.Payload)
            subject.add(V.path, Literal(source.name))
            subject.add(V.format, Literal(source.format))

    decisions: dict[str, tuple[Source, DecisionSpec]] = {}
    for source in sources:
        if source.format == "dmn":
            for decision in source.spec:  # type: ignore[union-attr]
                decisions.setdefault(decision.id, (source, decision))

    bound: dict[str, str | None] = {}  # decision id -> result variable of the first task calling it
    later: list[tuple[Subject, Element]] = []
    for source in sources:
        if source.format != "bpmn":
            continue
        spec: BpmnSpec = source.spec  # type: ignore[assignment]
        b.plan.notes.extend(spec.notes)
        for what, count in sorted(spec.not_carried.items()):
            b.plan.notes.append(f"not carried over from {source.name} ({count}): {what}")
        for process in spec.processes:
            later.extend(_process(b, source, payload_iris[source.name], process, decisions, bound))

    decision_iris: dict[str, URIRef] = {}
    for decision_id, (source, decision) in decisions.items():
        found = _decision(b, source, payload_iris[source.name], decision, bound.get(decision_id))
        if found is not None:
            decision_iris[decision_id] = found
    for subject, element in later:
        _bind_decision(b, subject, element, decisions, decision_iris)

    _variables(b)
    names = {source.name for source in sources}
    for key, iri in sorted(before.items(), key=lambda kv: (kv[0][1:], str(kv[1]))):
        if key[0] in ("process", "element", "decision") and key[1] in names and key not in b.seen:
            b.plan.removed.append((key[0], key[1], key[-1], iri))
    return b.plan


def _count(b: _Builder, what: str) -> None:
    b.plan.counts[what] = b.plan.counts.get(what, 0) + 1


def _process(b: _Builder, source: Source, payload: URIRef, process: ProcessSpec,
             decisions: dict[str, tuple[Source, DecisionSpec]],
             bound: dict[str, str | None]) -> Iterable[tuple[Subject, Element]]:
    iri, known = b.iri_for(key_of("process", source.name, process.id), process.id)
    if not known:
        subject = b.new(iri, "seams", "Processes")
        subject.add(RDF.type, V.Process)
        subject.add(RDFS.label, Literal(process.label))
        subject.add(V.payload, payload)
        subject.add(V.payloadElement, Literal(process.id))
        _count(b, "processes")
    for field_spec in process.start_form:
        if IDENTIFIER.fullmatch(field_spec.key):
            b.variable(field_spec.key, label=field_spec.label, datatype=field_spec.datatype,
                       where=f"the start form of {process.id}")
    if process.start_form and not known:
        form_iri, form_known = b.iri_for(key_of("start form", source.name, process.id), f"{process.id}_StartForm")
        subject.add(V.startForm, form_iri)
        if not form_known:
            _form(b, form_iri, Element(f"{process.id} start", "startEvent", f"{process.label} start",
                                       form=process.start_form), process.id)
    for element in process.elements:
        element_iri, element_known = b.iri_for(key_of("element", source.name, process.id, element.id), element.id)
        if element.kind == "businessRuleTask" and element.decision_ref in decisions \
                and element.decision_ref not in bound:
            bound[element.decision_ref] = element.result_variable
        if element_known:
            continue
        subject = b.new(element_iri, "seams", f"Flow elements of {process.id}")
        subject.add(RDF.type, _KIND_CLASS[element.kind])
        subject.add(RDFS.label, Literal(element.name or element.id))
        subject.add(V.inProcess, iri)
        subject.add(V.payloadElement, Literal(element.id))
        _count(b, "gateways" if element.kind == "exclusiveGateway" else "tasks")
        if element.kind == "serviceTask":
            wanted = snake_case(element.handler_hint or _without_kind_prefix(element.id))
            subject.add(V.handler, Literal(b.handlers.unique(wanted)))
        if element.form:
            form_iri, form_known = b.iri_for(key_of("form", source.name, process.id, element.id), f"{element.id}_Form")
            subject.add(V.form, form_iri)
            if not form_known:
                _form(b, form_iri, element, process.id)
        if element.kind == "businessRuleTask":
            yield subject, element
            continue
        _reads_writes(b, subject, element.reads, element.writes, element.id)
    for name in process.condition_names:
        b.variable(name, where=f"a condition of {process.id}")
    for name in process.mapped_names:
        b.variable(name, where=f"an input mapping in {process.id}")
    for name in process.input_collections:
        b.variable(name, many=True, where=f"a multi-instance collection of {process.id}")
    for name in process.list_variables:
        if name in b.variables:  # only a variable the model has for another reason
            b.variable(name, many=True, where=f"a multi-instance output collection of {process.id}")


_KIND_PREFIX = re.compile(r"^(?:Task|ServiceTask|Service|Activity)_(?=[A-Za-z])")


def _without_kind_prefix(element_id: str) -> str:
    """``Task_CheckBalance`` -> ``CheckBalance``; ``Activity_0x1`` stays (its rest is no word)."""
    return _KIND_PREFIX.sub("", element_id)


def _reads_writes(b: _Builder, subject: Subject, reads: Iterable[str], writes: Iterable[str], where: str) -> None:
    read_iris = sorted({b.variable(n, where=where) for n in reads}, key=str)
    write_iris = sorted({b.variable(n, where=where) for n in writes}, key=str)
    for iri in read_iris:
        subject.add(V.reads, iri)
    for iri in write_iris:
        subject.add(V.writes, iri)


def _form(b: _Builder, iri: URIRef, element: Element, process_id: str) -> None:
    shape = b.new(iri, "shapes", "Forms: one SHACL shape per user-task form")
    shape.add(RDF.type, SH.NodeShape)
    shape.add(RDFS.label, Literal(f"{element.name or element.id} form"))
    for order, field_spec in enumerate(element.form or (), 1):
        if not IDENTIFIER.fullmatch(field_spec.key):
            b.plan.notes.append(f'{element.id}: skipped form field "{field_spec.key}" (not a plain variable name)')
            continue
        var = b.variable(field_spec.key, label=field_spec.label, datatype=field_spec.datatype,
                         where=f"the form of {element.id}", many=field_spec.many)
        shape.add(SH.property, Nested(tuple(_field_facts(var, field_spec, order))))


def _field_facts(var: URIRef, spec: FieldSpec, order: int):
    yield SH.path, var
    yield SH.name, Literal(spec.label or spec.key)
    if spec.datatype:
        yield SH.datatype, datatype_iri(spec.datatype)
    if spec.required:
        yield SH.minCount, Literal(1)
    if spec.values:
        yield SH["in"], ListOf(tuple(Literal(v) for v in spec.values))
    for predicate, value in ((SH.minInclusive, spec.minimum), (SH.maxInclusive, spec.maximum)):
        if value is not None:
            yield predicate, _number_literal(value, spec.datatype)
    if spec.min_length is not None:
        yield SH.minLength, Literal(spec.min_length)
    if spec.max_length is not None:
        yield SH.maxLength, Literal(spec.max_length)
    if spec.pattern:
        yield SH.pattern, Literal(spec.pattern)
    if spec.default is not None:  # what Tasklist submits for a field left as it is
        yield SH.defaultValue, _default_literal(spec.default, spec.datatype)
    yield SH.order, Literal(order)


def _default_literal(value: object, datatype: str | None) -> Literal:
    if isinstance(value, Decimal):
        return _number_literal(value, datatype)
    if datatype == "date":
        return Literal(str(value), datatype=XSD.date)
    return Literal(value)


def _number_literal(value: Decimal, datatype: str | None) -> Literal:
    if datatype == "integer" and value == value.to_integral_value():
        return Literal(int(value))
    return Literal(value, datatype=XSD.decimal)


def _decision(b: _Builder, source: Source, payload: URIRef, decision: DecisionSpec,
              result_variable: str | None) -> URIRef | None:
    """A dec:Decision for a one-output decision table; None (with a note) for anything else."""
    b.seen.add(key_of("decision", source.name, decision.id))  # in the file: never reported removed
    if len(decision.outputs) != 1 or (decision.is_table and not decision.inputs):
        why = "is neither a decision table nor a boxed expression" if not decision.outputs else \
            f"has {len(decision.outputs)} outputs and {len(decision.inputs)} inputs"
        b.plan.notes.append(f'decision "{decision.id}" in {source.name} {why}; seams binds decision tables '
                            "with inputs and exactly one output, and decisions that are one boxed expression, "
                            "so it is not imported")
        return None
    iri, known = b.iri_for(key_of("decision", source.name, decision.id), decision.id)
    if known:
        return iri
    subject = b.new(iri, "seams", "Decisions: tied to their DMN tables")
    subject.add(RDF.type, V.Decision)
    subject.add(RDFS.label, Literal(decision.label))
    subject.add(V.payload, payload)
    subject.add(V.dec_payloadElement, Literal(decision.id))
    reads = []
    for column in decision.inputs:
        facts: list = [(V.dec_variable, Literal(column.text))]
        if IDENTIFIER.fullmatch(column.text):
            var = b.variable(column.text, label=column.label, datatype=column.datatype,
                             where=f"input of DMN {decision.id}")
            facts.append((V.dec_fromPath, var))
            reads.append(var)
        subject.add(V.dec_input, Nested(tuple(facts)))
    output = decision.outputs[0]
    target = result_variable or output.text
    facts = [(V.dec_variable, Literal(output.text))]
    if IDENTIFIER.fullmatch(target):
        var = b.variable(target, label=output.label, datatype=output.datatype, where=f"output of DMN {decision.id}")
        facts.append((V.dec_processVariable, var))
    subject.add(V.dec_output, Nested(tuple(facts)))
    for var in sorted(set(reads), key=str):
        subject.add(V.reads, var)
    _count(b, "decisions")
    return iri


def _bind_decision(b: _Builder, subject: Subject, element: Element,
                   decisions: dict[str, tuple[Source, DecisionSpec]], decision_iris: dict[str, URIRef]) -> None:
    ref = element.decision_ref
    if ref is None:
        b.plan.notes.append(f"{element.id}: calls no DMN decision by id; seam:decidedBy is left to you")
    elif ref not in decision_iris:
        if ref not in decisions:
            b.plan.notes.append(f'{element.id}: calls DMN decision "{ref}", which no --from DMN file holds; '
                                "seam:decidedBy is left to you")
    else:
        subject.add(V.decidedBy, decision_iris[ref])
        _, decision = decisions[ref]
        reads = drd_inputs(ref, {d: spec for d, (_, spec) in decisions.items()})
        target = element.result_variable or decision.outputs[0].text
        if IDENTIFIER.fullmatch(target):
            many = _result_is_list(element.map_result, decision)
            b.variable(target, many=many, where=element.id,
                       datatype="JSON" if many and element.map_result == "resultList" else None)
        _reads_writes(b, subject, [*element.reads, *reads],
                      [*element.writes, *([target] if IDENTIFIER.fullmatch(target) else [])], element.id)
        return
    _reads_writes(b, subject, element.reads, element.writes, element.id)


def drd_inputs(decision_id: str, decisions: dict[str, DecisionSpec]) -> list[str]:
    """The variables a decision reads through its decision requirements graph: its own inputs and
    those of every decision it requires (evaluated first), less what a required decision outputs."""
    order: list[str] = []
    todo, seen = [decision_id], set()
    while todo:
        current = todo.pop(0)
        if current in seen or current not in decisions:
            continue
        seen.add(current)
        order.append(current)
        todo.extend(decisions[current].requires)
    supplied = {o.text for d in order[1:] for o in decisions[d].outputs}
    names = [c.text for d in order for c in decisions[d].inputs if IDENTIFIER.fullmatch(c.text)]
    return [n for n in dict.fromkeys(names) if n not in supplied]


def _result_is_list(map_result: str | None, decision: DecisionSpec) -> bool:
    """Camunda 7 ``collectEntries``/``resultList`` give a list; so does a COLLECT table without an
    aggregation when no mapping says otherwise (Camunda 8's result, and seams' engine)."""
    if map_result in ("collectEntries", "resultList"):
        return True
    if map_result in ("singleEntry", "singleResult"):
        return False
    return decision.hit_policy in ("COLLECT", "RULE ORDER", "RULE_ORDER", "OUTPUT ORDER", "OUTPUT_ORDER") \
        and not decision.aggregation


def _variables(b: _Builder) -> None:
    for name, var in b.variables.items():
        iri = b.variable_iris[name]
        if ("variable", name) in b.existing.subjects and iri in b.existing.iris:
            continue
        subject = b.new(iri, "seams", "Process variables: seam:datatype only where a form or DMN says it")
        subject.add(RDF.type, V.Variable)
        subject.add(RDF.type, OWL.DatatypeProperty)
        subject.add(RDFS.label, Literal(var.label or name))
        subject.add(V.name, Literal(name))
        if var.datatype:
            subject.add(V.datatype, datatype_iri(var.datatype))
        if var.many:
            subject.add(V.list_, Literal(True))
        _count(b, "variables")

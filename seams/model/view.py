"""A small typed view of the model that every later part reads.

The view is built once per loaded model in one pass over the union graph
and the payload trees, so checks and generators never rescan the whole model
per element (``seams check`` must stay linear in the model's size). It is
lenient: a missing fact is ``None`` or empty here, and the shapes and
decision checks report it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

from lxml import etree
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.term import Node as Term

from seams import vocab as V
from seams.display import one_line
from seams.project.limits import LimitError, loads_json

if TYPE_CHECKING:
    from seams.model.payloads import PayloadFile

Node = URIRef | BNode


@dataclass(frozen=True)
class Variable:
    iri: URIRef
    name: str | None
    datatype: URIRef | None
    label: str | None = None
    many: bool = False  # seam:list true: a list of values of its datatype (docs/model.md, "Types")


@dataclass(frozen=True)
class Parameter:
    """One argument of a binding, or one field of its object result: a name and a datatype,
    and the process variable it is when the model says so (``variable``)."""

    name: str | None
    datatype: URIRef | None
    variable: URIRef | None = None


@dataclass(frozen=True)
class ResultType:
    """What a binding returns: one value of ``datatype``, or a JSON object of ``fields``;
    ``variable`` when the result is a process variable's value (its datatype and form fields)."""

    datatype: URIRef | None
    fields: tuple[Parameter, ...] = ()
    variable: URIRef | None = None


@dataclass(frozen=True)
class Binding:
    iri: URIRef
    name: str | None
    label: str | None
    comment: str | None
    parameters: tuple[Parameter, ...] | None = None  # None: the model declares no signature
    result: ResultType | None = None


@dataclass(frozen=True)
class Example:
    node: Node
    label: str | None
    given: Any
    replies: Any
    expect: Any
    held_out: bool = False  # seam:heldOut true: judged like any other, never shown in a prompt
    expect_error: str | None = None  # seam:expectError: the BPMN error code the handler must raise


@dataclass(frozen=True)
class Field:
    """One ``sh:property`` of a form shape: constraints on one variable."""

    node: Node
    path: URIRef | None
    name: str | None
    datatype: URIRef | None
    min_count: int | None = None
    max_count: int | None = None
    in_values: tuple[Any, ...] | None = None
    min_inclusive: Any = None
    max_inclusive: Any = None
    min_exclusive: Any = None
    max_exclusive: Any = None
    pattern: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    order: Any = None
    default: Any = None  # sh:defaultValue: what the form submits when the field is left as it is

    @property
    def always_submitted(self) -> bool:
        """Whether every answer sets the field: it is required (``sh:minCount`` 1 or more) or the
        form submits its ``sh:defaultValue`` when it is left as it is (docs/scenarios.md)."""
        return (self.min_count or 0) >= 1 or self.default is not None


@dataclass(frozen=True)
class FormShape:
    iri: URIRef
    target_class: URIRef | None
    fields: tuple[Field, ...]


@dataclass(frozen=True)
class Task:
    iri: URIRef
    kind: URIRef  # one of V.UserTask, V.ServiceTask, V.BusinessRuleTask
    label: str | None
    comment: str | None
    process: URIRef | None
    element_id: str | None
    handler: str | None = None
    reads: tuple[URIRef, ...] = ()
    writes: tuple[URIRef, ...] = ()
    uses: tuple[URIRef, ...] = ()
    examples: tuple[Example, ...] = ()
    form: URIRef | None = None
    decided_by: URIRef | None = None
    assumes: tuple[str, ...] = ()  # seam:assumes: conditions over inputs and binding replies, sorted
    raises: tuple[str, ...] = ()  # seam:raises: BPMN error codes the handler may raise, sorted


@dataclass(frozen=True)
class Gateway:
    iri: URIRef
    label: str | None
    process: URIRef | None
    element_id: str | None


@dataclass(frozen=True)
class Flow:
    """A BPMN sequence flow; its condition text as written (None: unconditional)."""

    id: str
    source: str
    target: str
    name: str | None
    condition: str | None
    language: str | None = None  # the conditionExpression's ``language`` attribute (a script language)


@dataclass(frozen=True)
class BpmnNode:
    id: str
    kind: str  # the BPMN local name: userTask, exclusiveGateway, startEvent, ...
    name: str | None
    decision_ref: str | None = None  # camunda:decisionRef or zeebe:calledDecision decisionId
    result_variable: str | None = None
    default_flow: str | None = None  # the BPMN ``default`` attribute: the flow taken when no condition holds
    # the task's output mappings, (target variable, source expression as written): camunda:outputParameter
    # or zeebe:output; how a business-rule task sets each output of a table of several outputs
    output_mappings: tuple[tuple[str, str], ...] = ()
    map_result: str | None = None  # camunda:mapDecisionResult of a business-rule task
    called_element: str | None = None  # the process a call activity calls (not an expression)


@dataclass(frozen=True)
class Submission:
    """What one user task submits in a scenario: ``seam:task`` and ``seam:values`` (a JSON object)."""

    node: Node
    task: URIRef | None
    values: Any


@dataclass(frozen=True)
class Scenario:
    """One ``seam:scenario`` of a process (docs/scenarios.md): start variables, the data each
    user task submits, the binding replies, and what the run must end with. JSON parts are
    None when absent, a JsonError when they do not parse."""

    node: Node
    label: str | None
    given: Any = None
    submits: tuple[Submission, ...] = ()
    replies: Any = None
    expect_end: str | None = None
    expect_flows: Any = None
    expect: Any = None
    events: Any = None  # seam:events: a JSON array of element ids or {"element", "variables"} objects
    start_at: str | None = None  # seam:startAt: the BPMN id the run starts before


@dataclass(frozen=True)
class Process:
    iri: URIRef
    label: str | None
    payload: URIRef | None
    element_id: str | None
    nodes: dict[str, BpmnNode] = field(default_factory=dict)
    flows: dict[str, Flow] = field(default_factory=dict)
    found: bool = False  # the payload has a bpmn:process with element_id
    scenarios: tuple[Scenario, ...] = ()  # by label
    start_form: URIRef | None = None  # seam:startForm: the shape of its start form

    def outgoing(self, node_id: str) -> list[Flow]:
        return [f for f in self.flows.values() if f.source == node_id]

    def incoming(self, node_id: str) -> list[Flow]:
        return [f for f in self.flows.values() if f.target == node_id]


@dataclass(frozen=True)
class DecisionInput:
    node: Node
    variable: str | None
    from_path: URIRef | None


@dataclass(frozen=True)
class DecisionOutput:
    node: Node
    variable: str | None
    process_variable: URIRef | None


@dataclass(frozen=True)
class Decision:
    iri: URIRef
    label: str | None
    payload: URIRef | None
    element_id: str | None
    inputs: tuple[DecisionInput, ...]
    outputs: tuple[DecisionOutput, ...]
    reads: tuple[URIRef, ...]
    requires: tuple[str, ...] = ()  # ids of the DMN decisions it requires (its DRD), from the payload


@dataclass
class View:
    processes: dict[URIRef, Process]
    tasks: dict[URIRef, Task]
    gateways: dict[URIRef, Gateway]
    variables: dict[URIRef, Variable]
    bindings: dict[URIRef, Binding]
    decisions: dict[URIRef, Decision]
    forms: dict[URIRef, FormShape]
    labels: dict[URIRef, str]
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """What a check derives from the whole view once (seams.checks.flow.process_variables)."""
    wide_names: dict[URIRef, set[str]] = field(default_factory=dict, compare=False, repr=False)
    """Per process, the names a check looked up in the whole model because no variable of the
    process has them (:meth:`variables_named_for`): what a process reads of other parts of the
    model by name alone (seams.model.components links it with them)."""

    def service_tasks(self) -> list[Task]:
        return [t for t in self.tasks.values() if t.kind == V.ServiceTask]

    def variable_name(self, iri: URIRef) -> str | None:
        var = self.variables.get(iri)
        return var.name if var else None

    def fields_on(self, iri: Any) -> tuple[Field, ...]:
        """Every form field whose ``sh:path`` is ``iri``, in form order then field order: one
        look-up, where scanning every form for each variable grew with the square of the model."""
        return self._fields_by_path.get(iri, ())

    def variables_named(self, name: str) -> tuple[URIRef, ...]:
        """The variables whose ``seam:name`` is ``name``, in the view's order."""
        return self._variables_by_name.get(name, ())

    def variables_named_for(self, name: str, own: Mapping[str, tuple[URIRef, ...]],
                            process: URIRef) -> tuple[URIRef, ...]:
        """The variables named ``name`` that are ``process``'s own (``own``: its variables by
        name, :func:`names_of`) if any is, else every one in the model: two processes that each
        have their ``days`` read each their own, and a name none of the process's variables has
        is what the process reads of the model by name (kept in :attr:`wide_names`)."""
        mine = own.get(name, ())
        if mine:
            return mine
        self.wide_names.setdefault(process, set()).add(name)
        return self.variables_named(name)

    def names_of(self, variables: Iterable[URIRef]) -> dict[str, tuple[URIRef, ...]]:
        """Some variables by name (each name's in the view's order)."""
        found: dict[str, list[URIRef]] = {}
        for iri in sorted(variables, key=self._position):
            variable = self.variables.get(iri)
            if variable is not None and variable.name:
                found.setdefault(variable.name, []).append(iri)
        return {name: tuple(iris) for name, iris in found.items()}

    def _position(self, iri: URIRef) -> int:
        return self._positions.get(iri, len(self._positions))

    @cached_property
    def _positions(self) -> dict[URIRef, int]:
        return {iri: number for number, iri in enumerate(self.variables)}

    @cached_property
    def _variables_by_name(self) -> dict[str, tuple[URIRef, ...]]:
        found: dict[str, list[URIRef]] = {}
        for variable in self.variables.values():
            if variable.name:
                found.setdefault(variable.name, []).append(variable.iri)
        return {name: tuple(iris) for name, iris in found.items()}

    @cached_property
    def processes_by_element_id(self) -> dict[str, Process]:
        """The processes found in their payloads by BPMN id (the last by IRI where an id repeats)."""
        return {p.element_id: p for p in sorted(self.processes.values(), key=lambda p: str(p.iri))
                if p.element_id and p.found}

    def decisions_with_id(self, element_id: str) -> tuple[Decision, ...]:
        """The decisions whose DMN id is ``element_id``, by IRI."""
        return self._decisions_by_element_id.get(element_id, ())

    @cached_property
    def _decisions_by_element_id(self) -> dict[str, tuple[Decision, ...]]:
        found: dict[str, list[Decision]] = {}
        for decision in sorted(self.decisions.values(), key=lambda d: str(d.iri)):
            if decision.element_id:
                found.setdefault(decision.element_id, []).append(decision)
        return {element_id: tuple(each) for element_id, each in found.items()}

    @cached_property
    def _fields_by_path(self) -> dict[Any, tuple[Field, ...]]:
        found: dict[Any, list[Field]] = {}
        for form in self.forms.values():
            for each in form.fields:
                found.setdefault(each.path, []).append(each)
        return {path: tuple(fields) for path, fields in found.items()}


def _ref(value: Term | None) -> URIRef | None:
    """A term the view keeps as an IRI. Lenient like the rest of the view: kept as the
    graph has it (the seam shapes report one that is not an IRI)."""
    return cast("URIRef | None", value)


def _node(value: Term) -> Node:
    """A subject or object the view keeps as a resource (an IRI or a blank node)."""
    return cast(Node, value)


def _subjects(graph: Graph, cls: URIRef) -> list[URIRef]:
    """The subjects of type ``cls``, sorted; IRIs as far as the view is concerned (the
    seam shapes report a blank one)."""
    return sorted((cast(URIRef, s) for s in set(graph.subjects(V.RDF.type, cls))), key=str)


def _text(graph: Graph, s: Term, p: URIRef) -> str | None:
    value = graph.value(s, p)
    return str(value) if value is not None else None


def _shown_name(name: str | None) -> str | None:
    """A BPMN ``name`` as it is shown: one line (Camunda Modeler writes a two-line label with
    ``&#10;``), no control characters (seams.display.one_line)."""
    return one_line(name) if name is not None else None


def _label(graph: Graph, s: Term) -> str | None:
    """An ``rdfs:label`` as it is shown: on one line, without control characters
    (seams.display.one_line); labels name things, they carry no data."""
    value = _text(graph, s, V.RDFS.label)
    return one_line(value) if value is not None else None


def _sorted(nodes) -> tuple:
    return tuple(sorted(set(nodes), key=str))


def json_value(literal: Any) -> Any:
    """The Python value of an ``rdf:JSON`` literal; ``ValueError`` when it is not JSON."""
    if literal is None:
        return None
    return loads_json(str(literal))


def _json_or_error(literal: Any) -> Any:
    try:
        return json_value(literal)
    except LimitError as error:
        return JsonError(str(literal), str(error))
    except ValueError:
        return JsonError(str(literal))


@dataclass(frozen=True)
class JsonError:
    """An example value that is not JSON; the shapes check reports it."""

    text: str
    reason: str = ""  # why it was not read, when it is not a syntax error (a cap it exceeds)


def _examples(graph: Graph, task: URIRef) -> tuple[Example, ...]:
    examples = []
    for node in graph.objects(task, V.example):
        examples.append(Example(
            node=_node(node),
            label=_label(graph, node),
            given=_json_or_error(graph.value(node, V.given)),
            replies=_json_or_error(graph.value(node, V.replies)),
            expect=_json_or_error(graph.value(node, V.expect)),
            held_out=_python(graph.value(node, V.heldOut)) is True,
            expect_error=_text(graph, node, V.expectError),
        ))
    return tuple(sorted(examples, key=lambda e: (e.label or "", str(e.node))))


def _scenarios(graph: Graph, process: URIRef) -> tuple[Scenario, ...]:
    scenarios = []
    for node in graph.objects(process, V.scenario):
        submits = tuple(sorted(
            (Submission(node=_node(s), task=_ref(graph.value(s, V.task)),
                        values=_json_or_error(graph.value(s, V.values)))
             for s in graph.objects(node, V.submits)), key=lambda s: (str(s.task), str(s.node))))
        scenarios.append(Scenario(
            node=_node(node), label=_label(graph, node),
            given=_json_or_error(graph.value(node, V.given)), submits=submits,
            replies=_json_or_error(graph.value(node, V.replies)),
            expect_end=_text(graph, node, V.expectEnd),
            expect_flows=_json_or_error(graph.value(node, V.expectFlows)),
            expect=_json_or_error(graph.value(node, V.expect)),
            events=_json_or_error(graph.value(node, V.events)),
            start_at=_text(graph, node, V.startAt),
        ))
    return tuple(sorted(scenarios, key=lambda s: (s.label or "", str(s.node))))


def _parameter(graph: Graph, node: Node, variables: Mapping[URIRef, Variable]) -> Parameter:
    variable = variables.get(node) if isinstance(node, URIRef) else None
    if variable is not None:
        return Parameter(name=variable.name, datatype=variable.datatype, variable=variable.iri)
    return Parameter(name=_text(graph, node, V.name), datatype=_ref(graph.value(node, V.datatype)))


def _parameters(graph: Graph, binding: URIRef,
                variables: Mapping[URIRef, Variable]) -> tuple[Parameter, ...] | None:
    """The binding's ``seam:parameters`` list in order (``rdf:nil``: no arguments); None when
    the model declares none. A list item is a seam:Variable or ``[ seam:name; seam:datatype ]``."""
    head = graph.value(binding, V.parameters)
    if head is None:
        return None
    try:
        items = list(Collection(graph, head))
    except Exception:  # not a well-formed list: the shapes report it
        return ()
    return tuple(_parameter(graph, _node(item), variables) for item in items)


def _result_type(graph: Graph, binding: URIRef, variables: Mapping[URIRef, Variable]) -> ResultType | None:
    """``seam:result``: a seam:Variable (a value of that variable), ``[ seam:datatype ]``, or
    ``[ seam:field ... ]`` (each field a seam:Variable or ``[ seam:name; seam:datatype ]``)."""
    node = graph.value(binding, V.result)
    if node is None:
        return None
    variable = variables.get(node) if isinstance(node, URIRef) else None
    if variable is not None:
        return ResultType(datatype=variable.datatype, variable=variable.iri)
    fields = sorted((_parameter(graph, _node(f), variables) for f in graph.objects(node, V.field)),
                    key=lambda p: p.name or "")
    return ResultType(datatype=_ref(graph.value(node, V.datatype)), fields=tuple(fields))


def _python(value: Any) -> Any:
    return value.toPython() if isinstance(value, Literal) else value


def _field(graph: Graph, node: Term) -> Field:
    in_list = graph.value(node, V.SH["in"])
    in_values = tuple(_python(v) for v in Collection(graph, in_list)) if in_list is not None else None

    def num(p):
        v = graph.value(node, V.SH[p])
        return _python(v) if v is not None else None

    path = graph.value(node, V.SH.path)
    return Field(
        node=_node(node),
        path=path if isinstance(path, URIRef) else None,
        name=_text(graph, node, V.SH.name),
        datatype=_ref(graph.value(node, V.SH.datatype)),
        min_count=num("minCount"), max_count=num("maxCount"),
        in_values=in_values,
        min_inclusive=num("minInclusive"), max_inclusive=num("maxInclusive"),
        min_exclusive=num("minExclusive"), max_exclusive=num("maxExclusive"),
        pattern=_text(graph, node, V.SH.pattern),
        min_length=num("minLength"), max_length=num("maxLength"),
        order=num("order"), default=num("defaultValue"),
    )


def _form(graph: Graph, shape: URIRef) -> FormShape:
    fields = [_field(graph, node) for node in graph.objects(shape, V.SH.property)]
    fields.sort(key=lambda f: (f.order is None, f.order if f.order is not None else 0, str(f.path)))
    target = graph.value(shape, V.SH.targetClass)
    return FormShape(iri=shape, target_class=target if isinstance(target, URIRef) else None,
                     fields=tuple(fields))


def _bpmn_processes(payload: PayloadFile) -> dict[str, tuple[dict, dict]]:
    """Nodes and flows of every ``bpmn:process`` in one BPMN payload, by process id."""
    out = {}
    for proc in payload.tree.getroot().iter(f"{{{V.BPMN_NS}}}process"):
        nodes: dict[str, BpmnNode] = {}
        flows: dict[str, Flow] = {}
        for el in proc.iter():
            if not isinstance(el.tag, str) or el is proc:
                continue
            q = etree.QName(el)
            if q.namespace != V.BPMN_NS or "id" not in el.attrib:
                continue
            if q.localname == "sequenceFlow":
                cond = el.find(f"{{{V.BPMN_NS}}}conditionExpression")
                flows[el.get("id")] = Flow(
                    id=el.get("id"), source=el.get("sourceRef", ""), target=el.get("targetRef", ""),
                    name=_shown_name(el.get("name")),
                    condition=(cond.text or "").strip() if cond is not None else None,
                    language=cond.get("language") if cond is not None else None,
                )
            elif el.getparent() is proc or etree.QName(el.getparent()).localname == "subProcess":
                ref = el.get(f"{{{V.CAMUNDA_NS}}}decisionRef")
                called = el.find(f".//{{{V.ZEEBE_NS}}}calledDecision")
                if called is not None:
                    ref = called.get("decisionId")
                result = el.get(f"{{{V.CAMUNDA_NS}}}resultVariable")
                if called is not None and called.get("resultVariable"):
                    result = called.get("resultVariable")
                nodes[el.get("id")] = BpmnNode(id=el.get("id"), kind=q.localname, name=_shown_name(el.get("name")),
                                               decision_ref=ref, result_variable=result,
                                               default_flow=el.get("default"),
                                               output_mappings=_output_mappings(el),
                                               map_result=el.get(f"{{{V.CAMUNDA_NS}}}mapDecisionResult"),
                                               called_element=_called_element(el))
        out[proc.get("id")] = (nodes, flows)
    return out


def _called_element(element: etree._Element) -> str | None:
    """A call activity's ``calledElement`` or ``zeebe:calledElement processId``, unless an expression."""
    if etree.QName(element).localname != "callActivity":
        return None
    called = element.find(f"{{{V.BPMN_NS}}}extensionElements/{{{V.ZEEBE_NS}}}calledElement")
    text = ((called.get("processId") if called is not None else element.get("calledElement")) or "").strip()
    return text if text and not text.startswith(("=", "${", "#{")) else None


def _required_decisions(payloads: Mapping[URIRef, PayloadFile]) -> dict[tuple[URIRef, str], tuple[str, ...]]:
    """(DMN payload, decision id) -> the ids its ``informationRequirement/requiredDecision``s name."""
    out: dict[tuple[URIRef, str], tuple[str, ...]] = {}
    for iri, payload in payloads.items():
        if payload.format != "dmn":
            continue
        for decision in payload.tree.getroot():
            if not isinstance(decision.tag, str) or etree.QName(decision).localname != "decision":
                continue
            hrefs = [(r.get("href") or "").lstrip("#") for r in decision.iter()
                     if isinstance(r.tag, str) and etree.QName(r).localname == "requiredDecision"]
            if decision.get("id") and any(hrefs):
                out[(iri, decision.get("id"))] = tuple(dict.fromkeys(h for h in hrefs if h))
    return out


def _output_mappings(element: etree._Element) -> tuple[tuple[str, str], ...]:
    """A flow node's output mappings, (target, source): Camunda 7 ``camunda:outputParameter``
    (its text), Camunda 8 ``zeebe:output`` (its ``source``)."""
    extension = element.find(f"{{{V.BPMN_NS}}}extensionElements")
    if extension is None:
        return ()
    found = [(p.get("name") or "", (p.text or "").strip())
             for p in extension.iterfind(f"{{{V.CAMUNDA_NS}}}inputOutput/{{{V.CAMUNDA_NS}}}outputParameter")]
    found += [(o.get("target") or "", (o.get("source") or "").strip())
              for o in extension.iterfind(f"{{{V.ZEEBE_NS}}}ioMapping/{{{V.ZEEBE_NS}}}output")]
    return tuple(found)


def build_view(g: Graph, payloads: Mapping[URIRef, PayloadFile]) -> View:
    """The view of a model's union graph and its parsed payloads, in one pass."""
    labels = {s: one_line(str(o)) for s, o in g.subject_objects(V.RDFS.label) if isinstance(s, URIRef)}

    variables = {
        s: Variable(iri=s, name=_text(g, s, V.name), datatype=_ref(g.value(s, V.datatype)), label=labels.get(s),
                    many=_python(g.value(s, V.list_)) is True)
        for s in _subjects(g, V.Variable)
    }
    bindings = {
        s: Binding(iri=s, name=_text(g, s, V.name), label=labels.get(s), comment=_text(g, s, V.RDFS.comment),
                   parameters=_parameters(g, s, variables), result=_result_type(g, s, variables))
        for s in _subjects(g, V.Binding)
    }

    bpmn = {iri: _bpmn_processes(p) for iri, p in payloads.items() if p.format == "bpmn"}
    processes = {}
    for s in _subjects(g, V.Process):
        payload = _ref(g.value(s, V.payload))
        element = _text(g, s, V.payloadElement)
        in_payload = bpmn.get(payload, {}) if payload is not None else {}
        nodes, flows = in_payload.get(element, ({}, {})) if element is not None else ({}, {})
        processes[s] = Process(iri=s, label=labels.get(s), payload=payload, element_id=element,
                               nodes=nodes, flows=flows, found=element in in_payload,
                               scenarios=_scenarios(g, s), start_form=_ref(g.value(s, V.startForm)))

    tasks = {}
    for kind in (V.UserTask, V.ServiceTask, V.BusinessRuleTask):
        for s in _subjects(g, kind):
            form = g.value(s, V.form)
            decided = g.value(s, V.decidedBy)
            tasks[s] = Task(
                iri=s, kind=kind, label=labels.get(s), comment=_text(g, s, V.RDFS.comment),
                process=_ref(g.value(s, V.inProcess)), element_id=_text(g, s, V.payloadElement),
                handler=_text(g, s, V.handler),
                reads=_sorted(g.objects(s, V.reads)), writes=_sorted(g.objects(s, V.writes)),
                uses=_sorted(g.objects(s, V.uses)), examples=_examples(g, s),
                form=form if isinstance(form, URIRef) else None,
                decided_by=decided if isinstance(decided, URIRef) else None,
                assumes=tuple(sorted(str(o) for o in g.objects(s, V.assumes) if isinstance(o, Literal))),
                raises=tuple(sorted(str(o) for o in g.objects(s, V.raises) if isinstance(o, Literal))),
            )
    gateways = {
        s: Gateway(iri=s, label=labels.get(s), process=_ref(g.value(s, V.inProcess)),
                   element_id=_text(g, s, V.payloadElement))
        for s in _subjects(g, V.Gateway)
    }

    decisions = {}
    required = _required_decisions(payloads)
    for s in _subjects(g, V.Decision):
        inputs = tuple(sorted(
            (DecisionInput(node=_node(n), variable=_text(g, n, V.dec_variable),
                           from_path=_ref(g.value(n, V.dec_fromPath)))
             for n in g.objects(s, V.dec_input)), key=lambda i: (i.variable or "", str(i.node))))
        outputs = tuple(sorted(
            (DecisionOutput(node=_node(n), variable=_text(g, n, V.dec_variable),
                            process_variable=_ref(g.value(n, V.dec_processVariable)))
             for n in g.objects(s, V.dec_output)), key=lambda o: (o.variable or "", str(o.node))))
        decisions[s] = Decision(iri=s, label=labels.get(s), payload=_ref(g.value(s, V.payload)),
                                element_id=_text(g, s, V.dec_payloadElement), inputs=inputs,
                                outputs=outputs, reads=_sorted(g.objects(s, V.reads)),
                                requires=required.get((_ref(g.value(s, V.payload)),  # type: ignore[arg-type]
                                                       _text(g, s, V.dec_payloadElement) or ""), ()))

    form_iris = {t.form for t in tasks.values() if t.form is not None}
    form_iris |= {p.start_form for p in processes.values() if isinstance(p.start_form, URIRef)}
    form_iris |= {s for s in g.subjects(V.RDF.type, V.SH.NodeShape) if isinstance(s, URIRef)}
    forms = {s: _form(g, s) for s in sorted(form_iris, key=str)}

    return View(processes=processes, tasks=tasks, gateways=gateways, variables=variables,
                bindings=bindings, decisions=decisions, forms=forms, labels=labels)


def optional_input(view: View, iri: Any) -> bool:
    """A variable a task may find unset: a form field sets it and none is always submitted
    (required, or with a default the form submits). A variable no form field sets (a task's or a
    decision's output) is always set where it is read (the must-be-set dataflow check sees to it)."""
    fields = view.fields_on(iri)
    return bool(fields) and not any(f.always_submitted for f in fields)

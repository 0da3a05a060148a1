"""Which process variables are surely set when the flow reaches a BPMN node.

A task's ``seam:reads``, a decision input or a gateway condition that reads
a variable no earlier step has set fails only at run time, on the one path
that skips the step (or always, when the step comes later). Each finding
names one such path from a start event.
This module finds it statically: a must-be-set dataflow over the BPMN
sequence flows (a variable is set at a node when it is set on *every* path
from a start event), computed with a worklist in time linear in the flows
times the few rounds a loop needs.

A variable is set by a user task's form fields (``sh:path`` of each
``sh:property`` of its ``seam:form``), by a task's ``seam:writes``, by a
business-rule task's decision outputs (``dec:processVariable``) and by the
Camunda 7 form of a start event (the variables named like its fields); a
called process starts with what the call activities calling it pass in
(:func:`passed_in`).
Sub-processes are entered at their start events and left from their end events; a
boundary event sees what was set before its task ran. A parallel gateway
joins its branches: after it, what any branch set is set.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from lxml import etree
from rdflib import URIRef

from seams import vocab as V
from seams.checks.drd import evaluation_order, supplied_inputs
from seams.errors import ExpressionError
from seams.findings import Finding
from seams.lang.condition import Condition, dialect_of, parse_condition
from seams.lang.condition_tree import DIALECT_NAMES
from seams.model.view import Gateway, Process, Task, View

if TYPE_CHECKING:
    from seams.model.loading import Model

KIND = "decision"
CONDITION = "bpmn:conditionExpression"

FlowElement = Task | Gateway


def variables_set_by(view: View, item: FlowElement) -> frozenset[URIRef]:
    """The variables a flow element sets when it completes."""
    if isinstance(item, Gateway):
        return frozenset()
    found = set(item.writes)
    form = view.forms.get(item.form) if item.form is not None else None
    if form is not None:
        found.update(f.path for f in form.fields if f.path is not None)
    decision = view.decisions.get(item.decided_by) if item.decided_by is not None else None
    if decision is not None:
        found.update(o.process_variable for o in decision.outputs if isinstance(o.process_variable, URIRef))
    return frozenset(found)


def may_leave_unset(view: View, item: FlowElement) -> frozenset[URIRef]:
    """The variables a flow element's form may leave unset: an optional field (no ``sh:minCount``
    of 1 or more) without a ``sh:defaultValue``, which an answer may leave out and the engine then
    does not set (a field with a default is submitted with it, as Tasklist does). Variables the
    element also sets another way (``seam:writes``, a decision output) are not among them."""
    if isinstance(item, Gateway) or item.form is None or item.form not in view.forms:
        return frozenset()
    fields = [(f.path, f.always_submitted) for f in view.forms[item.form].fields if f.path is not None]
    loose = {path for path, always in fields if not always}
    firm: set[URIRef] = set(item.writes)
    decision = view.decisions.get(item.decided_by) if item.decided_by is not None else None
    if decision is not None:
        firm.update(o.process_variable for o in decision.outputs if isinstance(o.process_variable, URIRef))
    firm.update(path for path, always in fields if always)
    return frozenset(loose - firm)


def process_variables(view: View) -> dict[URIRef, set[URIRef]]:
    """The variables each process has: what its elements set or read, and its decisions' inputs
    (worked out once per view)."""
    found = view.memo.get("process_variables")
    if found is None:
        found = view.memo["process_variables"] = _process_variables(view)
    return found


def own_variables(view: View, process: URIRef) -> set[URIRef]:
    """:func:`process_variables` of one process (empty for one with none)."""
    return process_variables(view).get(process, set())


def own_names(view: View, process: URIRef) -> dict[str, tuple[URIRef, ...]]:
    """:func:`own_variables` by name (View.variables_named_for), worked out once per process."""
    memo = view.memo.setdefault("own_names", {})
    if process not in memo:
        memo[process] = view.names_of(own_variables(view, process))
    return memo[process]


def _process_variables(view: View) -> dict[URIRef, set[URIRef]]:
    used: dict[URIRef, set[URIRef]] = defaultdict(set)
    for task in view.tasks.values():
        if task.process is None:
            continue
        variables = used[task.process]
        variables.update(task.reads, variables_set_by(view, task))
        decision = view.decisions.get(task.decided_by) if task.decided_by is not None else None
        if decision is not None:
            variables.update(decision.reads)
            variables.update(i.from_path for i in decision.inputs if isinstance(i.from_path, URIRef))
    return used


def elements_by_id(view: View) -> dict[tuple[URIRef, str], list[FlowElement]]:
    """Model flow elements by (process, BPMN id), built once instead of a scan per lookup."""
    index: dict[tuple[URIRef, str], list[FlowElement]] = defaultdict(list)
    items: list[FlowElement] = [*view.tasks.values(), *view.gateways.values()]
    for item in items:
        if item.process is not None and item.element_id is not None:
            index[(item.process, item.element_id)].append(item)
    return index


class FlowGraph:
    """The BPMN flow of one process as predecessor lists, with sub-process
    entries and exits and boundary events turned into plain edges."""

    def __init__(self, process: Process, element: etree._Element):
        self.preds: dict[str, list[str]] = defaultdict(list)
        self.starts: set[str] = set()
        self.nodes: set[str] = set(process.nodes)
        # a parallel join waits for every incoming branch: what any of them set is set after it
        self.joins: set[str] = {n.id for n in process.nodes.values() if n.kind == "parallelGateway"}
        bpmn = f"{{{V.BPMN_NS}}}"
        exits: dict[str, str] = {}
        for sub in element.iter(f"{bpmn}subProcess"):
            sub_id = sub.get("id")
            if not sub_id:
                continue
            exits[sub_id] = exit_id = f"{sub_id}#exit"
            self.nodes.add(exit_id)
            ends = [e.get("id") for e in sub.findall(f"{bpmn}endEvent") if e.get("id")]
            self.preds[exit_id].extend(ends or [sub_id])
            for start in sub.findall(f"{bpmn}startEvent"):
                if start.get("id"):
                    if sub.get("triggeredByEvent") == "true":
                        self.starts.add(start.get("id"))
                    else:
                        self.preds[start.get("id")].append(sub_id)
        for flow in process.flows.values():
            self.preds[flow.target].append(exits.get(flow.source, flow.source))
        for boundary in element.iter(f"{bpmn}boundaryEvent"):
            attached, own = boundary.get("attachedToRef"), boundary.get("id")
            if attached in self.nodes and own:
                entry = f"{attached}#entry"
                if entry not in self.nodes:
                    self.nodes.add(entry)
                    self.preds[entry], self.preds[attached] = self.preds[attached], [entry]
                self.preds[own].append(entry)
        self.starts.update(start.get("id") for start in element.findall(f"{bpmn}startEvent") if start.get("id"))
        if not self.starts:  # no start event: every top-level node nothing flows into
            self.starts = {c.get("id") for c in element if c.get("id") in process.nodes
                           and not self.preds.get(c.get("id"))}

    def unset_path(self, node: str, variable: URIRef, sets: dict[str, frozenset[URIRef]]) -> list[str]:
        """One path from a start to ``node`` on which no node before ``node`` sets ``variable``
        (BPMN ids; sub-process entries and exits shown as their sub-process), or [] if none.

        Called only for a finding, so the breadth-first search costs nothing on a clean model."""
        succs: dict[str, list[str]] = defaultdict(list)
        for target, preds in self.preds.items():
            for pred in preds:
                succs[pred].append(target)
        parent: dict[str, str | None] = {}
        queue: deque[str] = deque()
        for start in sorted(self.starts):
            if start == node:
                return [start]
            if variable not in sets.get(start, frozenset()):
                parent[start] = None
                queue.append(start)
        while queue:
            current = queue.popleft()
            for succ in sorted(succs[current]):
                if succ == node:
                    path: list[str] = [node]
                    at: str | None = current
                    while at is not None:
                        path.append(at)
                        at = parent[at]
                    shown = [step.split("#")[0] for step in reversed(path) if not step.endswith("#entry")]
                    return [step for i, step in enumerate(shown) if i == 0 or step != shown[i - 1]]
                if succ not in parent and variable not in sets.get(succ, frozenset()):
                    parent[succ] = current
                    queue.append(succ)
        return []

    def must_be_set(self, sets: dict[str, frozenset[URIRef]]) -> dict[str, frozenset[URIRef]]:
        """Per reached node, the variables set on every path from a start to it
        (before the node itself runs). Unreached nodes are absent."""
        succs: dict[str, list[str]] = defaultdict(list)
        for node, preds in self.preds.items():
            for pred in preds:
                succs[pred].append(node)
        after: dict[str, frozenset[URIRef]] = {}
        before: dict[str, frozenset[URIRef]] = {}
        queue, queued = deque(sorted(self.starts)), set(self.starts)
        while queue:
            node = queue.popleft()
            queued.discard(node)
            if node in self.starts:
                here: frozenset[URIRef] = frozenset()
            else:
                reached = [after[p] for p in self.preds[node] if p in after]
                merge = frozenset.union if node in self.joins else frozenset.intersection
                here = merge(*reached)
            before[node] = here
            out = here | sets.get(node, frozenset())
            if after.get(node) != out:
                after[node] = out
                for succ in succs[node]:
                    if succ not in queued:
                        queued.add(succ)
                        queue.append(succ)
        return before


_C, _Z = f"{{{V.CAMUNDA_NS}}}", f"{{{V.ZEEBE_NS}}}"


def bpmn_writes(node: etree._Element) -> tuple[set[str], bool]:
    """Variable names a flow node sets as the engine runs it, beyond the model's ``seam:writes``:
    output mappings (``camunda:outputParameter``, ``zeebe:output``, also on events and call
    activities), a call activity's ``camunda:out`` targets, a Camunda 8 connector's
    ``resultVariable`` and ``resultExpression`` keys, a FEEL script task's ``resultVariable``, a
    multi-instance ``outputCollection``.
    The flag says the node also passes every variable of a called process back (``camunda:out
    variables="all"``, or a Camunda 8 call activity without output mappings)."""
    names: set[str] = set()
    ext = node.find(f"{{{V.BPMN_NS}}}extensionElements")
    everything = False
    if ext is not None:
        names.update(p.get("name") or "" for p in ext.iterfind(f"{_C}inputOutput/{_C}outputParameter"))
        outputs = [o.get("target") or "" for o in ext.iterfind(f"{_Z}ioMapping/{_Z}output")]
        names.update(outputs)
        for out in ext.iterfind(f"{_C}out"):
            if out.get("variables") == "all":
                everything = True
            names.add(out.get("target") or "")
        called = ext.find(f"{_Z}calledElement")
        if called is not None and called.get("propagateAllChildVariables", "true") != "false" and not outputs:
            everything = True
        for header in ext.iterfind(f"{_Z}taskHeaders/{_Z}header"):
            if header.get("key") == "resultVariable":
                names.add(header.get("value") or "")
            elif header.get("key") == "resultExpression":
                names.update(re.findall(r"[{,]\s*([A-Za-z_][A-Za-z0-9_]*)\s*:", header.get("value") or ""))
        for script in ext.iterfind(f"{_Z}script"):  # a FEEL script task: the engine evaluates it
            if (script.get("expression") or "").strip().startswith("="):
                names.add(script.get("resultVariable") or "")
        for loop in ext.iterfind(f"{_Z}loopCharacteristics"):
            names.add(loop.get("outputCollection") or "")
    loop = node.find(f"{{{V.BPMN_NS}}}multiInstanceLoopCharacteristics/{{{V.BPMN_NS}}}extensionElements/"
                     f"{_Z}loopCharacteristics")
    if loop is not None:
        names.add(loop.get("outputCollection") or "")
    if etree.QName(node).localname == "callActivity" and ext is None:
        everything = True  # Camunda 8 default: every child variable comes back
    return {n.strip() for n in names if n and n.strip()}, everything


def bpmn_local_inputs(node: etree._Element) -> set[str]:
    """The local variables a flow node's input mappings set before it runs (``camunda:inputParameter``
    names, ``zeebe:input`` targets): its handler reads them like process variables."""
    ext = node.find(f"{{{V.BPMN_NS}}}extensionElements")
    if ext is None:
        return set()
    names = {p.get("name") or "" for p in ext.iterfind(f"{_C}inputOutput/{_C}inputParameter")}
    names |= {i.get("target") or "" for i in ext.iterfind(f"{_Z}ioMapping/{_Z}input")}
    return {name.strip() for name in names if name.strip()}


def start_form_fields(element: etree._Element) -> dict[str, set[str]]:
    """The Camunda 7 form fields (``camunda:formData``) of each start event of a process, by
    event id: starting the process with that form sets them, though no model element does."""
    camunda, bpmn = f"{{{V.CAMUNDA_NS}}}", f"{{{V.BPMN_NS}}}"
    found: dict[str, set[str]] = {}
    for start in element.iter(f"{bpmn}startEvent"):
        fields = start.findall(f"{bpmn}extensionElements/{camunda}formData/{camunda}formField")
        if start.get("id") and fields:
            found[start.get("id", "")] = {f.get("id", "") for f in fields if f.get("id")}
    return found


def engine_sets(model: Model, process: Process, element: etree._Element,
                _calling: frozenset[URIRef] = frozenset()) -> dict[str, frozenset[URIRef]]:
    """Per BPMN node, the model's variables it sets as the engine runs it beyond the model's own
    facts (:func:`bpmn_writes`); a call activity that passes every variable back sets what its
    called process surely sets by its end (when the called process is in the model)."""
    view = model.view
    out: dict[str, frozenset[URIRef]] = {}
    for node in element.iter():
        if not isinstance(node.tag, str) or node.get("id") not in process.nodes:
            continue
        names, everything = bpmn_writes(node)
        own = own_names(view, process.iri)
        found = {iri for name in names for iri in view.variables_named_for(name, own, process.iri)}
        called = process.nodes[node.get("id", "")].called_element
        if everything and called:
            found |= _called_sets(model, called, _calling | {process.iri})
        if found:
            out[node.get("id", "")] = frozenset(found)
    return out


def _called_sets(model: Model, called: str, calling: frozenset[URIRef]) -> frozenset[URIRef]:
    """What the called process (by BPMN id) sets on every path to its end events."""
    view = model.view
    target = next((p for p in sorted(view.processes.values(), key=lambda p: str(p.iri))
                   if p.element_id == called and p.iri not in calling), None)
    element = _process_element(model, target) if target is not None else None
    if target is None or element is None:
        return frozenset()
    index = elements_by_id(view)
    sets = {node: frozenset().union(*(variables_set_by(view, i) for i in index.get((target.iri, node), [])))
            for node in target.nodes}
    for node, named in engine_sets(model, target, element, calling).items():
        sets[node] = sets.get(node, frozenset()) | named
    before = FlowGraph(target, element).must_be_set(sets)
    ends = [n.id for n in target.nodes.values() if n.kind == "endEvent" and n.id in before]
    if not ends:
        return frozenset()
    return frozenset.intersection(*(before[e] | sets.get(e, frozenset()) for e in ends))


def _process_element(model: Model, process: Process) -> etree._Element | None:
    payload = model.payloads.get(process.payload) if process.payload is not None else None
    if payload is None or payload.format != "bpmn" or not process.found:
        return None
    for element in payload.tree.getroot().iter(f"{{{V.BPMN_NS}}}process"):
        if element.get("id") == process.element_id:
            return element
    return None


def upstream_findings(model: Model) -> list[Finding]:
    """Conditions that do not parse or name unknown variables, and decision
    inputs or conditions that read a variable not surely set before them."""
    view = model.view
    index = elements_by_id(view)
    variables = process_variables(view)
    flows: dict[URIRef, _Dataflow] = {}
    for process in view.processes.values():
        element = _process_element(model, process)
        if element is not None:  # else decisions_check reports the payload element that does not resolve
            flows[process.iri] = _dataflow(model, process, element, variables, index)
    passed: dict[URIRef, frozenset[URIRef]] = {}
    for _ in range(len(flows)):  # a called process that calls another passes on what it was given
        now = passed_in(model, flows)
        if now == passed:
            break
        passed = now
        for iri, given in passed.items():
            flow = flows[iri]
            flows[iri] = _dataflow(model, flow.process, flow.element, variables, index, given)
    found: list[Finding] = []
    for flow in flows.values():
        process = flow.process
        items = {node: index.get((process.iri, node), []) for node in process.nodes}
        found.extend(_decision_input_findings(model, process, items, flow.before, flow.graph, flow.sets))
        # a condition fails on a variable an answer left out: optional fields without a default
        # do not count as set for conditions (docs/conditions.md, "A variable a path leaves unset")
        loose = {node: frozenset().union(*(may_leave_unset(view, i) for i in found_items))
                 for node, found_items in items.items()}
        strict = {node: here - loose.get(node, frozenset()) for node, here in flow.sets.items()}
        strict_before = flow.graph.must_be_set(strict) if strict != flow.sets else flow.before
        found.extend(_condition_findings(model, process, flow.by_name, strict_before, strict, flow.graph, loose))
        local = {node.get("id", ""): names for node in flow.element.iter()
                 if isinstance(node.tag, str) and (names := bpmn_local_inputs(node))}
        found.extend(_read_findings(model, process, items, flow.before, flow.graph, flow.sets, local))
        found.extend(mixed_dialect_findings(process))
    from seams.checks.engine_support import engine_findings

    found.extend(engine_findings(model))
    return found


class _Dataflow:
    """One process's must-be-set dataflow: what each node sets, what is set before it, and the
    variables of the process by name."""

    def __init__(self, process: Process, element: etree._Element, sets: dict[str, frozenset[URIRef]],
                 by_name: dict[str, set[URIRef]], graph: FlowGraph):
        self.process, self.element, self.sets, self.by_name, self.graph = process, element, sets, by_name, graph
        self.before = graph.must_be_set(sets)


def _dataflow(model: Model, process: Process, element: etree._Element, variables: dict[URIRef, set[URIRef]],
              index: dict[tuple[URIRef, str], list[FlowElement]],
              given: frozenset[URIRef] = frozenset()) -> _Dataflow:
    """The dataflow of ``process``; ``given`` are the variables its callers pass in, set at its
    start events (:func:`passed_in`)."""
    view = model.view
    by_name: dict[str, set[URIRef]] = defaultdict(set)
    own = variables.get(process.iri, set())
    own_by_name = view.names_of(own)
    for iri in own:
        name = view.variable_name(iri)
        if name:
            by_name[name].add(iri)
    items = {node: index.get((process.iri, node), []) for node in process.nodes}
    sets = {node: frozenset().union(*(variables_set_by(view, i) for i in found_items))
            for node, found_items in items.items()}
    start_fields = start_form_fields(element)
    shape = view.forms.get(process.start_form) if process.start_form is not None else None
    if shape is not None:
        for start in element.findall(f"{{{V.BPMN_NS}}}startEvent"):
            start_fields.setdefault(start.get("id", ""), set()).update(
                view.variable_name(f.path) or "" for f in shape.fields if f.path is not None)
    if given:
        for start in element.findall(f"{{{V.BPMN_NS}}}startEvent"):
            start_fields.setdefault(start.get("id", ""), set()).update(
                view.variable_name(iri) or "" for iri in given)
    for start, fields in start_fields.items():
        named = {iri for name in fields for iri in view.variables_named_for(name, own_by_name, process.iri)}
        sets[start] = sets.get(start, frozenset()) | named
        for iri in named:
            by_name[view.variable_name(iri) or ""].add(iri)
    for node, found_here in engine_sets(model, process, element).items():
        sets[node] = sets.get(node, frozenset()) | found_here
        for iri in found_here:
            by_name[view.variable_name(iri) or ""].add(iri)
    return _Dataflow(process, element, sets, by_name, FlowGraph(process, element))


def passed_in(model: Model, flows: dict[URIRef, _Dataflow]) -> dict[URIRef, frozenset[URIRef]]:
    """Per process of the project that call activities call, the variables every one of those call
    activities passes in (so they are set at its start): Camunda 7 ``camunda:in`` targets, and
    with ``variables="all"`` every variable set before the call activity; Camunda 8
    ``zeebe:input`` targets, and every variable set before it unless
    ``propagateAllParentVariables="false"`` (a Camunda 8 call activity without extension
    elements passes every variable too). A called process no call activity of the project calls
    gets nothing."""
    view = model.view
    by_id: dict[str, URIRef] = {}
    for iri in sorted(flows, key=str):
        element_id = flows[iri].process.element_id
        if element_id:
            by_id.setdefault(element_id, iri)
    given: dict[URIRef, list[frozenset[URIRef]]] = defaultdict(list)
    for flow in flows.values():
        zeebe = V.ZEEBE_NS in (flow.element.getroottree().getroot().nsmap or {}).values()
        for node in flow.element.iter(f"{{{V.BPMN_NS}}}callActivity"):
            called = flow.process.nodes.get(node.get("id", ""))
            target = by_id.get(called.called_element or "") if called is not None else None
            if target is None or node.get("id", "") not in flow.before:
                continue
            available = flow.before[node.get("id", "")]
            own = own_names(view, target)

            def named(name: str, target: URIRef = target, own: dict[str, tuple[URIRef, ...]] = own) -> set[URIRef]:
                return set(view.variables_named_for(name, own, target))

            given[target].append(_passed(node, available, named, zeebe))
    return {iri: frozenset.intersection(*each) for iri, each in given.items() if each}


def _passed(node: etree._Element, available: frozenset[URIRef], named: Callable[[str], set[URIRef]],
            zeebe: bool) -> frozenset[URIRef]:
    """What one call activity passes in, of the variables ``available`` before it."""
    ext = node.find(f"{{{V.BPMN_NS}}}extensionElements")
    if ext is None:
        return available if zeebe else frozenset()
    out: set[URIRef] = set()
    called = ext.find(f"{_Z}calledElement")
    if called is not None and called.get("propagateAllParentVariables", "true") != "false":
        out |= available
    for item in ext.iterfind(f"{_C}in"):
        if item.get("variables") == "all":
            out |= available
        elif (item.get("target") or "").strip():
            out |= named((item.get("target") or "").strip())
    for item in ext.iterfind(f"{_Z}ioMapping/{_Z}input"):
        if (item.get("target") or "").strip():
            out |= named((item.get("target") or "").strip())
    return frozenset(out)


def _on_path(graph: FlowGraph, node: str, variable: URIRef, sets: dict[str, frozenset[URIRef]]) -> str:
    """``; unset on StartEvent_1 -> Task_A -> node`` for a message ("" if no such path is found)."""
    path = graph.unset_path(node, variable, sets)
    return f"; unset on the path {' -> '.join(path)}" if path else ""


def _read_findings(model: Model, process: Process, items: dict[str, list[FlowElement]],
                   before: dict[str, frozenset[URIRef]], graph: FlowGraph,
                   sets: dict[str, frozenset[URIRef]], local: dict[str, set[str]]) -> Iterable[Finding]:
    """Every seam:reads of every task must be set on every path from the start to the task.

    A business-rule task's reads that are its decision's inputs are reported
    once, by `_decision_input_findings`; a read the task's own input mappings set
    (``local``: ``zeebe:input`` targets, ``camunda:inputParameter`` names) is set."""
    view = model.view
    for node, node_items in sorted(items.items()):
        if node not in before:
            continue
        for task in node_items:
            if not isinstance(task, Task):
                continue
            decision = view.decisions.get(task.decided_by) if task.decided_by is not None else None
            inputs = {i.from_path for d in evaluation_order(view, decision) for i in d.inputs} \
                if decision is not None else set()
            for read in task.reads:
                if read in view.variables and read not in before[node] and read not in inputs \
                        and view.variable_name(read) not in local.get(node, ()):
                    yield Finding(
                        KIND, model.qname(task.iri), "seam:reads",
                        f"reads {model.qname(read)}, which is not set on every path from the start of "
                        f"{model.qname(process.iri)} to {node}{_on_path(graph, node, read, sets)}; "
                        "expected a form field, seam:writes or decision output that sets it earlier")


def mixed_dialect_findings(process: Process) -> Iterable[Finding]:
    """A gateway whose outgoing conditions are written in more than one dialect
    (docs/conditions.md): no engine runs both, so at least one of them never works."""
    for node_id in sorted(process.nodes):
        written = [(flow.id, dialect_of(flow.condition)) for flow in sorted(process.outgoing(node_id),
                                                                            key=lambda f: f.id)
                   if flow.condition]
        if len({dialect for _, dialect in written}) > 1:
            listed = ", ".join(f"{flow_id} {DIALECT_NAMES[dialect]}" for flow_id, dialect in written)
            yield Finding(KIND, node_id, CONDITION,
                          f"outgoing conditions mix dialects ({listed}); write them all in the dialect of the "
                          "process's engine")


def _decision_input_findings(model: Model, process: Process, items: dict[str, list[FlowElement]],
                             before: dict[str, frozenset[URIRef]], graph: FlowGraph,
                             sets: dict[str, frozenset[URIRef]]) -> Iterable[Finding]:
    view = model.view
    for node, node_items in sorted(items.items()):
        if node not in before:
            continue
        for task in node_items:
            decision = view.decisions.get(task.decided_by) if isinstance(task, Task) and task.decided_by else None
            if decision is None:
                continue
            supplied = supplied_inputs(view, decision)
            for owner in evaluation_order(view, decision):
                for given in owner.inputs:
                    if given.variable in supplied or given.from_path not in view.variables \
                            or given.from_path in before[node]:
                        continue
                    yield Finding(
                        KIND, model.qname(task.iri), "seam:decidedBy",
                        f'input "{given.variable}" of {model.qname(owner.iri)} reads '
                        f"{model.qname(given.from_path)} (dec:fromPath), which is not set on every path "
                        f"from the start of {model.qname(process.iri)} to {node}"
                        f"{_on_path(graph, node, given.from_path, sets)}; expected a form field, "
                        "seam:writes or decision output that sets it earlier")


def _condition_findings(model: Model, process: Process, by_name: dict[str, set[URIRef]],
                        before: dict[str, frozenset[URIRef]], sets: dict[str, frozenset[URIRef]],
                        graph: FlowGraph, loose: dict[str, frozenset[URIRef]]) -> Iterable[Finding]:
    """Conditions that do not parse, name no variable, or read one some path leaves unset: the
    line names the shortest such path from a start (breadth-first, ids in sorted order)."""
    for flow in sorted(process.flows.values(), key=lambda f: f.id):
        if flow.condition is None:
            continue
        try:
            condition: Condition = parse_condition(flow.condition, where=flow.id, language=flow.language)
        except ExpressionError as exc:
            yield Finding(KIND, flow.id, CONDITION, reason(exc, flow.id))
            continue
        for name in sorted(condition.names):
            if name not in by_name:
                declared = _declared(model, name, process.iri)
                if declared is not None:  # declared, but no element of the process sets or reads it yet
                    yield Finding(KIND, flow.id, CONDITION,
                                  f'reads "{name}" ({model.qname(declared)}), which no task of '
                                  f"{model.qname(process.iri)} sets yet; expected it in the seam:writes "
                                  "or the form of the task that sets it")
                    continue
                known = ", ".join(sorted(by_name)) or "none"
                yield Finding(KIND, flow.id, CONDITION,
                              f'names "{name}", which is no variable of {model.qname(process.iri)} '
                              f"(expected one of: {known})")
            elif flow.source in before:
                available = before[flow.source] | sets.get(flow.source, frozenset())
                if not by_name[name] & available:
                    variable = sorted(by_name[name], key=str)[0]
                    yield Finding(KIND, flow.id, CONDITION,
                                  _unset_read(model, process, flow.source, name, variable, graph, sets, loose))


def _unset_read(model: Model, process: Process, node: str, name: str, variable: URIRef, graph: FlowGraph,
                sets: dict[str, frozenset[URIRef]], loose: dict[str, frozenset[URIRef]]) -> str:
    """``"approved" read by gateway Gateway_1 is not set on the path StartEvent_1 -> Task_A ->
    Gateway_1; ...`` with the next step: a default for an optional field on the path that
    could set it, else an element that sets it earlier."""
    kind = process.nodes[node].kind if node in process.nodes else ""
    reader = f"gateway {node}" if kind.endswith("Gateway") else f"{kind or 'element'} {node}"
    path = graph.unset_path(node, variable, sets)
    where = (f"the path {' -> '.join(path)}" if path
             else f"every path from the start of {model.qname(process.iri)} to {node}")
    optional = [step for step in path if variable in loose.get(step, frozenset())]
    if optional:
        step = f"the form of {optional[0]} may leave it out (an optional field without sh:defaultValue); " \
               "expected a sh:defaultValue or sh:minCount 1 on that field, or a seam:writes or decision " \
               "output that sets it earlier"
    else:
        step = "expected a form field, seam:writes or decision output that sets it earlier"
    return f'"{name}" read by {reader} is not set on {where}; {step}'


def _declared(model: Model, name: str, process: URIRef) -> URIRef | None:
    """The first (by IRI) seam:Variable named ``name`` anywhere in the model, if any (a name
    none of ``process``'s variables has: what it reads of the model by name)."""
    found = sorted(model.view.variables_named_for(name, {}, process), key=str)
    return found[0] if found else None


def reason(exc: ExpressionError, where: str) -> str:
    """The error's text without the ``where: `` prefix the subject already shows."""
    text = str(exc)
    return text[len(where) + 2:] if text.startswith(f"{where}: ") else text

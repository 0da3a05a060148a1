"""Which process variables are surely set when the flow reaches a BPMN node.

A decision input or a gateway condition that reads a variable no earlier
step has set fails only at run time, on the one path that skips the step.
This module finds it statically: a must-be-set dataflow over the BPMN
sequence flows (a variable is set at a node when it is set on *every* path
from a start event), computed with a worklist in time linear in the flows
times the few rounds a loop needs.

A variable is set by a user task's form fields (``sh:path`` of each
``sh:property`` of its ``seam:form``), by a task's ``seam:writes`` and by a
business-rule task's decision outputs (``dec:processVariable``). Sub-processes
are entered at their start events and left from their end events; a
boundary event sees what was set before its task ran.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

from lxml import etree
from rdflib import URIRef

from seams import vocab as V
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


def process_variables(view: View) -> dict[URIRef, set[URIRef]]:
    """The variables each process has: what its elements set or read, and its decisions' inputs."""
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
    for item in (*view.tasks.values(), *view.gateways.values()):
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
                here = frozenset()
            else:
                reached = [after[p] for p in self.preds[node] if p in after]
                here = frozenset.intersection(*reached)
            before[node] = here
            out = here | sets.get(node, frozenset())
            if after.get(node) != out:
                after[node] = out
                for succ in succs[node]:
                    if succ not in queued:
                        queued.add(succ)
                        queue.append(succ)
        return before


def _process_element(model: Model, process: Process) -> etree._Element | None:
    payload = model.payloads.get(process.payload)
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
    found: list[Finding] = []
    for process in view.processes.values():
        element = _process_element(model, process)
        if element is None:
            continue  # decisions_check reports a process payload element that does not resolve
        by_name: dict[str, set[URIRef]] = defaultdict(set)
        for iri in variables.get(process.iri, ()):
            if view.variable_name(iri):
                by_name[view.variable_name(iri)].add(iri)
        items = {node: index.get((process.iri, node), []) for node in process.nodes}
        sets = {node: frozenset().union(*(variables_set_by(view, i) for i in found_items))
                for node, found_items in items.items()}
        before = FlowGraph(process, element).must_be_set(sets)
        found.extend(_decision_input_findings(model, process, items, before))
        found.extend(_condition_findings(model, process, by_name, before, sets))
        found.extend(mixed_dialect_findings(process))
    return found


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
                             before: dict[str, frozenset[URIRef]]) -> Iterable[Finding]:
    view = model.view
    for node, node_items in sorted(items.items()):
        if node not in before:
            continue
        for task in node_items:
            decision = view.decisions.get(task.decided_by) if isinstance(task, Task) and task.decided_by else None
            if decision is None:
                continue
            for given in decision.inputs:
                if given.from_path in view.variables and given.from_path not in before[node]:
                    yield Finding(
                        KIND, model.qname(task.iri), "seam:decidedBy",
                        f'input "{given.variable}" of {model.qname(decision.iri)} reads '
                        f"{model.qname(given.from_path)} (dec:fromPath), which is not set on every path "
                        f"from the start of {model.qname(process.iri)} to {node}; expected a form field, "
                        "seam:writes or decision output that sets it earlier")


def _condition_findings(model: Model, process: Process, by_name: dict[str, set[URIRef]],
                        before: dict[str, frozenset[URIRef]],
                        sets: dict[str, frozenset[URIRef]]) -> Iterable[Finding]:
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
                known = ", ".join(sorted(by_name)) or "none"
                yield Finding(KIND, flow.id, CONDITION,
                              f'names "{name}", which is no variable of {model.qname(process.iri)} '
                              f"(expected one of: {known})")
            elif flow.source in before:
                available = before[flow.source] | sets.get(flow.source, frozenset())
                if not by_name[name] & available:
                    yield Finding(KIND, flow.id, CONDITION,
                                  f'reads "{name}", which is not set on every path from the start of '
                                  f"{model.qname(process.iri)} to {flow.source}; expected a form field, "
                                  "seam:writes or decision output that sets it earlier")


def reason(exc: ExpressionError, where: str) -> str:
    """The error's text without the ``where: `` prefix the subject already shows."""
    text = str(exc)
    return text[len(where) + 2:] if text.startswith(f"{where}: ") else text

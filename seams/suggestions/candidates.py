"""Which gateways hold an inline rule, and what is known at each of them.

A gateway whose outgoing conditions read a variable that no decision sets
computes its rule in the BPMN condition text itself (``days > 20``); that is
what ``condition-to-dmn`` moves into a DMN table. A gateway that only reads
decision outputs (``approval == "auto"``) already has its rule in DMN and is
left alone. A condition that does not parse (a script condition among them) or a
gateway whose conditions mix dialects is the decision checks' to report, so
such a gateway is not offered either.

The gateway's default flow (its BPMN ``default`` attribute) is taken when no
other condition holds; it keeps no condition of its own (BPMN ignores one),
so only the other flows' conditions are read. A gateway whose ``default``
names no outgoing flow of it routes in a way nobody can tell, and is not
offered.
"""

from __future__ import annotations

from dataclasses import dataclass

from rdflib import URIRef

from seams import vocab as V
from seams.checks.flow import FlowGraph, elements_by_id, variables_set_by
from seams.errors import ExpressionError, ResolutionError
from seams.lang.condition import Condition, parse_condition
from seams.lang.condition_tree import FeelExpr
from seams.model.loading import Model
from seams.model.view import Flow, Gateway, Process, View


@dataclass(frozen=True)
class Candidate:
    """An inline-rule gateway with its outgoing flows (document order) and their conditions."""

    process: Process
    gateway: Gateway
    flows: tuple[Flow, ...]
    conditions: dict[str, Condition]  # flow id -> parsed condition (conditional non-default flows only)
    known: dict[str, URIRef]  # seam:name -> variable set on every path to the gateway
    default: str | None = None  # the default flow's id: taken when no other flow's condition holds

    @property
    def conditional_flows(self) -> tuple[str, ...]:
        """The outgoing flows that carry a condition after the change: all but the default flow."""
        return tuple(flow.id for flow in self.flows if flow.id != self.default)

    @property
    def dialect(self) -> str:
        """The dialect the gateway's conditions are written in (a candidate's conditions agree)."""
        return next(iter(self.conditions.values())).dialect

    @property
    def element_id(self) -> str:
        return self.gateway.element_id or ""

    @property
    def names(self) -> tuple[str, ...]:
        """Every variable the original conditions read, sorted."""
        return tuple(sorted({n for c in self.conditions.values() for n in c.names}))


def decision_set_names(view: View, process: URIRef) -> frozenset[str]:
    """Names of the variables the decisions of the process's business-rule tasks set."""
    names = set()
    for task in view.tasks.values():
        if task.kind != V.BusinessRuleTask or task.process != process:
            continue
        decision = view.decisions.get(task.decided_by) if task.decided_by else None
        for output in decision.outputs if decision else ():
            name = view.variable_name(output.process_variable) if output.process_variable else None
            if name:
                names.add(name)
    return frozenset(names)


def find_candidates(model: Model) -> list[Candidate]:
    """Every inline-rule gateway of the model, ordered by process IRI then BPMN id."""
    view = model.view
    found = []
    for gateway in sorted(view.gateways.values(), key=lambda g: (str(g.process), g.element_id or "")):
        process = view.processes.get(gateway.process) if gateway.process else None
        if process is None or not gateway.element_id or gateway.element_id not in process.nodes:
            continue
        flows = tuple(process.outgoing(gateway.element_id))
        default = process.nodes[gateway.element_id].default_flow
        if default is not None and default not in {flow.id for flow in flows}:
            continue
        conditions = _parsed(tuple(flow for flow in flows if flow.id != default))
        if conditions is None or not conditions:
            continue
        read = {name for condition in conditions.values() for name in condition.names}
        if read <= decision_set_names(view, process.iri):
            continue
        found.append(Candidate(process=process, gateway=gateway, flows=flows, conditions=conditions,
                               known=known_at(model, process, gateway.element_id), default=default))
    return found


def candidate_for(candidates: list[Candidate], model: Model, gateway_id: str) -> Candidate:
    """The candidate with BPMN id ``gateway_id``; a ResolutionError names what the model has."""
    for candidate in candidates:
        if candidate.element_id == gateway_id:
            return candidate
    offered = [c.element_id for c in candidates]
    if any(g.element_id == gateway_id for g in model.view.gateways.values()):
        raise ResolutionError(f"gateway {gateway_id} reads only decision outputs; it holds no inline rule",
                              offered)
    raise ResolutionError(f"gateway {gateway_id}: the model has no seam:Gateway with this "
                          f"seam:payloadElement", offered)


def _parsed(flows: tuple[Flow, ...]) -> dict[str, Condition] | None:
    conditions = {}
    for flow in flows:
        if flow.condition is None:
            continue
        try:
            conditions[flow.id] = parse_condition(flow.condition, where=flow.id, language=flow.language)
        except ExpressionError:
            return None
        if isinstance(conditions[flow.id].tree, FeelExpr):
            return None  # only the interpreter reads it: no samples decide it, no table restates it
    if len({condition.dialect for condition in conditions.values()}) > 1:
        return None  # mixed dialects: the decision checks report it
    return conditions


def known_at(model: Model, process: Process, node_id: str) -> dict[str, URIRef]:
    """Variables set on every path from a start of the process to ``node_id``, by seam:name.

    The decision checks' must-be-set analysis (seams.checks.flow), so a
    suggestion's inputs are exactly the variables those checks accept: one
    set only on one branch (the reviewer's ``approved``) is not known after
    the branches join.
    """
    view = model.view
    payload = model.payloads.get(process.payload) if process.payload else None
    element = next((e for e in payload.tree.getroot().iter(f"{{{V.BPMN_NS}}}process")
                    if e.get("id") == process.element_id), None) if payload else None
    if element is None:
        return {}
    index = elements_by_id(view)
    sets = {node: frozenset().union(*(variables_set_by(view, item) for item in index.get((process.iri, node), ())))
            for node in process.nodes}
    before = FlowGraph(process, element).must_be_set(sets).get(node_id, frozenset())
    known: dict[str, URIRef] = {}
    for iri in sorted(before, key=str):
        name = view.variable_name(iri)
        if name:
            known.setdefault(name, iri)
    return known


def candidate_with(model: Model, gateway_id: str, conditions: dict[str, str]) -> Candidate:
    """The gateway ``gateway_id`` of ``model`` as a candidate with the given conditions
    (flow id -> condition text) in place of its own: the original routing, read back from
    a suggestion record, beside a model the suggestion has already changed.

    A ResolutionError names a gateway or flow the model does not have; an
    ExpressionError a condition that does not parse."""
    view = model.view
    gateway = next((g for g in view.gateways.values() if g.element_id == gateway_id), None)
    process = view.processes.get(gateway.process) if gateway is not None and gateway.process else None
    if gateway is None or process is None or gateway_id not in process.nodes:
        raise ResolutionError(f"gateway {gateway_id}: the model has no seam:Gateway with this seam:payloadElement")
    flows = tuple(process.outgoing(gateway_id))
    unknown = sorted(set(conditions) - {flow.id for flow in flows})
    if unknown:
        raise ResolutionError(f"gateway {gateway_id}: no outgoing flow {unknown[0]}")
    parsed = {flow.id: parse_condition(conditions[flow.id], where=flow.id) for flow in flows if flow.id in conditions}
    return Candidate(process=process, gateway=gateway, flows=flows, conditions=parsed,
                     known=known_at(model, process, gateway_id), default=process.nodes[gateway_id].default_flow)

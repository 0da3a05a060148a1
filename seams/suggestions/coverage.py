"""Which gateway flows and decision rules no scenario exercises, and values that would.

A scenario run leaves a trace: the sequence flows it took and the decision
rules that matched (``Trace``). Over the model's processes, every outgoing
flow of a gateway and every rule of a decision a business-rule task
evaluates is a *target*; a target no trace contains is *uncovered*. The
report is one line per uncovered target (docs/plugin.md, "Scenario
coverage"), in process, gateway/decision and document order, so the same
runs give the same bytes.

For an uncovered target the report adds a *seed* where one is cheap to find:
values of the variables the gateway's conditions read (or the decision's
inputs) that take that flow (match that rule), found by running the
conditions and tests on the same samples ``seams suggest`` checks a routing
with (seams.suggestions.routing). A gateway variable a decision sets is
traced back one step: the seed then gives the decision's inputs for a rule
that outputs the needed value. No seed is printed when none of the samples
works (conditions over two variables, rules with names in their entries).
A rule's seed follows the table's hit policy: values on which the engine
applies that rule (the one that decides, or one of those collected).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rdflib import URIRef

from seams.errors import ExpressionError
from seams.lang.condition import Condition, parse_condition
from seams.lang.dmn_support import Rule, Table, applied_rules, find_decision, read_decision
from seams.model.loading import Model
from seams.model.view import Decision, Process
from seams.suggestions.routing import _render, _samples, _spread

GATEWAY_KINDS = frozenset({"exclusiveGateway", "inclusiveGateway", "eventBasedGateway", "complexGateway"})
"""Gateways whose outgoing flows are choices (a parallel gateway takes all of them)."""


@dataclass(frozen=True)
class Trace:
    """What one scenario run exercised: flow ids taken and (decision id, rule id) pairs matched."""

    process: str  # the process: its bpmn:process id or the prefixed name of its seam:Process
    flows: frozenset[str]
    rules: frozenset[tuple[str, str]]

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Trace:
        """From the facts a scenario item reports: ``{"process", "flows": [flow ids],
        "decisions": {decision id: [rule ids]}}`` (seams.runs.RunResult's flows and decisions)."""
        decisions = data.get("decisions") or {}
        return cls(process=str(data.get("process", "")),
                   flows=frozenset(str(f) for f in data.get("flows") or ()),
                   rules=frozenset((str(d), str(r)) for d, rules in decisions.items() for r in rules or ()))


@dataclass(frozen=True)
class Uncovered:
    """One target no trace exercised; ``seed`` the values that would, when found."""

    kind: str  # "flow" or "rule"
    owner: str  # the gateway id, or the decision id
    target: str  # the flow id, or the rule id
    process: str  # the bpmn:process id
    name: str | None = None  # the flow's name
    seed: dict[str, Any] | None = None
    setters: tuple[str, ...] = ()  # where the seed's variables are set: user task ids, "start"

    def line(self) -> str:
        """``uncovered flow Process_X Gateway_Y Flow_Z (name)`` / ``uncovered rule Process_X
        Decision_D Rule_R``, then ``: e.g. {...} via Task_A, start`` when a seed was found."""
        text = f"uncovered {self.kind} {self.process} {self.owner} {self.target}"
        if self.name:
            text += f" ({self.name})"
        if self.seed is not None:
            text += f": e.g. {_render(self.seed)}"
            if self.setters:
                text += f" via {', '.join(self.setters)}"
        return text


@dataclass(frozen=True)
class Report:
    flows: int  # targets of each kind
    rules: int
    uncovered: tuple[Uncovered, ...]
    scenarios: int  # traces read

    def lines(self) -> list[str]:
        covered_flows = self.flows - sum(1 for u in self.uncovered if u.kind == "flow")
        covered_rules = self.rules - sum(1 for u in self.uncovered if u.kind == "rule")
        head = (f"seams coverage: {covered_flows}/{self.flows} gateway flows, "
                f"{covered_rules}/{self.rules} decision rules exercised by {self.scenarios} scenario run(s)")
        return [head, *(u.line() for u in self.uncovered)]


def coverage(model: Model, traces: Iterable[Trace], *, seeds: bool = True) -> Report:
    """The targets of every process of the model, less those a trace exercised."""
    traces = list(traces)
    uncovered: list[Uncovered] = []
    flows = rules = 0
    view = model.view
    for process in sorted(view.processes.values(), key=lambda p: p.element_id or ""):
        if not process.found or not process.element_id:
            continue
        pid = process.element_id
        names = {pid, model.qname(process.iri), str(process.iri)}
        taken = {f for t in traces if t.process in names for f in t.flows}
        matched = {rule for t in traces if t.process in names for rule in t.rules}
        for node in _in_document_order(process, GATEWAY_KINDS):
            outgoing = process.outgoing(node)
            for flow in outgoing:
                flows += 1
                if flow.id not in taken:
                    seed = flow_seed(model, process, node, flow.id) if seeds else None
                    uncovered.append(Uncovered("flow", node, flow.id, pid, flow.name, seed,
                                               setters_of(model, process, seed)))
        for decision_id, table, decision in _decisions_of(model, process):
            for rule in table.rules:
                rules += 1
                if (decision_id, rule.id) not in matched:
                    seed = rule_seed(model, decision, table, rule) if seeds else None
                    uncovered.append(Uncovered("rule", decision_id, rule.id, pid, None, seed,
                                               setters_of(model, process, seed)))
    return Report(flows=flows, rules=rules, uncovered=tuple(uncovered), scenarios=len(traces))


def _in_document_order(process: Process, kinds: frozenset[str]) -> list[str]:
    return [node.id for node in process.nodes.values() if node.kind in kinds and len(process.outgoing(node.id)) > 1]


def _decisions_of(model: Model, process: Process) -> list[tuple[str, Table, Decision]]:
    """(decision id, table, model decision) of each decision a business-rule task of the
    process evaluates, once each, in the tasks' document order."""
    out: list[tuple[str, Table, Decision]] = []
    seen: set[str] = set()
    for node in process.nodes.values():
        if node.kind != "businessRuleTask" or not node.decision_ref or node.decision_ref in seen:
            continue
        seen.add(node.decision_ref)
        found = _table(model, node.decision_ref)
        if found is not None:
            out.append((node.decision_ref, *found))
    return out


def _table(model: Model, decision_id: str) -> tuple[Table, Decision] | None:
    for decision in model.view.decisions.values():
        if decision.element_id != decision_id or decision.payload is None:
            continue
        payload = model.payloads.get(decision.payload)
        if payload is None or payload.format != "dmn" or payload.dmn is None:
            continue
        element = find_decision(payload.tree.getroot(), decision_id, payload.dmn.model)
        if element is None:
            continue
        table, problems = read_decision(element)
        return (table, decision) if table is not None and not problems else None
    return None


# ------------------------------------------------------------------ seeds


def setters_of(model: Model, process: Process, seed: Mapping[str, Any] | None) -> tuple[str, ...]:
    """Where a scenario puts each seed variable, in the seed's order, once each: the BPMN id of
    the first user task (document order) whose form has the field, the service task that
    writes it (its handler sets it from the scenario's replies), else ``start`` (the start
    variables)."""
    if not seed:
        return ()
    view = model.view
    by_element = {t.element_id: t for t in view.tasks.values() if t.process == process.iri and t.element_id}
    where: dict[str, str] = {}
    for node in process.nodes.values():
        task = by_element.get(node.id)
        if task is None:
            continue
        form = view.forms.get(task.form) if task.form is not None else None
        names = [view.variable_name(f.path) for f in form.fields if f.path is not None] if form else []
        names += [view.variable_name(w) for w in task.writes] if node.kind == "serviceTask" else []
        for name in names:
            if name:
                where.setdefault(name, node.id)
    return tuple(dict.fromkeys(where.get(name, "start") for name in seed))



def _variable(model: Model, name: str) -> URIRef | None:
    return next((iri for iri, v in sorted(model.view.variables.items(), key=lambda kv: str(kv[0]))
                 if v.name == name), None)


def _column_variable(decision: Decision, column: str) -> URIRef | None:
    return next((i.from_path for i in decision.inputs if i.variable == column), None)


SINGLE_RESULT_POLICIES = frozenset({"UNIQUE", "FIRST", "PRIORITY", "ANY"})
"""Hit policies whose outcome is one rule's output (the others collect every match)."""


def rule_seed(model: Model, decision: Decision, table: Table, rule: Rule) -> dict[str, Any] | None:
    """Input values on which the engine applies ``rule`` as the table's hit policy does
    (seams.lang.dmn_support.applied_rules): UNIQUE the only match, FIRST the first match,
    PRIORITY the match whose output ranks first, ANY a match every other match agrees with,
    COLLECT (with or without an aggregator), RULE ORDER and OUTPUT ORDER one of the matches.
    Under the four single-result policies the table's outcome is then the rule's output."""
    if any(t.names for t in rule.tests):
        return None
    columns = list(table.inputs)
    domains: list[list[Any]] = []
    for i, column in enumerate(columns):
        tests = [r.tests[i] for r in table.rules if not r.tests[i].names]
        values: list[Any] = [v for v in _samples(model, _column_variable(decision, column), tests, [])
                             if _matches(rule.tests[i], v)]
        if not values:
            return None
        domains.append(values)
    for combo in _spread(domains):
        env = dict(zip(columns, combo, strict=True))
        if _applied(table, rule, [r for r in table.rules if _all_match(r, columns, env)]):
            return {_name(model, decision, c): v for c, v in env.items()}
    return None


def _applied(table: Table, rule: Rule, hits: list[Rule]) -> bool:
    """Whether the engine applies ``rule`` when ``hits`` (in rule order) match."""
    if rule not in hits:
        return False
    if table.hit_policy == "UNIQUE":
        return len(hits) == 1  # more than one match is the engine's error, no outcome
    if table.hit_policy == "ANY":
        return all(r.results == rule.results for r in hits)  # disagreeing matches are an error
    by_id = {r.id: r for r in hits}
    return rule.id in applied_rules(table.hit_policy, list(by_id), lambda rid: table.rank(by_id[rid]))


def _name(model: Model, decision: Decision, column: str) -> str:
    """The process variable's seam:name a column reads (the column text when none maps it)."""
    iri = _column_variable(decision, column)
    return (model.view.variable_name(iri) if iri is not None else None) or column


def _matches(tests: Any, value: Any) -> bool:
    try:
        return bool(tests.matches(value))
    except ExpressionError:
        return False


def _all_match(rule: Rule, columns: list[str], env: Mapping[str, Any]) -> bool:
    return all(_matches(t, env[c]) for t, c in zip(rule.tests, columns, strict=True))


def flow_seed(model: Model, process: Process, gateway_id: str, flow_id: str) -> dict[str, Any] | None:
    """Values of the gateway's condition variables on which its conditions take ``flow_id``
    (an exclusive gateway: the first true condition in document order, else the default)."""
    flows = process.outgoing(gateway_id)
    default = process.nodes[gateway_id].default_flow
    conditions: dict[str, Condition] = {}
    for flow in flows:
        if flow.id == default or flow.condition is None:
            continue
        try:
            conditions[flow.id] = parse_condition(flow.condition, where=flow.id, language=flow.language)
        except ExpressionError:
            return None
    names = sorted({n for c in conditions.values() for n in c.names})
    decided = _decision_outputs(model, process)
    domains: list[list[Any]] = []
    for name in names:
        bounds = [b for c in conditions.values() for b in c.boundaries().get(name, [])]
        values: list[Any] = (_output_values(decided[name]) if name in decided
                             else list(_samples(model, _variable(model, name), [], bounds)))
        if not values:
            return None
        domains.append(values)
    exclusive = process.nodes[gateway_id].kind == "exclusiveGateway"
    for combo in _spread(domains):
        env = dict(zip(names, combo, strict=True))
        if flow_id not in _taken(flows, conditions, default, env, exclusive=exclusive):
            continue
        seed = _through_decisions(model, env, decided)
        if seed is not None:
            return seed
    return None


def _taken(flows: Any, conditions: Mapping[str, Condition], default: str | None,
           env: Mapping[str, Any], *, exclusive: bool) -> list[str]:
    chosen = []
    for flow in flows:
        if flow.id == default:
            continue
        try:
            holds = flow.id not in conditions or conditions[flow.id].evaluate(env)
        except ExpressionError:
            return []
        if holds:
            chosen.append(flow.id)
            if exclusive:
                break
    return chosen or ([default] if default else [])


def _decision_outputs(model: Model, process: Process) -> dict[str, tuple[Decision, Table, str]]:
    """Variable name -> (decision, table, output column) for what the process's decisions set."""
    view = model.view
    out: dict[str, tuple[Decision, Table, str]] = {}
    for _, table, decision in _decisions_of(model, process):
        for output in decision.outputs:
            name = view.variable_name(output.process_variable) if output.process_variable else None
            column = output.variable or (table.outputs[0].name if len(table.outputs) == 1 else None)
            if name and column is not None:
                out.setdefault(name, (decision, table, column))
    return out


def _output_values(entry: tuple[Decision, Table, str]) -> list[Any]:
    _, table, column = entry
    names = list(table.output_names)
    index = names.index(column) if column in names else 0
    values: dict[str, Any] = {}
    for rule in table.rules:
        if index < len(rule.results):
            values.setdefault(repr(rule.results[index]), rule.results[index])
    return list(values.values())


def _through_decisions(model: Model, env: Mapping[str, Any],
                       decided: Mapping[str, tuple[Decision, Table, str]]) -> dict[str, Any] | None:
    """``env`` with each decision-set variable replaced by decision inputs that yield its value."""
    seed = {k: v for k, v in env.items() if k not in decided}
    for name in sorted(set(env) & set(decided)):
        decision, table, column = decided[name]
        if table.hit_policy not in SINGLE_RESULT_POLICIES:
            return None  # the variable holds a list or an aggregate, no one rule's output
        names = list(table.output_names)
        index = names.index(column) if column in names else 0
        found = None
        for rule in table.rules:
            if index < len(rule.results) and rule.results[index] == env[name] \
                    and type(rule.results[index]) is type(env[name]):
                found = rule_seed(model, decision, table, rule)
                if found is not None and all(seed.get(k, v) == v for k, v in found.items()):
                    break
                found = None
        if found is None:
            return None
        seed.update(found)
    return dict(sorted(seed.items()))


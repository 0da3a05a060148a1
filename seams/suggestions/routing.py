"""Does the rewritten gateway route every input the way the original did?

Shapes, decision checks and generation accept a decision table that is
well formed but wrong (``> 21`` where the condition said ``> 20``). So the
suggestion is also run: for sample inputs built from the literals of the
original conditions, the rules' tests and the fields' shapes, the original
conditions pick a set of flows, the decision table (with its hit policy)
picks an output value, and the new conditions over that value pick a set of
flows. Any difference is a finding naming the gateway, the flow and the input.

Both sides route the same way (``taken``): the non-default flows whose
condition holds, a flow without a condition always holding, and the
gateway's default flow when none does. Comparing the whole set rather
than the engine's first match is stricter on purpose: the rewrite must not
lean on the order of the flows in the file.

The samples suffice because every condition and test changes its answer
only at its literals (seams.lang.feel.sample_values): a value on each side of
each literal, per input, crossed over the inputs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from itertools import product
from math import prod
from typing import Any, cast

from rdflib import URIRef

from seams import vocab as V
from seams.errors import ExpressionError, SeamsError
from seams.findings import Finding
from seams.lang.condition import Condition, parse_condition
from seams.lang.feel import UnaryTests, parse_literal, parse_unary_tests, sample_values
from seams.lang.values import kind_of
from seams.model.loading import Model
from seams.model.view import Decision, Field
from seams.suggestions.answer import Suggestion, feel_literal
from seams.suggestions.candidates import Candidate, candidate_with

KIND = "routing"
MAX_SAMPLES = 5000
"""Most sample inputs run; above it an evenly spaced, fixed subset of the cross product is used."""
MAX_FINDINGS = 10
"""Most differences reported; the first few already say what the rules got wrong."""


@dataclass(frozen=True)
class RoutingResult:
    samples: int
    findings: list[Finding]


@dataclass(frozen=True)
class RoutingTable:
    """A decision table as the routing check reads it: texts as written (FEEL)."""

    decision_id: str
    inputs: tuple[str, ...]  # input names, in column order
    outputs: tuple[str, ...]  # output names (the process variables they set), in column order
    hit_policy: str
    rules: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]  # (unary tests per input, literal per output)

    @classmethod
    def of(cls, suggestion: Suggestion) -> RoutingTable:
        """The table a suggestion asks for (what seams_edit writes into the DMN file)."""
        return cls(suggestion.decision_id, suggestion.inputs, suggestion.outputs, suggestion.hit_policy,
                   tuple((tuple(text for _, text in rule.when), tuple(feel_literal(v) for v in rule.results))
                         for rule in suggestion.rules))


def check_routing(model: Model, candidate: Candidate, suggestion: Suggestion, *,
                  trace: Trace | None = None) -> RoutingResult:
    """Compare the original and the suggested routing on every sample input."""
    return compare_routing(model, candidate, RoutingTable.of(suggestion), dict(suggestion.conditions), trace=trace)


Trace = list[tuple[dict[str, object], list[str], list[str] | None]]
"""Each sample input run, with the flows taken before and after (None: no single answer after)."""


def compare_routing(model: Model, candidate: Candidate, decision: RoutingTable,
                    conditions: dict[str, str], *, trace: Trace | None = None) -> RoutingResult:
    """The candidate's (original) conditions against ``decision`` followed by the new
    ``conditions`` (flow id -> condition text over the decision's output); every sample run is
    appended to ``trace`` when one is given (the review page shows them, seams_cli's suggest --show)."""
    names = sorted(set(decision.inputs) | set(candidate.names))
    tests = {name: [parse_unary_tests(entries[i], where=name) for entries, _ in decision.rules
                    for i, n in enumerate(decision.inputs) if n == name] for name in names}
    boundaries: dict[str, list[object]] = {name: [] for name in names}
    for condition in candidate.conditions.values():
        for name, bounds in condition.boundaries().items():
            boundaries[name].extend(bounds)
    domains = [_samples(model, candidate.known.get(name), tests[name], boundaries[name]) for name in names]
    table = [(tuple(parse_unary_tests(text, where=name) for name, text in zip(decision.inputs, entries, strict=True)),
              tuple(parse_literal(output, where="then") for output in outputs)) for entries, outputs in decision.rules]
    new_conditions = {flow: parse_condition(text, where=flow) for flow, text in conditions.items()}
    order = [flow.id for flow in candidate.flows]

    combos = _spread(domains)
    findings: list[Finding] = []
    for values in combos:
        env = dict(zip(names, values, strict=True))
        try:
            before = taken(candidate, candidate.conditions, env)
        except ExpressionError as exc:  # the engine stops on this input before the change already
            findings.append(_stopped(candidate, env, exc))
            continue
        hits = [i for i, (entries, _) in enumerate(table)
                if all(entry.matches(env[name]) for entry, name in zip(entries, decision.inputs, strict=True))]
        if decision.hit_policy == "UNIQUE" and len(hits) > 1:
            rules = " and ".join(str(i + 1) for i in hits)
            findings.append(Finding(KIND, candidate.element_id, decision.decision_id,
                                    f"{_render(env)} matches rules {rules} of a UNIQUE table"))
        else:
            results = table[hits[0]][1] if hits else (None,) * len(decision.outputs)
            decided = dict(zip(decision.outputs, results, strict=True))
            try:
                after = taken(candidate, new_conditions, decided)
            except ExpressionError as exc:
                findings.append(_stopped(candidate, env, exc))
                continue
            if trace is not None:
                trace.append((env, before, after))
            if before != after:
                flow = next(f for f in order if (f in before) != (f in after))
                findings.append(Finding(KIND, candidate.element_id, flow,
                                        f"{_render(env)} took {_flows(before)} before, {_flows(after)} after"))
        if len(findings) >= MAX_FINDINGS:
            break
    return RoutingResult(samples=len(combos), findings=findings)


ORIGINAL_CONDITIONS = "original_conditions"
"""The key of a suggestion record holding the gateway's conditions before the change."""


def original_conditions(candidate: Candidate) -> dict[str, str]:
    """The candidate's conditions as written (flow id -> text), for the suggestion record."""
    return {flow.id: flow.condition for flow in candidate.flows
            if flow.id in candidate.conditions and flow.condition is not None}


def routing_of_record(model: Model, record: Mapping[str, object]) -> RoutingResult:
    """The routing gate of a pending suggestion, run in the model the suggestion changed:
    the gateway's original conditions (from the record) against the changed model's own
    routing, its decision as written in the DMN file and its new flow conditions.

    Whatever cannot be read is a SeamsError naming the record key or the model element."""
    from seams.lang.dmn_support import find_decision, read_decision

    suggestion = record.get("suggestion")
    conditions = record.get(ORIGINAL_CONDITIONS)
    if not isinstance(suggestion, Mapping) or not isinstance(conditions, Mapping) \
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in conditions.items()):
        raise SeamsError(f"the suggestion record has no {ORIGINAL_CONDITIONS}; run seams suggest again")
    gateway_id, decision = suggestion.get("gateway"), suggestion.get("decision")
    decision_id = decision.get("id") if isinstance(decision, Mapping) else None
    if not isinstance(gateway_id, str) or not isinstance(decision_id, str):
        raise SeamsError("the suggestion record names no gateway and decision id")
    candidate = candidate_with(model, gateway_id, dict(conditions))
    found = [d for d in model.view.decisions.values() if d.element_id == decision_id and d.payload]
    payload = model.payloads.get(found[0].payload) if found and found[0].payload is not None else None
    element = (find_decision(payload.tree.getroot(), decision_id, payload.dmn.model)
               if payload is not None and payload.format == "dmn" and payload.dmn is not None else None)
    if element is None:
        raise SeamsError(f"decision {decision_id}: not in the changed model's DMN payloads")
    table, problems = read_decision(element)
    if table is None or problems:
        problem = problems[0] if problems else None
        raise SeamsError(f"decision {decision_id}: "
                         f"{problem.message if problem else 'not a decision table seams evaluates'}")
    names = _output_variables(model, found[0], table.output_names)
    routing = RoutingTable(decision_id, table.inputs, names, table.hit_policy,
                           tuple((rule.inputs, rule.outputs) for rule in table.rules))
    new = {flow.id: flow.condition for flow in candidate.flows
           if flow.id != candidate.default and flow.condition is not None}
    return compare_routing(model, candidate, routing, new)


def _output_variables(model: Model, decision: Decision, columns: tuple[str, ...]) -> tuple[str, ...]:
    """The process variable each output column sets (its ``dec:output``): the names the
    gateway's new conditions read. A table of one output sets it whatever its column's name."""
    view = model.view
    by_column = {o.variable: view.variable_name(o.process_variable) for o in decision.outputs
                 if o.variable is not None and o.process_variable is not None}
    if len(columns) == 1 and len(decision.outputs) == 1 and decision.outputs[0].process_variable is not None:
        name = view.variable_name(decision.outputs[0].process_variable)
        if name is not None:
            return (name,)
    names = []
    for column in columns:
        name = by_column.get(column) or (column if len(columns) == 1 else None)
        if name is None:
            raise SeamsError(f"decision {decision.element_id}: output {column!r} has no dec:output "
                             "with a dec:processVariable")
        names.append(name)
    return tuple(names)


def taken(candidate: Candidate, conditions: dict[str, Condition], env: dict[str, object]) -> list[str]:
    """The flows the gateway takes for ``env``: every non-default flow whose condition holds
    (one without a condition always holds), else the default flow, else none."""
    chosen = [flow for flow in candidate.conditional_flows
              if flow not in conditions or conditions[flow].evaluate(env)]
    return chosen or ([candidate.default] if candidate.default else [])


def _stopped(candidate: Candidate, env: dict[str, object], exc: ExpressionError) -> Finding:
    """A sample on which a JUEL or FEEL condition stops its engine (a refused coercion, a non-boolean)."""
    flow, _, reason = str(exc).partition(": ")
    return Finding(KIND, candidate.element_id, flow, f"{_render(env)}: {reason}")


def _flows(flows: list[str]) -> str:
    return " and ".join(flows) if flows else "no flow"


def _render(env: dict[str, object]) -> str:
    """The sample as JSON, numbers as written (a Decimal is not quoted)."""
    parts = []
    for name, value in env.items():
        if isinstance(value, Decimal):
            text = str(value)
        elif isinstance(value, date):
            text = json.dumps(value.isoformat())
        else:
            text = json.dumps(value, ensure_ascii=False)
        parts.append(f"{json.dumps(name)}: {text}")
    return "{" + ", ".join(parts) + "}"


def _spread(domains: list[list[object]]) -> list[tuple[object, ...]]:
    """The cross product, or MAX_SAMPLES evenly spaced members of it (mixed-radix indices)."""
    total = prod(len(d) for d in domains)
    if total <= MAX_SAMPLES:
        return list(product(*domains))
    picked = []
    for k in range(MAX_SAMPLES):
        index, values = k * total // MAX_SAMPLES, []
        for domain in reversed(domains):
            index, digit = divmod(index, len(domain))
            values.append(domain[digit])
        picked.append(tuple(reversed(values)))
    return picked


def _samples(model: Model, variable: URIRef | None, tests: list[UnaryTests],
             boundaries: list[object]) -> list[object]:
    """One input's samples: around the rules' and conditions' literals and the shape's bounds,
    kept to the variable's datatype and its shape's domain."""
    view = model.view
    datatype = view.variables[variable].datatype if variable in view.variables else None
    fields = list(view.fields_on(variable)) if variable is not None else []
    literals = [parse_unary_tests(feel_literal(value), where="sample")
                for value in boundaries + _bounds(fields) if _literal_ok(value)]
    found = sample_values([*tests, *literals])
    if datatype == V.XSD.boolean or any(kind_of(v) == "boolean" for v in found):
        found += [False, True]
    for field in fields:
        found += list(field.in_values or ())
    values = [_typed(v, datatype) for v in found]
    values = [v for v in values if v is not None and all(_allowed(v, f) for f in fields)]
    unique: dict[tuple[str, object], object] = {}
    for value in values:
        unique.setdefault((kind_of(value), value), value)
    # FEEL's times and durations are "other" to kind_of and do not order with each other: by text
    ordered = sorted(unique.values(), key=lambda v: (kind_of(v), str(v) if kind_of(v) in ("date", "other") else v))
    if datatype != V.XSD.integer:
        ordered = _with_midpoints(ordered)
    return ordered or [_default(datatype)]


def _with_midpoints(values: list[object]) -> list[object]:
    """A number between each two neighbouring numbers, so a decimal input meets the
    gaps between integer literals too (``> 1000`` and ``>= 1001`` differ at 1000.5)."""
    out: list[object] = []
    for value in values:
        previous = out[-1] if out else None
        if kind_of(value) == "number" and kind_of(previous) == "number":
            out.append((Decimal(cast(Any, previous)) + Decimal(cast(Any, value))) / 2)
        out.append(value)
    return out


def _literal_ok(value: object) -> bool:
    return kind_of(value) in ("number", "string", "boolean", "date")


def _bounds(fields: Iterable[Field]) -> list[object]:
    return [b for f in fields for b in (f.min_inclusive, f.max_inclusive, f.min_exclusive, f.max_exclusive)
            if b is not None]


def _typed(value: Any, datatype: URIRef | None) -> object | None:
    """The value as the variable's datatype holds it, or None when it cannot hold it."""
    kind = kind_of(value)
    if datatype == V.XSD.integer:
        if kind != "number" or value != int(value):
            return None
        return int(value)
    if datatype == V.XSD.decimal:
        return value if kind == "number" else None
    kinds = {V.XSD.string: "string", V.XSD.boolean: "boolean", V.XSD.date: "date"}
    expected = kinds.get(datatype) if datatype is not None else None
    return value if expected is None or kind == expected else None


def _allowed(value: object, field: Field) -> bool:
    """Whether the field's shape admits the value (sh:in and the numeric bounds)."""
    if field.in_values is not None and not any(kind_of(value) == kind_of(v) and value == v
                                                for v in field.in_values):
        return False
    if kind_of(value) != "number":
        return True
    checks = ((field.min_inclusive, lambda b: value >= b), (field.max_inclusive, lambda b: value <= b),
              (field.min_exclusive, lambda b: value > b), (field.max_exclusive, lambda b: value < b))
    return all(bound is None or kind_of(bound) != "number" or test(bound) for bound, test in checks)


def _default(datatype: URIRef | None) -> object:
    """A value for an input nothing constrains: any one value routes like all others."""
    return {V.XSD.integer: 0, V.XSD.decimal: Decimal(0), V.XSD.boolean: False,
            V.XSD.date: date(2000, 1, 1)}.get(datatype, "") if datatype is not None else ""

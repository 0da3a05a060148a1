"""Scenarios against the model and the BPMN: what SHACL cannot say about them (docs/scenarios.md).

The seam shapes check each scenario's parts are there once and of their
datatype; this module checks that they name what exists: a label unique in
its process, user tasks of that process, an end event and sequence flows of
its BPMN, variables and bindings of the model, values each variable's type
and form fields allow, and at least one expectation. A scenario that fails
here would fail its item for a reason that is not the process's fault.
"""

from __future__ import annotations

import keyword
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from seams import vocab as V
from seams.findings import Finding
from seams.model.view import JsonError

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.view import Process, Scenario

KIND = "shape"


def scenario_findings(model: Model) -> list[Finding]:
    from seams.checks.types import variable_types

    view = model.view
    # the model's names, once: per scenario they cost a pass over every variable of every process
    names = _ModelNames(
        variables=_names({v.name: v.iri for v in view.variables.values()}, len(view.variables)),
        bindings=set(_names({b.name: b.iri for b in view.bindings.values()}, len(view.bindings)) or {}),
        types=variable_types(model))
    found: list[Finding] = []
    for process in model.view.processes.values():
        seen: set[str] = set()
        for scenario in process.scenarios:
            if scenario.label is not None:
                if scenario.label in seen:
                    found.append(Finding(KIND, model.qname(process.iri), "seam:scenario",
                                         f'"{scenario.label}": another scenario of the process has this '
                                         "rdfs:label; each needs its own (it names the item)"))
                seen.add(scenario.label)
            found.extend(_scenario_findings(model, process, scenario, names))
    return sorted(set(found))


@dataclass(frozen=True)
class _ModelNames:
    variables: dict[str, Any] | None  # variable name -> IRI; None when names are missing or taken twice
    bindings: set[str]
    types: dict[Any, Any]  # variable IRI -> its type (seams.checks.types.variable_types)


def _scenario_findings(model: Model, process: Process, scenario: Scenario, names: _ModelNames
                       ) -> Iterable[Finding]:
    view = model.view
    subject = model.qname(process.iri)
    label = f'"{scenario.label}": ' if scenario.label else ""

    def finding(message: str) -> Finding:
        return Finding(KIND, subject, "seam:scenario", f"{label}{message}")

    variables, bindings, types = names.variables, names.bindings, names.types

    def values(value: Any, predicate: str, names: dict[str, Any] | set[str] | None, what: str) -> Iterable[Finding]:
        if value is None:
            return
        if isinstance(value, JsonError) or not isinstance(value, dict):
            yield finding(f"{predicate} is not a JSON object")
            return
        if names is None:
            return  # a name that is missing, no identifier or taken twice: the shapes report it
        for key in sorted(value):
            if key not in names:
                yield finding(f'{predicate} names "{key}", which is no {what} of the model')
            elif isinstance(names, dict) and names[key] in types:
                for _, message in types[names[key]].problems(value[key])[:1]:
                    yield finding(f'{predicate} "{key}": {message}')

    yield from values(scenario.given, "seam:given", variables, "variable")
    yield from values(scenario.expect, "seam:expect", variables, "variable")
    yield from values(scenario.replies, "seam:replies", bindings if len(bindings) == len(view.bindings) else None,
                      "binding")
    from seams.scenarios import called_processes, run_scope

    in_run = {process.iri, *(p.iri for p in called_processes(model, process))}
    scope = run_scope(model, process)
    submitted: set[str] = set()
    for submission in scenario.submits:
        task = view.tasks.get(submission.task) if submission.task is not None else None
        if task is None or task.kind != V.UserTask or task.process not in in_run:
            named = model.qname(submission.task) if submission.task is not None else "nothing"
            yield finding(f"seam:submits names {named}, which is no user task of {subject} "
                          "or of a process it calls")
            continue
        if task.element_id in submitted:
            yield finding(f"seam:submits gives {model.qname(task.iri)} twice")
        submitted.add(task.element_id or "")
        # a JSON array: what each visit of the task submits, in order
        for each in submission.values if isinstance(submission.values, list) else [submission.values]:
            yield from values(each, f"seam:values of {model.qname(task.iri)}", variables, "variable")
    if scenario.expect_end is not None:
        node = process.nodes.get(scenario.expect_end)
        if process.found and (node is None or node.kind != "endEvent"):
            ends = ", ".join(sorted(n.id for n in process.nodes.values() if n.kind == "endEvent")) or "none"
            yield finding(f'seam:expectEnd "{scenario.expect_end}" is no end event of {process.element_id} '
                          f"(end events: {ends})")
    flows = scenario.expect_flows
    if flows is not None:
        if isinstance(flows, JsonError) or not isinstance(flows, list) or not all(isinstance(f, str) for f in flows):
            yield finding("seam:expectFlows is not a JSON array of sequence-flow ids")
        elif process.found:
            for flow in flows:
                if flow not in scope.flows:
                    yield finding(f'seam:expectFlows names "{flow}", which is no sequence flow of '
                                  f"{process.element_id}")
    if scenario.expect_end is None and scenario.expect_flows is None and scenario.expect is None:
        yield finding("a scenario needs an expectation: seam:expectEnd, seam:expectFlows or seam:expect")


def _names(named: dict[str | None, Any], count: int) -> dict[str, Any] | None:
    """Name -> IRI when each of ``count`` things has its own name that is an identifier, else
    None: the scenario's keys are then not judged (the shapes report the names)."""
    if len(named) != count or any(n is None or not n.isidentifier() or keyword.iskeyword(n) for n in named):
        return None
    return {str(n): iri for n, iri in named.items()}

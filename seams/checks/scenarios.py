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
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from seams import vocab as V
from seams.findings import Finding
from seams.model.view import JsonError

if TYPE_CHECKING:
    from rdflib import URIRef

    from seams.model.loading import Model
    from seams.model.view import Process, Scenario

KIND = "shape"


def scenario_findings(model: Model) -> list[Finding]:
    from seams.checks.types import variable_types

    types = variable_types(model)  # once: per scenario they cost a pass over every variable of every process
    found: list[Finding] = []
    for process in model.view.processes.values():
        names = _run_names(model, process, types)
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
    variables: Mapping[str, Any] | None  # variable name -> its IRI (None: several share it); None: not judged
    bindings: Mapping[str, Any] | None
    types: dict[Any, Any]  # variable IRI -> its type (seams.checks.types.variable_types)


class _RunNames(Mapping[str, Any]):
    """What a run's keys name: the run's own (its processes' variables and start forms'
    fields; the bindings its service tasks use) where one has the name, else any of the model
    (the name is then what the process reads of the model by name: View.wide_names); a name
    several share maps to None (its value is not typed: whose type would it be?)."""

    def __init__(self, model: Model, process: URIRef, own: dict[str, tuple[Any, ...]],
                 every: Callable[[str], tuple[Any, ...]]):
        self.view, self.process, self.own, self.every = model.view, process, own, every

    def _found(self, name: str) -> tuple[Any, ...]:
        mine = self.own.get(name, ())
        if mine:
            return mine
        self.view.wide_names.setdefault(self.process, set()).add(name)
        return self.every(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and bool(self._found(name))

    def __getitem__(self, name: str) -> Any:
        found = self._found(name)
        if not found:
            raise KeyError(name)
        return found[0] if len(found) == 1 else None

    def __iter__(self) -> Iterator[str]:
        return iter(())  # never listed: only looked up

    def __len__(self) -> int:
        return 0


def _run_names(model: Model, process: Process, types: dict[Any, Any]) -> _ModelNames:
    """What one process's scenarios may name (:class:`_RunNames`). None (keys not judged)
    while one of the run's variables or bindings has no name that is an identifier, or two of
    them share one: a key may mean either (the shapes report the name)."""
    from seams.checks.flow import own_variables
    from seams.scenarios import called_processes

    view = model.view
    run = [process, *called_processes(model, process)]
    own: set[Any] = set().union(*(own_variables(view, p.iri) for p in run))
    for each in run:
        form = view.forms.get(each.start_form) if each.start_form is not None else None
        own.update(f.path for f in (form.fields if form is not None else ()) if f.path is not None)
    variables = [view.variables[v] for v in own if v in view.variables]
    tasks = _tasks_by_process(view)
    bindings = {view.bindings[b] for p in run for t in tasks.get(p.iri, ()) for b in t.uses if b in view.bindings}
    return _ModelNames(
        variables=_names_of(model, process.iri, variables, view.variables_named),
        bindings=_names_of(model, process.iri, list(bindings), lambda name: _bindings_named(view).get(name, ())),
        types=types)


def _names_of(model: Model, process: URIRef, own: list[Any], every: Callable[[str], tuple[Any, ...]]
              ) -> _RunNames | None:
    if any(not _identifier(each.name) for each in own) or len({each.name for each in own}) != len(own):
        return None
    return _RunNames(model, process, {str(each.name): (each.iri,) for each in own}, every)


def _tasks_by_process(view: Any) -> dict[Any, list[Any]]:
    found: dict[Any, list[Any]] | None = view.memo.get("tasks_by_process")
    if found is None:
        found = {}
        for task in view.tasks.values():
            found.setdefault(task.process, []).append(task)
        view.memo["tasks_by_process"] = found
    return found


def _bindings_named(view: Any) -> dict[str, tuple[Any, ...]]:
    found = view.memo.get("bindings_by_name")
    if found is None:
        grouped: dict[str, list[Any]] = {}
        for binding in view.bindings.values():
            if binding.name:
                grouped.setdefault(binding.name, []).append(binding.iri)
        found = view.memo["bindings_by_name"] = {name: tuple(iris) for name, iris in grouped.items()}
    return found


def _identifier(name: str | None) -> bool:
    return name is not None and name.isidentifier() and not keyword.iskeyword(name)


def _scenario_findings(model: Model, process: Process, scenario: Scenario, names: _ModelNames
                       ) -> Iterable[Finding]:
    view = model.view
    subject = model.qname(process.iri)
    label = f'"{scenario.label}": ' if scenario.label else ""

    def finding(message: str) -> Finding:
        return Finding(KIND, subject, "seam:scenario", f"{label}{message}")

    variables, bindings, types = names.variables, names.bindings, names.types

    def values(value: Any, predicate: str, names: Mapping[str, Any] | set[str] | None, what: str) -> Iterable[Finding]:
        if value is None:
            return
        if isinstance(value, JsonError) or not isinstance(value, dict):
            yield finding(f"{predicate} is not a JSON object")
            return
        if names is None:
            return  # a name that is missing or no identifier: the shapes report it
        for key in sorted(value):
            if key not in names:
                yield finding(f'{predicate} names "{key}", which is no {what}')
            elif isinstance(names, Mapping) and names[key] is not None and names[key] in types:
                for _, message in types[names[key]].problems(value[key])[:1]:
                    yield finding(f'{predicate} "{key}": {message}')

    yield from values(scenario.given, "seam:given", variables, "variable of the model")
    yield from values(scenario.expect, "seam:expect", variables, "variable of the model")
    yield from values(scenario.replies, "seam:replies", bindings, "binding of the model")
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
            yield from values(each, f"seam:values of {model.qname(task.iri)}", variables, "variable of the model")
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



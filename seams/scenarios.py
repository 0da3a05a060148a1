"""Scenarios: what one run of a process must do, and how a run is held to it (docs/scenarios.md).

A ``seam:scenario`` of a process gives the start variables, the data each
user task submits, the binding replies, and the expected outcome: the end
event, the sequence flows taken in order, and final variables (only those
listed are compared). This module turns the view's :class:`Scenario` into
plain run inputs (:func:`scenario_plan`) and compares a run's
:class:`seams.runs.RunResult` with it (:func:`scenario_problems`), naming
the first element where the run left the expected path, the error that
stopped it, or the variable that differs. It needs no engine: the runs come
from seams_runtime.engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from seams.lang.field_values import same, show
from seams.model.view import JsonError

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.view import Process, Scenario
    from seams.runs import RunResult


@dataclass(frozen=True)
class ScenarioPlan:
    """A scenario as plain data: what the engine needs to run it, what the run must show."""

    label: str
    given: dict[str, Any] = field(default_factory=dict)
    # user task BPMN id -> values, or a list of them: a task visited again submits the next
    submits: dict[str, Any] = field(default_factory=dict)
    events: tuple[Any, ...] = ()  # element ids, or {"element", "variables"}: what the catch events get
    start_at: str | None = None  # the BPMN id the run starts before (seam:startAt)
    replies: dict[str, Any] = field(default_factory=dict)
    expect_end: str | None = None
    expect_flows: tuple[str, ...] | None = None
    expect: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None  # why the scenario cannot run (its JSON is not of its shape)


def called_processes(model: Model, process: Process) -> list[Process]:
    """The processes ``process`` calls (its call activities' ``calledElement``), transitively, that
    the model holds, in the order first called."""
    by_id = model.view.processes_by_element_id
    found: list[Process] = []
    todo = [process]
    while todo:
        current = todo.pop(0)
        for node in current.nodes.values():
            called = by_id.get(node.called_element) if node.called_element else None
            if called is not None and called is not process and called not in found:
                found.append(called)
                todo.append(called)
    return found


def run_scope(model: Model, process: Process) -> Process:
    """The process with the nodes and flows of every process it calls: what one run passes through
    (its own elements win where an id repeats)."""
    from dataclasses import replace

    nodes, flows = {}, {}
    for each in reversed([process, *called_processes(model, process)]):
        nodes.update(each.nodes)
        flows.update(each.flows)
    return replace(process, nodes=nodes, flows=flows)


def scenario_labels(process: Process) -> list[tuple[str, Scenario]]:
    """(item label, scenario) in label order; a repeated or missing label gets a number, so
    every item has its own name (the shapes check reports the repeat)."""
    counts: dict[str, int] = {}
    out = []
    for number, scenario in enumerate(process.scenarios, 1):
        label = scenario.label or f"scenario {number}"
        counts[label] = counts.get(label, 0) + 1
        out.append((label if counts[label] == 1 else f"{label} ({counts[label]})", scenario))
    return out


EVENTS_SHAPE = 'a JSON array of element ids or {"element": id, "variables": {...}} objects'
"""What a run's events are (``seam:events``, ``seams run --events``)."""


def run_events_valid(value: Any) -> bool:
    """Whether ``value`` is a run's events: element ids (a timer fires, a message without data
    arrives) or ``{"element": id, "variables": {...}}`` objects, in order."""
    return isinstance(value, list) and all(
        isinstance(e, str) or (isinstance(e, dict) and isinstance(e.get("element"), str)
                               and isinstance(e.get("variables", {}), dict)) for e in value)


def scenario_plan(model: Model, label: str, scenario: Scenario) -> ScenarioPlan:
    """The scenario ready to run; ``problem`` says why not when a part is not of its JSON shape."""
    view = model.view
    problems = []

    def obj(value: Any, predicate: str) -> dict[str, Any]:
        if value is None:
            return {}
        if isinstance(value, JsonError) or not isinstance(value, dict):
            problems.append(f"{predicate} is not a JSON object")
            return {}
        return value

    submits: dict[str, Any] = {}
    for submission in scenario.submits:
        task = view.tasks.get(submission.task) if submission.task is not None else None
        if task is None or task.element_id is None:
            problems.append(f"seam:submits names {submission.task and model.qname(submission.task)}, "
                            "which is no user task of the model")
            continue
        if isinstance(submission.values, list):
            submits[task.element_id] = [obj(v, f"seam:values of {model.qname(task.iri)}")
                                        for v in submission.values]
        else:
            submits[task.element_id] = obj(submission.values, f"seam:values of {model.qname(task.iri)}")
    events: tuple[Any, ...] = ()
    if scenario.events is not None:
        if run_events_valid(scenario.events):
            events = tuple(scenario.events)
        else:
            problems.append(f"seam:events is not {EVENTS_SHAPE}")
    flows = None
    if scenario.expect_flows is not None:
        value = scenario.expect_flows
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            flows = tuple(value)
        else:
            problems.append("seam:expectFlows is not a JSON array of sequence-flow ids")
    return ScenarioPlan(label=label, given=obj(scenario.given, "seam:given"), submits=submits, events=events,
                        start_at=scenario.start_at,
                        replies=obj(scenario.replies, "seam:replies"), expect_end=scenario.expect_end,
                        expect_flows=flows, expect=obj(scenario.expect, "seam:expect"),
                        problem=problems[0] if problems else None)


def scenario_problems(process: Process, plan: ScenarioPlan, result: RunResult) -> list[tuple[str, str]]:
    """(predicate, message) for where ``result`` leaves ``plan``: first the path (the first flow
    that differs, named by the element it left from), else the error that stopped the run,
    then the end event, then each expected variable. Empty when the run is the scenario's."""
    path = _path_problem(process, plan, result)
    if path is not None:
        return [path]
    if result.error is not None:
        where = f"stopped at {_element(process, result.error_element)}" if result.error_element else "stopped"
        return [("seam:scenario", f"{where}: {result.error}")]
    problems = []
    if plan.expect_end is not None and result.end_event != plan.expect_end:
        problems.append(("seam:expectEnd", f"ended at {_element(process, result.end_event)}, expected "
                                           f"{_element(process, plan.expect_end)}"))
    for name in sorted(plan.expect):
        want = plan.expect[name]
        if name not in result.variables:
            problems.append(("seam:expect", f"variable {name!r} is missing, expected {show(want)}"))
        elif not same(result.variables[name], want):
            problems.append(("seam:expect", f"variable {name!r} is {show(result.variables[name])}, "
                                            f"expected {show(want)}"))
    return problems


def _path_problem(process: Process, plan: ScenarioPlan, result: RunResult) -> tuple[str, str] | None:
    """The expected flows must be taken in their order; flows between them that the scenario
    does not list are allowed (as camunda-bpm-assert's ``hasPassedInOrder``), so a task put
    before a gateway keeps the scenarios that list the gateway's branches. The first expected
    flow not taken is named by the element it leaves, with the flow the run took from there."""
    if plan.expect_flows is None:
        return None
    taken, position = result.flows, 0
    for number, want in enumerate(plan.expect_flows, 1):
        if want in taken[position:]:
            position = taken.index(want, position) + 1
            continue
        flow = process.flows.get(want)
        source = flow.source if flow is not None else None
        other = next((got for got in taken[position:]
                      if source is not None and got in process.flows and process.flows[got].source == source), None)
        if other is not None:
            return ("seam:expectFlows", f"left the expected path at {_element(process, source)}: took "
                                        f"{_flow(process, other)}, expected {_flow(process, want)} "
                                        f"(expected flow {number})")
        if result.error is not None:
            return None  # the run stopped first: its error says where
        after = f" after {_flow(process, plan.expect_flows[number - 2])}" if number > 1 else ""
        return ("seam:expectFlows", f"never took {_flow(process, want)} (expected flow {number}): the run did "
                                    f"not reach {_element(process, source)}{after}; it ended at "
                                    f"{_element(process, result.end_event)}")
    return None


def _element(process: Process, element: str | None) -> str:
    if element is None:
        return "no end event"
    node = process.nodes.get(element)
    name = f' "{node.name}"' if node is not None and node.name else ""
    return f"{node.kind if node is not None else 'element'} {element}{name}"


def _flow(process: Process, flow_id: str) -> str:
    flow = process.flows.get(flow_id)
    if flow is None:
        return flow_id
    name = f' "{flow.name}"' if flow.name else ""
    return f"{flow_id}{name} to {flow.target}"


def user_task_values(plan: ScenarioPlan) -> Any:
    """``user_task_data`` for the engine: each user task's submitted values (none: an empty object)."""

    visits: dict[str, int] = {}

    def values(info: Any) -> Mapping[str, Any]:
        entry = plan.submits.get(info.element_id, {})
        if isinstance(entry, list):  # the n-th visit submits the n-th object
            visit = visits.get(info.element_id, 0)
            visits[info.element_id] = visit + 1
            return entry[visit] if visit < len(entry) else {}
        return entry

    return values

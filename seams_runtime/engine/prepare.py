"""What a process needs before any instance runs, built once per model and process.

The BPMN is parsed into SpiffWorkflow specs (seams_runtime.engine.spiff),
with every process it calls that the project's payloads hold; every flow
condition is parsed with seams.lang.condition, the decisions module is
rendered from the model and loaded, and each service task's acceptance spec
is looked up: a scenario item or a ``seams run`` then only runs. Elements
the engine does not run are refused here, naming the first, with the words
``seams check`` uses (seams.checks.engine_support).
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from rdflib import URIRef

from seams import vocab as V
from seams.errors import ExpressionError, ResolutionError
from seams_runtime.engine.errors import EngineRefused
from seams_runtime.engine.spiff import parse_specs

if TYPE_CHECKING:
    from seams.generators.decisions import DecisionCall
    from seams.lang.condition import Condition
    from seams.model.loading import Model
    from seams.model.view import BpmnNode, Flow, Process, Task
    from seams.project.layout import Project
    from seams_runtime.task_specs import TaskSpec


def find_process(model: Model, process: Any) -> Process:
    """The process ``process`` names: a view Process, its IRI, prefixed name, BPMN id or label."""
    view = model.view
    if getattr(process, "iri", None) in view.processes:
        return view.processes[process.iri]
    wanted = str(process)
    for candidate in view.processes.values():
        if wanted in (str(candidate.iri), model.qname(candidate.iri), candidate.element_id, candidate.label):
            return candidate
    raise ResolutionError(f"no process {wanted!r} in the model",
                          [model.qname(p.iri) for p in view.processes.values()])


@dataclass
class Prepared:
    """A process ready to run: its specs, conditions, decisions and tasks, and those of the
    processes it calls (keyed by BPMN process id)."""

    project: Project
    model: Model
    process: Process
    spec: Any  # the SpiffWorkflow BpmnProcessSpec
    subprocess_specs: dict[str, Any]
    processes: dict[str, Process]  # BPMN process id -> the model's process (this one and those it calls)
    owners: dict[str, str]  # SpiffWorkflow spec name (a process or sub-process id) -> BPMN process id
    conditions: dict[tuple[str, str], Condition | ExpressionError]  # (process id, flow id) -> condition
    tasks: dict[tuple[str, str], Task]  # (process id, BPMN id) -> the model's task
    _decisions: tuple[dict[URIRef, DecisionCall], dict[str, Any], dict[str, Any]] | None = None
    _task_specs: dict[tuple[str, str], TaskSpec] = field(default_factory=dict)

    def node(self, process_id: str, element: str) -> BpmnNode | None:
        process = self.processes.get(process_id)
        return process.nodes.get(element) if process is not None else None

    def flows(self, process_id: str) -> dict[str, Flow]:
        process = self.processes.get(process_id)
        return process.flows if process is not None else {}

    def decisions(self) -> tuple[dict[URIRef, DecisionCall], dict[str, Any], dict[str, Any]]:
        """The decision calls, the generated module's namespace and each rule test compiled."""
        if self._decisions is None:
            from seams.generators.decisions import decision_calls, decisions_source

            source = decisions_source(self.model) or ""
            module = types.ModuleType("seams_engine_decisions")
            exec(compile(source, "<decisions.py>", "exec"), module.__dict__)  # noqa: S102 - rendered by seams
            calls = decision_calls(self.model)
            tests = {f"{call.decision_id}\0{rule}": compile(test, f"<{call.decision_id} {rule}>", "eval")
                     for call in calls.values() for rule, test in call.rules}
            self._decisions = (calls, module.__dict__, tests)
        return self._decisions

    def task_spec(self, process_id: str, element_id: str) -> TaskSpec:
        key = (process_id, element_id)
        if key not in self._task_specs:
            from seams_runtime.task_specs import task_spec

            self._task_specs[key] = task_spec(self.project, self.model, self.tasks[key])
        return self._task_specs[key]


_CACHE: WeakKeyDictionary = WeakKeyDictionary()


def prepared(project: Project, model: Model, process: Process, start_at: str | None = None) -> Prepared:
    """The process ready to run (started before ``start_at`` when given), built once per loaded model."""
    per_model = _CACHE.setdefault(model, {})
    key = (process.iri, start_at)
    if key not in per_model:
        per_model[key] = _prepare(project, model, process, start_at)
    return per_model[key]


def _prepare(project: Project, model: Model, process: Process, start_at: str | None = None) -> Prepared:
    from seams.lang.condition import parse_condition

    subject = model.qname(process.iri)
    if not process.found:
        raise EngineRefused(f"{subject} seam:payloadElement: no bpmn:process {process.element_id!r} to run")
    payload = model.payloads.get(process.payload) if process.payload is not None else None
    if payload is None:
        raise EngineRefused(f"{subject} seam:payload: no BPMN payload to run")
    _refuse_unsupported(model, process)
    documents = [(payload.relpath, payload.tree)]
    documents += sorted(((p.relpath, p.tree) for p in model.payloads.values()
                         if p.format == "bpmn" and p is not payload), key=lambda d: d[0])
    spec, subprocess_specs = parse_specs(documents, process.element_id or "", start_at)
    by_id = {p.element_id: p for p in sorted(model.view.processes.values(), key=lambda p: str(p.iri))
             if p.element_id and p.found}
    by_id[process.element_id or ""] = process
    processes = {pid: by_id[pid] for pid in [process.element_id or "", *subprocess_specs] if pid in by_id}
    for each in processes.values():
        _refuse_unsupported(model, each)
    owners: dict[str, str] = {}
    for pid, each in processes.items():
        owners[pid] = pid
        for node in each.nodes.values():
            if node.kind in ("subProcess", "transaction", "adHocSubProcess"):
                owners.setdefault(node.id, pid)
    conditions: dict[tuple[str, str], Condition | ExpressionError] = {}
    for pid, each in processes.items():
        for flow in each.flows.values():
            if flow.condition is not None:
                try:
                    conditions[(pid, flow.id)] = parse_condition(flow.condition, where=f"{flow.id} conditionExpression",
                                                                 language=flow.language)
                except ExpressionError as exc:
                    conditions[(pid, flow.id)] = exc
    iris = {each.iri: pid for pid, each in processes.items()}
    tasks = {(iris[t.process], t.element_id): t for t in model.view.tasks.values()
             if t.process in iris and t.element_id is not None}
    return Prepared(project=project, model=model, process=process, spec=spec, subprocess_specs=subprocess_specs,
                    processes=processes, owners=owners, conditions=conditions, tasks=tasks)


def _refuse_unsupported(model: Model, process: Process) -> None:
    """One line naming the first element of the process the engine does not run."""
    from seams.checks.engine_support import refusals

    payload = model.payloads.get(process.payload) if process.payload is not None else None
    if payload is None:
        return
    root = payload.tree.getroot()
    element = next((el for el in root.iter(f"{{{V.BPMN_NS}}}process") if el.get("id") == process.element_id), None)
    if element is None:
        return
    for element_id, kind, why in refusals(element):
        node = process.nodes.get(element_id)
        name = f' "{node.name}"' if node is not None and node.name else ""
        raise EngineRefused(f"{payload.relpath}: {kind} {element_id}{name}: {why}")

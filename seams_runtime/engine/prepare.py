"""What a process needs before any instance runs, built once per model and process.

The BPMN is parsed into a SpiffWorkflow spec (seams_runtime.engine.spiff),
every flow condition is parsed with seams.lang.condition, the decisions
module is rendered from the model and loaded, and each service task's
acceptance spec is looked up: a scenario item or a ``seams run`` then only
runs. Elements the engine does not run are refused here, naming the first.
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
from seams_runtime.engine.spiff import parse_spec

if TYPE_CHECKING:
    from seams.generators.decisions import DecisionCall
    from seams.lang.condition import Condition
    from seams.model.loading import Model
    from seams.model.view import Process, Task
    from seams.project.layout import Project
    from seams_runtime.task_specs import TaskSpec


RUNS = frozenset({"startEvent", "endEvent", "userTask", "manualTask", "task", "serviceTask",
                  "businessRuleTask", "exclusiveGateway", "parallelGateway"})
"""The BPMN elements the engine runs (events only without an event definition)."""


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
    """A process ready to run: its spec, conditions, decisions and tasks."""

    project: Project
    model: Model
    process: Process
    spec: Any  # the SpiffWorkflow BpmnProcessSpec
    conditions: dict[str, Condition | ExpressionError]  # flow id -> parsed condition (or why not)
    tasks: dict[str, Task]  # BPMN id -> the model's task
    _decisions: tuple[dict[URIRef, DecisionCall], dict[str, Any], dict[str, Any]] | None = None
    _task_specs: dict[str, TaskSpec] = field(default_factory=dict)

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

    def task_spec(self, element_id: str) -> TaskSpec:
        if element_id not in self._task_specs:
            from seams_runtime.task_specs import task_spec

            self._task_specs[element_id] = task_spec(self.project, self.model, self.tasks[element_id])
        return self._task_specs[element_id]


_CACHE: WeakKeyDictionary = WeakKeyDictionary()


def prepared(project: Project, model: Model, process: Process) -> Prepared:
    """The process ready to run, built once per loaded model."""
    per_model = _CACHE.setdefault(model, {})
    if process.iri not in per_model:
        per_model[process.iri] = _prepare(project, model, process)
    return per_model[process.iri]


def _prepare(project: Project, model: Model, process: Process) -> Prepared:
    from seams.lang.condition import parse_condition

    subject = model.qname(process.iri)
    if not process.found:
        raise EngineRefused(f"{subject} seam:payloadElement: no bpmn:process {process.element_id!r} to run")
    payload = model.payloads.get(process.payload) if process.payload is not None else None
    if payload is None:
        raise EngineRefused(f"{subject} seam:payload: no BPMN payload to run")
    _refuse_unsupported(payload.tree, process, payload.relpath)
    conditions: dict[str, Condition | ExpressionError] = {}
    for flow in process.flows.values():
        if flow.condition is not None:
            try:
                conditions[flow.id] = parse_condition(flow.condition, where=f"{flow.id} conditionExpression",
                                                      language=flow.language)
            except ExpressionError as exc:
                conditions[flow.id] = exc
    tasks = {t.element_id: t for t in model.view.tasks.values()
             if t.process == process.iri and t.element_id is not None}
    spec = parse_spec(payload, process)
    return Prepared(project=project, model=model, process=process, spec=spec, conditions=conditions, tasks=tasks)


def _refuse_unsupported(tree: Any, process: Process, relpath: str) -> None:
    """One line naming the first element of the process the engine does not run."""
    root = tree.getroot()
    element = next((el for el in root.iter(f"{{{V.BPMN_NS}}}process") if el.get("id") == process.element_id), None)
    if element is None:
        return
    for node in element:
        if not isinstance(node.tag, str) or not node.tag.startswith(f"{{{V.BPMN_NS}}}"):
            continue
        kind = node.tag.rpartition("}")[2]
        if kind in ("sequenceFlow", "laneSet", "documentation", "extensionElements", "textAnnotation",
                    "association", "dataObject", "dataObjectReference", "dataStoreReference", "property",
                    "ioSpecification"):
            continue
        name = f' "{node.get("name")}"' if node.get("name") else ""
        where = f"{relpath}: {kind} {node.get('id')}{name}"
        if kind not in RUNS:
            raise EngineRefused(f"{where}: the embedded engine does not run a {kind} (it runs "
                                f"{', '.join(sorted(RUNS))})")
        definition = next((child.tag.rpartition("}")[2] for child in node
                           if isinstance(child.tag, str) and child.tag.endswith("EventDefinition")), None)
        if definition is not None:
            raise EngineRefused(f"{where}: the embedded engine does not run a {definition} (only plain "
                                "start and end events)")
        loop = next((child.tag.rpartition("}")[2] for child in node if isinstance(child.tag, str)
                     and child.tag.rpartition("}")[2] in ("multiInstanceLoopCharacteristics",
                                                          "standardLoopCharacteristics")), None)
        if loop is not None:
            raise EngineRefused(f"{where}: the embedded engine does not run {loop}")

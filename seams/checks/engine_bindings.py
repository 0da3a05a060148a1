"""Gate ``engine-bindings``: every service task is bound, in its BPMN, to the engine its workers serve.

A generated workers module subscribes to one job type (Camunda 8) or topic
(Camunda 7) per service task; the process deploys as drawn only when each
service task's element carries that binding and it names the task's handler.
The gate applies only where the project asked for workers: ``zeebe`` in
``[generate] generators`` checks the Camunda 8 bindings, ``camunda7`` the
Camunda 7 ones, and a project that lists neither gets no finding of this kind
(docs/generators.md, "Workers for real engines").

For Camunda 8 it also holds the task's ``seam:retries`` against the BPMN's
``zeebe:taskDefinition retries`` where both are stated: Zeebe gives a job the
BPMN's retries, while the generated worker counts its back-off from the
task's, so two different numbers mean back-offs that do not match the
attempts (docs/generators.md, "Job settings").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rdflib import Literal

from seams import vocab as V
from seams.findings import Finding
from seams.model.engine import EngineBinding, engine_binding, job_names

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.view import Task
    from seams.project.layout import Project

KIND = "engine-binding"


def engine_binding_findings(project: Project, model: Model) -> list[Finding]:
    """Kind ``engine-binding``: one finding per service task whose engine binding is missing or
    names another handler, for each engine whose generator the project lists; sorted."""
    generators = project.config.generators or ()
    engines = [engine for engine in ("zeebe", "camunda7") if engine in generators]
    if not engines:
        return []
    findings = []
    for task in sorted(model.view.service_tasks(), key=lambda t: str(t.iri)):
        if not task.handler:
            continue  # the seam shapes report a service task without a handler
        binding = engine_binding(model, task)
        if binding.bpmn_file is None or not binding.element_found:
            continue  # the shapes and decision checks report a task that is not in its BPMN
        for engine in engines:
            problem = _zeebe_problem(task, binding) if engine == "zeebe" else _camunda7_problem(task, binding)
            if engine == "zeebe" and problem is None:
                problem = _retries_problem(model, task, binding)
            if problem:
                findings.append(Finding(KIND, model.qname(task.iri), None,
                                        f"{binding.bpmn_file} {task.element_id}: {problem}"))
    return sorted(set(findings))  # like every model gate's: the union of its findings per component


def _retries_problem(model: Model, task: Task, binding: EngineBinding) -> str | None:
    """Why the task's ``seam:retries`` and its ``zeebe:taskDefinition retries`` disagree, or None
    (also when either is not stated, or the BPMN's is an expression Zeebe evaluates per job)."""
    stated = (binding.zeebe_retries or "").strip()
    if not stated or stated.startswith("="):
        return None
    values = [o for o in model.union.objects(task.iri, V.retries) if isinstance(o, Literal)]
    ours = values[0].value if len(values) == 1 else None
    if not isinstance(ours, int) or isinstance(ours, bool):
        return None  # the seam shapes and the generator report a seam:retries that is not one whole number
    if not stated.isdigit():
        return (f"zeebe:taskDefinition retries {stated[:40]!r} is not a whole number; set retries=\"{ours}\" "
                f"as the task's seam:retries says")
    if int(stated) == ours:
        return None
    return (f"zeebe:taskDefinition retries {stated!r} disagrees with seam:retries {ours} (Zeebe gives a job the "
            f"BPMN's retries, the worker backs off by seam:retries); set retries=\"{ours}\" in the "
            f"zeebe:taskDefinition or seam:retries {stated} on the task")


def _names(handler: str) -> str:
    return " or ".join(job_names(handler))


def _zeebe_problem(task: Task, binding: EngineBinding) -> str | None:
    handler = task.handler or ""
    wanted = job_names(handler)[-1]
    if not binding.has_task_definition:
        return (f"no zeebe:taskDefinition (the zeebe generator is enabled); add "
                f'<zeebe:taskDefinition type="{wanted}" /> to its extensionElements')
    if not binding.zeebe_type:
        return f'zeebe:taskDefinition has no type; set type="{wanted}"'
    if binding.zeebe_type.startswith("="):
        return (f"zeebe:taskDefinition type {binding.zeebe_type!r} is an expression; a generated worker "
                f'subscribes to a fixed job type: set type="{wanted}"')
    if binding.zeebe_type not in job_names(handler):
        return (f"zeebe:taskDefinition type {binding.zeebe_type!r} does not name the handler {handler} "
                f"(use {_names(handler)})")
    return None


def _camunda7_problem(task: Task, binding: EngineBinding) -> str | None:
    handler = task.handler or ""
    wanted = job_names(handler)[-1]
    if binding.camunda_type != "external":
        return (f'not an external task (the camunda7 generator is enabled); set camunda:type="external" '
                f'camunda:topic="{wanted}"')
    topic = (binding.camunda_topic or "").strip()
    if not topic:
        return f'no camunda:topic; set camunda:topic="{wanted}"'
    if topic not in job_names(handler):
        return f"camunda:topic {topic!r} does not name the handler {handler} (use {_names(handler)})"
    return None

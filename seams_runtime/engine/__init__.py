"""The embedded engine: one process instance run on SpiffWorkflow with seams' own semantics.

SpiffWorkflow (PyPI ``SpiffWorkflow``) walks the BPMN: tokens, joins, the
tree of tasks. Everything that decides something is seams' own, so a run
means exactly what ``seams check`` and the generators mean
(docs/scenarios.md):

* an exclusive gateway evaluates its outgoing flows' conditions in document
  order with seams.lang.condition (every dialect: JUEL, FEEL, seams'); the
  first that holds wins, else the ``default`` flow; nothing of the model is
  ever evaluated as Python;
* a business-rule task calls its decision's function of the generated
  decisions module (seams.generators.decisions, rendered from the model in
  memory) with the decision's inputs, and writes its outputs to the
  variables the model maps them to;
* a service task calls the project's handler behind the sandbox boundary
  of acceptance (seams_runtime.sandbox: an executor process, JSON over a
  pipe, binding calls answered by the judge from the run's ``replies``),
  with the very functions the acceptance items call
  (seams_runtime.handler_checks.call_handle), and its outputs are checked
  against the task's contract before they become variables;
* a user task takes what ``user_task_data`` returns for it, checked against
  its form shape's fields (datatype, required, ``sh:in``, bounds, pattern).

Boundary events, timers, messages, signals, script tasks and the other
elements the bundled examples do not use are refused before the run with
one line naming the element (:class:`EngineRefused`).

The API (stable; ``seams run`` and the coverage report build on it)::

    run_instance(project, model, process, *, given=None,
                 user_task_data: Callable[[UserTaskInfo], Mapping], replies=None,
                 on_step: Callable[[Step], None] | None = None,
                 executor_for: Callable[[TaskSpec], Executor] | None = None,
                 max_steps: int = MAX_STEPS) -> RunResult

``process`` is a seams.model.view.Process, its IRI, prefixed name, BPMN id
or label (:func:`find_process`; an unknown one is a ResolutionError).
``given`` are the start variables, ``replies`` a JSON object of binding
replies by binding name (as an example's ``seam:replies``).
``user_task_data`` gets a :class:`seams.runs.UserTaskInfo` (element id and
name, the model's task and form as prefixed names, the form's fields, the
variables so far) and returns the values submitted; a CLI that asks at the
terminal can judge each answer first with
``seams.forms.submitted_problems(model, info, values)``, the very check the
engine then makes (one message per problem; empty: accepted). ``on_step`` is
called after each element ran with its :class:`seams.runs.Step` (element
id, name, BPMN kind, the flow it was reached by, what it wrote, the rules
that matched). ``executor_for`` gives the executor a task's handler runs in
(the plugin passes the session's); without it the run starts its own and
ends it before returning. The :class:`seams.runs.RunResult` has ``steps``,
``elements``, ``flows`` (sequence-flow ids in order), ``decisions`` (DMN
decision id -> matched rule ids), ``variables`` (the final ones),
``end_event``, and ``error`` / ``error_element`` when the run stopped early
(a handler that raised, no condition holding, data a form refuses). A
model the engine cannot run raises :class:`EngineRefused` (a SeamsError).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from seams.forms import form_fields, form_problems, submitted_problems
from seams.runs import FormField, RunResult, Step, UserTaskInfo
from seams_runtime.engine.errors import EngineRefused
from seams_runtime.engine.prepare import Prepared, find_process, prepared
from seams_runtime.engine.runtime import MAX_STEPS, Runtime

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.project.layout import Project
    from seams_runtime.task_specs import TaskSpec

__all__ = ["MAX_STEPS", "EngineRefused", "FormField", "Prepared", "RunResult", "Step", "UserTaskInfo",
           "find_process", "form_fields", "form_problems", "run_instance", "submitted_problems"]


def run_instance(project: Project, model: Model, process: Any, *, given: Mapping[str, Any] | None = None,
                 user_task_data: Callable[[UserTaskInfo], Mapping[str, Any]],
                 replies: Mapping[str, Any] | None = None,
                 on_step: Callable[[Step], None] | None = None,
                 executor_for: Callable[[TaskSpec], Any] | None = None,
                 max_steps: int = MAX_STEPS) -> RunResult:
    """Run one instance of ``process`` to its end (or to the first error) and say what it did."""
    ready = prepared(project, model, find_process(model, process))
    runtime = Runtime(ready, given=given or {}, user_task_data=user_task_data, replies=replies or {},
                      on_step=on_step, executor_for=executor_for, max_steps=max_steps)
    return runtime.run()

"""One run: the loop over SpiffWorkflow's ready tasks, and what each element does.

The loop runs one ready task at a time (document order among parallel
ones, as SpiffWorkflow lists them), asks ``user_task_data`` before a user
task runs, and records a :class:`seams.runs.Step` after each BPMN element.
A :class:`seams_runtime.engine.spiff.ScenarioStop` from any element ends the
run with its line in ``RunResult.error``; SpiffWorkflow's own errors are
caught and reported the same way, naming the element.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from SpiffWorkflow.bpmn.workflow import BpmnWorkflow
from SpiffWorkflow.exceptions import SpiffWorkflowException
from SpiffWorkflow.util.task import TaskState

from seams import vocab as V
from seams.errors import ExpressionError
from seams.runs import RunResult, Step, UserTaskInfo
from seams_runtime.engine.errors import ScenarioStop
from seams_runtime.engine.spiff import SeamsScriptEngine

if TYPE_CHECKING:
    from seams_runtime.engine.prepare import Prepared

MAX_STEPS = 10_000
"""Most elements one run may pass through: a process that loops for ever stops here."""


class Runtime:
    def __init__(self, ready: Prepared, *, given: Mapping[str, Any],
                 user_task_data: Callable[[UserTaskInfo], Mapping[str, Any]], replies: Mapping[str, Any],
                 on_step: Callable[[Step], None] | None, executor_for: Callable[[Any], Any] | None,
                 max_steps: int):
        self.ready = ready
        self.process = ready.process
        self.given = copy.deepcopy(dict(given))
        self.user_task_data = user_task_data
        self.replies = dict(replies)
        self.on_step = on_step
        self.executor_for = executor_for
        self.max_steps = max_steps
        self.result = RunResult()
        self.chosen: dict[Any, str] = {}  # gateway task id -> the flow it took
        self.outputs: dict[str, Any] = {}  # what the running element wrote
        self.rules: tuple[str, ...] = ()
        self.decision: str | None = None
        self._own_executors: dict[Any, Any] = {}
        self._imported: dict[int, str] = {}  # id(executor) -> the handler module it holds
        self._handles: dict[int, Any] = {}  # id(executor) -> that module's handle

    # -------------------------------------------------------------- the loop

    def run(self) -> RunResult:
        workflow = BpmnWorkflow(self.ready.spec, script_engine=SeamsScriptEngine(self))
        for task in workflow.get_tasks(state=TaskState.READY):
            task.data.update(copy.deepcopy(self.given))
        self.result.variables = copy.deepcopy(self.given)
        try:
            self._loop(workflow)
        except ScenarioStop as stop:
            self.result.error, self.result.error_element = stop.message, stop.element
        finally:
            for executor in self._own_executors.values():
                executor.close()
        return self.result

    def _loop(self, workflow: BpmnWorkflow) -> None:
        while True:
            ready = workflow.get_tasks(state=TaskState.READY)
            if not ready:
                break
            task = ready[0]
            element = getattr(task.task_spec, "bpmn_id", None)
            if element is None or element not in self.process.nodes:
                self._run(task, element)
                continue
            if len(self.result.steps) >= self.max_steps:
                raise ScenarioStop(element, f"more than {self.max_steps} elements run: does the process loop?")
            node = self.process.nodes[element]
            self.outputs, self.rules, self.decision = {}, (), None
            if node.kind in ("userTask", "manualTask"):
                submitted = self.user_task(task, element)
                task.data.update(submitted)
                self.outputs = submitted
            flow = self._arrived_by(task, element)
            self._run(task, element)
            self.result.variables = _plain(task.data)
            step = Step(element_id=element, name=node.name, kind=node.kind, flow=flow,
                        outputs=self.outputs, rules=self.rules, decision=self.decision)
            self.result.steps.append(step)
            if node.kind == "endEvent":
                self.result.end_event = element
            if self.on_step is not None:
                self.on_step(step)
        if not workflow.is_completed():
            waiting = [t.task_spec.bpmn_id for t in workflow.get_tasks(state=TaskState.WAITING)
                       if getattr(t.task_spec, "bpmn_id", None)]
            where = waiting[0] if waiting else None
            raise ScenarioStop(where, f"the instance stopped before an end event (waiting at "
                                      f"{', '.join(waiting) or 'nothing'})")

    def _run(self, task: Any, element: str | None) -> None:
        try:
            task.run()
        except ScenarioStop:
            raise
        except SpiffWorkflowException as exc:
            cause = exc.__cause__ or exc.__context__
            if isinstance(cause, ScenarioStop):
                raise cause from None
            raise ScenarioStop(element, f"SpiffWorkflow stopped: {str(exc).splitlines()[0]}") from None

    def _arrived_by(self, task: Any, element: str) -> str | None:
        """The sequence flow from the element that ran before this one (None at a start event)."""
        parent = task.parent
        while parent is not None and getattr(parent.task_spec, "bpmn_id", None) not in self.process.nodes:
            parent = parent.parent
        if parent is None:
            return None
        if parent.id in self.chosen:
            return self.chosen[parent.id]
        source = parent.task_spec.bpmn_id
        flows = [f.id for f in self.process.flows.values() if f.source == source and f.target == element]
        return flows[0] if flows else None

    # -------------------------------------------------------------- the elements

    def choose(self, task: Any) -> str:
        """The flow an exclusive gateway takes (recorded), and its target's id."""
        element = task.task_spec.bpmn_id
        node = self.process.nodes[element]
        variables = _plain(task.data)
        default = None
        for flow in self.process.outgoing(element):
            if flow.id == node.default_flow or flow.condition is None:
                default = default or flow
                continue
            condition = self.ready.conditions[flow.id]
            if isinstance(condition, ExpressionError):
                raise ScenarioStop(element, str(condition))
            try:
                holds = condition.evaluate(variables)
            except ExpressionError as exc:
                raise ScenarioStop(element, f"{element}: {exc}") from None
            if holds:
                self.chosen[task.id] = flow.id
                return flow.target
        if default is None:
            raise ScenarioStop(element, f"{element}: no condition of its outgoing flows holds and it has no "
                                        f"default flow (variables: {_shown(variables)})")
        self.chosen[task.id] = default.id
        return default.target

    def user_task(self, task: Any, element: str) -> dict[str, Any]:
        from seams.forms import form_fields, form_problems, task_form

        model = self.ready.model
        mtask = self.ready.tasks.get(element)
        form = task_form(model, mtask)
        info = UserTaskInfo(element_id=element, name=self.process.nodes[element].name,
                            subject=model.qname(mtask.iri) if mtask is not None else None,
                            form=model.qname(form.iri) if form is not None else None,
                            fields=form_fields(model, mtask), variables=_plain(task.data))
        answer = self.user_task_data(info)
        if not isinstance(answer, Mapping):
            raise ScenarioStop(element, f"{element}: the data submitted is {type(answer).__name__}, "
                                        "not an object of values by variable name")
        submitted: dict[str, Any] = copy.deepcopy(dict(answer))
        problems = form_problems(model, mtask, submitted)
        if problems:
            raise ScenarioStop(element, f"{element}: the data submitted is refused: {problems[0]}")
        return submitted

    def service(self, task: Any) -> None:
        from seams_runtime.handler_checks import call_handle
        from seams_runtime.sandbox import SandboxUnavailable
        from seams_runtime.sandbox.channel import ExecutorGone

        element = task.task_spec.bpmn_id
        mtask = self.ready.tasks.get(element)
        if mtask is None or mtask.kind != V.ServiceTask or not mtask.handler:
            raise ScenarioStop(element, f"{element}: service task with no seam:handler in the model")
        spec = self.ready.task_spec(element)
        if spec.problem:
            raise ScenarioStop(element, f"{spec.subject} seam:handler: {spec.problem}")
        try:
            executor = self._executor(spec)
            if self._imported.get(id(executor)) != spec.module:
                self._imported.pop(id(executor), None)
                handle, problems = executor.import_handler(spec.module, spec.module_file)
                if problems:
                    raise ScenarioStop(element, f"{spec.subject} {problems[0][0]}: {problems[0][1]}")
                self._imported[id(executor)] = spec.module
                self._handles[id(executor)] = handle
            handle = self._handles[id(executor)]
            result, error, inputs, fakes = call_handle(handle, spec.reads, spec.bindings, _plain(task.data),
                                                       self.replies)
        except (ExecutorGone, SandboxUnavailable) as exc:
            raise ScenarioStop(element, f"{spec.subject} seam:handler: {exc}") from None
        at = f"{spec.subject} (handler {spec.module})"
        if inputs.undeclared:
            raise ScenarioStop(element, f"{at}: read input {inputs.undeclared[0]!r}, which the task "
                                        "does not declare")
        if fakes.undeclared:
            raise ScenarioStop(element, f"{at}: used binding {fakes.undeclared[0]!r}, which the task "
                                        "does not declare")
        if error:
            raise ScenarioStop(element, f"{at}: handle raised {error}")
        if not isinstance(result, Mapping):
            raise ScenarioStop(element, f"{at}: handle returned {type(result).__name__}, not a mapping of outputs")
        problems = _output_problems(result, spec.outputs)
        if problems:
            raise ScenarioStop(element, f"{at}: {problems[0]}")
        self.outputs = dict(result)
        task.data.update(copy.deepcopy(dict(result)))

    def _executor(self, spec: Any) -> Any:
        if self.executor_for is not None:
            return self.executor_for(spec)
        from seams_runtime.sandbox.channel import Executor

        package = spec.module.partition(".")[0]
        source = spec.handlers_parent / package
        executor = self._own_executors.get(source)
        if executor is None:
            executor = self._own_executors[source] = Executor([(source, package)])
        return executor

    def decide(self, task: Any) -> None:
        element = task.task_spec.bpmn_id
        node = self.process.nodes[element]
        view = self.ready.model.view
        mtask = self.ready.tasks.get(element)
        iri = mtask.decided_by if mtask is not None else None
        if iri is None:
            iri = next((d.iri for d in view.decisions.values()
                        if node.decision_ref and d.element_id == node.decision_ref), None)
        if iri is None or iri not in view.decisions:
            raise ScenarioStop(element, f"{element}: business-rule task with no decision (seam:decidedBy "
                                        "or decisionRef) in the model")
        try:
            calls, namespace, tests = self.ready.decisions()
        except Exception as exc:  # a GeneratorError, mostly: the decisions generator refuses the model
            raise ScenarioStop(element, f"{element}: the decisions module cannot be made: "
                                        f"{str(exc).splitlines()[0]}") from None
        call = calls[iri]
        variables = _plain(task.data)
        arguments = {name: variables.get(name) for name in call.parameters}
        try:
            value = namespace[call.function](**copy.deepcopy(arguments))
            rules = tuple(rule for rule, _ in call.rules
                          if eval(tests[f"{call.decision_id}\0{rule}"], namespace, dict(arguments)))  # noqa: S307
        except Exception as exc:  # DecisionError, or a value the table cannot compare
            raise ScenarioStop(element, f"{element}: decision {call.decision_id} ({call.function}) raised "
                                        f"{type(exc).__name__}: {exc}") from None
        decision = view.decisions[iri]
        mapped = {o.variable: view.variable_name(o.process_variable) for o in decision.outputs
                  if o.variable and o.process_variable is not None}
        if len(call.outputs) > 1 and isinstance(value, Mapping):
            outputs = {mapped.get(name) or name: v for name, v in value.items()}
        else:
            single = call.outputs[0] if call.outputs else None
            name = (mapped.get(single) if single else None) or node.result_variable or single or call.function
            outputs = {name: value}
        self.outputs, self.rules, self.decision = outputs, rules, call.decision_id
        task.data.update(copy.deepcopy(outputs))


def _output_problems(result: Mapping[str, Any], outputs: Mapping[str, Any]) -> list[str]:
    """The contract item's checks of one result: declared outputs, each of its datatype and fields."""
    from seams.lang.field_values import constraint_problems, datatype_problem

    missing = [name for name in outputs if name not in result]
    extra = [str(name) for name in result if name not in outputs]
    problems = []
    if missing:
        problems.append(f"declared output(s) missing: {', '.join(missing)}")
    if extra:
        problems.append(f"undeclared output(s) returned: {', '.join(extra)}")
    for name, (datatype, rules) in outputs.items():
        if name in result:
            wrong = datatype_problem(result[name], datatype)
            found = [wrong] if wrong else [m for rule in rules for _, m in constraint_problems(result[name], rule)]
            problems += [f"output {name!r}: {message}" for message in found]
    return problems


def _plain(data: Mapping[str, Any]) -> dict[str, Any]:
    """The instance's variables (SpiffWorkflow keeps nothing else in a task's data here)."""
    return copy.deepcopy(dict(data))


def _shown(variables: Mapping[str, Any]) -> str:
    from seams.lang.field_values import show

    return ", ".join(f"{name}={show(value)}" for name, value in sorted(variables.items())) or "none"

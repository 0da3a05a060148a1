"""One run: the loop over SpiffWorkflow's ready tasks, and what each element does.

The loop runs one ready task at a time (the deepest running sub-process or
called process first, then document order, as SpiffWorkflow lists them),
asks ``user_task_data`` before a user task runs, and records a
:class:`seams.runs.Step` after each BPMN element. When nothing is ready and
the instance has not ended, the next of the run's ``events`` fires (a timer
or message catch event, a boundary event, a branch of an event-based
gateway, by element id, with the variables it brings); an event that names a
boundary event of the activity about to run fires before that activity. A
:class:`seams_runtime.engine.errors.ScenarioStop` from any element ends the
run with its line in ``RunResult.error``; SpiffWorkflow's own errors are
caught and reported the same way, naming the element.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lxml import etree
from SpiffWorkflow.bpmn.specs.mixins.multiinstance_task import LoopTask
from SpiffWorkflow.bpmn.workflow import BpmnWorkflow
from SpiffWorkflow.exceptions import SpiffWorkflowException
from SpiffWorkflow.util.task import TaskState

from seams import vocab as V
from seams.errors import ExpressionError
from seams.runs import RunResult, Step, UserTaskInfo
from seams_runtime.engine.errors import ScenarioStop
from seams_runtime.engine.expressions import evaluate_expression
from seams_runtime.engine.spiff import COLLECTION, SeamsScriptEngine, element_id, element_id_of_spec

if TYPE_CHECKING:
    from seams_runtime.engine.prepare import Prepared

MAX_STEPS = 10_000
"""Most elements one run may pass through: a process that loops for ever stops here."""

DEPTH = 10**9
"""SpiffWorkflow's task iterator stops at a depth of 1,000 by default: a long run would end early."""

_BPMN_ERROR = re.compile(r"^BpmnError: (\S+)")
_C, _Z, _B = f"{{{V.CAMUNDA_NS}}}", f"{{{V.ZEEBE_NS}}}", f"{{{V.BPMN_NS}}}"
MAPPED = frozenset({"startEvent", "endEvent", "intermediateCatchEvent", "intermediateThrowEvent", "boundaryEvent",
                    "receiveTask", "sendTask", "scriptTask", "task", "manualTask", "userTask"})
"""Elements whose input/output mappings the run applies itself (a service or business-rule task's
outputs are its contract's, a call activity's are its in/out mappings)."""
ACTIVITIES = frozenset({"userTask", "manualTask", "task", "serviceTask", "sendTask", "receiveTask", "scriptTask",
                        "businessRuleTask", "subProcess", "callActivity"})


class _BpmnErrorRaised(Exception):
    def __init__(self, boundary: Any):
        super().__init__("bpmn error")
        self.boundary = boundary


class Runtime:
    def __init__(self, ready: Prepared, *, given: Mapping[str, Any],
                 user_task_data: Callable[[UserTaskInfo], Mapping[str, Any]], replies: Mapping[str, Any],
                 on_step: Callable[[Step], None] | None, executor_for: Callable[[Any], Any] | None,
                 max_steps: int, events: Sequence[Any] = ()):
        self.ready = ready
        self.process = ready.process
        self.top = ready.process.element_id or ""
        self.given = copy.deepcopy(dict(given))
        self.user_task_data = user_task_data
        self.replies = dict(replies)
        self.on_step = on_step
        self.executor_for = executor_for
        self.max_steps = max_steps
        self.events = [_event(e) for e in events]
        self.result = RunResult()
        self.chosen: dict[Any, str] = {}  # gateway task id -> the flow it took
        self.outputs: dict[str, Any] = {}  # what the running element wrote
        self.rules: tuple[str, ...] = ()
        self.hit_policy: str | None = None
        self._started_by_event: set[Any] = set()  # start events fired to start the instance
        self.decision: str | None = None
        self._own_executors: dict[Any, Any] = {}
        self._imported: dict[int, str] = {}  # id(executor) -> the handler module it holds
        self._handles: dict[int, Any] = {}  # id(executor) -> that module's handle
        self._xml: dict[tuple[str, str], etree._Element | None] = {}
        self._started: dict[Any, Step] = {}  # sub-process or call activity task id -> its step
        self._deferred: list[Step] = []  # steps of sub-processes started while another element ran
        self._running = False
        self._locals: dict[Any, dict[str, Any]] = {}
        self._fired_task: Any = None  # task id -> the values its input mappings hid

    # -------------------------------------------------------------- the loop

    def run(self) -> RunResult:
        workflow = BpmnWorkflow(self.ready.spec, self.ready.subprocess_specs, script_engine=SeamsScriptEngine(self))
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

    def _workflows(self, workflow: BpmnWorkflow) -> list[Any]:
        active = sorted(workflow.get_active_subprocesses(), key=lambda sp: sp.depth, reverse=True)
        return [*active, workflow]

    def _next_ready(self, workflow: BpmnWorkflow) -> Any:
        fired, self._fired_task = self._fired_task, None
        if fired is not None and fired.state == TaskState.READY:
            return fired  # an event that just fired runs before anything else
        for each in self._workflows(workflow):
            found = each.get_tasks(state=TaskState.READY, max_depth=DEPTH)
            if found:
                return found[0]
        return None

    def _waiting_start(self, workflow: BpmnWorkflow) -> Any:
        """A message, timer or signal start event of the process run, not yet fired: ``seams run``
        starts the instance as that event would (the run's variables are its payload), once."""
        for task in self._waiting(workflow):
            if task.workflow is not workflow or task.id in self._started_by_event:
                continue
            node = self.ready.node(self.top, element_id(task) or "")
            if node is not None and node.kind == "startEvent":
                self._started_by_event.add(task.id)
                return task
        return None

    def _waiting(self, workflow: BpmnWorkflow) -> list[Any]:
        return [t for each in self._workflows(workflow) for t in each.get_tasks(state=TaskState.WAITING,
                                                                               max_depth=DEPTH)]

    def _loop(self, workflow: BpmnWorkflow) -> None:
        while True:
            if self.events and self._fire_next(workflow, only_waiting=True):
                continue  # an event fires as soon as the instance waits for it
            task = self._next_ready(workflow)
            if task is None:
                if workflow.is_completed():
                    break
                if self._fire_next(workflow):
                    continue
                start = self._waiting_start(workflow)
                if start is None:
                    break
                self._fire(start, {})  # a message or timer start event: the instance starts by it
                continue
            element = element_id(task) or ""
            process_id = self.ready.owners.get(task.workflow.spec.name, self.top)
            node = self.ready.node(process_id, element) if element else None
            if node is not None and isinstance(task.task_spec, LoopTask):  # its instances are the steps
                self._run(task, element)
                task.data.pop(COLLECTION + (element or ""), None)
                continue
            if node is None:
                self._run(task, element)
                continue
            if len(self.result.steps) >= self.max_steps:
                raise ScenarioStop(element, f"more than {self.max_steps} elements run: does the process loop?")
            self.outputs, self.rules, self.decision, self.hit_policy = {}, (), None, None
            if node.kind in ("intermediateThrowEvent", "endEvent") and self._compensates(process_id, element):
                raise ScenarioStop(element, f"{element}: the embedded engine does not compensate (a "
                                            "compensateEventDefinition); the run stops here")
            if node.kind in ("userTask", "manualTask"):
                submitted = self.user_task(task, process_id, element)
                task.data.update(submitted)
                self.outputs = submitted
            flow = self._arrived_by(task, process_id, element)
            data_before = _plain(task.data) if node.kind in ("intermediateCatchEvent", "boundaryEvent",
                                                             "receiveTask", "startEvent") else None
            mapped = node.kind in MAPPED
            if mapped or node.kind == "serviceTask":  # a service task's handler reads its input mappings
                self._map_inputs(task, process_id, element)
            self._running = True
            try:
                self._run(task, element)
            except _BpmnErrorRaised as raised:
                self._fire(raised.boundary, {})
            finally:
                self._running = False
            if mapped and task.state == TaskState.COMPLETED:
                self._map_outputs(task, process_id, element)
            elif node.kind == "serviceTask":
                self._drop_locals(task)
            if data_before is not None and not self.outputs:
                self.outputs = {k: v for k, v in _plain(task.data).items() if data_before.get(k, _MISSING) != v}
            if task.workflow is workflow:
                self.result.variables = _plain(task.data)
            if task.id in self._started:  # recorded when it started; what it passed back is known now
                self._started.pop(task.id).outputs.update(self.outputs)
                continue
            step = Step(element_id=element, name=node.name, kind=node.kind, flow=flow,
                        outputs=self.outputs, rules=self.rules, decision=self.decision,
                        hit_policy=self.hit_policy)
            self.result.steps.append(step)
            if node.kind == "endEvent" and task.workflow is workflow:
                self.result.end_event = element
            if self.on_step is not None:
                self.on_step(step)
            self._flush_deferred()
        if not workflow.is_completed():
            waiting = [element_id(t) for t in self._waiting(workflow) if element_id(t)
                       and self.ready.node(self.ready.owners.get(t.workflow.spec.name, self.top),
                                           element_id(t) or "")]
            where = waiting[0] if waiting else None
            raise ScenarioStop(where, f"the instance stopped before an end event (waiting at "
                                      f"{', '.join(dict.fromkeys(w for w in waiting if w)) or 'nothing'})")
        self.result.variables = _plain(workflow.last_task.data) if workflow.last_task is not None \
            else self.result.variables

    def _run(self, task: Any, element: str | None) -> None:
        try:
            task.run()
        except (ScenarioStop, _BpmnErrorRaised):
            raise
        except SpiffWorkflowException as exc:
            cause = exc.__cause__ or exc.__context__
            if isinstance(cause, (ScenarioStop, _BpmnErrorRaised)):
                raise cause from None
            raise ScenarioStop(element, f"SpiffWorkflow stopped: {str(exc).splitlines()[0]}") from None
        except (TypeError, KeyError, AttributeError, ValueError, IndexError) as exc:  # SpiffWorkflow tripped
            raise ScenarioStop(element, f"SpiffWorkflow stopped: {type(exc).__name__}: {exc}") from None

    def _arrived_by(self, task: Any, process_id: str, element: str) -> str | None:
        """The sequence flow from the element that ran before this one (None at a start event)."""
        nodes = self.ready.processes[process_id].nodes if process_id in self.ready.processes else {}
        parent = task.parent
        while parent is not None and (element_id(parent) not in nodes or isinstance(parent.task_spec, LoopTask)):
            parent = parent.parent
        if parent is None:
            return None
        if parent.id in self.chosen:
            return self.chosen[parent.id]
        source = element_id(parent)
        flows = [f.id for f in self.ready.flows(process_id).values() if f.source == source and f.target == element]
        return flows[0] if flows else None

    # -------------------------------------------------------------- events

    def _fire_next(self, workflow: BpmnWorkflow, *, only_waiting: bool = False) -> bool:
        """Fire the next event of the run; False when there is none left (or, ``only_waiting``, when
        the instance does not wait for it yet)."""
        if not self.events:
            return False
        target, variables = self.events[0]
        waiting = self._waiting(workflow)
        task = next((t for t in waiting if element_id(t) == target), None)
        if task is not None:
            self.events.pop(0)
            self._fire(task, variables)
            return True
        for gateway in waiting:
            outputs = [element_id_of_spec(s) for s in getattr(gateway.task_spec, "outputs", [])]
            definition = getattr(gateway.task_spec, "event_definition", None)
            if definition is not None and target in outputs and hasattr(definition, "event_definitions"):
                from SpiffWorkflow.bpmn.util import BpmnEvent

                self.events.pop(0)
                chosen = definition.event_definitions[outputs.index(target)]
                gateway.data.update(copy.deepcopy(variables))
                gateway.task_spec.catch(gateway, BpmnEvent(chosen))
                gateway.task_spec._update(gateway)
                return True
        if only_waiting:
            return False
        self.events.pop(0)
        shown = ", ".join(dict.fromkeys(e for e in (element_id(t) for t in waiting) if e)) or "nothing"
        raise ScenarioStop(target, f"the run fires {target}, but the instance does not wait for it "
                                   f"(waiting at {shown})")

    def _fire(self, task: Any, variables: Mapping[str, Any]) -> None:
        task.data.update(copy.deepcopy(dict(variables)))
        task._set_internal_data(event_fired=True)
        task.task_spec._update(task)
        self._fired_task = task

    # -------------------------------------------------------------- expressions

    def evaluate(self, task: Any, expression: str) -> Any:
        """What SpiffWorkflow asks its script engine: an inclusive gateway's condition, a loop's."""
        from seams_runtime.engine.expressions import condition_holds

        element = element_id(task)
        variables = _plain(task.data)
        try:
            if getattr(task.task_spec, "__class__", type).__name__ in ("InclusiveGateway",):
                return condition_holds(expression, variables, where=f"{element}")
            value = evaluate_expression(expression, variables, where=f"{element}")
            if isinstance(value, str) and value.strip().isdigit():  # a loop cardinality written bare
                return int(value)
            return value
        except ExpressionError as exc:
            raise ScenarioStop(element, str(exc)) from None

    # -------------------------------------------------------------- the elements

    def _process_id(self, task: Any) -> str:
        return self.ready.owners.get(task.workflow.spec.name, self.top)

    def choose(self, task: Any) -> str:
        """The flow an exclusive gateway takes (recorded), and its target's id."""
        element = element_id(task) or ""
        process_id = self._process_id(task)
        process = self.ready.processes[process_id]
        node = process.nodes[element]
        variables = _plain(task.data)
        default = None
        for flow in process.outgoing(element):
            if flow.id == node.default_flow or flow.condition is None:
                default = default or flow
                continue
            condition = self.ready.conditions[(process_id, flow.id)]
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
            unset = sorted({name for flow in process.outgoing(element)
                            for name in getattr(self.ready.conditions.get((process_id, flow.id)), "names", ())
                            if name not in variables})
            nulls = f"; not set, so null: {', '.join(repr(n) for n in unset)}" if unset else ""
            raise ScenarioStop(element, f"{element}: no condition of its outgoing flows holds and it has no "
                                        f"default flow (variables: {_shown(variables)}{nulls})")
        self.chosen[task.id] = default.id
        return default.target

    def _info(self, task: Any, process_id: str, element: str) -> UserTaskInfo:
        from seams.forms import form_fields, task_form

        model = self.ready.model
        mtask = self.ready.tasks.get((process_id, element))
        form = task_form(model, mtask)
        node = self.ready.node(process_id, element)
        return UserTaskInfo(element_id=element, name=node.name if node is not None else None,
                            subject=model.qname(mtask.iri) if mtask is not None else None,
                            form=model.qname(form.iri) if form is not None else None,
                            fields=form_fields(model, mtask), variables=_plain(task.data))

    def user_task(self, task: Any, process_id: str, element: str) -> dict[str, Any]:
        from seams.forms import form_problems, with_defaults

        info = self._info(task, process_id, element)
        answer = self.user_task_data(info)
        if not isinstance(answer, Mapping):
            raise ScenarioStop(element, f"{element}: the data submitted is {type(answer).__name__}, "
                                        "not an object of values by variable name")
        # a field the answer leaves out is submitted with its default, as Tasklist submits it
        submitted: dict[str, Any] = copy.deepcopy(with_defaults(info.fields, answer))
        problems = form_problems(self.ready.model, self.ready.tasks.get((process_id, element)), submitted)
        if problems:
            raise ScenarioStop(element, f"{element}: the data submitted is refused: {problems[0]}")
        return submitted

    def _answered(self, task: Any) -> None:
        """An element with nothing of the model to run (a script or send task without a handler, a
        call activity whose process the project lacks): the run's ``user_task_data`` answers it."""
        element = element_id(task) or ""
        answer = self.user_task_data(self._info(task, self._process_id(task), element))
        if not isinstance(answer, Mapping):
            raise ScenarioStop(element, f"{element}: the data given is {type(answer).__name__}, not an object")
        self.outputs = copy.deepcopy(dict(answer))
        task.data.update(copy.deepcopy(dict(answer)))

    def answer_call(self, task: Any) -> None:
        self._answered(task)

    def thrown(self, task: Any) -> None:
        """A message throw event: nothing to run unless the model gives it a handler (none yet)."""

    def service(self, task: Any) -> None:
        from seams_runtime.handler_checks import call_handle
        from seams_runtime.sandbox import SandboxUnavailable
        from seams_runtime.sandbox.channel import ExecutorGone

        element = element_id(task) or ""
        process_id = self._process_id(task)
        mtask = self.ready.tasks.get((process_id, element))
        node = self.ready.node(process_id, element)
        if (mtask is None or not mtask.handler) and node is not None and node.kind in ("scriptTask", "sendTask",
                                                                                     "adHocSubProcess"):
            if node.kind == "scriptTask" and self._feel_script(task, process_id, element):
                return
            self._answered(task)
            return
        if mtask is None or mtask.kind != V.ServiceTask or not mtask.handler:
            raise ScenarioStop(element, f"{element}: service task with no seam:handler in the model")
        spec = self.ready.task_spec(process_id, element)
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
                                                       self.replies, datatypes=spec.datatypes())
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
            code = _BPMN_ERROR.match(error)
            boundary = self._error_boundary(task, code.group(1)) if code else None
            if boundary is not None:
                self.outputs = {}
                raise _BpmnErrorRaised(boundary)
            if code:
                raise ScenarioStop(element, f"{at}: handle raised BPMN error {code.group(1)!r}, which no error "
                                            f"boundary event of {element} catches")
            raise ScenarioStop(element, f"{at}: handle raised {error}")
        if not isinstance(result, Mapping):
            raise ScenarioStop(element, f"{at}: handle returned {type(result).__name__}, not a mapping of outputs")
        problems = _output_problems(result, spec.outputs)
        if problems:
            raise ScenarioStop(element, f"{at}: {problems[0]}")
        self.outputs = dict(result)
        task.data.update(copy.deepcopy(dict(result)))
        self._result_expression(task, process_id, element)

    def _result_expression(self, task: Any, process_id: str, element: str) -> None:
        """A Camunda 8 connector's ``resultExpression`` header (``={total: sum(response.body.items.price)}``):
        evaluated by the one FEEL implementation over the variables once the handler's outputs are set
        (the handler answers as the connector would, its response under the ``resultVariable``); the
        entries of the context it gives become variables, as Camunda maps a connector's result."""
        node = self._element(process_id, element)
        header = node.find(f"{_B}extensionElements/{_Z}taskHeaders/{_Z}header[@key='resultExpression']") \
            if node is not None else None
        text = (header.get("value") or "").strip() if header is not None else ""
        if not text:
            return
        value = self._expression(text if text.startswith("=") else "=" + text, _plain(task.data), element)
        if value is None:
            return
        if not isinstance(value, Mapping):
            raise ScenarioStop(element, f"{element}: the resultExpression gives {type(value).__name__}, not a "
                                        "context of variables")
        mapped = {str(name): item for name, item in value.items()}
        self.outputs = {**self.outputs, **mapped}
        task.data.update(copy.deepcopy(mapped))

    def _feel_script(self, task: Any, process_id: str, element: str) -> bool:
        """A Camunda 8 script task written as a FEEL expression (``zeebe:script expression="=..."
        resultVariable="x"``): Zeebe evaluates the expression, no script runs, so the engine does the
        same with seams' own FEEL evaluator and sets the result variable. False for any other script
        (a job worker's, or a Camunda 7 script, which the run's data answers)."""
        node = self._element(process_id, element)
        script = node.find(f"{_B}extensionElements/{_Z}script") if node is not None else None
        expression = (script.get("expression") or "").strip() if script is not None else ""
        target = (script.get("resultVariable") or "").strip() if script is not None else ""
        if not expression.startswith("=") or not target:
            return False
        value = self._expression(expression, _plain(task.data), element)
        self.outputs = {target: copy.deepcopy(value)}
        task.data[target] = copy.deepcopy(value)
        return True

    def _error_boundary(self, task: Any, code: str) -> Any:
        """The waiting error boundary event of the task that catches ``code`` (a code of its own
        first, then one that catches every error)."""
        if task.parent is None:
            return None
        candidates = []
        for sibling in task.parent.children:
            definition = getattr(sibling.task_spec, "event_definition", None)
            if sibling is task or type(definition).__name__ != "ErrorEventDefinition":
                continue
            wanted = getattr(definition, "code", None)
            if wanted == code:
                return sibling
            if not wanted:
                candidates.append(sibling)
        return candidates[0] if candidates else None

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
        from seams.checks.drd import evaluation_order, fed_parameters

        element = element_id(task) or ""
        process_id = self._process_id(task)
        node = self.ready.node(process_id, element)
        view = self.ready.model.view
        mtask = self.ready.tasks.get((process_id, element))
        iri = mtask.decided_by if mtask is not None else None
        if iri is None and node is not None:
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
        variables = _plain(task.data)
        rules: tuple[str, ...] = ()
        value: Any = None
        call = None
        for each in evaluation_order(view, view.decisions[iri]):  # required decisions first (the DRD)
            call = calls.get(each.iri)
            if call is None:
                raise ScenarioStop(element, f"{element}: decision {each.element_id} has no function in the "
                                            "decisions module")
            arguments = {name: variables.get(name) for name in call.parameters}
            try:
                value = namespace[call.function](**copy.deepcopy(arguments))
                rules = call.applied(tuple(rule for rule, _ in call.rules  # as the hit policy applies them
                                           if eval(tests[f"{call.decision_id}\0{rule}"], namespace,  # noqa: S307
                                                   dict(arguments))))
            except Exception as exc:  # DecisionError, or a value the table cannot compare
                raise ScenarioStop(element, f"{element}: decision {call.decision_id} ({call.function}) raised "
                                            f"{type(exc).__name__}: {exc}") from None
            if each.iri != iri:
                for output in each.outputs:  # the required decision's output feeds the inputs named so
                    if output.variable:
                        supplied = value.get(output.variable) if isinstance(value, Mapping) \
                            and len(call.outputs) > 1 else value
                        for name in fed_parameters(view, view.decisions[iri], output.variable):
                            variables[name] = supplied
        assert call is not None
        decision = view.decisions[iri]
        mapped = {o.variable: view.variable_name(o.process_variable) for o in decision.outputs
                  if o.variable and o.process_variable is not None}
        result_variable = node.result_variable if node is not None else None
        map_result = node.map_result if node is not None else None
        if map_result:
            single = call.outputs[0] if call.outputs else None
            name = result_variable or (mapped.get(single) if single else None) or single or call.function
            outputs = {name: _mapped_result(value, map_result, call.outputs, element)}
        elif len(call.outputs) > 1 and isinstance(value, Mapping):
            outputs = {mapped.get(name) or name: v for name, v in value.items()}
        else:
            single = call.outputs[0] if call.outputs else None
            name = (mapped.get(single) if single else None) or result_variable or single or call.function
            outputs = {name: value}
        self.outputs, self.rules, self.decision = outputs, rules, call.decision_id
        self.hit_policy = call.hit_policy
        task.data.update(copy.deepcopy(outputs))

    # -------------------------------------------------------------- call activities

    def _element(self, process_id: str, element: str) -> etree._Element | None:
        key = (process_id, element)
        if key not in self._xml:
            process = self.ready.processes.get(process_id)
            payload = self.ready.model.payloads.get(process.payload) if process and process.payload else None
            found = None
            if payload is not None:
                found = next((el for el in payload.tree.getroot().iter() if isinstance(el.tag, str)
                              and el.get("id") == element), None)
            self._xml[key] = found
        return self._xml[key]

    def _compensates(self, process_id: str, element: str) -> bool:
        node = self._element(process_id, element)
        return node is not None and node.find(f"{_B}compensateEventDefinition") is not None

    def collection(self, task: Any) -> None:
        """A multi-instance collection written as an expression (``=items[1..3]``, ``${order.items}``)
        is computed before the instances start, into the variable SpiffWorkflow then reads; a
        collection that is not set (or not a list) stops the run in one line."""
        from seams_runtime.engine.spiff import _name

        element = element_id(task) or ""
        process_id = self._process_id(task)
        node = self._element(process_id, element)
        loop = node.find(f"{_B}multiInstanceLoopCharacteristics") if node is not None else None
        if loop is None or not isinstance(task.task_spec, LoopTask):
            return
        z = loop.find(f"{_B}extensionElements/{_Z}loopCharacteristics")
        text = z.get("inputCollection") if z is not None else loop.get(f"{_C}collection")
        if not text:
            return
        name = _name(text)
        value = self._expression(text, _plain(task.data), element) if name is None else task.data.get(name)
        if not isinstance(value, (list, tuple)):
            raise ScenarioStop(element, f"{element}: the multi-instance collection {text!r} is not a list "
                                        f"(it is {value!r}); give it in the run's variables")
        if name is None:
            task.data[COLLECTION + element] = list(value)

    def _map_inputs(self, task: Any, process_id: str, element: str) -> None:
        """``camunda:inputParameter`` / ``zeebe:input``: local variables of the element, computed from
        the variables before it runs (kept apart, so an output mapping decides what stays)."""
        node = self._element(process_id, element)
        ext = node.find(f"{_B}extensionElements") if node is not None else None
        if ext is None:
            return
        variables = _plain(task.data)
        local = self._mapped(ext, "input", variables, element)
        self._locals[task.id] = {name: variables.get(name, _MISSING) for name in local}
        task.data.update(copy.deepcopy(local))

    def _mapped(self, ext: Any, way: str, variables: dict[str, Any], element: str) -> dict[str, Any]:
        """The values of an element's ``way`` ("input" or "output") mappings in both dialects:
        ``camunda:inputParameter``/``outputParameter`` (name, expression as text) and
        ``zeebe:input``/``zeebe:output`` (target, source), in document order."""
        mapped: dict[str, Any] = {}
        for item in ext.iterfind(f"{_C}inputOutput/{_C}{way}Parameter"):
            if item.get("name"):
                mapped[item.get("name", "")] = self._expression(item.text or "", variables, element)
        for item in ext.iterfind(f"{_Z}ioMapping/{_Z}{way}"):
            if item.get("target"):
                mapped[item.get("target", "")] = self._expression(item.get("source") or "", variables, element)
        return mapped

    def _drop_locals(self, task: Any) -> None:
        """A service task's input-mapped locals go when it completes (the values they hid come back),
        unless its handler set them as outputs; its outputs are its contract's, not output mappings."""
        hidden = {name: before for name, before in self._locals.pop(task.id, {}).items() if name not in self.outputs}
        _restore(task, hidden)
        _pass_on(task, {}, hidden)

    def _map_outputs(self, task: Any, process_id: str, element: str) -> None:
        """``camunda:outputParameter`` / ``zeebe:output``: what the element passes on, computed from its
        variables when it completes; its input-mapped locals go (the values they hid come back)."""
        node = self._element(process_id, element)
        ext = node.find(f"{_B}extensionElements") if node is not None else None
        hidden = self._locals.pop(task.id, {})
        if ext is None:
            return
        out = self._mapped(ext, "output", variables=_plain(task.data), element=element)
        _restore(task, {name: before for name, before in hidden.items() if name not in out})
        if out:
            task.data.update(copy.deepcopy(out))
            self.outputs = {**self.outputs, **out}
        _pass_on(task, out, hidden)

    def started(self, task: Any) -> None:
        """A sub-process or call activity starts: its step is recorded now, in the order the token
        reached it (what it passes back is added when it completes)."""
        element = element_id(task) or ""
        process_id = self._process_id(task)
        node = self.ready.node(process_id, element)
        if node is None:
            return
        if len(self.result.steps) >= self.max_steps:
            raise ScenarioStop(element, f"more than {self.max_steps} elements run: does the process loop?")
        step = Step(element_id=element, name=node.name, kind=node.kind,
                    flow=self._arrived_by(task, process_id, element))
        self._started[task.id] = step
        self._deferred.append(step)
        if not self._running:
            self._flush_deferred()

    def _flush_deferred(self) -> None:
        while self._deferred:
            step = self._deferred.pop(0)
            self.result.steps.append(step)
            if self.on_step is not None:
                self.on_step(step)

    def call_inputs(self, task: Any) -> dict[str, Any]:
        """The called process's start variables: Camunda 7 ``camunda:in`` (``variables="all"``,
        ``source``, ``sourceExpression``), Camunda 8 all variables (unless
        ``propagateAllParentVariables="false"``) and ``zeebe:input`` mappings."""
        element = element_id(task) or ""
        node = self._element(self._process_id(task), element)
        variables = _plain(task.data)
        ext = node.find(f"{_B}extensionElements") if node is not None else None
        if ext is None:
            return variables if _zeebe(node) else {}
        out: dict[str, Any] = {}
        called = ext.find(f"{_Z}calledElement")
        if called is not None and called.get("propagateAllParentVariables", "true") != "false":
            out.update(variables)
        for item in ext.iterfind(f"{_C}in"):
            if item.get("variables") == "all":
                out.update(variables)
            elif item.get("target"):
                out[item.get("target", "")] = self._source(item, variables, element)
        for item in ext.iterfind(f"{_Z}ioMapping/{_Z}input"):
            if item.get("target"):
                out[item.get("target", "")] = self._expression(item.get("source") or "", variables, element)
        return copy.deepcopy(out)

    def call_outputs(self, task: Any, child: Mapping[str, Any]) -> None:
        element = element_id(task) or ""
        node = self._element(self._process_id(task), element)
        ext = node.find(f"{_B}extensionElements") if node is not None else None
        child_data = _plain(child)
        out: dict[str, Any] = {}
        if ext is None:
            out = child_data if _zeebe(node) else {}
        else:
            outputs = list(ext.iterfind(f"{_Z}ioMapping/{_Z}output"))
            called = ext.find(f"{_Z}calledElement")
            if called is not None and not outputs and called.get("propagateAllChildVariables", "true") != "false":
                out.update(child_data)
            for item in ext.iterfind(f"{_C}out"):
                if item.get("variables") == "all":
                    out.update(child_data)
                elif item.get("target"):
                    out[item.get("target", "")] = self._source(item, child_data, element)
            for item in outputs:
                if item.get("target"):
                    out[item.get("target", "")] = self._expression(item.get("source") or "", child_data, element)
        self.outputs = copy.deepcopy(out)
        task.data.update(copy.deepcopy(out))

    def _source(self, item: etree._Element, variables: Mapping[str, Any], element: str) -> Any:
        if item.get("sourceExpression"):
            return self._expression(item.get("sourceExpression") or "", variables, element)
        return variables.get(item.get("source") or "")

    def _expression(self, text: str, variables: Mapping[str, Any], element: str) -> Any:
        try:
            return evaluate_expression(text, variables, where=element)
        except ExpressionError as exc:
            raise ScenarioStop(element, str(exc)) from None


_MISSING = object()


def _event(event: Any) -> tuple[str, dict[str, Any]]:
    """A run event: an element id, or ``{"element": id, "variables": {...}}``."""
    if isinstance(event, Mapping):
        variables = event.get("variables")
        return str(event.get("element")), dict(variables) if isinstance(variables, Mapping) else {}
    return str(event), {}


def _zeebe(node: etree._Element | None) -> bool:
    """A Camunda 8 model (its call activities pass every variable by default)."""
    if node is None:
        return False
    root = node.getroottree().getroot()
    return V.ZEEBE_NS in (root.nsmap or {}).values() or any(
        isinstance(el.tag, str) and el.tag.startswith(_Z) for el in node.iter())


def _mapped_result(value: Any, how: str, outputs: Sequence[str], element: str) -> Any:
    """A decision's result as Camunda 7's ``mapDecisionResult`` maps it: ``singleEntry`` (one value),
    ``singleResult`` (one rule's outputs), ``collectEntries`` (every matched rule's one output),
    ``resultList`` (every matched rule's outputs)."""
    rows: list[Any]
    if value is None:
        rows = []
    elif isinstance(value, list):
        rows = value
    else:
        rows = [value]

    def as_row(row: Any) -> dict[str, Any]:
        if isinstance(row, Mapping) and len(outputs) > 1:
            return dict(row)
        return {outputs[0] if outputs else "result": row}

    if how == "collectEntries":
        if len(outputs) > 1:
            raise ScenarioStop(element, f"{element}: mapDecisionResult collectEntries needs a decision of one "
                                        f"output; it has {len(outputs)}")
        return list(rows)
    if how == "resultList":
        return [as_row(row) for row in rows]
    if len(rows) > 1:
        raise ScenarioStop(element, f"{element}: mapDecisionResult {how} needs at most one matching rule; "
                                    f"{len(rows)} matched")
    if how == "singleResult":
        return as_row(rows[0]) if rows else None
    if how == "singleEntry":
        if len(outputs) > 1:
            raise ScenarioStop(element, f"{element}: mapDecisionResult singleEntry needs a decision of one "
                                        f"output; it has {len(outputs)}")
        return rows[0] if rows else None
    raise ScenarioStop(element, f"{element}: mapDecisionResult {how!r} is not one of singleEntry, "
                                "singleResult, collectEntries, resultList")


def _output_problems(result: Mapping[str, Any], outputs: Mapping[str, Any]) -> list[str]:
    """The contract item's checks of one result: declared outputs, each of its datatype and fields."""
    from seams.checks.types import value_problems

    missing = [name for name in outputs if name not in result]
    extra = [str(name) for name in result if name not in outputs]
    problems = []
    if missing:
        problems.append(f"declared output(s) missing: {', '.join(missing)}")
    if extra:
        problems.append(f"undeclared output(s) returned: {', '.join(extra)}")
    for name, (datatype, rules) in outputs.items():
        if name in result:
            problems += [f"output {name!r}: {message}" for _, message in value_problems(result[name], datatype, rules)]
    return problems


_NOT_YET_RUN = TaskState.MAYBE | TaskState.LIKELY | TaskState.FUTURE | TaskState.WAITING | TaskState.READY


def _restore(task: Any, hidden: dict[str, Any]) -> None:
    """Put back the values input-mapped locals hid (a variable that did not exist goes again)."""
    for name, before in hidden.items():
        if before is _MISSING:
            task.data.pop(name, None)
        else:
            task.data[name] = before


def _pass_on(task: Any, out: Mapping[str, Any], hidden: Mapping[str, Any]) -> None:
    """Hand what an element's output mappings set (and the locals they dropped) to the elements
    after it that have not run yet: SpiffWorkflow copies a task's data to its children as it
    completes, which is before the outputs are computed here."""
    for child in task.children:
        if not child.state & _NOT_YET_RUN:
            continue
        for name, before in hidden.items():
            if name not in out:
                if before is _MISSING:
                    child.data.pop(name, None)
                else:
                    child.data[name] = copy.deepcopy(before)
        child.data.update(copy.deepcopy(dict(out)))


def _plain(data: Mapping[str, Any]) -> dict[str, Any]:
    """The instance's variables (SpiffWorkflow keeps nothing else in a task's data here)."""
    return copy.deepcopy(dict(data))


def _shown(variables: Mapping[str, Any]) -> str:
    from seams.lang.field_values import show

    return ", ".join(f"{name}={show(value)}" for name, value in sorted(variables.items())) or "none"

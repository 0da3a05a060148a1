"""The SpiffWorkflow side of the engine: the parser, the task specs seams decides in, the script engine.

SpiffWorkflow keeps the tokens; at each element that decides something its
spec hands over to the run's :class:`seams_runtime.engine.runtime.Runtime`
(reached through the workflow's script engine): a service task to the
handler, a business-rule task to the decision, an exclusive gateway to seams'
conditions. The script engine itself evaluates nothing: SpiffWorkflow's own
Python ``eval`` of model text never runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from SpiffWorkflow.bpmn.parser.BpmnParser import BpmnParser, full_tag
from SpiffWorkflow.bpmn.parser.task_parsers import ConditionalGatewayParser
from SpiffWorkflow.bpmn.parser.TaskParser import TaskParser
from SpiffWorkflow.bpmn.parser.ValidationException import ValidationException
from SpiffWorkflow.bpmn.script_engine import PythonScriptEngine
from SpiffWorkflow.bpmn.specs.defaults import ExclusiveGateway
from SpiffWorkflow.bpmn.specs.mixins.bpmn_spec_mixin import BpmnSpecMixin
from SpiffWorkflow.util.task import TaskState

from seams_runtime.engine.errors import EngineRefused, ScenarioStop

if TYPE_CHECKING:
    from seams.model.payloads import PayloadFile
    from seams.model.view import Process


class SeamsScriptEngine(PythonScriptEngine):
    """Carries the run to the specs; refuses to evaluate or execute model text as Python."""

    def __init__(self, runtime: Any):
        super().__init__()
        self.runtime = runtime

    def evaluate(self, task, expression, external_context=None):
        raise ScenarioStop(getattr(task.task_spec, "bpmn_id", None),
                           f"the engine does not evaluate {expression!r} as Python")

    def execute(self, task, script, external_context=None):
        raise ScenarioStop(getattr(task.task_spec, "bpmn_id", None), "the engine runs no scripts")


def _runtime(task: Any) -> Any:
    return task.workflow.script_engine.runtime


class SeamsServiceTask(BpmnSpecMixin):
    """A service task: the project's handler, in the sandbox."""

    def _run_hook(self, my_task):
        _runtime(my_task).service(my_task)
        return True


class SeamsBusinessRuleTask(BpmnSpecMixin):
    """A business-rule task: the decision's function of the generated module."""

    def _run_hook(self, my_task):
        _runtime(my_task).decide(my_task)
        return True


class SeamsExclusiveGateway(ExclusiveGateway):
    """An exclusive gateway whose choice is seams': conditions in document order, then the default."""

    def test(self):  # a gateway without a default is fine: seams' checks judge the conditions
        pass

    def _run_hook(self, my_task):
        target = _runtime(my_task).choose(my_task)
        output = next((spec for spec in self.outputs if getattr(spec, "bpmn_id", None) == target), None)
        if output is None:
            raise ScenarioStop(self.bpmn_id, f"no task for the flow's target {target}")
        my_task._sync_children([output], TaskState.FUTURE)
        for child in my_task.children:
            child.task_spec._predict(child, mask=TaskState.FUTURE | TaskState.PREDICTED_MASK)
        return True


class _GatewayParser(ConditionalGatewayParser):
    """Connects every outgoing flow (seams evaluates the conditions, not SpiffWorkflow)."""

    def connect_outgoing(self, outgoing_task, sequence_flow_node, is_default):
        self.task.connect(outgoing_task)


class _Parser(BpmnParser):
    OVERRIDE_PARSER_CLASSES = {
        full_tag("serviceTask"): (TaskParser, SeamsServiceTask),
        full_tag("businessRuleTask"): (TaskParser, SeamsBusinessRuleTask),
        full_tag("exclusiveGateway"): (_GatewayParser, SeamsExclusiveGateway),
    }


def parse_spec(payload: PayloadFile, process: Process) -> Any:
    """The SpiffWorkflow spec of ``process`` in ``payload``; a refusal names the element."""
    from seams.model.payloads import parse_xml

    parser = _Parser()
    try:
        parser.add_bpmn_xml(parse_xml(payload.data, source=payload.relpath), filename=payload.relpath)
        return parser.get_spec(process.element_id)
    except ValidationException as exc:
        element = getattr(exc, "id", None) or getattr(exc, "name", None) or process.element_id
        message = str(exc).splitlines()[0].rstrip(". ")
        raise EngineRefused(f"{payload.relpath}: {element}: SpiffWorkflow cannot run it: {message}") from None

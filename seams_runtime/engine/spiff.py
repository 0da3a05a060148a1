"""The SpiffWorkflow side of the engine: the parser, the task specs seams decides in, the script engine.

SpiffWorkflow keeps the tokens (sub-processes, call activities, boundary
events, joins); at each element that decides something its spec hands over
to the run's :class:`seams_runtime.engine.runtime.Runtime` (reached through
the workflow's script engine): a service, send or script task to the
handler, a business-rule task to the decision, an exclusive gateway to
seams' conditions, a call activity's variables to its ``camunda:in``/``out``
or Zeebe mappings. The script engine evaluates only through seams' own
evaluators (:mod:`seams_runtime.engine.expressions`): SpiffWorkflow's own
Python ``eval`` of model text never runs.

Before SpiffWorkflow sees a BPMN document, a copy of it is cleaned
(:func:`spiff_document`): data stores, data objects, groups, annotations and
associations are taken out (they are no-ops at run time, and SpiffWorkflow
refuses a data store it has no class for), and an element whose id is one of
SpiffWorkflow's own task names (``Start``, ``End``, ``Root``) gets another id,
mapped back in every step the run records.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from lxml import etree
from SpiffWorkflow.bpmn.parser.BpmnParser import BpmnParser, full_tag
from SpiffWorkflow.bpmn.parser.task_parsers import CallActivityParser, ConditionalGatewayParser, SubWorkflowParser
from SpiffWorkflow.bpmn.parser.TaskParser import TaskParser
from SpiffWorkflow.bpmn.parser.ValidationException import ValidationException
from SpiffWorkflow.bpmn.script_engine import PythonScriptEngine
from SpiffWorkflow.bpmn.specs.defaults import (
    CallActivity,
    ExclusiveGateway,
    ParallelMultiInstanceTask,
    SequentialMultiInstanceTask,
    SubWorkflowTask,
)
from SpiffWorkflow.bpmn.specs.event_definitions.conditional import ConditionalEventDefinition
from SpiffWorkflow.bpmn.specs.event_definitions.message import MessageEventDefinition
from SpiffWorkflow.bpmn.specs.event_definitions.multiple import MultipleEventDefinition
from SpiffWorkflow.bpmn.specs.event_definitions.timer import TimerEventDefinition
from SpiffWorkflow.bpmn.specs.mixins.bpmn_spec_mixin import BpmnSpecMixin
from SpiffWorkflow.bpmn.specs.mixins.multiinstance_task import MultiInstanceTask
from SpiffWorkflow.util.task import TaskState

from seams import vocab as V
from seams_runtime.engine.errors import EngineRefused, ScenarioStop

RESERVED_IDS = frozenset({"Start", "End", "Root"})
"""Task names SpiffWorkflow gives its own specs; a BPMN element with such an id is renamed."""

RENAMED_PREFIX = "seams-element-"

NO_OPS = ("dataStore", "dataStoreReference", "dataObject", "dataObjectReference", "dataInputAssociation",
          "dataOutputAssociation", "group", "textAnnotation", "association", "category", "ioSpecification",
          "property", "dataInput", "dataOutput", "inputSet", "outputSet")
"""BPMN elements without run-time behaviour, taken out of SpiffWorkflow's copy."""


class SeamsScriptEngine(PythonScriptEngine):
    """Carries the run to the specs; evaluates model text only with seams' evaluators."""

    def __init__(self, runtime: Any):
        super().__init__()
        self.runtime = runtime

    def evaluate(self, task, expression, external_context=None):
        return self.runtime.evaluate(task, expression)

    def execute(self, task, script, external_context=None):
        raise ScenarioStop(element_id(task), "the engine runs no scripts")


def _runtime(task: Any) -> Any:
    return task.workflow.top_workflow.script_engine.runtime


def element_id(task: Any) -> str | None:
    """The BPMN id of the element a SpiffWorkflow task runs (renamed ids mapped back)."""
    bpmn_id = getattr(task.task_spec, "bpmn_id", None)
    if isinstance(bpmn_id, str) and bpmn_id.startswith(RENAMED_PREFIX):
        return bpmn_id[len(RENAMED_PREFIX):]
    return bpmn_id


class SeamsServiceTask(BpmnSpecMixin):
    """A service, send or script task: the project's handler, in the sandbox (or the scenario's answer)."""

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
        output = next((spec for spec in self.outputs if element_id_of_spec(spec) == target), None)
        if output is None:  # a target with boundary events is reached through SpiffWorkflow's split
            output = next((spec for spec in self.outputs if element_id_of_spec(spec) is None
                           and any(element_id_of_spec(o) == target for o in spec.outputs)), None)
        if output is None:
            raise ScenarioStop(element_id(my_task), f"no task for the flow's target {target}")
        my_task._sync_children([output], TaskState.FUTURE)
        for child in my_task.children:
            child.task_spec._predict(child, mask=TaskState.FUTURE | TaskState.PREDICTED_MASK)
        return True


def element_id_of_spec(spec: Any) -> str | None:
    bpmn_id = getattr(spec, "bpmn_id", None)
    if isinstance(bpmn_id, str) and bpmn_id.startswith(RENAMED_PREFIX):
        return bpmn_id[len(RENAMED_PREFIX):]
    return bpmn_id


class SeamsCallActivity(CallActivity):
    """A call activity: the called process from the project's payloads, its variables passed in and
    out as the BPMN maps them; a called process the project does not hold is answered by the run's
    ``user_task_data`` like a user task."""

    def _update_hook(self, my_task):
        if self.spec not in my_task.workflow.top_workflow.subprocess_specs:
            _runtime(my_task).answer_call(my_task)
            return True
        return super()._update_hook(my_task)

    def copy_data(self, my_task, subworkflow):
        _runtime(my_task).started(my_task)
        start = subworkflow.get_next_task(subworkflow.task_tree, skip_subprocesses=True, spec_name="Start")
        start.set_data(**_runtime(my_task).call_inputs(my_task))

    def update_data(self, my_task, subworkflow):
        _runtime(my_task).call_outputs(my_task, subworkflow.last_task.data)


class SeamsSubProcess(SubWorkflowTask):
    """An embedded sub-process: SpiffWorkflow's, its step recorded when it starts."""

    def copy_data(self, my_task, subworkflow):
        _runtime(my_task).started(my_task)
        super().copy_data(my_task, subworkflow)


class _GatewayParser(ConditionalGatewayParser):
    """Connects every outgoing flow (seams evaluates the conditions, not SpiffWorkflow)."""

    def connect_outgoing(self, outgoing_task, sequence_flow_node, is_default):
        self.task.connect(outgoing_task)


class _Parser(BpmnParser):
    OVERRIDE_PARSER_CLASSES = {
        full_tag("serviceTask"): (TaskParser, SeamsServiceTask),
        full_tag("scriptTask"): (TaskParser, SeamsServiceTask),
        full_tag("sendTask"): (TaskParser, SeamsServiceTask),
        full_tag("businessRuleTask"): (TaskParser, SeamsBusinessRuleTask),
        full_tag("exclusiveGateway"): (_GatewayParser, SeamsExclusiveGateway),
        full_tag("callActivity"): (CallActivityParser, SeamsCallActivity),
        full_tag("subProcess"): (SubWorkflowParser, SeamsSubProcess),
    }


def spiff_document(tree: etree._ElementTree, known: frozenset[str] | None = None) -> etree._Element:
    """A copy of a BPMN document as SpiffWorkflow gets it: no-op elements out, reserved ids renamed."""
    root = copy.deepcopy(tree.getroot())
    bpmn = f"{{{V.BPMN_NS}}}"
    for element in list(root.iter(*(bpmn + name for name in NO_OPS))):
        parent = element.getparent()
        if parent is not None:
            parent.remove(element)
    for element in list(root.iter(f"{bpmn}dataInputAssociation", f"{bpmn}dataOutputAssociation")):
        element.getparent().remove(element)
    for loop in root.iter(f"{bpmn}multiInstanceLoopCharacteristics"):
        _standard_loop_data(loop)
    _links(root)
    _compensation(root)
    for adhoc in list(root.iter(f"{bpmn}adHocSubProcess")):  # answered by the run, like a task
        for child in list(adhoc):
            if isinstance(child.tag, str) and child.tag not in (f"{bpmn}incoming", f"{bpmn}outgoing",
                                                                f"{bpmn}multiInstanceLoopCharacteristics",
                                                                f"{bpmn}standardLoopCharacteristics"):
                adhoc.remove(child)
        adhoc.tag = f"{bpmn}sendTask"
    for call in root.iter(f"{bpmn}callActivity"):  # Camunda 8 names the called process in an extension
        called = call.find(f"{bpmn}extensionElements/{{{V.ZEEBE_NS}}}calledElement")
        target = (call.get("calledElement") or (called.get("processId") if called is not None else "") or "").strip()
        if not target or target.startswith(("=", "${", "#{")) or (known is not None and target not in known):
            target = f"{RENAMED_PREFIX}unknown-{call.get('id')}"  # not in the project: answered by the run
        call.set("calledElement", target)
    for timer in root.iter(f"{bpmn}timerEventDefinition"):  # the run's events fire timers: no time is read
        for child in list(timer):
            timer.remove(child)
        etree.SubElement(timer, f"{bpmn}timeDuration").text = "P0D"
    renamed = {el.get("id") for el in root.iter() if isinstance(el.tag, str) and el.get("id") in RESERVED_IDS
               and el.tag.startswith(bpmn) and el.tag != f"{bpmn}process"}
    if renamed:
        for el in root.iter():
            if not isinstance(el.tag, str):
                continue
            for attribute in ("id", "sourceRef", "targetRef", "attachedToRef", "default", "bpmnElement"):
                if el.get(attribute) in renamed:
                    el.set(attribute, RENAMED_PREFIX + el.get(attribute))
            if el.tag in (f"{bpmn}incoming", f"{bpmn}outgoing", f"{bpmn}flowNodeRef") \
                    and (el.text or "").strip() in renamed:
                el.text = RENAMED_PREFIX + (el.text or "").strip()
    return root


def _compensation(root: etree._Element) -> None:
    """Compensation boundary events and their handlers wait for a compensation the engine never
    throws: they are left out; a compensation throw event stops the run there (the runtime says so)."""
    bpmn = f"{{{V.BPMN_NS}}}"
    for boundary in list(root.iter(f"{bpmn}boundaryEvent")):
        if boundary.find(f"{bpmn}compensateEventDefinition") is not None:
            boundary.getparent().remove(boundary)
    for element in list(root.iter()):
        if isinstance(element.tag, str) and element.get("isForCompensation") == "true":
            element.getparent().remove(element)
    for definition in list(root.iter(f"{bpmn}compensateEventDefinition")):
        event = definition.getparent()
        event.remove(definition)
        event.set(COMPENSATES, "true")


COMPENSATES = "{https://w3id.org/seams/seam#}compensates"
"""Marks an event that throws a compensation in SpiffWorkflow's copy."""


def _links(root: etree._Element) -> None:
    """A link throw event goes on at the link catch event of its name (in its process or sub-process):
    both become plain events joined by a sequence flow, as BPMN means them (SpiffWorkflow has no links)."""
    bpmn = f"{{{V.BPMN_NS}}}"
    for scope in list(root.iter(f"{bpmn}process", f"{bpmn}subProcess")):
        catches: dict[str, etree._Element] = {}
        throws: list[tuple[etree._Element, str]] = []
        for event in scope:
            link = event.find(f"{bpmn}linkEventDefinition") if isinstance(event.tag, str) else None
            if link is None:
                continue
            name = link.get("name") or link.get("id") or ""
            event.remove(link)
            if event.tag == f"{bpmn}intermediateCatchEvent":
                catches[name] = event
            else:
                throws.append((event, name))
        for event, name in throws:
            target = catches.get(name)
            if target is not None and event.get("id") and target.get("id"):
                flow_id = f"{RENAMED_PREFIX}link-{event.get('id')}"
                etree.SubElement(scope, f"{bpmn}sequenceFlow", id=flow_id, sourceRef=event.get("id", ""),
                                 targetRef=target.get("id", ""))
                etree.SubElement(event, f"{bpmn}outgoing").text = flow_id
                etree.SubElement(target, f"{bpmn}incoming").text = flow_id


_NAME = r"([A-Za-z_][A-Za-z0-9_]*)"
_PLAIN = re.compile(rf"^\s*(?:\$\{{\s*{_NAME}\s*\}}|=\s*{_NAME}|{_NAME})\s*$")


def _name(text: str | None) -> str | None:
    """``${items}``, ``=items`` or ``items`` -> ``items``; None for any other expression."""
    found = _PLAIN.match(text or "")
    return next((g for g in found.groups() if g), None) if found else None


def _standard_loop_data(loop: etree._Element) -> None:
    """Camunda's multi-instance attributes as the BPMN elements SpiffWorkflow reads: Camunda 7
    ``camunda:collection``/``elementVariable``, Camunda 8 ``zeebe:loopCharacteristics``
    (``inputCollection``, ``inputElement``, ``outputCollection``, ``outputElement``). A collection
    that is an expression is computed by the run into a variable of its own (:data:`COLLECTION`)."""
    bpmn, camunda, zeebe = f"{{{V.BPMN_NS}}}", f"{{{V.CAMUNDA_NS}}}", f"{{{V.ZEEBE_NS}}}"
    if loop.find(f"{bpmn}loopDataInputRef") is not None or loop.find(f"{bpmn}loopCardinality") is not None:
        return
    owner = loop.getparent().get("id", "") if loop.getparent() is not None else ""
    collection = loop.get(f"{camunda}collection")
    element = loop.get(f"{camunda}elementVariable")
    output, output_element = None, None
    z = loop.find(f"{bpmn}extensionElements/{zeebe}loopCharacteristics")
    if z is not None:
        collection, element = z.get("inputCollection"), z.get("inputElement")
        output, output_element = z.get("outputCollection"), _name(z.get("outputElement"))
    if not collection:
        return
    source = _name(collection) or COLLECTION + owner
    ref = etree.SubElement(loop, f"{bpmn}loopDataInputRef")
    ref.text = source
    if element:
        etree.SubElement(loop, f"{bpmn}inputDataItem", id=element, name=element)
    if output and output_element:
        out = etree.SubElement(loop, f"{bpmn}loopDataOutputRef")
        out.text = output
        etree.SubElement(loop, f"{bpmn}outputDataItem", id=output_element, name=output_element)


COLLECTION = "seams_collection_"
"""The variable a multi-instance collection written as an expression is computed into (then removed)."""


def start_before(root: etree._Element, process_id: str, element: str) -> None:
    """The instance starts before ``element`` (Camunda's ``startBeforeActivity``): the process's start
    events lead straight to it in SpiffWorkflow's copy."""
    bpmn = f"{{{V.BPMN_NS}}}"
    process = next((p for p in root.iter(f"{bpmn}process") if p.get("id") == process_id), None)
    if process is None or not any(c.get("id") == element for c in process if isinstance(c.tag, str)):
        raise EngineRefused(f"{process_id}: cannot start at {element!r}: no such element directly in the process")
    starts = [c.get("id") for c in process if c.tag == f"{bpmn}startEvent"]
    for flow in list(process.iter(f"{bpmn}sequenceFlow")):
        if flow.get("sourceRef") in starts:
            flow.getparent().remove(flow)
    for start in process.iter(f"{bpmn}startEvent"):
        if start.getparent() is process:
            for out in start.findall(f"{bpmn}outgoing"):
                start.remove(out)
            flow_id = f"{RENAMED_PREFIX}start-{start.get('id')}"
            etree.SubElement(process, f"{bpmn}sequenceFlow", id=flow_id, sourceRef=start.get("id", ""),
                             targetRef=element)


def parse_specs(documents: list[tuple[str, etree._ElementTree]], process_id: str,
                start_at: str | None = None) -> tuple[Any, dict[str, Any]]:
    """The SpiffWorkflow spec of ``process_id`` (started before ``start_at`` when given) and the specs
    of every process it calls that the documents hold; a refusal names the element."""
    parser = _Parser()
    source = documents[0][0] if documents else "?"
    known = frozenset(p.get("id", "") for _, tree in documents for p in tree.getroot().iter(f"{{{V.BPMN_NS}}}process"))
    try:
        for number, (relpath, tree) in enumerate(documents):
            source = relpath
            try:
                document = spiff_document(tree, known)
                if number == 0 and start_at:
                    start_before(document, process_id, start_at)
                parser.add_bpmn_xml(document, filename=relpath)
            except ValidationException:
                if number == 0:
                    raise  # another payload SpiffWorkflow cannot read only matters if it is called
        spec = parser.get_spec(process_id)
        subprocesses = _subprocess_specs(parser, process_id, {})
    except ValidationException as exc:
        element = getattr(exc, "id", None) or getattr(exc, "name", None) or process_id
        message = str(exc).splitlines()[0].rstrip(". ")
        raise EngineRefused(f"{source}: {element}: SpiffWorkflow cannot run it: {message}") from None
    except (TypeError, KeyError, AttributeError, ValueError, IndexError) as exc:  # a shape SpiffWorkflow trips on
        raise EngineRefused(f"{source}: {process_id}: SpiffWorkflow cannot read the process "
                            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'no detail'}); "
                            "is every element connected?") from None
    for each in [spec, *subprocesses.values()]:
        for task_spec in each.task_specs.values():
            _neuter(getattr(task_spec, "event_definition", None))
            if type(task_spec) in _LOCAL_ITEMS:
                task_spec.__class__ = _LOCAL_ITEMS[type(task_spec)]
    return spec, subprocesses


class _InstanceScope(MultiInstanceTask):
    """A multi-instance activity's input and output elements are the instance's own variables (as in
    Camunda): an instance's other variables reach the activity, its element variable does not."""

    def _update_hook(self, my_task):
        if not my_task.internal_data.get("merged"):  # before the first instance: the collection
            my_task._inherit_data()  # what SpiffWorkflow's own hook does first
            _runtime(my_task).collection(my_task)
        return super()._update_hook(my_task)

    def merge_child(self, workflow, child):
        if self.data_output is not None and self.output_item is not None:
            super().merge_child(workflow, child)
        else:
            own = {ref.bpmn_id for ref in (self.input_item, self.output_item) if ref is not None}
            saved = child.data
            child.data = {k: v for k, v in saved.items() if k not in own}
            try:
                super().merge_child(workflow, child)
            finally:
                child.data = saved


class _SequentialInstances(_InstanceScope, SequentialMultiInstanceTask):
    pass


class _ParallelInstances(_InstanceScope, ParallelMultiInstanceTask):
    pass


_LOCAL_ITEMS = {SequentialMultiInstanceTask: _SequentialInstances, ParallelMultiInstanceTask: _ParallelInstances}


def _subprocess_specs(parser: BpmnParser, name: str, found: dict[str, Any]) -> dict[str, Any]:
    """Every sub-process and called process spec under ``name``; a called process the documents do
    not hold is left out, at any depth (the run answers it)."""
    from SpiffWorkflow.bpmn.specs.mixins.subworkflow_task import SubWorkflowTask as SubWorkflowMixin

    for task_spec in parser.get_spec(name).task_specs.values():
        if isinstance(task_spec, SubWorkflowMixin) and task_spec.spec not in found:
            spec = parser.get_spec(task_spec.spec, required=False)
            if spec is not None:
                found[task_spec.spec] = spec
                _subprocess_specs(parser, task_spec.spec, found)
    return found


def _neuter(definition: Any) -> None:
    """Timers, messages and conditions are fired by the scenario, never evaluated by SpiffWorkflow."""
    if isinstance(definition, MultipleEventDefinition):
        for each in definition.event_definitions:
            _neuter(each)
    if isinstance(definition, (TimerEventDefinition, MessageEventDefinition, ConditionalEventDefinition)):
        definition.update_task = _nothing
        definition.update_task_data = _nothing
        definition.has_fired = _fired
    if isinstance(definition, MessageEventDefinition):
        definition.throw = _thrown


def _thrown(my_task: Any) -> None:
    """A message throw event or end event: its handler runs when the model gives it one."""
    _runtime(my_task).thrown(my_task)


def _nothing(*_args: Any, **_kwargs: Any) -> None:
    return None


def _fired(my_task: Any) -> bool:
    return bool(my_task._get_internal_data("event_fired", False))

"""What the embedded engine runs, written once for the engine and for ``seams check``.

The engine (seams_runtime.engine) refuses a process before it runs when an
element of it is not in this table; ``seams check`` reports the same element
with the same words (a ``decision`` finding on the process, predicate
``seam:payloadElement``), so a clean check means the process runs
(docs/scenarios.md, "The embedded engine").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from lxml import etree

from seams import vocab as V
from seams.findings import Finding

if TYPE_CHECKING:
    from seams.model.loading import Model

RUNS = frozenset({
    "startEvent", "endEvent", "intermediateCatchEvent", "intermediateThrowEvent", "boundaryEvent",
    "userTask", "manualTask", "task", "serviceTask", "sendTask", "receiveTask", "scriptTask",
    "businessRuleTask", "exclusiveGateway", "parallelGateway", "inclusiveGateway", "eventBasedGateway",
    "subProcess", "callActivity", "adHocSubProcess",
})
"""The BPMN flow elements the engine runs."""

EVENTS = frozenset({"timerEventDefinition", "messageEventDefinition", "errorEventDefinition",
                    "terminateEventDefinition", "signalEventDefinition", "escalationEventDefinition",
                    "conditionalEventDefinition", "linkEventDefinition", "compensateEventDefinition"})
"""The event definitions it runs (timers, messages and conditions fire when the scenario says; a
compensation is never thrown: a compensation boundary event waits for ever, a compensation throw
event stops the run where it is reached, which :func:`engine_findings` says beforehand)."""

IGNORED = frozenset({"sequenceFlow", "laneSet", "documentation", "extensionElements", "textAnnotation",
                     "association", "dataObject", "dataObjectReference", "dataStoreReference", "property",
                     "ioSpecification", "group", "incoming", "outgoing", "dataInputAssociation",
                     "dataOutputAssociation", "conditionExpression", "multiInstanceLoopCharacteristics",
                     "standardLoopCharacteristics"})
"""Children read past: no-ops at run time, or parts of an element judged with it."""

LOOPS = frozenset({"multiInstanceLoopCharacteristics", "standardLoopCharacteristics"})


def refusals(process_element: etree._Element, *, loops: bool = True) -> Iterator[tuple[str, str, str]]:
    """(element id, BPMN kind, what the engine lacks) for each element of the process it would refuse,
    in document order (sub-processes included)."""
    bpmn = f"{{{V.BPMN_NS}}}"
    for node in process_element.iter():
        if not isinstance(node.tag, str) or not node.tag.startswith(bpmn) or node is process_element:
            continue
        parent = node.getparent()
        if parent is None or parent.tag not in (f"{bpmn}process", f"{bpmn}subProcess"):
            continue
        kind = node.tag[len(bpmn):]
        if kind in IGNORED:
            continue
        name = node.get("id", "?")
        if kind not in RUNS:
            yield name, kind, f"the embedded engine does not run a {kind}"
            continue
        for child in node:
            if not isinstance(child.tag, str) or not child.tag.startswith(bpmn):
                continue
            local = child.tag[len(bpmn):]
            if local.endswith("EventDefinition") and local not in EVENTS:
                yield name, kind, f"the embedded engine does not run a {local}"
            elif local in LOOPS and not loops:
                yield name, kind, f"the embedded engine does not run {local}"
        if kind == "subProcess" and node.get("triggeredByEvent") == "true":
            continue


def engine_findings(model: Model) -> Iterable[Finding]:
    """One ``decision`` finding per element the engine would refuse, on the process that holds it."""
    for process in model.view.processes.values():
        payload = model.payloads.get(process.payload) if process.payload is not None else None
        if payload is None or payload.format != "bpmn" or not process.found:
            continue
        element = next((el for el in payload.tree.getroot().iter(f"{{{V.BPMN_NS}}}process")
                        if el.get("id") == process.element_id), None)
        if element is None:
            continue
        relpath = payload.relpath
        for element_id, kind, why in refusals(element):
            yield Finding("decision", model.qname(process.iri), "seam:payloadElement",
                          f"{relpath}: {kind} {element_id}: {why}; seams run and the scenarios refuse the process")
        bpmn = f"{{{V.BPMN_NS}}}"
        for event in element.iter(f"{bpmn}intermediateThrowEvent", f"{bpmn}endEvent"):
            if event.find(f"{bpmn}compensateEventDefinition") is not None:
                yield Finding("decision", model.qname(process.iri), "seam:payloadElement",
                              f"{relpath}: {etree.QName(event).localname} {event.get('id')}: the embedded engine "
                              "does not compensate; a run that reaches it stops there")

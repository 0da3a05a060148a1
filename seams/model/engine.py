"""What the BPMN tells an engine about each service task: its job type or external topic.

A service task runs on Camunda 8 when its element carries a
``zeebe:taskDefinition`` (the job type workers subscribe to), and on Camunda 7
as an external task when it has ``camunda:type="external"`` and a
``camunda:topic``. The worker generators (``zeebe``, ``camunda7``) and the
``engine-bindings`` gate read both here, from the parsed payload, so they
never disagree about a task's type or topic (docs/generators.md, "Workers for
real engines").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lxml import etree

from seams import vocab as V

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.view import Task


@dataclass(frozen=True)
class EngineBinding:
    """One service task's element in its BPMN file, and what the engines read from it."""

    bpmn_file: str | None  # the payload's path relative to the project root; None: no BPMN payload
    element_found: bool  # the payload has a flow element with the task's seam:payloadElement
    zeebe_type: str | None = None  # zeebe:taskDefinition type; "" when the element has it empty
    has_task_definition: bool = False
    zeebe_retries: str | None = None  # zeebe:taskDefinition retries, as written (None: not stated)
    camunda_type: str | None = None  # camunda:type ("external" for an external task)
    camunda_topic: str | None = None


def job_names(handler: str) -> tuple[str, ...]:
    """The job types and topics that name ``handler``: itself, and its kebab-case form
    (``check_balance`` or ``check-balance``), as Camunda's examples spell job types."""
    return tuple(dict.fromkeys((handler, handler.replace("_", "-"))))


def engine_binding(model: Model, task: Task) -> EngineBinding:
    """The engine attributes of ``task``'s BPMN element (read from its process's payload)."""
    process = model.view.processes.get(task.process) if task.process is not None else None
    payload = model.payloads.get(process.payload) if process is not None and process.payload else None
    if payload is None or payload.format != "bpmn":
        return EngineBinding(bpmn_file=None, element_found=False)
    shown = model.project.relative(payload.path)
    element = _elements(payload.tree).get(task.element_id or "")
    if element is None:
        return EngineBinding(bpmn_file=shown, element_found=False)
    definition = element.find(f"{{{V.BPMN_NS}}}extensionElements/{{{V.ZEEBE_NS}}}taskDefinition")
    return EngineBinding(
        bpmn_file=shown, element_found=True,
        zeebe_type=(definition.get("type") or "").strip() if definition is not None else None,
        has_task_definition=definition is not None,
        zeebe_retries=definition.get("retries") if definition is not None else None,
        camunda_type=element.get(f"{{{V.CAMUNDA_NS}}}type"),
        camunda_topic=element.get(f"{{{V.CAMUNDA_NS}}}topic"),
    )


_INDEX: dict[int, tuple[etree._ElementTree, dict[str, etree._Element]]] = {}


def _elements(tree: etree._ElementTree) -> dict[str, etree._Element]:
    """BPMN elements by id, built once per parsed tree (a task lookup stays constant time)."""
    cached = _INDEX.get(id(tree))
    if cached is not None and cached[0] is tree:
        return cached[1]
    index = {}
    for element in tree.getroot().iter(f"{{{V.BPMN_NS}}}*"):
        key = element.get("id")
        if key is not None and key not in index:
            index[key] = element
    if len(_INDEX) > 64:
        _INDEX.clear()
    _INDEX[id(tree)] = (tree, index)
    return index

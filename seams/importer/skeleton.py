"""The files of a new, empty seams project (``seams init`` without ``--from``).

The starter BPMN is what Camunda Modeler draws for a new diagram (one
executable process, a start event flowing to an end event, with DI), so the
same import path that reads a team's own model builds the new project's
TriG file too.
"""

from __future__ import annotations

import re

from seams import vocab as V

DEFAULT_BASE_HOST = "https://example.org/"
STARTER_BPMN = "process.bpmn"
GITIGNORE = ".seams/\n__pycache__/\n"
HANDLERS_INIT = '"""Hand-owned handler modules, one per BPMN service task (docs/model.md)."""\n'


def default_base(directory_name: str) -> str:
    """``https://example.org/<dir>/``: a placeholder the user is told to change."""
    slug = re.sub(r"[^a-z0-9]+", "-", directory_name.lower()).strip("-") or "project"
    return f"{DEFAULT_BASE_HOST}{slug}/"


def config_text(base: str) -> str:
    escaped = base.replace("\\", "\\\\").replace('"', '\\"')
    return (
        "# A seams project (docs/model.md). project.base is the IRI base of the model:\n"
        "# change it to one you own, together with the ex: prefix in model/model.trig.\n"
        "[project]\n"
        f'base = "{escaped}"\n'
        'model = "model/model.trig"\n'
        'handlers = "handlers"\n'
        'generated = "generated"\n'
        "\n"
        "# [propose]\n"
        '# provider = "..."   # the provider command for seams propose (docs/providers.md)\n'
    )


def starter_bpmn(process_id: str = "Process_1", name: str = "Process") -> bytes:
    """A BPMN 2.0 file with DI: one executable process, start -> end."""
    namespaces = " ".join(f'xmlns:{p}="{ns}"' for p, ns in (
        ("bpmn", V.BPMN_NS), ("bpmndi", V.BPMNDI_NS), ("dc", V.DC_NS), ("di", V.DI_NS)))
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions {namespaces} id="Definitions_1" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="{process_id}" name="{name}" isExecutable="true">
    <bpmn:startEvent id="StartEvent_1" name="Started">
      <bpmn:outgoing>Flow_1</bpmn:outgoing>
    </bpmn:startEvent>
    <bpmn:endEvent id="EndEvent_1" name="Done">
      <bpmn:incoming>Flow_1</bpmn:incoming>
    </bpmn:endEvent>
    <bpmn:sequenceFlow id="Flow_1" sourceRef="StartEvent_1" targetRef="EndEvent_1" />
  </bpmn:process>
  <bpmndi:BPMNDiagram id="BPMNDiagram_1">
    <bpmndi:BPMNPlane id="BPMNPlane_1" bpmnElement="{process_id}">
      <bpmndi:BPMNShape id="StartEvent_1_di" bpmnElement="StartEvent_1">
        <dc:Bounds x="152" y="102" width="36" height="36" />
      </bpmndi:BPMNShape>
      <bpmndi:BPMNShape id="EndEvent_1_di" bpmnElement="EndEvent_1">
        <dc:Bounds x="302" y="102" width="36" height="36" />
      </bpmndi:BPMNShape>
      <bpmndi:BPMNEdge id="Flow_1_di" bpmnElement="Flow_1">
        <di:waypoint x="188" y="120" />
        <di:waypoint x="302" y="120" />
      </bpmndi:BPMNEdge>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>
""".encode()

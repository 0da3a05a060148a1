"""BPMN and DMN files that an engine would read differently from seams.

Two elements with one ``id`` make every reference to that id ambiguous (the
checks index a payload by id and would see only the last), and a sequence
flow with two ``conditionExpression``s has no single condition (seams read
one, an engine may read the other). Both are ``decision`` findings naming
the id and the file (docs/model.md).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from seams import vocab as V
from seams.findings import Finding

if TYPE_CHECKING:
    from seams.model.loading import Model

KIND = "decision"
_BPMN = f"{{{V.BPMN_NS}}}"


def payload_structure_findings(model: Model) -> list[Finding]:
    found = []
    for payload in sorted(model.payloads.values(), key=lambda p: p.relpath):
        root = payload.tree.getroot()
        ids = Counter(el.get("id") for el in root.iter() if isinstance(el.tag, str) and el.get("id"))
        for element_id, count in sorted(ids.items()):
            if count > 1:
                found.append(Finding(KIND, element_id, None,
                                     f"{payload.relpath} has {count} elements with the id {element_id}; "
                                     "ids must be unique in a file"))
        if payload.format != "bpmn":
            continue
        for flow in root.iter(f"{_BPMN}sequenceFlow"):
            conditions = flow.findall(f"{_BPMN}conditionExpression")
            if len(conditions) > 1:
                found.append(Finding(KIND, flow.get("id") or "sequenceFlow", "bpmn:conditionExpression",
                                     f"{payload.relpath}: the flow has {len(conditions)} condition expressions; "
                                     "a flow has at most one"))
    return found

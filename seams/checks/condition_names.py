"""Names in conditions that Unicode normalisation turns into other names.

Python folds identifiers with NFKC before it compares them, so the
condition ``ｄａｙｓ > 20`` (fullwidth letters) reads the variable ``days``
when seams evaluates it, while a BPMN engine's expression language sees a
name no process variable has. The raw condition text of every sequence flow
is scanned (outside string literals) for identifiers that NFKC changes, and
each is a ``decision`` finding naming the flow, the name as written and
what it folds to (docs/model.md). The condition parser is not involved: it
only ever sees text a person typed.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from seams import vocab as V
from seams.findings import Finding

if TYPE_CHECKING:
    from seams.model.loading import Model

KIND = "decision"
_BPMN = f"{{{V.BPMN_NS}}}"
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', re.S)
_NAME = re.compile(r"[^\W\d]\w*")


def condition_name_findings(model: Model) -> list[Finding]:
    found = []
    for payload in sorted(model.payloads.values(), key=lambda p: p.relpath):
        if payload.format != "bpmn":
            continue
        for flow in payload.tree.getroot().iter(f"{_BPMN}sequenceFlow"):
            for condition in flow.findall(f"{_BPMN}conditionExpression"):
                text = _STRING.sub(" ", condition.text or "")
                for name in sorted(set(_NAME.findall(text))):
                    folded = unicodedata.normalize("NFKC", name)
                    if folded != name:
                        found.append(Finding(
                            KIND, flow.get("id") or "sequenceFlow", "bpmn:conditionExpression",
                            f"the name {name!r} is {folded!r} after Unicode normalisation (NFKC): Python "
                            f"would read {folded!r}, an engine another name; write it as {folded!r}"))
    return found

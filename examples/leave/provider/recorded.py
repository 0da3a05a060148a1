"""A provider that replays recorded answers, so the leave walkthrough runs offline.

seams sends a prompt on stdin and reads the answer from stdout (ADR-0020).
This script recognises the prompt's template by its first line
(``seams prompt <template>``), finds the subject the prompt is about inside
its DATA blocks, and prints the answer recorded for that pair. A prompt it
has no answer for exits 3 with a message on stderr, which seams reports as
a provider failure. To add a recording, add a subject finder for a new
template to SUBJECTS and the answer to ANSWERS.

Only the standard library is used: ``python3 provider/recorded.py`` must run
with whatever Python the walkthrough has.
"""

from __future__ import annotations

import json
import re
import sys

_BLOCK = re.compile(r"^(`{3,})DATA-([0-9a-f]{8}) ([^\n]+)\n(.*?)^\1DATA-\2$", re.M | re.S)


def data_blocks(prompt: str) -> dict[str, str]:
    """The DATA blocks of a prompt, by label."""
    return {m.group(3): m.group(4) for m in _BLOCK.finditer(prompt)}


def draft_subject(prompt: str) -> str:
    """draft-v1, draft-v2 and draft-followup-v1: the task IRI from the facts block."""
    return json.loads(data_blocks(prompt)["facts"])["task"]


def suggest_subject(prompt: str) -> str:
    """suggest-v1 to -v3: the BPMN id of the first candidate gateway in the gateways block."""
    return json.loads(data_blocks(prompt)["gateways"])[0]["gateway"]


def merge_shapes_subject(prompt: str) -> str:
    """suggest-merge-shapes-v1: the shapes of the first set of alike shapes, joined by spaces."""
    return " ".join(shape["iri"] for shape in json.loads(data_blocks(prompt)["alike shapes"])[0])


def gist_anchor_subject(prompt: str) -> str:
    """suggest-gist-anchor-v1: the first class without a gist superclass."""
    return json.loads(data_blocks(prompt)["unanchored classes"])[0]["iri"]


def generator_subject(prompt: str) -> str:
    """draft-generator-v2: the reference output's file name."""
    return data_blocks(prompt)["reference name"].strip("\n")


# template -> how to find the subject of one of its prompts
SUBJECTS = {
    "draft-v1.txt": draft_subject,
    "draft-v2.txt": draft_subject,
    "draft-generator-v2.txt": generator_subject,
    "suggest-v1.txt": suggest_subject,
    "suggest-v2.txt": suggest_subject,
    "suggest-v3.txt": suggest_subject,
    "suggest-merge-shapes-v1.txt": merge_shapes_subject,
    "suggest-gist-anchor-v1.txt": gist_anchor_subject,
}

# The handler an LLM wrote for ex:RecordLeave from its draft-v1 prompt,
# kept as it answered (with the fence seams strips).
RECORD_LEAVE = '''```python
"""Record leave: book the approved days in the team calendar and keep the booking reference."""


def handle(inputs, bindings):
    """Book the employee's days off and return the calendar's booking reference."""
    booking_ref = bindings.calendar(inputs["employee"], inputs["leave_type"], inputs["days"])
    return {"booking_ref": str(booking_ref)}
```
'''

# The condition-to-dmn suggestion an LLM made for Gateway_Escalate from its
# suggest-v1 prompt: the "long or unpaid" rule as a decision table. The
# suggest-v2 prompt (the same gateway, its conditions in seams' dialect) got
# the same answer.
# suggest-v3 only adds the several-outputs form to v2; this one-output answer is
# replayed for it.
ESCALATION = """```json
{
  "kind": "condition-to-dmn",
  "gateway": "Gateway_Escalate",
  "decision": {"id": "Decision_Escalation", "name": "Escalation"},
  "inputs": ["days", "leave_type"],
  "output": "escalation",
  "hit_policy": "UNIQUE",
  "rules": [
    {"when": {"days": "> 20"}, "then": "hr"},
    {"when": {"days": "<= 20", "leave_type": "\\"unpaid\\""}, "then": "hr"},
    {"when": {"days": "<= 20", "leave_type": "not(\\"unpaid\\")"}, "then": "none"}
  ],
  "conditions": {
    "Flow_HR": "escalation == \\"hr\\"",
    "Flow_Done": "escalation == \\"none\\""
  }
}
```
"""

# The merge-shapes suggestion for the two alike booking shapes: one shape on the
# existing class ex:LeaveBooking.
MERGE_BOOKINGS = """{
  "kind": "merge-shapes",
  "shapes": ["ex:BookingShape", "ex:RebookingShape"],
  "class": {"iri": "ex:LeaveBooking"},
  "shape": {"iri": "ex:LeaveBookingShape", "label": "Leave booking"}
}
"""

# The gist-anchor suggestion for ex:LeaveRebooking.
ANCHOR_REBOOKING = """{
  "kind": "gist-anchor",
  "class": "ex:LeaveRebooking",
  "superclass": "gist:Event",
  "reason": "A rebooking happens at a time: booked days are moved to other dates."
}
"""

# The generator an LLM drafted from reference/variables.md with its
# draft-generator-v2 prompt, kept as it answered: one JSON object (extract,
# template, golden) in a fence seams strips.
VARIABLES_EXTRACT = '''from seams import vocab


def extract(trig: Path, out: Path) -> dict:
    """The process variables (seam:Variable): name, datatype as a prefixed name and label, sorted by name."""
    dataset = load(trig)
    variables = []
    for variable in set(dataset.subjects(vocab.RDF.type, vocab.Variable)):
        datatype = dataset.value(variable, vocab.datatype)
        variables.append({
            "name": str(dataset.value(variable, vocab.name)),
            "datatype": dataset.namespace_manager.normalizeUri(datatype),
            "label": str(dataset.value(variable, vocab.RDFS.label)),
        })
    return {"variables": sorted(variables, key=lambda v: v["name"])}
'''
VARIABLES_TEMPLATE = (
    '# Process variables\n'
    '\n'
    'The variables of the leave request process, as the model declares them.\n'
    '\n'
    '| Name | Datatype | Label |\n'
    '| --- | --- | --- |\n'
    '[% for v in variables %]| [[ v.name ]] | [[ v.datatype ]] | [[ v.label ]] |\n'
    '[% endfor %]'
)
VARIABLES_GOLDEN = (
    '[fixed] # Process variables\n'
    '\n'
    '[fixed] The variables of the leave request process, as the model declares them.\n'
    '\n'
    '[fixed] | Name | Datatype | Label |\n'
    '[fixed] | --- | --- | --- |\n'
    '[graph: ex:approval seam:name, seam:datatype, rdfs:label] | approval | xsd:string | Approval level |\n'
    '[graph: ex:approved seam:name, seam:datatype, rdfs:label] | approved | xsd:boolean | Approved |\n'
    '[graph: ex:balanceLeft seam:name, seam:datatype, rdfs:label] | balance_left | xsd:decimal | Balance left |\n'
    '[graph: ex:bookingRef seam:name, seam:datatype, rdfs:label] | booking_ref | xsd:string | Booking reference |\n'
    '[graph: ex:days seam:name, seam:datatype, rdfs:label] | days | xsd:integer | Days |\n'
    '[graph: ex:employee seam:name, seam:datatype, rdfs:label] | employee | xsd:string | Employee |\n'
    '[graph: ex:leaveType seam:name, seam:datatype, rdfs:label] | leave_type | xsd:string | Leave type |\n'
    '[graph: ex:reviewNote seam:name, seam:datatype, rdfs:label] | review_note | xsd:string | Review note |\n'
    '[graph: ex:startDate seam:name, seam:datatype, rdfs:label] | start_date | xsd:date | Start date |\n'
)
VARIABLES_GENERATOR = "```json\n" + json.dumps(
    {"extract": VARIABLES_EXTRACT, "template": VARIABLES_TEMPLATE, "golden": VARIABLES_GOLDEN},
    indent=2) + "\n```\n"

# (template, subject) -> recorded answer
ANSWERS = {
    ("draft-v1.txt", "https://example.org/leave/RecordLeave"): RECORD_LEAVE,
    ("draft-v2.txt", "https://example.org/leave/RecordLeave"): RECORD_LEAVE,
    ("draft-generator-v2.txt", "variables.md"): VARIABLES_GENERATOR,
    ("suggest-v1.txt", "Gateway_Escalate"): ESCALATION,
    ("suggest-v2.txt", "Gateway_Escalate"): ESCALATION,
    ("suggest-v3.txt", "Gateway_Escalate"): ESCALATION,
    ("suggest-merge-shapes-v1.txt", "ex:BookingShape ex:RebookingShape"): MERGE_BOOKINGS,
    ("suggest-gist-anchor-v1.txt", "ex:LeaveRebooking"): ANCHOR_REBOOKING,
}


def answer(prompt: str) -> str | None:
    first = prompt.split("\n", 1)[0]
    template = first[len("seams prompt "):] if first.startswith("seams prompt ") else None
    find = SUBJECTS.get(template)
    if find is None:
        return None
    try:
        subject = find(prompt)
    except (KeyError, ValueError):
        return None
    return ANSWERS.get((template, subject))


def main() -> int:
    prompt = sys.stdin.read()
    text = answer(prompt)
    if text is None:
        print(f"recorded.py: no recorded answer for this prompt "
              f"({prompt.split(chr(10), 1)[0][:80]!r})", file=sys.stderr)
        return 3
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

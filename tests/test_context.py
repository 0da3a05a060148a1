"""The context: the context manifest, its hash, and resolving TASK to a service task."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from helpers import copy_example, edit
from rdflib import Dataset, URIRef

from seams.errors import ResolutionError
from seams.model.context import canonical_json, context_for
from seams.model.loading import load_model
from seams.model.resolve import resolve_task
from seams.project.layout import load_project

RECORD_LEAVE = URIRef("https://example.org/leave/RecordLeave")


def _model(root: Path):
    return load_model(load_project(root))


def _hash(root: Path, task: URIRef = RECORD_LEAVE) -> str:
    return context_for(_model(root), task).hash


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> tuple[Path, str]:
    root = copy_example(tmp_path_factory.mktemp("clean"))
    return root, _hash(root)


def test_manifest_holds_the_facts_the_body_depends_on(clean):
    root, digest = clean
    context = context_for(_model(root), RECORD_LEAVE)
    m = context.manifest
    assert m["task"] == str(RECORD_LEAVE)
    assert (m["label"], m["process"], m["handler"]) == ("Record leave", "Leave request", "record_leave")
    assert m["comment"].startswith("Book the approved days")
    assert [r["name"] for r in m["reads"]] == ["days", "employee", "leave_type"]
    days = m["reads"][0]
    assert days["datatype"] == "http://www.w3.org/2001/XMLSchema#integer"
    assert days["constraints"] == [{"datatype": "http://www.w3.org/2001/XMLSchema#integer",
                                    "maxInclusive": 60, "minCount": 1, "minInclusive": 1}]
    assert m["reads"][2]["constraints"][0]["in"] == ["annual", "sick", "unpaid"]
    # the booking form and the alike rebooking shape (the example's merge-shapes case) both constrain it
    assert m["writes"][0]["constraints"] == [{"datatype": "http://www.w3.org/2001/XMLSchema#string",
                                              "pattern": "^BK-[0-9]+$"}] * 2
    xsd = "http://www.w3.org/2001/XMLSchema#"
    assert m["bindings"] == [{
        "name": "calendar", "label": "Team calendar",
        "comment": "Books the days off in the team calendar and returns the booking reference.",
        "parameters": [
            {"name": "employee", "datatype": f"{xsd}string", "variable": "https://example.org/leave/employee"},
            {"name": "leave_type", "datatype": f"{xsd}string", "variable": "https://example.org/leave/leaveType"},
            {"name": "days", "datatype": f"{xsd}integer", "variable": "https://example.org/leave/days"}],
        "result": {"datatype": f"{xsd}string", "fields": [], "variable": "https://example.org/leave/bookingRef"}}]
    assert [e["label"] for e in m["examples"]] == ["annual leave is booked", "unpaid leave is booked"]
    assert m["examples"][0]["replies"] == {"calendar": "BK-1042"}
    assert m["bpmn"].startswith('<bpmn:serviceTask xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" '
                                'id="Task_RecordLeave" name="Record leave">')
    assert context.hash == hashlib.sha256(canonical_json(m).encode("utf-8")).hexdigest() == digest


def test_other_tasks_have_other_hashes(clean):
    root, digest = clean
    assert _hash(root, URIRef("https://example.org/leave/CheckBalance")) != digest


def test_same_hash_after_trig_is_reserialized(clean, tmp_path):
    """Layout, prefixes spelled differently, triple order: none of it is a fact."""
    root = copy_example(tmp_path)
    trig = root / "model" / "model.trig"
    data = Dataset(default_union=True)
    data.parse(trig, format="trig", publicID="https://example.org/leave/")
    trig.write_text(data.serialize(format="trig"), encoding="utf-8")
    assert trig.read_text(encoding="utf-8") != (clean[0] / "model" / "model.trig").read_text(encoding="utf-8")
    assert _hash(root) == clean[1]


UNRELATED = [
    ("model.trig", "seam:reads ex:employee, ex:days, ex:leaveType ;",
     "seam:reads ex:leaveType,\n            ex:days, ex:employee ;"),
    ("model.trig", '"Look up how many days of this leave type the employee has left."', '"Other words."'),
    ("model.trig", 'rdfs:label "Approval level" ;\n        seam:name "approval"',
     'rdfs:label "Approval" ;\n        seam:name "approval"'),
    ("model.trig", "sh:maxLength 500", "sh:maxLength 400"),
    ("model.trig", "# Process variables", "# Process variables, renamed comment\n"
                                          "    ex:extra a seam:Variable ; seam:name \"extra\" ."),
    ("leave.bpmn", '<bpmn:serviceTask id="Task_RecordLeave" name="Record leave">\n      ',
     '<bpmn:serviceTask   name="Record leave"\n   id="Task_RecordLeave"><!-- moved -->\n'),
    ("leave.bpmn", '<bpmn:userTask id="Task_Submit" name="Submit leave request">',
     '<bpmn:userTask id="Task_Submit" name="Submit a request">'),
    ("leave.bpmn", '<dc:Bounds x="1060" y="80"', '<dc:Bounds x="1000" y="90"'),
    ("leave.dmn", "<text>&lt;= 5</text>", "<text>&lt;= 4</text>", 2),
]


@pytest.mark.parametrize("change", UNRELATED, ids=lambda c: c[2][:30])
def test_unrelated_changes_keep_the_hash(clean, tmp_path, change):
    root = copy_example(tmp_path)
    edit(root / "model" / change[0], *change[1:])
    assert _hash(root) == clean[1]


DEPENDENT = [
    ("model.trig", 'rdfs:label "Record leave"', 'rdfs:label "Record the leave"'),
    ("model.trig", '"Book the approved days in the team calendar and keep the booking reference."',
     '"Book the days."'),
    ("model.trig", 'rdfs:label "Leave request" ;\n        seam:payload', 'rdfs:label "Leave" ;\n        seam:payload'),
    ("model.trig", 'seam:handler "record_leave"', 'seam:handler "book_leave"'),
    ("model.trig", "seam:reads ex:employee, ex:days, ex:leaveType ;", "seam:reads ex:employee, ex:days ;"),
    ("model.trig", 'seam:name "days" ;\n        seam:datatype xsd:integer', 'seam:name "days" ;\n        seam:datatype xsd:decimal'),
    ("model.trig", "sh:maxInclusive 60", "sh:maxInclusive 90"),
    ("model.trig", '"^BK-[0-9]+$"', '"^BK-[0-9]{4}$"'),
    ("model.trig", '"Books the days off in the team calendar and returns the booking reference."',
     '"Books the days."'),
    ("model.trig", 'seam:expect """{"booking_ref": "BK-2001"}"""', 'seam:expect """{"booking_ref": "BK-2002"}"""'),
    ("model.trig", 'seam:uses ex:Calendar ;', 'seam:uses ex:Calendar, ex:Balances ;'),
    ("leave.bpmn", '<bpmn:serviceTask id="Task_RecordLeave" name="Record leave">',
     '<bpmn:serviceTask id="Task_RecordLeave" name="Record leave" camunda:asyncBefore="true">'),
]


@pytest.mark.parametrize("change", DEPENDENT, ids=lambda c: c[2][:30])
def test_every_dependent_fact_moves_the_hash(clean, tmp_path, change):
    root = copy_example(tmp_path)
    edit(root / "model" / change[0], *change[1:])
    assert _hash(root) != clean[1]


def test_context_of_a_non_service_task_is_refused(clean):
    with pytest.raises(ResolutionError, match="ex:SubmitRequest: not a service task"):
        context_for(_model(clean[0]), URIRef("https://example.org/leave/SubmitRequest"))


@pytest.mark.parametrize("text", ["https://example.org/leave/RecordLeave", "<https://example.org/leave/RecordLeave>",
                                  "ex:RecordLeave", "Task_RecordLeave", "record_leave", " record_leave "])
def test_resolve_accepts_every_spelling(clean, text):
    assert resolve_task(_model(clean[0]), text).iri == RECORD_LEAVE


def test_resolve_unknown_lists_the_service_tasks(clean):
    with pytest.raises(ResolutionError) as info:
        resolve_task(_model(clean[0]), "record_leav")
    assert info.value.exit_code == 2
    assert info.value.candidates == ("ex:CheckBalance (check_balance, Task_CheckBalance)",
                                     "ex:RecordLeave (record_leave, Task_RecordLeave)")
    assert str(info.value).startswith("record_leav: no service task")


def test_resolve_refuses_a_user_task(clean):
    with pytest.raises(ResolutionError, match="ex:SubmitRequest is not a service task"):
        resolve_task(_model(clean[0]), "Task_Submit")


def test_resolve_refuses_an_ambiguous_name(tmp_path):
    """A handler name that is another task's BPMN id names two tasks."""
    root = copy_example(tmp_path)
    edit(root / "model" / "model.trig", 'seam:handler "check_balance"', 'seam:handler "Task_RecordLeave"')
    with pytest.raises(ResolutionError, match="names more than one service task") as info:
        resolve_task(_model(root), "Task_RecordLeave")
    assert len(info.value.candidates) == 2


def test_manifest_is_json_and_sorted_independently_of_graph_order(clean):
    m = context_for(_model(clean[0]), RECORD_LEAVE).manifest
    assert json.loads(canonical_json(m)) == m


def test_context_takes_a_task_or_its_iri(clean):
    model = _model(clean[0])
    assert context_for(model, model.view.tasks[RECORD_LEAVE]).hash == context_for(model, str(RECORD_LEAVE)).hash

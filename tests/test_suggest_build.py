"""build_change: a suggestion built test-side becomes exactly the expected TriG, BPMN and DMN edits."""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path

import pytest
from helpers import EXAMPLE, copy_example, edit
from rdflib import URIRef

from seams.checks.decisions import decision_findings
from seams.checks.shapes import shape_findings
from seams.errors import GeneratorError
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.suggestions.answer import parse_object
from seams.suggestions.candidates import find_candidates
from seams_cli.llm.answer_text import strip_fence
from seams_cli.workflows.suggest.build import build_change, change_files

FIXTURES = Path(__file__).parent / "fixtures" / "suggest"
ESCALATE = json.loads(strip_fence((FIXTURES / "escalate.json").read_text(encoding="utf-8")))
CLAIM_ROUTE = {
    "kind": "condition-to-dmn", "gateway": "Gateway_Route",
    "decision": {"id": "Decision_ClaimRoute", "name": "Claim route"},
    "inputs": ["amount", "category"], "output": "claim_route",
    "rules": [
        {"when": {"amount": "> 1000"}, "then": "review"},
        {"when": {"amount": "<= 1000", "category": '"equipment"'}, "then": "review"},
        {"when": {"amount": "<= 1000", "category": 'not("equipment")'}, "then": "auto"},
    ],
    "conditions": {"Flow_Review": 'claim_route == "review"', "Flow_Auto": 'claim_route == "auto"'},
}


def _files(root: Path, answer: dict) -> tuple[object, dict[str, tuple[bytes | None, bytes]]]:
    project = load_project(root)
    model = load_model(project)
    suggestion = parse_object(answer, model, find_candidates(model))
    files = change_files(model, build_change(model, suggestion))
    return model, {project.relative(p): (p.read_bytes() if p.exists() else None, data) for p, data in files.items()}


def _changes(old: bytes, new: bytes) -> tuple[list[str], list[str]]:
    """Removed and added lines, as difflib sees them."""
    removed, added = [], []
    a, b = old.decode().splitlines(), new.decode().splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += a[i1:i2]
            added += b[j1:j2]
    return removed, added


def _write(root: Path, files: dict[str, tuple[bytes | None, bytes]]) -> None:
    for relpath, (_, data) in files.items():
        (root / relpath).write_bytes(data)


def test_escalation_changes_only_the_expected_lines(tmp_path):
    model, files = _files(EXAMPLE, ESCALATE)
    assert sorted(files) == ["model/leave.bpmn", "model/leave.dmn", "model/model.trig"]

    old, new = files["model/model.trig"]
    text = new.decode()
    # each new statement is a block of its own after a blank line, and nothing else changed (checked on the
    # text rather than on difflib's alignment, which shifts among the file's repeated lines)
    for block in [
        # each new statement writes its predicates, objects and nested nodes as its neighbour does
        '    ex:escalation a seam:Variable, owl:DatatypeProperty ;\n'
        '        rdfs:label "Escalation" ;\n        seam:name "escalation" ;\n        seam:datatype xsd:string .',
        '    ex:Task_Escalation a seam:BusinessRuleTask ;\n        rdfs:label "Escalation" ;\n'
        '        seam:inProcess ex:LeaveRequestProcess ;\n        seam:payloadElement "Task_Escalation" ;\n'
        '        seam:decidedBy ex:Decision_Escalation ;\n        seam:reads ex:days, ex:leaveType ;\n'
        '        seam:writes ex:escalation .',
        '    ex:Decision_Escalation a dec:Decision ;\n        rdfs:label "Escalation" ;\n'
        '        seam:payload ex:leave-dmn ;\n        dec:payloadElement "Decision_Escalation" ;\n'
        '        dec:input [ dec:variable "days" ; dec:fromPath ex:days ],\n'
        '            [ dec:variable "leave_type" ; dec:fromPath ex:leaveType ] ;\n'
        '        dec:output [ dec:variable "escalation" ; dec:processVariable ex:escalation ] ;\n'
        '        seam:reads ex:days, ex:leaveType .',
    ]:
        assert text.count(f"\n\n{block}\n") == 1, block
        text = text.replace(f"\n\n{block}\n", "\n")
    assert text == old.decode()

    removed, added = _changes(*files["model/leave.bpmn"])
    moved = {'<bpmn:exclusiveGateway id="Gateway_Escalate" name="Needs HR?">', "<bpmn:incoming>Flow_6</bpmn:incoming>"}
    semantic_removed = [line.strip() for line in removed
                        if "<dc:Bounds" not in line and "<di:waypoint" not in line and line.strip() not in moved]
    assert semantic_removed == [
        '<bpmn:sequenceFlow id="Flow_6" sourceRef="Task_RecordLeave" targetRef="Gateway_Escalate" />',
        '<bpmn:sequenceFlow id="Flow_HR" name="long or unpaid" sourceRef="Gateway_Escalate" targetRef="Task_HRReview">',
        '<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">'
        '<![CDATA[days > 20 or leave_type == "unpaid"]]></bpmn:conditionExpression>',
        '<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">'
        '<![CDATA[days <= 20 and leave_type != "unpaid"]]></bpmn:conditionExpression>',
    ]
    # a name that restated the old rule ("long or unpaid") is renamed by the value its new condition
    # tests and stays as documentation; "otherwise" restated nothing, is still true, and is kept
    assert [line.strip() for line in added if "Flow_HR\"" in line or "Flow_Done\"" in line or "documentation" in line] == [
        '<bpmn:sequenceFlow id="Flow_HR" name="hr" sourceRef="Gateway_Escalate" targetRef="Task_HRReview">',
        "<bpmn:documentation>long or unpaid</bpmn:documentation>",
    ]
    assert ('    <bpmn:sequenceFlow id="Flow_Done" name="otherwise" sourceRef="Gateway_Escalate" '
            'targetRef="EndEvent_Done">\n      <bpmn:conditionExpression') in files["model/leave.bpmn"][1].decode()
    assert ('    <bpmn:businessRuleTask id="Task_Escalation" name="Escalation" camunda:resultVariable="escalation" '
            'camunda:decisionRef="Decision_Escalation" camunda:mapDecisionResult="singleEntry">') in added
    assert '<![CDATA[escalation == "hr"]]>' in "\n".join(added)
    assert '<![CDATA[escalation == "none"]]>' in "\n".join(added)

    removed, added = _changes(*files["model/leave.dmn"])
    assert removed == []
    text = "\n".join(added)
    assert text.startswith('  <decision id="Decision_Escalation" name="Escalation">')
    assert text.count("<rule ") == 3 and "<text>&gt; 20</text>" in text and '<text>not("unpaid")</text>' in text
    assert '<output id="OutputClause_Decision_Escalation" name="escalation" typeRef="string" />' in text

    again_model, again = _files(EXAMPLE, ESCALATE)
    assert again == files  # same model, same answer: same bytes


def test_the_built_model_passes_shapes_and_decision_checks(tmp_path):
    root = copy_example(tmp_path)
    _, files = _files(root, ESCALATE)
    _write(root, files)
    model = load_model(load_project(root))
    assert shape_findings(model) == []
    assert decision_findings(model) == []
    assert find_candidates(model)[0].element_id == "Gateway_Reviewed"


def test_a_process_without_dmn_gets_a_new_payload_and_camunda_7_defaults(tmp_path):
    root = tmp_path / "claims"
    shutil.copytree(FIXTURES / "claims", root)
    _, files = _files(root, CLAIM_ROUTE)
    assert files["model/claims.dmn"][0] is None
    dmn = files["model/claims.dmn"][1].decode()
    assert 'id="Definitions_Claims" name="Expense claim" namespace="https://example.org/claims/claims"' in dmn
    removed, added = _changes(*files["model/model.trig"])
    assert removed == []
    text = "\n".join(added)
    assert 'ex:claims-dmn a seam:Payload ;\n        seam:path "claims.dmn" ;\n        seam:format "dmn" .' in text
    assert "ex:Task_Decision_ClaimRoute a seam:BusinessRuleTask ;" in text
    assert "seam:writes ex:claim_route ." in text
    assert ('ex:claim_route a seam:Variable, owl:DatatypeProperty ;\n        rdfs:label "Claim route" ;\n'
            '        seam:name "claim_route" ;\n        seam:datatype xsd:string .') in files["model/model.trig"][1].decode()
    bpmn = files["model/claims.bpmn"][1].decode()
    assert 'xmlns:camunda="http://camunda.org/schema/1.0/bpmn"' in bpmn
    assert ('<bpmn:businessRuleTask id="Task_Decision_ClaimRoute" name="Claim route" '
            'camunda:resultVariable="claim_route" camunda:decisionRef="Decision_ClaimRoute" '
            'camunda:mapDecisionResult="singleEntry">') in bpmn
    _write(root, files)
    model = load_model(load_project(root))
    assert shape_findings(model) == [] and decision_findings(model) == []


def test_a_zeebe_payload_gets_a_called_decision(tmp_path):
    root = copy_example(tmp_path)
    bpmn = root / "model" / "leave.bpmn"
    edit(bpmn, 'xmlns:camunda="http://camunda.org/schema/1.0/bpmn"', 'xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"')
    edit(bpmn, ' camunda:resultVariable="approval" camunda:decisionRef="Decision_ApprovalLevel" '
               'camunda:mapDecisionResult="singleEntry">',
         '>\n      <bpmn:extensionElements>\n        <zeebe:calledDecision decisionId="Decision_ApprovalLevel" '
         'resultVariable="approval" />\n      </bpmn:extensionElements>')
    _, files = _files(root, ESCALATE)
    text = files["model/leave.bpmn"][1].decode()
    assert ('    <bpmn:businessRuleTask id="Task_Escalation" name="Escalation">\n'
            '      <bpmn:extensionElements>\n'
            '        <zeebe:calledDecision decisionId="Decision_Escalation" resultVariable="escalation" />\n'
            '      </bpmn:extensionElements>\n') in text
    assert "camunda:" not in text


def test_an_existing_variable_of_the_same_datatype_is_reused(tmp_path):
    _, files = _files(EXAMPLE, {**ESCALATE, "output": "review_note", "conditions": {
        "Flow_HR": 'review_note == "hr"', "Flow_Done": 'review_note == "none"'}})
    _, added = _changes(*files["model/model.trig"])
    text = "\n".join(added)
    assert "seam:Variable" not in text
    assert 'dec:output [ dec:variable "review_note" ; dec:processVariable ex:reviewNote ] ;' in text


def test_a_taken_task_id_is_refused(tmp_path):
    root = copy_example(tmp_path)
    edit(root / "model" / "leave.bpmn", "Task_HRReview", "Task_Escalation", count=3)
    edit(root / "model" / "model.trig", '"Task_HRReview"', '"Task_Escalation"')
    with pytest.raises(GeneratorError, match="Gateway_Escalate: the change cannot be built: .*Task_Escalation"):
        _files(root, ESCALATE)


def test_build_takes_every_name_from_the_model_and_the_suggestion():
    model, files = _files(EXAMPLE, {**ESCALATE, "decision": {"id": "Rule_HrNeeded", "name": "HR needed"},
                                    "output": "hr_needed", "rules": [
                                        {"when": {"days": "> 20"}, "then": True},
                                        {"when": {"days": "<= 20", "leave_type": '"unpaid"'}, "then": True},
                                        {"when": {"days": "<= 20", "leave_type": 'not("unpaid")'}, "then": False}],
                                    "conditions": {"Flow_HR": "hr_needed", "Flow_Done": "not hr_needed"}})
    trig = files["model/model.trig"][1].decode()
    assert "ex:Task_Rule_HrNeeded a seam:BusinessRuleTask" in trig  # no Decision_ prefix to follow
    assert 'seam:name "hr_needed" ;\n        seam:datatype xsd:boolean .' in trig
    dmn = files["model/leave.dmn"][1].decode()
    assert '<output id="OutputClause_Rule_HrNeeded" name="hr_needed" typeRef="boolean" />' in dmn
    assert "<text>true</text>" in dmn and "<text>false</text>" in dmn
    assert URIRef("https://example.org/leave/Rule_HrNeeded") not in model.view.decisions

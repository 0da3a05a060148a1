"""decision_findings: the model against its BPMN and DMN payloads, and the upstream dataflow.

Each case is a broken copy of the example (edited TriG, BPMN or DMN text)
and the exact (subject, predicate) list it must give, with a message excerpt.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import assert_findings, copy_example, edit

from seams.checks.decisions import decision_findings
from seams.findings import Finding
from seams.model.loading import load_model
from seams.project.layout import load_project

MODEL = Path("model")


def findings_after(tmp_path: Path, trig=(), bpmn=(), dmn=()) -> list[Finding]:
    root = copy_example(tmp_path)
    for name, edits in (("model.trig", trig), ("leave.bpmn", bpmn), ("leave.dmn", dmn)):
        for old, new in edits:
            edit(root / MODEL / name, old, new)
    return decision_findings(load_model(load_project(root)))


def test_the_example_has_no_decision_findings(tmp_path):
    assert findings_after(tmp_path) == []


OTHER_PROCESS = ('  <bpmndi:BPMNDiagram id="BPMNDiagram_1">',
                 '  <bpmn:process id="Process_Other"><bpmn:userTask id="Task_Elsewhere" /></bpmn:process>\n'
                 '  <bpmndi:BPMNDiagram id="BPMNDiagram_1">')
SUB_PROCESS = (
    '<bpmn:serviceTask id="Task_CheckBalance" name="Check leave balance">\n'
    '      <bpmn:incoming>Flow_2</bpmn:incoming>\n      <bpmn:outgoing>Flow_3</bpmn:outgoing>\n'
    '    </bpmn:serviceTask>',
    '<bpmn:subProcess id="Sub_Check">\n'
    '      <bpmn:startEvent id="Sub_Start" />\n'
    '      <bpmn:serviceTask id="Task_CheckBalance" name="Check leave balance" />\n'
    '      <bpmn:endEvent id="Sub_End" />\n'
    '      <bpmn:sequenceFlow id="Sub_1" sourceRef="Sub_Start" targetRef="Task_CheckBalance" />\n'
    '      <bpmn:sequenceFlow id="Sub_2" sourceRef="Task_CheckBalance" targetRef="Sub_End" />\n'
    '    </bpmn:subProcess>')
TIMEOUT_BOUNDARY = (
    '<bpmn:endEvent id="EndEvent_Rejected" name="Leave refused">',
    '<bpmn:boundaryEvent id="Boundary_Timeout" attachedToRef="Task_ManagerReview" />\n'
    '    <bpmn:exclusiveGateway id="Gateway_Timeout" />\n'
    '    <bpmn:sequenceFlow id="Flow_Timeout" sourceRef="Boundary_Timeout" targetRef="Gateway_Timeout" />\n'
    '    <bpmn:sequenceFlow id="Flow_TimeoutRejected" sourceRef="Gateway_Timeout" targetRef="EndEvent_Rejected">'
    '<bpmn:conditionExpression>approved == False</bpmn:conditionExpression></bpmn:sequenceFlow>\n'
    '    <bpmn:endEvent id="EndEvent_Rejected" name="Leave refused">')

CASES = {
    # payload elements resolve to elements of the right kind
    "process element missing": dict(
        trig=[('seam:payloadElement "Process_LeaveRequest"', 'seam:payloadElement "Process_Nope"')],
        want=[("ex:LeaveRequestProcess", "seam:payloadElement",
               'no element with id "Process_Nope" in leave.bpmn; expected a bpmn:process')]),
    "process element of the wrong kind": dict(
        trig=[('seam:payloadElement "Process_LeaveRequest"', 'seam:payloadElement "Task_Submit"')],
        want=[("ex:LeaveRequestProcess", "seam:payloadElement",
               '"Task_Submit" in leave.bpmn is a bpmn:userTask; expected a bpmn:process')]),
    "process payload is a DMN": dict(
        trig=[("seam:payload ex:leave-bpmn ;", "seam:payload ex:leave-dmn ;")],
        want=[("ex:LeaveRequestProcess", "seam:payload", "leave.dmn is a DMN payload; expected a BPMN payload")]),
    "service task on a user task element": dict(
        trig=[('seam:payloadElement "Task_HRReview"', 'seam:payloadElement "Task_HRReview_missing"'),
              ('seam:payloadElement "Task_RecordLeave"', 'seam:payloadElement "Task_HRReview"')],
        want=[("ex:HrReview", "seam:payloadElement", 'no element with id "Task_HRReview_missing"'),
              ("ex:RecordLeave", "seam:payloadElement",
               '"Task_HRReview" in leave.bpmn is a bpmn:userTask; expected a bpmn:serviceTask')]),
    "gateway on a DI shape": dict(
        trig=[('seam:payloadElement "Gateway_Reviewed"', 'seam:payloadElement "Gateway_Reviewed_di"')],
        want=[("ex:ReviewedGateway", "seam:payloadElement",
               "is a bpmndi:BPMNShape; expected a bpmn:exclusiveGateway")]),
    "two model elements on one BPMN element": dict(
        trig=[('seam:payloadElement "Task_HRReview"', 'seam:payloadElement "Task_ManagerReview"')],
        want=[("ex:ManagerReview", "seam:payloadElement",
               '"Task_ManagerReview" is also the payload element of ex:HrReview')]),
    "flow element in another process": dict(
        trig=[('seam:payloadElement "Task_HRReview"', 'seam:payloadElement "Task_Elsewhere"')],
        bpmn=[OTHER_PROCESS],
        want=[("ex:HrReview", "seam:inProcess",
               '"Task_Elsewhere" lies in bpmn:process "Process_Other", but seam:inProcess '
               'ex:LeaveRequestProcess is bpmn:process "Process_LeaveRequest"')]),
    # business-rule task against its BPMN
    "BPMN calls another decision": dict(
        bpmn=[('camunda:decisionRef="Decision_ApprovalLevel"', 'camunda:decisionRef="Decision_Other"')],
        want=[("ex:DetermineApproval", "seam:decidedBy",
               'BPMN element "Task_ApprovalLevel" calls DMN decision "Decision_Other", but ex:ApprovalLevel '
               'is DMN decision "Decision_ApprovalLevel"')]),
    "Camunda 8 BPMN calls another decision": dict(
        bpmn=[('camunda:resultVariable="approval" camunda:decisionRef="Decision_ApprovalLevel" '
               'camunda:mapDecisionResult="singleEntry">',
               '><bpmn:extensionElements><zeebe:calledDecision xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" '
               'decisionId="Decision_Other" resultVariable="approval" /></bpmn:extensionElements>')],
        want=[("ex:DetermineApproval", "seam:decidedBy", 'calls DMN decision "Decision_Other"')]),
    "BPMN stores the result elsewhere": dict(
        bpmn=[('camunda:resultVariable="approval"', 'camunda:resultVariable="level"')],
        want=[("ex:DetermineApproval", "seam:decidedBy", 'stores the result in "level", but ex:ApprovalLevel sets approval')]),
    # decisions against their DMN tables
    "decision element missing": dict(
        trig=[('dec:payloadElement "Decision_ApprovalLevel"', 'dec:payloadElement "Decision_Nope"')],
        want=[("ex:ApprovalLevel", "dec:payloadElement",
               'no element with id "Decision_Nope" in leave.dmn; expected a dmn:decision')]),
    "decision element of the wrong kind": dict(
        trig=[('dec:payloadElement "Decision_ApprovalLevel"', 'dec:payloadElement "Input_Days"')],
        want=[("ex:ApprovalLevel", "dec:payloadElement", '"Input_Days" in leave.dmn is a dmn:input; expected a dmn:decision')]),
    "decision payload is a BPMN": dict(
        trig=[("seam:payload ex:leave-dmn ;", "seam:payload ex:leave-bpmn ;")],
        want=[("ex:ApprovalLevel", "seam:payload", "leave.bpmn is a BPMN payload; expected a DMN payload")]),
    "decision input renamed in the model": dict(
        trig=[('dec:variable "days"', 'dec:variable "day"')],
        want=[("ex:ApprovalLevel", "dec:input", 'dec:variable "day" is no input of the table of "Decision_ApprovalLevel"'),
              ("ex:ApprovalLevel", "dec:input", 'the table of "Decision_ApprovalLevel" has input "days", but no dec:input')]),
    "decision output renamed in the DMN": dict(
        dmn=[('name="approval"', 'name="level"')],
        want=[("ex:ApprovalLevel", "dec:output", 'dec:variable "approval" is not the output of the table of '
                                                  '"Decision_ApprovalLevel", which is named "level"')]),
    "table with two outputs": dict(
        dmn=[('<output id="Output_Approval"', '<output id="Output_Extra" name="extra" />\n<output id="Output_Approval"')],
        want=[("Rule_Long", "dmn:outputEntry", "1 output entries; expected 2"),
              ("Rule_ShortAnnual", "dmn:outputEntry", "1 output entries; expected 2"),
              ("Rule_ShortOther", "dmn:outputEntry", "1 output entries; expected 2"),
              ("ex:ApprovalLevel", "dec:output", 'output "extra" of the table of "Decision_ApprovalLevel" has no '
                                                  "dec:output")]),
    "input entry does not parse": dict(
        dmn=[("<text>&gt; 5</text>", "<text>&gt; five</text>")],
        want=[("Rule_Long", "dmn:inputEntry", "input \"days\": name 'five' is no input of the decision (its inputs: days, leave_type)")]),
    "output entry does not parse": dict(
        dmn=[('<text>"auto"</text>', "<text>auto</text>")],
        want=[("Rule_ShortAnnual", "dmn:outputEntry", "output: name 'auto'")]),
    "rule with a missing entry": dict(
        dmn=[('<inputEntry id="UnaryTests_2b">\n          <text>-</text>\n        </inputEntry>', "")],
        want=[("Rule_Long", "dmn:inputEntry", "1 input entries; expected 2, one per input")]),
    "unsupported hit policy": dict(
        dmn=[('hitPolicy="UNIQUE"', 'hitPolicy="BOTTOM UP"')],
        want=[("Decision_ApprovalLevel", "dmn:hitPolicy", 'hit policy "BOTTOM UP" is not supported')]),
    "PRIORITY without outputValues": dict(
        dmn=[('hitPolicy="UNIQUE"', 'hitPolicy="PRIORITY"')],
        want=[("Decision_ApprovalLevel", "dmn:outputValues", "no output lists them")]),
    "an aggregation without COLLECT": dict(
        dmn=[('hitPolicy="UNIQUE"', 'hitPolicy="FIRST" aggregation="SUM"')],
        want=[("Decision_ApprovalLevel", "dmn:aggregation", "aggregation SUM needs hit policy COLLECT, not FIRST")]),
    "an input expression that is no name": dict(
        dmn=[("<text>days</text>", "<text>days + 1</text>")],
        want=[("Decision_ApprovalLevel", "dmn:inputExpression", "input 1 'days + 1': expected a FEEL name"),
              ("ex:ApprovalLevel", "dec:input", 'dec:variable "days" is no input'),
              ("ex:ApprovalLevel", "dec:input", 'has input "days + 1", but no dec:input')]),
    "overlapping rules in a UNIQUE table": dict(
        dmn=[("<text>&gt; 5</text>", "<text>&gt;= 5</text>")],
        want=[("Decision_ApprovalLevel", "dmn:rule", "rules Rule_Long and Rule_ShortOther overlap"),
              ("Decision_ApprovalLevel", "dmn:rule", "rules Rule_ShortAnnual and Rule_Long overlap")]),
    "overlapping rules are fine in a FIRST table": dict(
        dmn=[("<text>&gt; 5</text>", "<text>&gt;= 5</text>"), ('hitPolicy="UNIQUE"', 'hitPolicy="FIRST"')],
        want=[]),
    "an empty entry means any": dict(
        dmn=[("<text>-</text>", "<text></text>")], want=[]),
    # gateway conditions
    "condition does not parse": dict(
        bpmn=[('approval == "auto"', 'approval.startswith("a")')],
        want=[("Flow_Auto", "bpmn:conditionExpression", "unsupported function call 'approval.startswith(\"a\")' in condition")]),
    "condition names an unknown variable": dict(
        bpmn=[('approval == "auto"', 'aproval == "auto"')],
        want=[("Flow_Auto", "bpmn:conditionExpression", 'names "aproval", which is no variable of '
                                                       "ex:LeaveRequestProcess (expected one of: approval,")]),
    "condition reads a variable set downstream": dict(
        bpmn=[("approved == True", 'booking_ref == "x"')],
        want=[("Flow_Approved", "bpmn:conditionExpression",
               '"booking_ref" read by gateway Gateway_Reviewed is not set on the path StartEvent_1 -> ')]),
    "condition reads a variable set on one path only": dict(
        bpmn=[('days > 20 or leave_type == "unpaid"', "days > 20 or approved")],
        want=[("Flow_HR", "bpmn:conditionExpression", '"approved" read by gateway Gateway_Escalate is not set on the path ')]),
    # decision inputs read upstream
    "decision input read before it is set": dict(
        trig=[('dec:input [ dec:variable "days" ; dec:fromPath ex:days ]',
               'dec:input [ dec:variable "days" ; dec:fromPath ex:bookingRef ]')],
        # a string variable in a number column: the type checks (tests/test_type_checks.py) add their findings
        want=[("Input_Days", "dmn:typeRef", 'has typeRef "integer", but ex:bookingRef is xsd:string'),
              ("Rule_Long", "dmn:inputEntry", "> 5 tests number values"),
              ("Rule_ShortAnnual", "dmn:inputEntry", "<= 5 tests number values"),
              ("Rule_ShortOther", "dmn:inputEntry", "<= 5 tests number values"),
              ("ex:DetermineApproval", "seam:decidedBy",
               'input "days" of ex:ApprovalLevel reads ex:bookingRef (dec:fromPath), which is not set on every '
               "path from the start of ex:LeaveRequestProcess to Task_ApprovalLevel"),
              ("ex:DetermineApproval", "seam:reads", "does not read ex:bookingRef, an input of ex:ApprovalLevel")]),
    "a form field no longer sets a variable": dict(
        trig=[("[ sh:path ex:days ;", "[ sh:path ex:startDate ;")],
        want=[("Flow_Done", "bpmn:conditionExpression", '"days" read by gateway Gateway_Escalate'),
              ("Flow_HR", "bpmn:conditionExpression", '"days" read by gateway Gateway_Escalate'),
              ("ex:DetermineApproval", "seam:decidedBy", 'input "days" of ex:ApprovalLevel reads ex:days'),
              ("ex:RecordLeave", "seam:reads", "reads ex:days, which is not set on every path")]),
    # the dataflow follows loops, sub-processes and boundary events
    "a loop back to the start": dict(
        bpmn=[('targetRef="EndEvent_Rejected"', 'targetRef="Task_Submit"')], want=[]),
    "a variable set inside a sub-process": dict(
        bpmn=[SUB_PROCESS, ('targetRef="Task_CheckBalance"', 'targetRef="Sub_Check"'),
              ('sourceRef="Task_CheckBalance"', 'sourceRef="Sub_Check"'),
              ('approval == "auto"', 'approval == "auto" and balance_left > 0')],
        want=[]),
    "a boundary event leaves before its task sets anything": dict(
        bpmn=[TIMEOUT_BOUNDARY],
        want=[("Flow_TimeoutRejected", "bpmn:conditionExpression",
               '"approved" read by gateway Gateway_Timeout is not set on the path StartEvent_1 -> ')]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_broken_copy_gives_its_finding(tmp_path, case):
    spec = dict(CASES[case])
    want = spec.pop("want")
    assert_findings(findings_after(tmp_path, **spec), "decision", want)


def test_a_decision_without_a_table(tmp_path):
    root = copy_example(tmp_path)
    dmn = root / MODEL / "leave.dmn"
    text = re.sub(r"<decisionTable .*?</decisionTable>",
                  '<literalExpression id="Literal_1"><text>"auto"</text></literalExpression>',
                  dmn.read_text(encoding="utf-8"), flags=re.S)
    dmn.write_text(text, encoding="utf-8")
    lines = [f.line() for f in decision_findings(load_model(load_project(root)))]
    assert lines and all(line.startswith("decision ex:ApprovalLevel dec:") for line in lines), lines
    assert any("is no input data of decision \"Decision_ApprovalLevel\" (literal expression)" in line
               for line in lines), lines  # its dec:inputs were the table's columns: the literal reads none


def test_findings_are_sorted_and_repeatable(tmp_path):
    edits = dict(bpmn=[('approval == "auto"', 'aproval == "auto"')],
                 dmn=[("<text>&gt; 5</text>", "<text>&gt;= 5</text>"), ('name="approval"', 'name="level"')])
    first = findings_after(tmp_path / "a", **edits)
    second = findings_after(tmp_path / "b", **edits)
    assert [f.line() for f in first] == [f.line() for f in second]
    assert first == sorted(first) and len(first) == 4


def test_a_default_flow_that_does_not_leave_its_gateway_is_a_finding(tmp_path):
    root = copy_example(tmp_path)
    edit(root / "model" / "leave.bpmn", '<bpmn:exclusiveGateway id="Gateway_Escalate" name="Needs HR?">',
         '<bpmn:exclusiveGateway id="Gateway_Escalate" name="Needs HR?" default="Flow_Auto">')
    findings = decision_findings(load_model(load_project(root)))
    assert [f.line() for f in findings] == [
        'decision Gateway_Escalate bpmn:default: the default flow "Flow_Auto" is not a sequence flow '
        'leaving "Gateway_Escalate" (expected one of: Flow_Done, Flow_HR)'
    ]


def test_a_default_flow_that_leaves_its_gateway_is_sound(tmp_path):
    root = copy_example(tmp_path)
    edit(root / "model" / "leave.bpmn", '<bpmn:exclusiveGateway id="Gateway_Escalate" name="Needs HR?">',
         '<bpmn:exclusiveGateway id="Gateway_Escalate" name="Needs HR?" default="Flow_Done">')
    assert decision_findings(load_model(load_project(root))) == []

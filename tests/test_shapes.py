"""The seam shapes: one broken copy of the example per rule, each naming its subject and predicate."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import assert_findings, copy_example, edit, synthetic_project
from rdflib.namespace import SH

from seams.checks.registry import model_findings
from seams.checks.shapes import seam_shapes_graph, shape_findings
from seams.findings import Finding
from seams.model.loading import load_model
from seams.project.layout import load_project

TRIG = Path("model") / "model.trig"


def findings_after(tmp_path: Path, *edits: tuple[str, str]) -> list[Finding]:
    root = copy_example(tmp_path)
    for old, new in edits:
        edit(root / TRIG, old, new)
    return shape_findings(load_model(load_project(root)))


def test_the_example_has_no_shape_findings(tmp_path):
    assert findings_after(tmp_path) == []


def test_every_targeted_property_shape_carries_a_message():
    """Findings print sh:message; a shape without one would print pyshacl's generic text."""
    graph = seam_shapes_graph()
    targeted = {s for p in (SH.targetClass, SH.targetObjectsOf) for s in graph.subjects(p, None)}
    assert len(targeted) >= 10
    properties = [prop for shape in targeted for prop in graph.objects(shape, SH.property)]
    assert len(properties) > 30
    assert [graph.value(p, SH.path) for p in properties if graph.value(p, SH.message) is None] == []


CHECK_BALANCE_HANDLER = 'seam:handler "check_balance" ;'
LABELLED_EXAMPLE = 'rdfs:label "annual leave left" ;'
ANNUAL_GIVEN = 'seam:given """{"employee": "ana", "leave_type": "annual"}"""^^rdf:JSON ;'
ANNUAL_REPLIES = 'seam:replies """{"balances": 12.5}"""^^rdf:JSON ;'
ANNUAL_EXPECT = 'seam:expect """{"balance_left": 12.5}"""^^rdf:JSON'
DAYS_INPUT = 'dec:input [ dec:variable "days" ; dec:fromPath ex:days ]'
APPROVAL_OUTPUT = 'dec:output [ dec:variable "approval" ; dec:processVariable ex:approval ] ;'

CASES = {
    # service tasks
    "handler missing": ([(CHECK_BALANCE_HANDLER, "")],
                        [("ex:CheckBalance", "seam:handler", "exactly one seam:handler")]),
    "handler not an identifier": ([(CHECK_BALANCE_HANDLER, 'seam:handler "check-balance" ;')],
                                  [("ex:CheckBalance", "seam:handler", "Python module name")]),
    "handler a keyword": ([(CHECK_BALANCE_HANDLER, 'seam:handler "import" ;')],
                          [("ex:CheckBalance", "seam:handler", '"import" is a Python keyword')]),
    "handler twice": ([(CHECK_BALANCE_HANDLER, 'seam:handler "check_balance", "other" ;')],
                      [("ex:CheckBalance", "seam:handler", "exactly one seam:handler")]),
    "handler shared": ([('seam:handler "record_leave" ;', CHECK_BALANCE_HANDLER)],
                       [("ex:RecordLeave", "seam:handler", "also the handler of ex:CheckBalance")]),
    "uses a non-binding": ([("seam:uses ex:Balances ;", "seam:uses ex:days ;")],
                          [("ex:CheckBalance", "seam:uses", "must be a seam:Binding")]),
    "reads a non-variable": ([("seam:reads ex:employee, ex:leaveType ;", "seam:reads ex:Calendar, ex:leaveType ;")],
                            [("ex:CheckBalance", "seam:reads", "must be a seam:Variable")]),
    "writes a non-variable": ([("seam:writes ex:bookingRef ;", "seam:writes ex:Calendar ;")],
                             [("ex:RecordLeave", "seam:writes", "must be a seam:Variable")]),
    "no process": ([('seam:inProcess ex:LeaveRequestProcess ;\n        seam:payloadElement "Task_HRReview"',
                     'seam:payloadElement "Task_HRReview"')],
                   [("ex:HrReview", "seam:inProcess", "exactly one seam:inProcess")]),
    "process is not a process": ([('seam:inProcess ex:LeaveRequestProcess ;\n        seam:payloadElement "Gateway_Escalate"',
                                   'seam:inProcess ex:days ;\n        seam:payloadElement "Gateway_Escalate"')],
                                 [("ex:EscalationGateway", "seam:inProcess", "a seam:Process")]),
    "two payload elements": ([('seam:payloadElement "Gateway_Reviewed"', 'seam:payloadElement "Gateway_Reviewed", "X"')],
                             [("ex:ReviewedGateway", "seam:payloadElement", "exactly one seam:payloadElement")]),
    "flow element without label": ([('rdfs:label "HR review" ;', "")],
                                   [("ex:HrReview", "rdfs:label", "a flow element needs exactly one rdfs:label")]),
    # processes
    "process without label": ([('rdfs:label "Leave request" ;\n        seam:payload', "seam:payload")],
                              [("ex:LeaveRequestProcess", "rdfs:label", "a process needs exactly one rdfs:label")]),
    "process payload not a payload": ([("seam:payload ex:leave-bpmn ;", "seam:payload ex:days ;")],
                                      [("ex:LeaveRequestProcess", "seam:payload", "a seam:Payload")]),
    "process without element": ([('seam:payloadElement "Process_LeaveRequest" .', ".")],
                                [("ex:LeaveRequestProcess", "seam:payloadElement", "the id of its bpmn:process")]),
    # variables and bindings
    "variable datatype": ([('seam:name "days" ;\n        seam:datatype xsd:integer', 'seam:name "days" ;\n        seam:datatype xsd:float')],
                          [("ex:days", "seam:datatype", "xsd:string, xsd:integer, xsd:decimal")]),
    "variable name not an identifier": ([('seam:name "review_note"', 'seam:name "review note"')],
                                        [("ex:reviewNote", "seam:name", "a Python identifier")]),
    "variable name a keyword": ([('seam:name "review_note"', 'seam:name "lambda"')],
                                [("ex:reviewNote", "seam:name", '"lambda" is a Python keyword')]),
    "variable names clash in a process": ([('seam:name "review_note"', 'seam:name "days"')],
                                          [("ex:reviewNote", "seam:name",
                                            'name "days" is also the name of ex:days in process ex:LeaveRequestProcess')]),
    "binding without name": ([('seam:name "calendar" ;', "")],
                             [("ex:Calendar", "seam:name", "a binding needs exactly one seam:name")]),
    "binding without label": ([('rdfs:label "Team calendar" ;', "")],
                              [("ex:Calendar", "rdfs:label", "a binding needs exactly one rdfs:label")]),
    "binding names clash in a task": ([("seam:uses ex:Balances ;", "seam:uses ex:Balances, ex:Balances2 ;"),
                                       ("ex:Calendar a seam:Binding ;", 'ex:Balances2 a seam:Binding ; '
                                        'rdfs:label "Copy" ; seam:name "balances" .\nex:Calendar a seam:Binding ;')],
                                       [("ex:CheckBalance", "seam:uses", 'are both named "balances"')]),
    # examples (blank nodes: reported under the task and seam:example)
    "example a literal": ([(CHECK_BALANCE_HANDLER, CHECK_BALANCE_HANDLER + ' seam:example "see the wiki" ;')],
                          [("ex:CheckBalance", "seam:example", '"see the wiki": an example needs exactly one rdfs:label'),
                           ("ex:CheckBalance", "seam:example", '"see the wiki": an example needs exactly one seam:expect'),
                           ("ex:CheckBalance", "seam:example", '"see the wiki": an example needs exactly one seam:given'),
                           ("ex:CheckBalance", "seam:example", '"see the wiki": an example needs exactly one seam:replies'),
                           ("ex:CheckBalance", "seam:example", "every seam:example value must be a node")]),
    "example without label": ([(LABELLED_EXAMPLE, "")],
                              [("ex:CheckBalance", "seam:example", "an example needs exactly one rdfs:label")]),
    "example given not JSON": ([(ANNUAL_GIVEN, 'seam:given "{employee: ana}"^^rdf:JSON ;')],
                               [("ex:CheckBalance", "seam:example", '"annual leave left": seam:given is not valid JSON')]),
    "example given a plain string": ([(ANNUAL_GIVEN, 'seam:given "{}" ;')],
                                     [("ex:CheckBalance", "seam:example",
                                       '"annual leave left": an example needs exactly one seam:given')]),
    "example replies a list": ([(ANNUAL_REPLIES, 'seam:replies "[12.5]"^^rdf:JSON ;')],
                               [("ex:CheckBalance", "seam:example",
                                 '"annual leave left": seam:replies is a JSON list; expected a JSON object')]),
    "example without expect": ([(ANNUAL_EXPECT, 'rdfs:comment "no expect"')],
                               [("ex:CheckBalance", "seam:example", "needs exactly one seam:expect")]),
    "example given an unread variable": ([(ANNUAL_GIVEN, 'seam:given """{"employee": "ana", "days": 3}"""^^rdf:JSON ;')],
                                         [("ex:CheckBalance", "seam:example",
                                           'seam:given names "days", which is no variable the task reads '
                                           "(expected one of: employee, leave_type)")]),
    "example replies for an unused binding": ([(ANNUAL_REPLIES, 'seam:replies """{"calendar": 1}"""^^rdf:JSON ;')],
                                              [("ex:CheckBalance", "seam:example",
                                                'seam:replies names "calendar", which is no binding the task uses')]),
    "example expects an unwritten variable": ([(ANNUAL_EXPECT, 'seam:expect """{"balance": 12.5}"""^^rdf:JSON')],
                                              [("ex:CheckBalance", "seam:example",
                                                'seam:expect names "balance", which is no variable the task writes '
                                                "(expected one of: balance_left)")]),
    # business-rule tasks and decisions
    "business-rule task without decision": ([("seam:decidedBy ex:ApprovalLevel ;", "")],
                                            [("ex:DetermineApproval", "seam:decidedBy", "exactly one seam:decidedBy")]),
    "decided by a non-decision": ([("seam:decidedBy ex:ApprovalLevel ;", "seam:decidedBy ex:days ;")],
                                  [("ex:DetermineApproval", "seam:decidedBy", "a dec:Decision")]),
    "decision input without fromPath": ([(DAYS_INPUT, 'dec:input [ dec:variable "days" ]')],
                                        [("ex:ApprovalLevel", "dec:input", '"days": a decision input needs exactly one dec:fromPath')]),
    "decision input from a non-variable": ([(DAYS_INPUT, 'dec:input [ dec:variable "days" ; dec:fromPath ex:Calendar ]')],
                                           [("ex:ApprovalLevel", "dec:input", '"days": a decision input needs exactly one dec:fromPath')]),
    "decision output without processVariable": ([(APPROVAL_OUTPUT, 'dec:output [ dec:variable "approval" ] ;')],
                                                [("ex:ApprovalLevel", "dec:output", '"approval": a decision output needs exactly one dec:processVariable')]),
    "decision without output": ([(APPROVAL_OUTPUT, "")],
                                [("ex:ApprovalLevel", "dec:output", "a decision needs at least one dec:output")]),
    "decision without payload element": ([('dec:payloadElement "Decision_ApprovalLevel" ;', "")],
                                         [("ex:ApprovalLevel", "dec:payloadElement", "the id of its DMN decision")]),
    # forms
    "form field path not a variable": ([("sh:path ex:startDate", "sh:path ex:start")],
                                       [("ex:SubmitRequest", "seam:form",
                                         'every sh:property has one sh:path, a seam:Variable (failing: field "Start date")')]),
    "form not a node shape": ([("seam:form ex:ReviewForm .", "seam:form ex:days .")],
                              [("ex:ManagerReview", "seam:form", "a user task has at most one seam:form, a sh:NodeShape")]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_broken_copy_gives_its_finding(tmp_path, case):
    edits, want = CASES[case]
    assert_findings(findings_after(tmp_path, *edits), "shape", want)


def test_findings_are_sorted_and_repeatable(tmp_path):
    edits = [(CHECK_BALANCE_HANDLER, 'seam:handler "1x" ;'), ('seam:name "review_note"', 'seam:name "for"'),
             (LABELLED_EXAMPLE, ""), ("seam:decidedBy ex:ApprovalLevel ;", "")]
    first = findings_after(tmp_path / "a", *edits)
    second = findings_after(tmp_path / "b", *edits)
    assert [f.line() for f in first] == [f.line() for f in second]
    assert first == sorted(first) and len(first) == 4


def test_a_finding_line_names_kind_subject_and_predicate(tmp_path):
    (finding,) = findings_after(tmp_path, (CHECK_BALANCE_HANDLER, 'seam:handler "check.balance" ;'))
    assert finding.line().startswith("shape ex:CheckBalance seam:handler: a service task needs exactly one")


def test_names_are_scoped_per_process(tmp_path):
    """Three copies of the example share every seam:name, and that is fine: names are per process."""
    model = load_model(load_project(synthetic_project(tmp_path, 3)))
    assert len(model.view.processes) == 3
    assert len({v.name for v in model.view.variables.values()}) == len(model.view.variables) // 3
    assert model_findings(model) == []

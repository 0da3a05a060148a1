"""Type-aware checks: examples, decisions, conditions, forms and reads agree with the variables.

Each case is a broken copy of the example project (edited TriG, BPMN or DMN
text, the way tests/test_shapes.py and tests/test_decisions_check.py do it)
and the exact findings of ``seams check``'s model checks it must give:
(kind, subject, predicate, message excerpt), nothing else. ``ISSUE`` holds
the mistakes issue 16 lists; ``CATALOGUE`` further plausible mistakes of the
same families. The DMN edits follow the shape of Camunda Modeler 5 exports
(``inputExpression typeRef``, ``output typeRef``, FEEL cells), the BPMN edits
bpmn-io's ``conditionExpression xsi:type="bpmn:tFormalExpression"``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import copy_example, edit, run_seams

from seams.checks.registry import model_findings
from seams.findings import Finding
from seams.model.loading import load_model
from seams.project.layout import load_project

MODEL = Path("model")


REBOOKING_SHAPE = ("    ex:RebookingShape a sh:NodeShape ;", "                      sh:minInclusive 0 ; sh:order 2 ] .\n")


def without_rebooking_shape(root: Path) -> None:
    """The example's second, alike data shape (its merge-shapes case) constrains the same
    outputs as the booking form, so every mistake here would be found once per shape; these
    tests count the findings of one shape."""
    path = root / MODEL / "model.trig"
    text = path.read_text(encoding="utf-8")
    start = text.index(REBOOKING_SHAPE[0])
    end = text.index(REBOOKING_SHAPE[1], start) + len(REBOOKING_SHAPE[1])
    path.write_text(text[:start] + text[end:], encoding="utf-8")


def findings_after(tmp_path: Path, trig=(), bpmn=(), dmn=()) -> list[Finding]:
    root = copy_example(tmp_path)
    without_rebooking_shape(root)
    for name, edits in (("model.trig", trig), ("leave.bpmn", bpmn), ("leave.dmn", dmn)):
        for old, new in edits:
            edit(root / MODEL / name, old, new)
    return model_findings(load_model(load_project(root)))


def assert_exactly(findings: list[Finding], want: list[tuple[str, str, str | None, str]]) -> None:
    lines = [f.line() for f in findings]
    assert [(f.kind, f.subject, f.predicate) for f in findings] == [w[:3] for w in want], lines
    for finding, (*_, excerpt) in zip(findings, want):
        assert excerpt in finding.message, finding.line()


# ------------------------------------------------------------------ edits of the example

BALANCE_EXPECT = 'seam:expect """{"balance_left": 12.5}"""^^rdf:JSON'
ANNUAL_GIVEN = 'seam:given """{"employee": "ana", "leave_type": "annual"}"""^^rdf:JSON ;'
BOOKED_GIVEN = 'seam:given """{"employee": "ana", "days": 3, "leave_type": "annual"}"""^^rdf:JSON ;'
BOOKED_EXPECT = 'seam:expect """{"booking_ref": "BK-1042"}"""^^rdf:JSON'
RECORD_READS = "seam:reads ex:employee, ex:days, ex:leaveType ;"
CHECK_READS = "seam:reads ex:employee, ex:leaveType ;"
DETERMINE_READS = "seam:reads ex:days, ex:leaveType ;\n        seam:writes ex:approval ."
DAYS_FIELD = "[ sh:path ex:days ; sh:name \"Days\" ; sh:datatype xsd:integer ;"
LEAVE_TYPE_IN = 'sh:in ( "annual" "sick" "unpaid" )'
DAYS_TYPE_REF = '<inputExpression id="InputExpression_Days" typeRef="integer">'
LEAVE_TYPE_REF = '<inputExpression id="InputExpression_LeaveType" typeRef="string">'
OUTPUT = '<output id="Output_Approval" label="Approval level" name="approval" typeRef="string" />'
HR_CONDITION = '<![CDATA[days > 20 or leave_type == "unpaid"]]>'
APPROVED_CONDITION = "approved == True</bpmn:conditionExpression>"
APPROVAL_SHAPE = ('ex:BookingShape a sh:NodeShape ;',
                  'ex:ApprovalShape a sh:NodeShape ;\n        sh:property [ sh:path ex:approval ; '
                  'sh:datatype xsd:string ; sh:in ( "auto" "manager" ) ] .\n\n    ex:BookingShape a sh:NodeShape ;')
LONG_OUTPUT = '<text>"manager"</text>\n        </outputEntry>\n      </rule>\n      <rule id="Rule_ShortOther">'
START_DATE_READ = (RECORD_READS, "seam:reads ex:employee, ex:days, ex:leaveType, ex:startDate ;")


def given(**values: str) -> str:
    """The 'annual leave is booked' example's seam:given with some values replaced (JSON text)."""
    fields = {"employee": '"ana"', "days": "3", "leave_type": '"annual"', **values}
    inner = ", ".join(f'"{k}": {v}' for k, v in fields.items())
    return f'seam:given """{{{inner}}}"""^^rdf:JSON ;'


def rule_cell(rule: str, old: str, new: str) -> tuple[str, str]:
    """Replace the text of one cell of one rule in leave.dmn (a unique old->new pair)."""
    return old.replace("RULE", rule), new.replace("RULE", rule)


ISSUE = {
    # examples against the shapes of what the task reads and writes
    "expect a string where a boolean-like value is due": dict(
        trig=[(BALANCE_EXPECT, 'seam:expect """{"balance_left": true}"""^^rdf:JSON')],
        want=[("shape", "ex:CheckBalance", "seam:example",
               '"annual leave left": seam:expect "balance_left": True is not an xsd:decimal')]),
    "expect outside the output shape's range": dict(
        trig=[(BALANCE_EXPECT, 'seam:expect """{"balance_left": -180}"""^^rdf:JSON')],
        want=[("shape", "ex:CheckBalance", "seam:example",
               'seam:expect "balance_left": -180 breaks sh:minInclusive 0 (sh:property of ex:BookingShape)')]),
    "given breaks the form's pattern": dict(
        trig=[(ANNUAL_GIVEN, 'seam:given """{"employee": "P-1", "leave_type": "annual"}"""^^rdf:JSON ;')],
        want=[("shape", "ex:CheckBalance", "seam:example",
               "seam:given \"employee\": 'P-1' does not match '^[a-z][a-z0-9_]*$' (sh:property of ex:LeaveForm)")]),
    "given outside sh:in": dict(
        trig=[(BOOKED_GIVEN, given(leave_type='"boat"'))],
        want=[("shape", "ex:RecordLeave", "seam:example",
               "seam:given \"leave_type\": 'boat' is not one of 'annual', 'sick', 'unpaid'")]),
    "given a number as a string": dict(
        trig=[(BOOKED_GIVEN, given(days='"3"'))],
        want=[("shape", "ex:RecordLeave", "seam:example", "seam:given \"days\": '3' is not an xsd:integer")]),
    "given an impossible date": dict(
        trig=[START_DATE_READ, (BOOKED_GIVEN, given(start_date='"2024-13-01"'))],
        want=[("shape", "ex:RecordLeave", "seam:example",
               "seam:given \"start_date\": '2024-13-01' is not an xsd:date")]),
    # decisions against the variables
    "DMN input typeRef string over an integer": dict(
        dmn=[(DAYS_TYPE_REF, '<inputExpression id="InputExpression_Days" typeRef="string">')],
        want=[("decision", "Input_Days", "dmn:typeRef",
               'input "days" has typeRef "string", but ex:days is xsd:integer; expected one of: int, integer')]),
    "string test in a numeric column": dict(
        dmn=[("<text>&gt; 5</text>", '<text>"big"</text>')],
        want=[("decision", "Rule_Long", "dmn:inputEntry",
               'input "days": "big" tests string values, but ex:days (xsd:integer) holds number values')]),
    "output value outside the output variable's sh:in": dict(
        trig=[APPROVAL_SHAPE], dmn=[(LONG_OUTPUT, LONG_OUTPUT.replace('"manager"', '"director"'))],
        want=[("decision", "Rule_Long", "dmn:outputEntry",
               "output \"approval\": 'director' is not one of 'auto', 'manager' (sh:property of ex:ApprovalShape)")]),
    # conditions
    "number compared with a string": dict(
        bpmn=[(HR_CONDITION, '<![CDATA[days > "20" or leave_type == "unpaid"]]>')],
        want=[("decision", "Flow_HR", "bpmn:conditionExpression",
               "\"days\" (ex:days, xsd:integer) > '20' compares a number with a string, which is always false")]),
    "boolean compared with a number": dict(
        bpmn=[(APPROVED_CONDITION, "approved == 0</bpmn:conditionExpression>")],
        want=[("decision", "Flow_Approved", "bpmn:conditionExpression",
               "compares a boolean with a number, which is always false")]),
    "condition on a value sh:in excludes": dict(
        bpmn=[(HR_CONDITION, '<![CDATA[leave_type == "boat"]]>')],
        want=[("decision", "Flow_HR", "bpmn:conditionExpression",
               "'leave_type == \"boat\"' is never true on the values its variables may hold "
               "(leave_type in {'annual', 'sick', 'unpaid'})")]),
    # business-rule task against its decision
    "business-rule task writes another variable": dict(
        trig=[(DETERMINE_READS, "seam:reads ex:days, ex:leaveType ;\n        seam:writes ex:reviewNote .")],
        want=[("decision", "ex:DetermineApproval", "seam:writes",
               "does not write ex:approval, an output of ex:ApprovalLevel"),
              ("decision", "ex:DetermineApproval", "seam:writes",
               "writes ex:reviewNote, which ex:ApprovalLevel does not set (its outputs: ex:approval)")]),
    # forms
    "form field datatype differs from the variable's": dict(
        trig=[(DAYS_FIELD, '[ sh:path ex:days ; sh:name "Days" ; sh:datatype xsd:decimal ;')],
        want=[("shape", "ex:LeaveForm", "sh:datatype",
               'field "Days" on ex:days (xsd:integer) has sh:datatype xsd:decimal; expected the variable\'s '
               "seam:datatype xsd:integer")]),
    # reads on every path
    "service task reads a variable set only on another branch": dict(
        trig=[(RECORD_READS, "seam:reads ex:employee, ex:days, ex:leaveType, ex:approved ;")],
        want=[("decision", "ex:RecordLeave", "seam:reads",
               "reads ex:approved, which is not set on every path from the start of ex:LeaveRequestProcess to "
               "Task_RecordLeave; unset on the path StartEvent_1 -> Task_Submit -> Task_CheckBalance -> "
               "Task_ApprovalLevel -> Gateway_Approval -> Task_RecordLeave")]),
    "service task reads a variable set only later": dict(
        trig=[(CHECK_READS, "seam:reads ex:employee, ex:leaveType, ex:approval ;")],
        want=[("decision", "ex:CheckBalance", "seam:reads",
               "reads ex:approval, which is not set on every path from the start of ex:LeaveRequestProcess to "
               "Task_CheckBalance; unset on the path StartEvent_1 -> Task_Submit -> Task_CheckBalance")]),
}

CATALOGUE = {
    "given a fraction for an integer": dict(
        trig=[(BOOKED_GIVEN, given(days="2.5"))],
        want=[("shape", "ex:RecordLeave", "seam:example", 'seam:given "days": 2.5 is not an xsd:integer')]),
    "given below the form's minimum": dict(
        trig=[(BOOKED_GIVEN, given(days="0"))],
        want=[("shape", "ex:RecordLeave", "seam:example", 'seam:given "days": 0 breaks sh:minInclusive 1')]),
    "given above the form's maximum": dict(
        trig=[(BOOKED_GIVEN, given(days="61"))],
        want=[("shape", "ex:RecordLeave", "seam:example", 'seam:given "days": 61 breaks sh:maxInclusive 60')]),
    "given null for a string": dict(
        trig=[(BOOKED_GIVEN, given(employee="null"))],
        want=[("shape", "ex:RecordLeave", "seam:example", 'seam:given "employee": None is not an xsd:string')]),
    "given a number for a date": dict(
        trig=[START_DATE_READ, (BOOKED_GIVEN, given(start_date="20240101"))],
        want=[("shape", "ex:RecordLeave", "seam:example", 'seam:given "start_date": 20240101 is not an xsd:date')]),
    "expect breaks the output shape's pattern": dict(
        trig=[(BOOKED_EXPECT, 'seam:expect """{"booking_ref": "X-1042"}"""^^rdf:JSON')],
        want=[("shape", "ex:RecordLeave", "seam:example",
               "\"annual leave is booked\": seam:expect \"booking_ref\": 'X-1042' does not match '^BK-[0-9]+$'")]),
    "expect an infinite decimal": dict(
        trig=[(BALANCE_EXPECT, 'seam:expect """{"balance_left": 1e999}"""^^rdf:JSON')],
        want=[("shape", "ex:CheckBalance", "seam:example", 'seam:expect "balance_left": inf is not an xsd:decimal')]),
    "replies left out on a task that uses a binding": dict(
        trig=[('seam:replies """{"balances": 12.5}"""^^rdf:JSON ;', "")],
        want=[("shape", "ex:CheckBalance", "seam:example",
               '"annual leave left": an example needs exactly one seam:replies, an rdf:JSON object of binding '
               "replies by binding name (the task uses ex:Balances)")]),
    "DMN output typeRef integer for a string variable": dict(
        dmn=[(OUTPUT, OUTPUT.replace('typeRef="string"', 'typeRef="integer"'))],
        want=[("decision", "Output_Approval", "dmn:typeRef",
               'output "approval" has typeRef "integer", but ex:approval is xsd:string; expected one of: string')]),
    "DMN input typeRef number over a string": dict(
        dmn=[(LEAVE_TYPE_REF, LEAVE_TYPE_REF.replace("string", "number"))],
        want=[("decision", "Input_LeaveType", "dmn:typeRef", 'input "leave_type" has typeRef "number"')]),
    "DMN input typeRef double over an integer": dict(
        dmn=[(DAYS_TYPE_REF, DAYS_TYPE_REF.replace("integer", "double"))],
        want=[("decision", "Input_Days", "dmn:typeRef", 'has typeRef "double", but ex:days is xsd:integer')]),
    "boolean test in a string column": dict(
        dmn=[("<text>not(\"annual\")</text>", "<text>true</text>")],
        want=[("decision", "Rule_ShortOther", "dmn:inputEntry",
               'input "leave_type": true tests boolean values, but ex:leaveType (xsd:string) holds string values')]),
    "input test on a value sh:in excludes": dict(
        dmn=[("<text>not(\"annual\")</text>", "<text>\"holiday\"</text>")],
        want=[("decision", "Rule_ShortOther", "dmn:inputEntry",
               'input "leave_type": "holiday" matches no value ex:leaveType (xsd:string) may hold '
               "(one of: 'annual', 'sick', 'unpaid'); the rule never applies")]),
    "input range beyond the form's maximum": dict(
        dmn=[("<text>&gt; 5</text>", "<text>&gt; 100</text>")],
        want=[("decision", "Rule_Long", "dmn:inputEntry",
               'input "days": > 100 matches no value ex:days (xsd:integer) may hold; the rule never applies')]),
    "output entry a number for a string variable": dict(
        dmn=[("<text>\"auto\"</text>", "<text>5</text>")],
        want=[("decision", "Rule_ShortAnnual", "dmn:outputEntry", 'output "approval": 5 is not an xsd:string')]),
    "condition beyond the form's maximum": dict(
        bpmn=[(HR_CONDITION, "<![CDATA[days > 100]]>")],
        want=[("decision", "Flow_HR", "bpmn:conditionExpression",
               "'days > 100' is never true on the values its variables may hold (days (xsd:integer: "
               "minInclusive 1, maxInclusive 60))")]),
    "condition always true on the form's range": dict(
        bpmn=[(HR_CONDITION, "<![CDATA[days >= 1]]>")],
        want=[("decision", "Flow_HR", "bpmn:conditionExpression", "'days >= 1' is never false")]),
    "contradictory condition": dict(
        bpmn=[(HR_CONDITION, "<![CDATA[days > 20 and days < 10]]>")],
        want=[("decision", "Flow_HR", "bpmn:conditionExpression", "'days > 20 and days < 10' is never true")]),
    "list item of another kind": dict(
        bpmn=[(HR_CONDITION, '<![CDATA[leave_type in ["unpaid", 2]]]>')],
        want=[("decision", "Flow_HR", "bpmn:conditionExpression",
               "lists 2, a number, which a string never equals")]),
    "two variables of unlike kinds": dict(
        bpmn=[(HR_CONDITION, "<![CDATA[days == leave_type]]>")],
        want=[("decision", "Flow_HR", "bpmn:conditionExpression", "compares a number with a string")]),
    "number used as a condition": dict(
        bpmn=[(HR_CONDITION, '<![CDATA[days or leave_type == "unpaid"]]>')],
        want=[("decision", "Flow_HR", "bpmn:conditionExpression",
               'uses "days" (ex:days, xsd:integer) as a condition, which is true only for the boolean True')]),
    "boolean compared with a string": dict(
        bpmn=[(APPROVED_CONDITION, 'approved == "true"</bpmn:conditionExpression>')],
        want=[("decision", "Flow_Approved", "bpmn:conditionExpression", "compares a boolean with a string")]),
    "business-rule task reads miss a decision input": dict(
        trig=[(DETERMINE_READS, "seam:reads ex:days ;\n        seam:writes ex:approval .")],
        want=[("decision", "ex:DetermineApproval", "seam:reads",
               "does not read ex:leaveType, an input of ex:ApprovalLevel (dec:fromPath)")]),
    "business-rule task writes nothing": dict(
        trig=[(DETERMINE_READS, "seam:reads ex:days, ex:leaveType .")],
        want=[("decision", "ex:DetermineApproval", "seam:writes", "does not write ex:approval")]),
    "form sh:in value of another datatype": dict(
        trig=[(LEAVE_TYPE_IN, 'sh:in ( "annual" "sick" "unpaid" 3 )')],
        want=[("shape", "ex:LeaveForm", "sh:in",
               'field "Leave type" on ex:leaveType (xsd:string): sh:in value 3 is not an xsd:string')]),
    "form bound of another kind": dict(
        trig=[("sh:maxInclusive 60 ;", 'sh:maxInclusive "60" ;')],
        want=[("shape", "ex:LeaveForm", "sh:maxInclusive",
               "field \"Days\" on ex:days (xsd:integer): sh:maxInclusive '60' is not a bound on xsd:integer values")]),
    "condition on a value the decision never gives": dict(
        bpmn=[('approval == "auto"', 'approval == "automatic"')],
        want=[("decision", "Flow_Auto", "bpmn:conditionExpression",
               "'approval == \"automatic\"' is never true on the values its variables may hold (approval in "
               "{'auto', 'manager', None}, the values its decision gives it)")]),
    "user task reads a variable set on one branch only": dict(
        trig=[('seam:payloadElement "Task_HRReview" .',
               'seam:payloadElement "Task_HRReview" ;\n        seam:reads ex:reviewNote .')],
        want=[("decision", "ex:HrReview", "seam:reads",
               "reads ex:reviewNote, which is not set on every path from the start of ex:LeaveRequestProcess to "
               "Task_HRReview; unset on the path StartEvent_1 -> Task_Submit")]),
    "a variable no step sets": dict(
        trig=[(DAYS_FIELD + "\n                      sh:minCount 1 ; sh:minInclusive 1 ; sh:maxInclusive 60 ; "
               "sh:order 3 ] ,\n                    ", "")],
        want=[("decision", "Flow_Done", "bpmn:conditionExpression", '"days" read by gateway Gateway_Escalate is not set'),
              ("decision", "Flow_HR", "bpmn:conditionExpression",
               '"days" read by gateway Gateway_Escalate is not set on the path StartEvent_1 -> Task_Submit -> '
               "Task_CheckBalance -> Task_ApprovalLevel -> Gateway_Approval -> Task_RecordLeave -> Gateway_Escalate; "
               "expected a form field, seam:writes or decision output that sets it earlier"),
              ("decision", "ex:DetermineApproval", "seam:decidedBy",
               'input "days" of ex:ApprovalLevel reads ex:days (dec:fromPath), which is not set on every path '
               "from the start of ex:LeaveRequestProcess to Task_ApprovalLevel; unset on the path StartEvent_1 -> "
               "Task_Submit -> Task_CheckBalance -> Task_ApprovalLevel"),
              ("decision", "ex:RecordLeave", "seam:reads",
               "reads ex:days, which is not set on every path from the start of ex:LeaveRequestProcess to "
               "Task_RecordLeave; unset on the path StartEvent_1 -> Task_Submit")]),
}


@pytest.mark.parametrize("case", sorted(ISSUE), ids=sorted(ISSUE))
def test_each_mistake_of_the_issue_gives_exactly_its_finding(tmp_path, case):
    spec = ISSUE[case]
    assert_exactly(findings_after(tmp_path, spec.get("trig", ()), spec.get("bpmn", ()), spec.get("dmn", ())),
                   spec["want"])


@pytest.mark.parametrize("case", sorted(CATALOGUE), ids=sorted(CATALOGUE))
def test_each_catalogued_mistake_gives_exactly_its_finding(tmp_path, case):
    spec = CATALOGUE[case]
    assert_exactly(findings_after(tmp_path, spec.get("trig", ()), spec.get("bpmn", ()), spec.get("dmn", ())),
                   spec["want"])


def test_the_example_is_clean(tmp_path):
    assert findings_after(tmp_path) == []


def test_the_catalogue_is_long_enough_and_distinct_from_the_issue():
    assert len(CATALOGUE) >= 15
    assert not set(CATALOGUE) & set(ISSUE)


CLEAN_VARIANTS = {
    "replies left out on a task that uses no binding": dict(
        trig=[("seam:uses ex:Calendar ;", ""),
              ('seam:replies """{"calendar": "BK-1042"}"""^^rdf:JSON ;', ""),
              ('seam:replies """{"calendar": "BK-2001"}"""^^rdf:JSON ;', "")]),
    "a FEEL-prefixed typeRef of the right type": dict(
        dmn=[(DAYS_TYPE_REF, DAYS_TYPE_REF.replace('typeRef="integer"', 'typeRef="feel:number"'))]),
    "a Camunda 7 long over an integer": dict(
        dmn=[(DAYS_TYPE_REF, DAYS_TYPE_REF.replace('typeRef="integer"', 'typeRef="long"'))]),
    "an example value at the form's bounds": dict(
        trig=[(BOOKED_GIVEN, given(days="60"))]),
    "an example decimal given as an integer": dict(
        trig=[(BALANCE_EXPECT, 'seam:expect """{"balance_left": 12}"""^^rdf:JSON')]),
}


@pytest.mark.parametrize("case", sorted(CLEAN_VARIANTS))
def test_sound_variants_stay_clean(tmp_path, case):
    spec = CLEAN_VARIANTS[case]
    assert findings_after(tmp_path, spec.get("trig", ()), spec.get("bpmn", ()), spec.get("dmn", ())) == []


ODD = {
    "a datatype the table does not know": [("seam:name \"days\" ;\n        seam:datatype xsd:integer",
                                            "seam:name \"days\" ;\n        seam:datatype xsd:dateTime")],
    "a variable without a datatype": [("seam:name \"days\" ;\n        seam:datatype xsd:integer",
                                       "seam:name \"days\"")],
    "a pattern that is no regular expression": [('sh:pattern "^BK-[0-9]+$"', 'sh:pattern "^BK-([0-9"')],
    "an infinite bound": [("sh:maxInclusive 60 ;", 'sh:maxInclusive "INF"^^xsd:double ;')],
    "an empty sh:in": [(LEAVE_TYPE_IN, "sh:in ( )")],
    "a nested object as an example value": [(ANNUAL_GIVEN,
                                             'seam:given """{"employee": {"a": [1]}, "leave_type": 1e999}"""'
                                             "^^rdf:JSON ;")],
    "a date bound on an integer": [("sh:maxInclusive 60 ;", 'sh:maxInclusive "2024-01-01"^^xsd:date ;')],
}


@pytest.mark.parametrize("case", sorted(ODD))
def test_odd_models_give_findings_not_crashes(tmp_path, case):
    findings = findings_after(tmp_path, ODD[case])
    assert all(isinstance(f, Finding) and f.line() for f in findings)


def test_an_invalid_pattern_is_one_finding_per_example_value(tmp_path):
    findings = findings_after(tmp_path, ODD["a pattern that is no regular expression"])
    # the shape itself is malformed (its well-formedness check), and each example value meets it
    shaped = [f for f in findings if f.subject == "ex:BookingShape"]
    assert [(f.subject, f.predicate) for f in shaped] == [("ex:BookingShape", "sh:pattern")]
    examples = [f for f in findings if f not in shaped and f.predicate != "seam:scenario"]
    assert [(f.subject, f.predicate) for f in examples] == [("ex:RecordLeave", "seam:example")] * 2
    assert all("is not a regular expression" in f.message for f in examples)


def test_seams_check_prints_the_type_findings_and_exits_1(tmp_path):
    root = copy_example(tmp_path)
    edit(root / MODEL / "leave.bpmn", APPROVED_CONDITION, "approved == 0</bpmn:conditionExpression>")
    edit(root / MODEL / "model.trig", BOOKED_GIVEN, given(days='"3"'))
    result = run_seams("check", cwd=root)
    assert result.returncode == 1, result.stderr
    # model checks first (shapes, then decisions); the edited example also makes a generated stub stale
    assert result.stdout.splitlines()[:2] == [
        "shape ex:RecordLeave seam:example: \"annual leave is booked\": seam:given \"days\": '3' is not an "
        "xsd:integer [seam:datatype of ex:days]",
        'decision Flow_Approved bpmn:conditionExpression: "approved" (ex:approved, xsd:boolean) == 0 compares a '
        "boolean with a number, which is always false; expected operands of one kind",
    ]
    assert "Traceback" not in result.stderr


def test_the_contract_item_and_seams_check_share_one_judge():
    """The plugin's runtime checks are the core's functions, not copies that could drift."""
    from seams.lang import field_values
    from seams_runtime import handler_checks

    for name in ("same", "datatype_problem", "constraint_problems", "ordered", "as_date", "show"):
        assert getattr(handler_checks, name) is getattr(field_values, name)
        assert getattr(field_values, name) in handler_checks.RUNTIME

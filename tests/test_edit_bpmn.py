"""seams_edit.bpmn: a task inserted before a gateway, conditions rewritten.

Every check runs on Camunda-Modeler-shaped payloads: flows and refs stay in
step, ids stay unique, the diagram stays readable (no overlaps, edges that
meet their shapes at right angles) and the diff shows only the change.
"""

from __future__ import annotations

import difflib
import re
from itertools import combinations
from pathlib import Path

import pytest
from lxml import etree

from seams.errors import EditError
from seams.model.payloads import parse_xml
from seams.vocab import BPMN_NS, BPMNDI_NS, CAMUNDA_NS, DC_NS, DI_NS, ZEEBE_NS
from seams_edit.bpmn import insert_task_before, outcome_name, restates, set_condition
from seams_edit.xml import load_payload, save_payload

FIXTURES = Path(__file__).parent / "fixtures" / "edit_xml"
B, BPMNDI, DC, DI = (f"{{{ns}}}" for ns in (BPMN_NS, BPMNDI_NS, DC_NS, DI_NS))
C7_DECISION = {f"{{{CAMUNDA_NS}}}resultVariable": "claim_route", f"{{{CAMUNDA_NS}}}decisionRef": "Decision_ClaimRoute"}
CONTAINERS = {"participant", "lane", "textAnnotation"}


def load(name: str, *, strip_di: bool = False):
    data = (FIXTURES / name).read_bytes()
    if strip_di:
        data = re.sub(rb"\n  <bpmndi:BPMNDiagram.*</bpmndi:BPMNDiagram>", b"", data, flags=re.S)
    return data, load_payload(data, source=name)


def line_diff(before: bytes, after: bytes) -> list[str]:
    return [d for d in difflib.unified_diff(before.decode().splitlines(), after.decode().splitlines(),
                                            lineterm="", n=0) if d[:1] in "+-" and d[:3] not in ("+++", "---")]


def called_decision() -> etree._Element:
    extension = etree.Element(f"{B}extensionElements")
    etree.SubElement(extension, f"{{{ZEEBE_NS}}}calledDecision",
                     {"decisionId": "Decision_ClaimRoute", "resultVariable": "claim_route"})
    return extension


# -- what a readable, consistent payload is ----------------------------------------------


def assert_flows_in_step(root: etree._Element) -> None:
    nodes = {e.get("id"): e for e in root.iter() if e.get("id")}
    flows = list(root.iter(f"{B}sequenceFlow"))
    for flow in flows:
        source, target = nodes[flow.get("sourceRef")], nodes[flow.get("targetRef")]
        assert flow.get("id") in [r.text for r in source.iterchildren(f"{B}outgoing")], flow.get("id")
        assert flow.get("id") in [r.text for r in target.iterchildren(f"{B}incoming")], flow.get("id")
    by_id = {f.get("id"): f for f in flows}
    for kind, end in (("incoming", "targetRef"), ("outgoing", "sourceRef")):
        for ref in root.iter(f"{B}{kind}"):
            assert by_id[ref.text].get(end) == ref.getparent().get("id"), ref.text


def assert_ids_unique(root: etree._Element) -> None:
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids))


def shape_boxes(root: etree._Element) -> dict[str, tuple[float, float, float, float]]:
    kinds = {e.get("id"): etree.QName(e).localname for e in root.iter() if e.get("id")}
    boxes = {}
    for shape in root.iter(f"{BPMNDI}BPMNShape"):
        if kinds[shape.get("bpmnElement")] not in CONTAINERS:
            bounds = shape.find(f"{DC}Bounds")
            boxes[shape.get("bpmnElement")] = tuple(float(bounds.get(k)) for k in ("x", "y", "width", "height"))
    return boxes


def assert_diagram_readable(root: etree._Element) -> None:
    boxes = shape_boxes(root)
    for (a, (ax, ay, aw, ah)), (b, (bx, by, bw, bh)) in combinations(boxes.items(), 2):
        assert ax + aw <= bx or bx + bw <= ax or ay + ah <= by or by + bh <= ay, f"{a} overlaps {b}"
    for flow in root.iter(f"{B}sequenceFlow"):
        edge = next(e for e in root.iter(f"{BPMNDI}BPMNEdge") if e.get("bpmnElement") == flow.get("id"))
        points = [(float(p.get("x")), float(p.get("y"))) for p in edge.iter(f"{DI}waypoint")]
        for (x1, y1), (x2, y2) in zip(points, points[1:]):
            assert x1 == x2 or y1 == y2, f"{flow.get('id')} has a slanted segment"
        for (x, y), end in ((points[0], "sourceRef"), (points[-1], "targetRef")):
            bx, by, bw, bh = boxes[flow.get(end)]
            on_border = (x in (bx, bx + bw) and by <= y <= by + bh) or (y in (by, by + bh) and bx <= x <= bx + bw)
            assert on_border, f"{flow.get('id')} does not meet {flow.get(end)}"


@pytest.mark.parametrize("name", ["claims_c7.bpmn", "orders_c8.bpmn", "leave_minimal.bpmn", "approval_legacy.bpmn"])
def test_the_fixtures_themselves_are_consistent_and_readable(name: str) -> None:
    _, payload = load(name)
    assert_flows_in_step(payload.root)
    assert_ids_unique(payload.root)
    assert_diagram_readable(payload.root)


# -- insert_task_before ----------------------------------------------------------------


def test_insert_with_room_touches_only_the_flow_and_adds_the_task() -> None:
    data, payload = load("orders_c8.bpmn")
    result = insert_task_before(payload, "Gateway_Shipping", tag="businessRuleTask", task_id="Activity_Route",
                                name="Decide shipping", children=[called_decision()])
    out = save_payload(payload)
    assert (result.task_id, result.flow_id, result.redirected_flow_ids) == (
        "Activity_Route", "Flow_Activity_Route", ("Flow_1c6yq0n",))
    assert (result.shape_id, result.edge_id, result.shift) == ("Activity_Route_di", "Flow_Activity_Route_di", 0)
    assert line_diff(data, out) == [
        '-    <bpmn:sequenceFlow id="Flow_1c6yq0n" sourceRef="Activity_Discount" targetRef="Gateway_Shipping" />',
        '+    <bpmn:sequenceFlow id="Flow_1c6yq0n" sourceRef="Activity_Discount" targetRef="Activity_Route" />',
        '+    <bpmn:businessRuleTask id="Activity_Route" name="Decide shipping">',
        "+      <bpmn:extensionElements>",
        '+        <zeebe:calledDecision decisionId="Decision_ClaimRoute" resultVariable="claim_route" />',
        "+      </bpmn:extensionElements>",
        "+      <bpmn:incoming>Flow_1c6yq0n</bpmn:incoming>",
        "+      <bpmn:outgoing>Flow_Activity_Route</bpmn:outgoing>",
        "+    </bpmn:businessRuleTask>",
        "-      <bpmn:incoming>Flow_1c6yq0n</bpmn:incoming>",
        "+      <bpmn:incoming>Flow_Activity_Route</bpmn:incoming>",
        '+    <bpmn:sequenceFlow id="Flow_Activity_Route" sourceRef="Activity_Route" targetRef="Gateway_Shipping" />',
        "+      </bpmndi:BPMNShape>",
        '+      <bpmndi:BPMNShape id="Activity_Route_di" bpmnElement="Activity_Route">',
        '+        <dc:Bounds x="437" y="77" width="100" height="80" />',
        '-        <di:waypoint x="605" y="117" />',
        '+        <di:waypoint x="437" y="117" />',
        '+      <bpmndi:BPMNEdge id="Flow_Activity_Route_di" bpmnElement="Flow_Activity_Route">',
        '+        <di:waypoint x="537" y="117" />',
        '+        <di:waypoint x="605" y="117" />',
        "+      </bpmndi:BPMNEdge>",
    ]
    root = parse_xml(out, source="orders_c8.bpmn").getroot()
    assert_flows_in_step(root)
    assert_ids_unique(root)
    assert_diagram_readable(root)


def test_insert_without_room_shifts_downstream_and_widens_the_pool() -> None:
    data, payload = load("claims_c7.bpmn")
    before = shape_boxes(payload.root)
    result = insert_task_before(payload, "Gateway_ClaimRoute", tag="businessRuleTask", task_id="Activity_Route",
                                name="Decide route", attributes=C7_DECISION)
    out = save_payload(payload)
    root = parse_xml(out, source="claims_c7.bpmn").getroot()
    assert_flows_in_step(root)
    assert_ids_unique(root)
    assert_diagram_readable(root)
    after = shape_boxes(root)
    assert result.shift == 155  # a 100 wide task and two 50 gaps into 45 of room
    for element, (x, y, w, h) in before.items():
        moved = x >= 575  # the gateway's x: it and everything right of it moved
        assert after[element] == (x + 155 * moved, y, w, h), element
    assert after["Activity_Route"] == (580, 160, 100, 80)
    pool = root.find(f".//{BPMNDI}BPMNShape[@bpmnElement='Participant_Claims']/{DC}Bounds")
    assert pool.get("width") == "935"
    diff = line_diff(data, out)
    assert ('+    <bpmn:businessRuleTask id="Activity_Route" name="Decide route" '
            'camunda:resultVariable="claim_route" camunda:decisionRef="Decision_ClaimRoute">') in diff
    changed = [line for line in diff if line.startswith("-")]
    numbers_only = [line for line in changed if re.fullmatch(r'-\s*<(dc:Bounds|di:waypoint) .*', line)]
    assert sorted(set(changed) - set(numbers_only)) == [
        '-      <bpmn:incoming>Flow_ToRoute</bpmn:incoming>',
        '-    <bpmn:sequenceFlow id="Flow_ToRoute" sourceRef="Activity_CheckBudget" targetRef="Gateway_ClaimRoute" />',
    ]
    for old in numbers_only:  # each moved line comes back with only x or width changed
        pattern = re.sub(r'(x|width)="[0-9.]+"', r'\1="[0-9.]+"', re.escape("+" + old[1:]).replace(r"\ ", " "))
        assert any(re.fullmatch(pattern, line) for line in diff if line.startswith("+")), old
    assert out.count(b"xmlns:camunda") == 1


def test_a_zeebe_task_declares_the_namespace_once_and_keeps_the_missing_final_newline() -> None:
    data, payload = load("leave_minimal.bpmn")
    insert_task_before(payload, "Gateway_Days", tag="businessRuleTask", task_id="Activity_Days",
                       name="Decide", children=[called_decision()])
    out = save_payload(payload)
    assert not out.endswith(b"\n")
    assert out.count(b'xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"') == 1
    first_removed, first_added = (line for line in line_diff(data, out) if line.startswith(("-<", "+<")))
    assert first_added == first_removed.replace(
        'xmlns:modeler="http://camunda.org/schema/modeler/1.0"',
        'xmlns:modeler="http://camunda.org/schema/modeler/1.0" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"',
    ).replace("-<", "+<", 1)
    root = parse_xml(out, source="leave_minimal.bpmn").getroot()
    assert root.find(f".//{B}businessRuleTask/{B}extensionElements/{{{ZEEBE_NS}}}calledDecision") is not None
    assert_flows_in_step(root)
    assert_diagram_readable(root)


def test_every_incoming_flow_is_redirected_and_routed_to_the_task() -> None:
    _, payload = load("orders_c8.bpmn")
    result = insert_task_before(payload, "Event_Shipped", tag="task", task_id="Activity_Notify", name="Notify")
    assert result.redirected_flow_ids == ("Flow_0m2h1ab", "Flow_1p0z7nd")
    root = parse_xml(save_payload(payload), source="orders_c8.bpmn").getroot()
    target = root.find(f".//{B}endEvent")
    assert [r.text for r in target.iterchildren(f"{B}incoming")] == ["Flow_Activity_Notify"]
    task = root.find(f".//{B}task")
    assert [r.text for r in task.iterchildren(f"{B}incoming")] == ["Flow_0m2h1ab", "Flow_1p0z7nd"]
    assert_flows_in_step(root)
    assert_ids_unique(root)
    assert_diagram_readable(root)


def test_a_flow_from_above_enters_the_task_from_the_top() -> None:
    _, payload = load("leave_minimal.bpmn")
    result = insert_task_before(payload, "Event_Escalated", tag="task", task_id="Activity_Tell", name="Tell")
    root = parse_xml(save_payload(payload), source="leave_minimal.bpmn").getroot()
    assert result.shift == 0  # nothing stands left of the end event in its row
    # the event's name label (x=366) starts left of the event (x=372): the task keeps clear of it
    assert shape_boxes(root)["Activity_Tell"] == (216, 190, 100, 80)
    edge = root.find(f".//{BPMNDI}BPMNEdge[@bpmnElement='Flow_Long']")
    assert [(p.get("x"), p.get("y")) for p in edge] == [("290", "142"), ("290", "166"), ("266", "166"), ("266", "190")]
    assert_flows_in_step(root)
    assert_diagram_readable(root)


def test_bpmn_as_the_default_namespace_gets_unprefixed_elements() -> None:
    data = (FIXTURES / "leave_minimal.bpmn").read_bytes()
    data = data.replace(b"xmlns:bpmn=", b"xmlns=").replace(b"<bpmn:", b"<").replace(b"</bpmn:", b"</")
    payload = load_payload(data, source="plain.bpmn")
    insert_task_before(payload, "Gateway_Days", tag="businessRuleTask", task_id="Activity_Days", name="Decide")
    set_condition(payload, "Flow_Short", "days <= 5")
    out = save_payload(payload)
    added = [line for line in line_diff(data, out) if line.startswith("+")]
    assert '+    <businessRuleTask id="Activity_Days" name="Decide">' in added
    assert '+      <conditionExpression xsi:type="tFormalExpression">days &lt;= 5</conditionExpression>' in added
    root = parse_xml(out, source="plain.bpmn").getroot()
    assert_flows_in_step(root)
    assert_diagram_readable(root)


def test_edges_that_name_their_shapes_keep_naming_the_right_ones() -> None:
    _, payload = load("approval_legacy.bpmn")
    result = insert_task_before(payload, "EndEvent_1", tag="businessRuleTask", task_id="Task_Rate",
                                name="Rate request", attributes={f"{{{CAMUNDA_NS}}}decisionRef": "Decision_Rate"})
    root = parse_xml(save_payload(payload), source="approval_legacy.bpmn").getroot()
    redirected = root.find(f".//{BPMNDI}BPMNEdge[@bpmnElement='SequenceFlow_2']")
    new = root.find(f".//{BPMNDI}BPMNEdge[@bpmnElement='{result.flow_id}']")
    assert (redirected.get("sourceElement"), redirected.get("targetElement")) == ("_BPMNShape_UserTask_2", "Task_Rate_di")
    assert (new.get("sourceElement"), new.get("targetElement")) == ("Task_Rate_di", "_BPMNShape_EndEvent_2")
    assert_flows_in_step(root)
    assert_ids_unique(root)
    assert_diagram_readable(root)


def test_a_payload_without_a_diagram_gets_only_the_semantic_edit() -> None:
    _, payload = load("leave_minimal.bpmn", strip_di=True)
    result = insert_task_before(payload, "Gateway_Days", tag="businessRuleTask", task_id="Activity_Days", name="")
    assert (result.shape_id, result.edge_id) == (None, None)
    root = parse_xml(save_payload(payload), source="leave_minimal.bpmn").getroot()
    assert root.find(f".//{B}businessRuleTask").get("name") is None
    assert_flows_in_step(root)


def test_a_taken_flow_id_gets_a_suffix() -> None:
    _, payload = load("leave_minimal.bpmn")
    insert_task_before(payload, "Event_Granted", tag="task", task_id="A", name="a")
    result = insert_task_before(payload, "Event_Escalated", tag="task", task_id="B", name="b", flow_id=None)
    assert result.flow_id == "Flow_B"
    _, payload = load("leave_minimal.bpmn")
    insert_task_before(payload, "Event_Granted", tag="task", task_id="A", name="a", flow_id="Flow_X")
    result = insert_task_before(payload, "Event_Escalated", tag="task", task_id="X", name="x")
    assert result.flow_id == "Flow_X_2"
    assert_ids_unique(payload.root)
    assert_flows_in_step(payload.root)


@pytest.mark.parametrize(
    "target,kwargs,message",
    [
        ("Gateway_Nope", {}, "leave_minimal.bpmn: no element with id Gateway_Nope"),
        ("Gateway_Days", {"task_id": "StartEvent_1"}, "leave_minimal.bpmn: id StartEvent_1 already exists"),
        ("Gateway_Days", {"flow_id": "Flow_Long"}, "leave_minimal.bpmn: id Flow_Long already exists"),
        ("Gateway_Days", {"task_id": "1 bad"}, "leave_minimal.bpmn: '1 bad' is not a valid id"),
        ("StartEvent_1", {}, "leave_minimal.bpmn: StartEvent_1 has no incoming sequence flow"),
        ("Process_Leave", {}, "leave_minimal.bpmn: Process_Leave is not a flow node of a process"),
        ("Gateway_Days", {"attributes": {f"{{{ZEEBE_NS}}}a": "1", "{urn:unknown}x": "1"}},
         "namespace urn:unknown is not declared"),
        ("Event_Granted", {"name": "bad diagram"}, "leave_minimal.bpmn: Gateway_Days_di: x='left' is not a number"),
    ],
)
def test_a_bad_insert_is_refused_before_anything_changes(target: str, kwargs: dict, message: str) -> None:
    data, payload = load("leave_minimal.bpmn")
    if kwargs.get("name") == "bad diagram":
        payload.root.find(f".//{BPMNDI}BPMNShape[@bpmnElement='Gateway_Days']/{DC}Bounds").set("x", "left")
        data = save_payload(payload)
    arguments = {"tag": "businessRuleTask", "task_id": "Activity_New", "name": "New", **kwargs}
    with pytest.raises(EditError, match=re.escape(message)):
        insert_task_before(payload, target, **arguments)
    assert save_payload(payload) == data


def test_the_same_insert_gives_the_same_bytes() -> None:
    def run() -> bytes:
        _, payload = load("claims_c7.bpmn")
        insert_task_before(payload, "Gateway_ClaimRoute", tag="businessRuleTask", task_id="Activity_Route",
                           name="Decide route", attributes=C7_DECISION)
        set_condition(payload, "Flow_Review", 'claim_route == "review"')
        return save_payload(payload)

    assert run() == run()


# -- set_condition ------------------------------------------------------------------


def test_a_cdata_condition_stays_cdata_and_only_its_line_changes() -> None:
    data, payload = load("claims_c7.bpmn")
    set_condition(payload, "Flow_Review", 'claim_route == "review"')
    set_condition(payload, "Flow_Auto", 'claim_route == "auto" and amount < 10')
    assert line_diff(data, save_payload(payload)) == [
        '-      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression"><![CDATA[${amount > 1000}]]>'
        "</bpmn:conditionExpression>",
        '+      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression"><![CDATA[claim_route == "review"]]>'
        "</bpmn:conditionExpression>",
        '-      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${amount &lt;= 1000}'
        "</bpmn:conditionExpression>",
        '+      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">claim_route == "auto" and amount &lt; 10'
        "</bpmn:conditionExpression>",
    ]


def test_a_new_condition_declares_xsi_once_and_opens_the_flow() -> None:
    data, payload = load("leave_minimal.bpmn")
    set_condition(payload, "Flow_Short", "days <= 5")
    set_condition(payload, "Flow_Long", "days > 5")
    out = save_payload(payload)
    assert out.count(b'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"') == 1
    diff = line_diff(data, out)
    assert diff[2:] == [
        '-    <bpmn:sequenceFlow id="Flow_Short" sourceRef="Gateway_Days" targetRef="Event_Granted" />',
        '+    <bpmn:sequenceFlow id="Flow_Short" sourceRef="Gateway_Days" targetRef="Event_Granted">',
        '+      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">days &lt;= 5</bpmn:conditionExpression>',
        "+    </bpmn:sequenceFlow>",
        '-    <bpmn:sequenceFlow id="Flow_Long" sourceRef="Gateway_Days" targetRef="Event_Escalated" />',
        '+    <bpmn:sequenceFlow id="Flow_Long" sourceRef="Gateway_Days" targetRef="Event_Escalated">',
        '+      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">days &gt; 5</bpmn:conditionExpression>',
        "+    </bpmn:sequenceFlow>",
    ]
    condition = parse_xml(out, source="leave_minimal.bpmn").getroot().find(f".//{B}conditionExpression")
    assert condition.text == "days <= 5"


def test_set_condition_refuses_what_is_not_a_sequence_flow() -> None:
    _, payload = load("orders_c8.bpmn")
    with pytest.raises(EditError, match="orders_c8.bpmn: Gateway_Shipping is a exclusiveGateway, not a sequenceFlow"):
        set_condition(payload, "Gateway_Shipping", "x")
    with pytest.raises(EditError, match="orders_c8.bpmn: no element with id Flow_Nope"):
        set_condition(payload, "Flow_Nope", "x")


def test_text_xml_cannot_hold_is_refused() -> None:
    data, payload = load("leave_minimal.bpmn")
    with pytest.raises(EditError, match="leave_minimal.bpmn: Flow_Short: 'days \\\\x1b 5' has a character"):
        set_condition(payload, "Flow_Short", "days \x1b 5")
    with pytest.raises(EditError, match="leave_minimal.bpmn: Activity_X: 'a\\\\x02' has a character"):
        insert_task_before(payload, "Gateway_Days", tag="task", task_id="Activity_X", name="a\x02")
    assert save_payload(payload) == data


# -- flow names after a new condition --------------------------------------------------------

DIAGRAMS = Path(__file__).parent / "fixtures" / "diagrams"


@pytest.mark.parametrize("condition,name", [
    ('escalation == "hr"', "hr"),
    ("${escalation == 'hr'}", "hr"),
    ('=escalation = "hr"', "hr"),
    ("escalation == 3", "3"),
    ('escalation != "none"', 'escalation != "none"'),
    ('other == "hr"', 'other == "hr"'),
    ("hr_needed", "hr_needed"),
])
def test_a_flow_is_named_by_the_value_its_new_condition_tests(condition: str, name: str) -> None:
    assert outcome_name(condition, "escalation") == name


@pytest.mark.parametrize("name,terms,restated", [
    ("long or unpaid", ["days", "Days", "20", "leave_type", "Leave type", "unpaid"], True),  # the value
    ("otherwise", ["days", "Days", "20", "leave_type", "Leave type", "unpaid"], False),
    ("over 20 days", ["days", "20"], True),
    ("Paid leave", ["leaveType", "sick"], True),  # a camelCase variable's words
    ("else", [], False),  # a flow that had no condition restates nothing
    ("a", ["a"], False),  # words of one or two letters say nothing
])
def test_a_name_restates_a_condition_when_it_shares_a_word_with_what_it_tests(name: str, terms: list[str],
                                                                              restated: bool) -> None:
    assert restates(name, terms) is restated


def test_a_renamed_flow_keeps_its_old_name_as_documentation_and_its_label_is_resized() -> None:
    data = (DIAGRAMS / "lanes_nested_c7.bpmn").read_bytes()
    payload = load_payload(data, source="lanes.bpmn")
    set_condition(payload, "Flow_Large", '${route == "review"}', name="review")
    assert line_diff(data, save_payload(payload)) == [
        '-    <bpmn:sequenceFlow id="Flow_Large" name="large" sourceRef="Gateway_Check" targetRef="Task_Approve">',
        '-      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">'
        '${amount &gt; 1000}</bpmn:conditionExpression>',
        '+    <bpmn:sequenceFlow id="Flow_Large" name="review" sourceRef="Gateway_Check" targetRef="Task_Approve">',
        "+      <bpmn:documentation>large</bpmn:documentation>",
        '+      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">'
        '${route == "review"}</bpmn:conditionExpression>',
        '-          <dc:Bounds x="528" y="323" width="27" height="14" />',
        '+          <dc:Bounds x="524" y="323" width="36" height="14" />',
    ]


def test_a_flow_without_a_name_or_with_documentation_is_not_given_either() -> None:
    data = (FIXTURES / "leave_minimal.bpmn").read_bytes()
    payload = load_payload(data, source="leave.bpmn")
    flow = next(f for f in payload.root.iter(f"{B}sequenceFlow") if f.get("id") == "Flow_Short")
    flow.attrib.pop("name", None)
    set_condition(payload, "Flow_Short", "days <= 5", name="short")
    assert flow.get("name") is None and flow.find(f"{B}documentation") is None
    documentation = etree.SubElement(flow, f"{B}documentation")
    documentation.text = "kept"
    flow.set("name", "old")
    set_condition(payload, "Flow_Short", "days <= 6", name="short")
    assert flow.get("name") == "short" and [d.text for d in flow.iter(f"{B}documentation")] == ["kept"]

"""seams_edit.dmn: new DMN payloads and decision tables added the way dmn-js writes them."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from lxml import etree

from seams.errors import EditError
from seams.model.payloads import parse_xml
from seams.vocab import DMN_NS, DMNDI_NS
from seams_edit.dmn import DMN_DC_NS, add_decision, new_dmn_payload
from seams_edit.xml import load_payload, save_payload

FIXTURES = Path(__file__).parent / "fixtures" / "edit_xml"
D, DMNDI, DC = (f"{{{ns}}}" for ns in (DMN_NS, DMNDI_NS, DMN_DC_NS))
ROUTE = {
    "decision_id": "Decision_ClaimRoute",
    "name": "Claim route",
    "hit_policy": "UNIQUE",
    "inputs": [("amount", "amount", "number"), ("category", "category", "string")],
    "output": ("claim_route", "string"),
    "rules": [
        (["> 1000", "-"], '"review"'),
        (["<= 1000", '"equipment"'], '"review"'),
        (["<= 1000", 'not("equipment")'], '"auto"'),
    ],
}


def diff_lines(before: bytes, after: bytes) -> list[str]:
    return [d for d in difflib.unified_diff(before.decode().splitlines(), after.decode().splitlines(),
                                            lineterm="", n=0) if d[:1] in "+-" and d[:3] not in ("+++", "---")]


def new_payload() -> bytes:
    return new_dmn_payload(definitions_id="Definitions_Claims", name="Claims & co", namespace="https://example.org/x/")


def test_a_new_payload_is_written_as_dmn_js_writes_one() -> None:
    data = new_payload()
    assert data.decode().splitlines() == [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<definitions xmlns="{DMN_NS}" xmlns:dmndi="{DMNDI_NS}" xmlns:dc="{DMN_DC_NS}" '
        'id="Definitions_Claims" name="Claims &#38; co" namespace="https://example.org/x/">',
        "  <dmndi:DMNDI>",
        "    <dmndi:DMNDiagram />",
        "  </dmndi:DMNDI>",
        "</definitions>",
    ]
    assert data.endswith(b"</definitions>\n")
    root = parse_xml(data, source="new.dmn").getroot()
    assert (root.tag, root.get("name")) == (f"{D}definitions", "Claims & co")
    assert save_payload(load_payload(data, source="new.dmn")) == data
    assert new_payload() == data


def test_a_new_payload_refuses_a_bad_id() -> None:
    with pytest.raises(EditError, match="'no good' is not a valid id"):
        new_dmn_payload(definitions_id="no good", name="x", namespace="urn:x")


def test_a_decision_goes_after_the_last_decision_and_its_shape_right_of_the_others() -> None:
    data = (FIXTURES / "claims.dmn").read_bytes()
    payload = load_payload(data, source="claims.dmn")
    add_decision(payload, **ROUTE)
    out = save_payload(payload)
    diff = diff_lines(data, out)
    assert all(line.startswith("+") for line in diff)  # nothing existing changes
    lines = out.decode().splitlines()
    start = lines.index('  <decision id="Decision_ClaimRoute" name="Claim route">')
    assert lines[start - 1] == "  </decision>" and lines[start + 48] == "  <dmndi:DMNDI>"
    assert lines[start:start + 5] == [
        '  <decision id="Decision_ClaimRoute" name="Claim route">',
        '    <decisionTable id="DecisionTable_Decision_ClaimRoute">',
        '      <input id="InputClause_Decision_ClaimRoute_1" label="amount">',
        '        <inputExpression id="InputExpression_Decision_ClaimRoute_1" typeRef="number">',
        "          <text>amount</text>",
    ]
    assert diff[-3:] == [
        '+      <dmndi:DMNShape id="DMNShape_Decision_ClaimRoute" dmnElementRef="Decision_ClaimRoute">',
        '+        <dc:Bounds height="80" width="180" x="390" y="100" />',
        "+      </dmndi:DMNShape>",
    ]
    root = parse_xml(out, source="claims.dmn").getroot()
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids))
    table = root.find(f"{D}decision[@id='Decision_ClaimRoute']/{D}decisionTable")
    assert table.get("hitPolicy") is None  # UNIQUE is the default, left out as dmn-js does
    assert [o.get("name") for o in table.iter(f"{D}output")] == ["claim_route"]
    rules = [[e.findtext(f"{D}text") for e in rule] for rule in table.iter(f"{D}rule")]
    assert rules == [[*entries, result] for entries, result in ROUTE["rules"]]
    assert "<text>&gt; 1000</text>" in out.decode() and '<text>not("equipment")</text>' in out.decode()


def test_a_decision_in_a_new_payload_opens_the_empty_diagram() -> None:
    data = new_payload()
    payload = load_payload(data, source="new.dmn")
    add_decision(payload, **{**ROUTE, "hit_policy": "FIRST"})
    add_decision(payload, **{**ROUTE, "decision_id": "Decision_Second", "rules": []})
    out = save_payload(payload)
    assert diff_lines(data, out)[-9:] == [
        "-    <dmndi:DMNDiagram />",
        "+    <dmndi:DMNDiagram>",
        '+      <dmndi:DMNShape id="DMNShape_Decision_ClaimRoute" dmnElementRef="Decision_ClaimRoute">',
        '+        <dc:Bounds height="80" width="180" x="160" y="100" />',
        "+      </dmndi:DMNShape>",
        '+      <dmndi:DMNShape id="DMNShape_Decision_Second" dmnElementRef="Decision_Second">',
        '+        <dc:Bounds height="80" width="180" x="390" y="100" />',
        "+      </dmndi:DMNShape>",
        "+    </dmndi:DMNDiagram>",
    ]
    root = parse_xml(out, source="new.dmn").getroot()
    assert [d.get("id") for d in root.iterchildren(f"{D}decision")] == ["Decision_ClaimRoute", "Decision_Second"]
    assert root.find(f"{D}decision/{D}decisionTable").get("hitPolicy") == "FIRST"


def test_a_payload_without_dmndi_stays_without_one() -> None:
    """A DMNDI with only the new decision would hide the others from dmn-js' DRD view."""
    data = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<definitions xmlns="{DMN_NS}" id="Definitions_1" name="Bare" namespace="urn:bare">\n'
        "  <inputData id=\"InputData_1\" name=\"amount\" />\n"
        "</definitions>\n"
    ).encode()
    payload = load_payload(data, source="bare.dmn")
    add_decision(payload, **ROUTE)
    out = save_payload(payload)
    diff = diff_lines(data, out)
    assert all(line.startswith("+") for line in diff)  # the root keeps its declarations
    root = parse_xml(out, source="bare.dmn").getroot()
    assert [etree.QName(c).localname for c in root] == ["inputData", "decision"]
    assert b"dmndi" not in out and b"DMNShape" not in out


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"decision_id": "Decision_Budget"}, "claims.dmn: Decision_Budget: id Decision_Budget already exists"),
        ({"hit_policy": "MOST"}, "claims.dmn: Decision_ClaimRoute: unknown hit policy 'MOST'"),
        ({"inputs": []}, "claims.dmn: Decision_ClaimRoute: a decision table needs at least one input"),
        ({"rules": [(["> 1"], '"x"')]}, "claims.dmn: Decision_ClaimRoute: rule 1 has 1 input entries for 2 inputs"),
        ({"decision_id": "Decision 2"}, "claims.dmn: Decision 2: id Decision 2 is not a valid id"),
        ({"name": "bad bounds"}, "claims.dmn: Decision_ClaimRoute: a DMNShape has bounds that are not numbers"),
    ],
)
def test_a_bad_decision_is_refused_before_anything_changes(changes: dict, message: str) -> None:
    data = (FIXTURES / "claims.dmn").read_bytes()
    if changes.get("name") == "bad bounds":
        data = data.replace(b'x="160"', b'x="left"')
    payload = load_payload(data, source="claims.dmn")
    with pytest.raises(EditError, match=message):
        add_decision(payload, **{**ROUTE, **changes})
    assert save_payload(payload) == data


def test_a_bpmn_payload_is_not_a_dmn_payload() -> None:
    payload = load_payload((FIXTURES / "orders_c8.bpmn").read_bytes(), source="orders_c8.bpmn")
    with pytest.raises(EditError, match="orders_c8.bpmn: not a DMN 1.1-1.5 document"):
        add_decision(payload, **ROUTE)


def test_the_same_decision_gives_the_same_bytes() -> None:
    def run() -> bytes:
        payload = load_payload((FIXTURES / "claims.dmn").read_bytes(), source="claims.dmn")
        add_decision(payload, **ROUTE)
        return save_payload(payload)

    assert run() == run()


def test_text_xml_cannot_hold_is_refused() -> None:
    payload = load_payload((FIXTURES / "claims.dmn").read_bytes(), source="claims.dmn")
    with pytest.raises(EditError, match="claims.dmn: Decision_ClaimRoute: '\\\\x01' has a character XML cannot hold"):
        add_decision(payload, **{**ROUTE, "rules": [(["\x01", "-"], '"x"')]})
    with pytest.raises(EditError, match="new DMN payload: Definitions_X: 'a\\\\x00' has a character"):
        new_dmn_payload(definitions_id="Definitions_X", name="a\x00", namespace="urn:x")

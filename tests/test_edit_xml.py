"""seams_edit.xml: payloads saved byte for byte, edits confined to what they change."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from lxml import etree

from seams.errors import EditError, ProjectError
from seams.model.payloads import parse_xml
from seams.vocab import BPMN_NS, CAMUNDA_NS, ZEEBE_NS
from seams_edit.xml import ensure_namespace, insert_child, load_payload, remove_child, save_payload

FIXTURES = Path(__file__).parent / "fixtures" / "edit_xml"
PAYLOADS = sorted(FIXTURES.glob("*.bpmn")) + sorted(FIXTURES.glob("*.dmn"))
B = f"{{{BPMN_NS}}}"

# Everything lxml's own serializer would normalise away, in one document.
ODD = (
    "\ufeff<?xml version='1.0' encoding='utf-8' standalone='yes'?>\r\n"
    "<!-- written by hand -->\r\n"
    "<?seams keep?>\r\n"
    "<a:root xmlns:a='urn:a'\r\n"
    "        xmlns=\"urn:default\"  b='1' a:c=\"x &#34;y&#34; &#60;z&#62;\">\r\n"
    "    <empty></empty>\r\n"
    "    <child z=\"2\" y='&apos;q&apos;'/>\r\n"
    "    <text>a &gt; b &amp;&#x20;c<![CDATA[ <raw> ]]>tail &#228;</text >\r\n"
    "    <!-- inside --><?pi inside ?>\r\n"
    "    <a:leaf    />\r\n"
    "</a:root >\r\n"
    "<!-- after -->\r\n\r\n"
).encode("utf-8")


def changes(before: bytes, after: bytes) -> tuple[list[str], list[str]]:
    """The removed and the added lines of a line diff."""
    diff = list(difflib.unified_diff(before.decode().splitlines(), after.decode().splitlines(), lineterm="", n=0))
    return [d[1:] for d in diff if d.startswith("-") and not d.startswith("---")], \
           [d[1:] for d in diff if d.startswith("+") and not d.startswith("+++")]


@pytest.mark.parametrize("path", PAYLOADS, ids=lambda p: p.name)
def test_an_unmodified_payload_saves_to_its_own_bytes(path: Path) -> None:
    data = path.read_bytes()
    assert save_payload(load_payload(data, source=path.name)) == data


@pytest.mark.parametrize(
    "variant",
    [
        lambda d: d.rstrip(b"\n"),
        lambda d: d + b"\n\n",
        lambda d: d.replace(b"\n", b"\r\n"),
        lambda d: b"\xef\xbb\xbf" + d,
        lambda d: d.replace(b"  ", b"\t"),
        lambda d: d.replace(b" />", b"/>"),
        lambda d: d + b"<!-- trailing comment -->\n",
    ],
    ids=["no-final-newline", "extra-newlines", "crlf", "bom", "tabs", "tight-empty-tags", "trailing-comment"],
)
@pytest.mark.parametrize("path", PAYLOADS, ids=lambda p: p.name)
def test_layout_variants_round_trip_exactly(path: Path, variant) -> None:
    data = variant(path.read_bytes())
    assert save_payload(load_payload(data, source=path.name)) == data


def test_everything_lxml_would_normalise_round_trips() -> None:
    payload = load_payload(ODD, source="odd.xml")
    assert save_payload(payload) == ODD
    assert payload.root.find("{urn:default}text").text == "a > b & c <raw> tail ä"


def test_a_non_utf8_payload_keeps_its_encoding() -> None:
    data = '<?xml version="1.0" encoding="ISO-8859-1"?>\n<r n="Gr\xfc\xdfe"><t>\xe4</t></r>\n'.encode("latin-1")
    payload = load_payload(data, source="latin.xml")
    assert save_payload(payload) == data
    payload.root.set("n", "5 €")
    assert save_payload(payload) == data.replace("Gr\xfc\xdfe".encode("latin-1"), b"5 &#8364;")


@pytest.mark.parametrize(
    "data",
    [
        b'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY e "boom">]>\n<r>&e;</r>\n',
        b'<?xml version="1.0"?>\n<!DOCTYPE r SYSTEM "http://example.org/r.dtd">\n<r/>\n',
    ],
    ids=["entity", "external-dtd"],
)
def test_a_dtd_or_entity_is_refused(data: bytes) -> None:
    with pytest.raises(ProjectError, match="evil.bpmn: a DTD is not allowed"):
        load_payload(data, source="evil.bpmn")


def test_utf16_is_refused_for_editing() -> None:
    data = '<?xml version="1.0" encoding="UTF-16"?>\n<r/>\n'.encode("utf-16")
    with pytest.raises(EditError, match="u16.dmn: UTF-16"):
        load_payload(data, source="u16.dmn")


def test_a_changed_attribute_changes_only_its_value_in_place() -> None:
    payload = load_payload(ODD, source="odd.xml")
    payload.root.set("b", "two")
    payload.root.find("{urn:default}child").set("y", "it's")
    removed, added = changes(ODD, save_payload(payload))
    assert removed == ["        xmlns=\"urn:default\"  b='1' a:c=\"x &#34;y&#34; &#60;z&#62;\">",
                       "    <child z=\"2\" y='&apos;q&apos;'/>"]
    assert added == ["        xmlns=\"urn:default\"  b='two' a:c=\"x &#34;y&#34; &#60;z&#62;\">",
                     "    <child z=\"2\" y='it&#39;s'/>"]


def test_attributes_added_and_removed_keep_the_others_in_order() -> None:
    data = (FIXTURES / "claims_c7.bpmn").read_bytes()
    payload = load_payload(data, source="claims_c7.bpmn")
    task = payload.root.find(f".//{B}businessRuleTask")
    del task.attrib[f"{{{CAMUNDA_NS}}}mapDecisionResult"]
    task.set("default", "Flow_X")
    task.set(f"{{{CAMUNDA_NS}}}resultVariable", 'say "ok"')
    removed, added = changes(data, save_payload(payload))
    assert removed == ['    <bpmn:businessRuleTask id="Activity_CheckBudget" name="Check budget" '
                       'camunda:resultVariable="budget_ok" camunda:decisionRef="Decision_Budget" '
                       'camunda:mapDecisionResult="singleEntry">']
    assert added == ['    <bpmn:businessRuleTask id="Activity_CheckBudget" name="Check budget" '
                     'camunda:resultVariable="say &#34;ok&#34;" camunda:decisionRef="Decision_Budget" '
                     'default="Flow_X">']


def test_changed_text_keeps_cdata_where_it_was_cdata_and_escapes_elsewhere() -> None:
    data = (FIXTURES / "claims_c7.bpmn").read_bytes()
    payload = load_payload(data, source="claims_c7.bpmn")
    review, auto = payload.root.iterfind(f".//{B}conditionExpression")
    review.text = "${route == 'review' && amount > 0}"
    auto.text = "${route < 'b'}"
    removed, added = changes(data, save_payload(payload))
    assert [line.strip() for line in added] == [
        '<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">'
        "<![CDATA[${route == 'review' && amount > 0}]]></bpmn:conditionExpression>",
        '<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${route &lt; \'b\'}</bpmn:conditionExpression>',
    ]
    assert len(removed) == 2


def test_setting_a_value_to_what_it_was_changes_nothing() -> None:
    data = (FIXTURES / "orders_c8.bpmn").read_bytes()
    payload = load_payload(data, source="orders_c8.bpmn")
    for element in payload.root.iter(tag=etree.Element):
        for key, value in element.attrib.items():
            element.set(key, value)
        element.text = element.text
    assert save_payload(payload) == data


def test_ensure_namespace_declares_once_on_the_root_and_keeps_the_tree() -> None:
    data = (FIXTURES / "leave_minimal.bpmn").read_bytes()
    payload = load_payload(data, source="leave_minimal.bpmn")
    gateway = payload.root.find(f".//{B}exclusiveGateway")
    assert ensure_namespace(payload, "zeebe", ZEEBE_NS) == "zeebe"
    assert ensure_namespace(payload, "zeebe", ZEEBE_NS) == "zeebe"
    assert payload.root.find(f".//{B}exclusiveGateway") is gateway  # proxies stay valid
    gateway.set(f"{{{ZEEBE_NS}}}note", "x")
    out = save_payload(payload)
    removed, added = changes(data, out)
    assert removed[0].replace(' xmlns:modeler="http://camunda.org/schema/modeler/1.0"',
                              ' xmlns:modeler="http://camunda.org/schema/modeler/1.0"'
                              f' xmlns:zeebe="{ZEEBE_NS}"') == added[0]
    assert added[1] == '    <bpmn:exclusiveGateway id="Gateway_Days" name="How long?" zeebe:note="x">'
    assert len(removed) == len(added) == 2
    assert out.count(b"xmlns:zeebe") == 1
    assert etree.tostring(payload.tree).count(b"xmlns:zeebe") == 1  # lxml's model agrees
    parse_xml(out, source="leave_minimal.bpmn")


def test_ensure_namespace_reuses_a_bound_uri_and_avoids_a_taken_prefix() -> None:
    payload = load_payload((FIXTURES / "claims_c7.bpmn").read_bytes(), source="claims_c7.bpmn")
    assert ensure_namespace(payload, "cam", CAMUNDA_NS) == "camunda"
    assert ensure_namespace(payload, "camunda", "urn:other") == "camunda_1"
    assert payload.root.nsmap["camunda_1"] == "urn:other"
    with pytest.raises(EditError, match="claims_c7.bpmn: 'xmlns' is not a usable namespace prefix"):
        ensure_namespace(payload, "xmlns", "urn:x")


def _process_of(payload):
    return payload.root.find(f"{B}process")


@pytest.mark.parametrize("index,line", [(0, 3), (2, 11), (None, 20)])
def test_insert_child_indents_like_its_siblings(index: int | None, line: int) -> None:
    data = (FIXTURES / "leave_minimal.bpmn").read_bytes()
    payload = load_payload(data, source="leave_minimal.bpmn")
    task = etree.Element(f"{B}task", id="Task_New")
    etree.SubElement(task, f"{B}incoming").text = "Flow_X"
    insert_child(_process_of(payload), task, index)
    out = save_payload(payload)
    assert changes(data, out) == ([], ['    <bpmn:task id="Task_New">',
                                       "      <bpmn:incoming>Flow_X</bpmn:incoming>",
                                       "    </bpmn:task>"])
    assert out.decode().splitlines()[line] == '    <bpmn:task id="Task_New">'


def test_insert_child_opens_an_empty_element_and_follows_the_document_style() -> None:
    data = (FIXTURES / "leave_minimal.bpmn").read_bytes().replace(b"  ", b"    ").replace(b"\n", b"\r\n")
    payload = load_payload(data, source="wide.bpmn")
    flow = payload.root.find(f".//{B}sequenceFlow")
    condition = etree.Element(f"{B}conditionExpression")
    condition.text = "days > 5"
    insert_child(flow, condition)
    out = save_payload(payload)
    removed, added = changes(data, out)
    assert removed == ['        <bpmn:sequenceFlow id="Flow_1" sourceRef="StartEvent_1" targetRef="Gateway_Days" />']
    assert added == ['        <bpmn:sequenceFlow id="Flow_1" sourceRef="StartEvent_1" targetRef="Gateway_Days">',
                     "            <bpmn:conditionExpression>days &gt; 5</bpmn:conditionExpression>",
                     "        </bpmn:sequenceFlow>"]
    assert b"\n" not in out.replace(b"\r\n", b"")


def test_insert_child_keeps_one_line_siblings_on_one_line() -> None:
    payload = load_payload(b"<r><a/><b/></r>", source="flat.xml")
    insert_child(payload.root, etree.Element("c"), 1)
    assert save_payload(payload) == b"<r><a/><c/><b/></r>"  # and no space before '/>', as in the file


def test_remove_child_keeps_the_closing_indentation() -> None:
    data = (FIXTURES / "orders_c8.bpmn").read_bytes()
    payload = load_payload(data, source="orders_c8.bpmn")
    end_event = payload.root.find(f".//{B}endEvent")
    remove_child(end_event[-1])
    remove_child(end_event[0])
    removed, added = changes(data, save_payload(payload))
    assert removed == ["      <bpmn:incoming>Flow_0m2h1ab</bpmn:incoming>",
                       "      <bpmn:incoming>Flow_1p0z7nd</bpmn:incoming>"]
    assert added == []


def test_the_same_edits_give_the_same_bytes() -> None:
    def edit() -> bytes:
        payload = load_payload((FIXTURES / "leave_minimal.bpmn").read_bytes(), source="leave_minimal.bpmn")
        ensure_namespace(payload, "zeebe", ZEEBE_NS)
        insert_child(_process_of(payload), etree.Element(f"{B}task", {f"{{{ZEEBE_NS}}}a": "1", "id": "T"}), 1)
        return save_payload(payload)

    assert edit() == edit()

"""seams.render draws BPMN DI as SVG and DMN tables as HTML: what the DI says, escaped.

The drawing is read back (each ``<g data-element-id>``'s outline, each label's text) and held
to the DI of the file, independently parsed here; where Chromium and bpmn-js are installed
(``.ci/run``), to what bpmn-js draws from the same file, element by element: shape bounds, edge
waypoints, label bounds and label text. The diagrams are the bundled examples and two files
written for these tests in the shape Camunda Modeler saves (pools, lanes, message flows,
sub-processes, boundary events, every gateway kind, data objects and stores, annotations, groups).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import render_diagram
from lxml import etree

from seams.render import render_bpmn, render_decision_table
from seams.render.dmn_html import find_decision_element

REPO = Path(__file__).resolve().parents[1]
DIAGRAMS = {f"{example}/leave.bpmn": REPO / "examples" / example / "model" / "leave.bpmn"
            for example in ("leave", "leave-c7", "leave-c8")}
DIAGRAMS |= {f"fixtures/{path.name}": path for path in sorted((REPO / "tests" / "fixtures" / "render").glob("*.bpmn"))}
NS = {"bpmndi": "http://www.omg.org/spec/BPMN/20100524/DI", "dc": "http://www.omg.org/spec/DD/20100524/DC",
      "di": "http://www.omg.org/spec/DD/20100524/DI", "svg": "http://www.w3.org/2000/svg"}
SVG = "{http://www.w3.org/2000/svg}"


def outline(element: etree._Element) -> tuple[float, float, float, float]:
    """The bounds of the first drawn primitive of a shape group."""
    first = next(child for child in element if isinstance(child.tag, str))
    tag = etree.QName(first).localname
    if tag == "rect":
        return tuple(float(first.get(k)) for k in ("x", "y", "width", "height"))  # type: ignore[return-value]
    if tag == "circle":
        cx, cy, r = (float(first.get(k)) for k in ("cx", "cy", "r"))
        return (cx - r, cy - r, 2 * r, 2 * r)
    if tag == "polygon":
        points = [tuple(map(float, p.split(","))) for p in first.get("points").split()]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
    raise AssertionError(f"unexpected outline {tag}")


def drawing(svg: str) -> dict[str, dict]:
    """What the SVG draws, by element id: ``bounds`` or ``points``, and the ``label`` (bounds, text)."""
    root = etree.fromstring(svg.encode("utf-8"))
    found: dict[str, dict] = {}
    for group in root.iter(f"{SVG}g"):
        ident = group.get("data-element-id")
        if ident is not None:
            if "bpmn-edge" in group.get("class", ""):
                line = group.find(f"{SVG}polyline")
                found.setdefault(ident, {})["points"] = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
            else:
                found.setdefault(ident, {})["bounds"] = outline(group)
        owner = group.get("data-label-of")
        if owner is not None:
            text = " ".join(" ".join(t.itertext()) for t in group.iter(f"{SVG}text"))
            found.setdefault(owner, {})["label"] = (tuple(float(group.get(f"data-{k}")) for k in ("x", "y", "width", "height")),
                                                    " ".join(text.split()))
    return found


def words(text: str | None) -> str:
    return " ".join((text or "").split())


@pytest.mark.parametrize("name", sorted(DIAGRAMS))
def test_every_di_shape_edge_and_label_is_drawn_where_the_di_puts_it(name: str) -> None:
    tree = etree.parse(str(DIAGRAMS[name]))
    svg = render_bpmn(tree)
    assert render_bpmn(tree) == svg  # same file, same bytes
    drawn = drawing(svg)
    plane = tree.find(".//bpmndi:BPMNPlane", NS)
    elements = {e.get("id"): e for e in tree.iter() if isinstance(e.tag, str) and e.get("id")}
    for shape in plane.iterfind("bpmndi:BPMNShape", NS):
        ident = shape.get("bpmnElement")
        bounds = shape.find("dc:Bounds", NS)
        want = tuple(float(bounds.get(k)) for k in ("x", "y", "width", "height"))
        assert drawn[ident]["bounds"] == pytest.approx(want, abs=0.01), ident
        label = shape.find("bpmndi:BPMNLabel/dc:Bounds", NS)
        name_ = elements[ident].get("name")
        if label is not None and name_:
            assert drawn[ident]["label"][0] == tuple(float(label.get(k)) for k in ("x", "y", "width", "height"))
            assert drawn[ident]["label"][1] == words(name_)
    for edge in plane.iterfind("bpmndi:BPMNEdge", NS):
        ident = edge.get("bpmnElement")
        want_points = [(float(p.get("x")), float(p.get("y"))) for p in edge.iterfind("di:waypoint", NS)]
        assert drawn[ident]["points"] == want_points, ident
        if elements[ident].get("name"):
            assert drawn[ident]["label"][1] == words(elements[ident].get("name"))
    task_texts = {ident: " ".join(" ".join(t.itertext()) for t in g.iter(f"{SVG}text"))
                  for g in etree.fromstring(svg.encode()).iter(f"{SVG}g")
                  if (ident := g.get("data-element-id")) and g.get("data-kind", "").endswith("Task")}
    for ident, text in task_texts.items():
        assert words(text) == words(elements[ident].get("name")), ident


def test_kinds_have_their_markers() -> None:
    svg = render_bpmn(etree.parse(str(DIAGRAMS["fixtures/gateways.bpmn"])))
    root = etree.fromstring(svg.encode())
    kinds = {g.get("data-element-id"): g for g in root.iter(f"{SVG}g") if g.get("data-element-id")}
    assert kinds["Activity_Fraud"].get("data-kind") == "callActivity"
    assert kinds["Activity_Fraud"][0].get("stroke-width") == "5"  # a call activity's thick border
    assert kinds["StartEvent_Cancel"][0].get("stroke-dasharray")  # non-interrupting: dashed
    assert kinds["SubProcess_Cancel"][0].get("stroke-dasharray")  # an event sub-process: dashed
    assert len(kinds["Event_Docs"].findall(f"{SVG}circle")) == 2  # intermediate: a double ring
    assert kinds["EndEvent_Error"][0].get("stroke-width") == "4"  # an end event: thick
    flows = {g.get("data-element-id"): g[0] for g in root.iter(f"{SVG}g") if "bpmn-edge" in (g.get("class") or "")}
    assert "default-" in flows["Flow_Nobody"].get("marker-start")  # the gateway's default flow
    collaboration = render_bpmn(etree.parse(str(DIAGRAMS["fixtures/collaboration.bpmn"])))
    message = next(g for g in etree.fromstring(collaboration.encode()).iter(f"{SVG}g")
                   if g.get("data-element-id") == "Flow_OrderPlaced")
    assert message[0].get("stroke-dasharray") and "msg-start" in message[0].get("marker-start")


def test_marks_colour_the_marked_elements_only() -> None:
    tree = etree.parse(str(DIAGRAMS["leave/leave.bpmn"]))
    svg = render_bpmn(tree, {"Flow_Auto": "taken", "Task_HRReview": "not-covered", "Nowhere": "added",
                             "Task_Submit": "no such mark"})
    root = etree.fromstring(svg.encode())
    marked = {g.get("data-element-id"): g.get("data-mark") for g in root.iter(f"{SVG}g") if g.get("data-mark")}
    assert marked == {"Flow_Auto": "taken", "Task_HRReview": "not-covered"}
    assert root.find(".//*[@data-element-id='Flow_Auto']/{http://www.w3.org/2000/svg}polyline").get("stroke") == "#1565c0"


HOSTILE = '<script>alert(1)</script> & "quoted" \u202eevil\u200b name'


def test_model_text_is_escaped_and_cleaned() -> None:
    data = (DIAGRAMS["leave/leave.bpmn"]).read_text(encoding="utf-8")
    escaped = HOSTILE.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    data = data.replace('name="Submit leave request"', f'name="{escaped}"').replace(
        'name="auto"', f'name="{escaped}"')
    svg = render_bpmn(etree.fromstring(data.encode("utf-8")))
    root = etree.fromstring(svg.encode("utf-8"))  # still well-formed XML
    assert not any(etree.QName(e).localname == "script" for e in root.iter() if isinstance(e.tag, str))
    text = " ".join(root.itertext())
    assert "<script>alert(1)</script>" in text  # shown as text, not markup
    assert "\u202e" not in svg and "\u200b" not in svg


def test_a_decision_table_as_html() -> None:
    tree = etree.parse(str(REPO / "examples" / "leave" / "model" / "leave.dmn"))
    decision = find_decision_element(tree.getroot(), "Decision_ApprovalLevel")
    html = render_decision_table(decision, {"Rule_Long": "taken"})
    table = etree.fromstring(html.split("</p>", 1)[1], etree.HTMLParser()).find(".//table")
    assert [th.text for th in table.iter("th")][:1] == ["U"]
    rows = table.findall("tbody/tr")
    assert [r.get("data-rule-id") for r in rows] == ["Rule_ShortAnnual", "Rule_Long", "Rule_ShortOther"]
    assert [r.get("data-mark") for r in rows] == [None, "taken", None]
    assert [" ".join(c.itertext()) for c in rows[0]] == ["1", "<= 5", '"annual"', '"auto"',
                                                         "Short annual leave needs no manager"]
    hostile = etree.fromstring(etree.tostring(decision).replace(b"Short annual leave needs no manager",
                                                                 b"&lt;img src=x onerror=alert(1)&gt;"))
    assert "<img" not in render_decision_table(hostile) and "&lt;img" in render_decision_table(hostile)


@pytest.mark.skipif(not render_diagram.ready(), reason="chromium and bpmn-js in .ci/node (installed by .ci/run)")
def test_the_drawing_agrees_with_bpmn_js_element_by_element() -> None:
    """bpmn-js (the modeler's renderer) and seams.render read the same DI: every element bpmn-js draws,
    seams draws with the same bounds or waypoints; every label at the same bounds with the same words."""
    results = render_diagram.geometry_all({name: path.read_bytes() for name, path in DIAGRAMS.items()})
    for name, path in DIAGRAMS.items():
        result = results[name]
        assert "error" not in result, (name, result)
        drawn = drawing(render_bpmn(etree.parse(str(path))))
        theirs = {e["id"] for e in result["elements"] if e["label"] is None}
        assert theirs == set(drawn), (name, theirs ^ set(drawn))
        compared = 0
        for element in result["elements"]:
            if element["label"] is not None:
                ours = drawn[element["label"]].get("label")
                assert ours is not None, (name, element["id"])
                # bpmn-js sizes a label to its text as its fonts measure it, keeping the DI bounds'
                # centre line and top: those agree, whatever fonts the machine has
                x, y, width, _ = ours[0]
                assert (x + width / 2, y) == pytest.approx((element["x"] + element["width"] / 2, element["y"]),
                                                           abs=1), (name, element["id"])
                assert ours[1] == words(element["text"]) or words(ours[1]).replace(" ", "") == \
                    words(element["text"]).replace(" ", ""), (name, element["id"], ours[1], element["text"])
            elif element["waypoints"] is not None:
                ours_points = [c for point in drawn[element["id"]]["points"] for c in point]
                assert ours_points == pytest.approx([c for point in element["waypoints"] for c in point], abs=0.5), \
                    (name, element["id"])
            else:
                want = (element["x"], element["y"], element["width"], element["height"])
                assert drawn[element["id"]]["bounds"] == pytest.approx(want, abs=0.5), (name, element["id"])
            compared += 1
        assert compared >= 20, name


def test_text_cleaning_drops_exactly_what_clean_text_calls_unclean() -> None:
    from seams.checks.clean_text import unclean
    from seams.render.text import _UNCLEAN, clean

    assert [p for p in range(0x110000) if bool(_UNCLEAN.match(chr(p))) != bool(unclean(chr(p)))] == []
    assert clean("a\x07b\u202ec\u200bd\ne\tf") == "abcd\ne\tf"

"""Edits on real-shaped diagrams: the layout checker finds nothing new after any edit.

The corpus (tests/fixtures/diagrams, plus the edit fixtures and the bundled
example) is written after the shapes of public Camunda and bpmn-js examples:
nested lanes, a vertical pool, a top-down process without a pool, boundary
events with labels, expanded, legacy-expanded and collapsed sub-processes,
external labels, a lane too narrow for a task, a DRD and a DMN file without
DMNDI. Every flow node with an incoming sequence flow is tried as the target
of ``insert_task_before``; every conditional flow gets a new condition.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from lxml import etree

from seams.model.payloads import parse_xml
from seams.vocab import BPMN_NS, BPMNDI_NS, DC_NS, DI_NS
from seams_edit.bpmn import insert_task_before, set_condition
from seams_edit.dmn import add_decision
from seams_edit.layout_check import new_problems, problems
from seams_edit.xml import load_payload, save_payload

REPO = Path(__file__).resolve().parents[1]
DIAGRAMS = REPO / "tests" / "fixtures" / "diagrams"
CORPUS = sorted(DIAGRAMS.glob("*.bpmn")) + sorted((REPO / "tests" / "fixtures" / "edit_xml").glob("*.bpmn")) + [
    REPO / "examples" / "leave" / "model" / "leave.bpmn"]
DMN_CORPUS = sorted(DIAGRAMS.glob("*.dmn")) + [REPO / "tests" / "fixtures" / "edit_xml" / "claims.dmn",
                                               REPO / "examples" / "leave" / "model" / "leave.dmn"]
NODE_DIR = REPO / ".ci" / "node"
B, BPMNDI, DC, DI = (f"{{{ns}}}" for ns in (BPMN_NS, BPMNDI_NS, DC_NS, DI_NS))
DECISION = {"decision_id": "Decision_Route", "name": "Route", "hit_policy": "UNIQUE",
            "inputs": [("Amount", "amount", "number")], "output": ("route", "string"),
            "rules": [(["> 100"], '"review"'), (["<= 100"], '"auto"')]}


def targets(path: Path) -> list[str]:
    root = parse_xml(path.read_bytes(), source=path.name).getroot()
    return sorted({flow.get("targetRef") for flow in root.iter(f"{B}sequenceFlow")})


def conditional_flows(path: Path) -> list[str]:
    root = parse_xml(path.read_bytes(), source=path.name).getroot()
    return [flow.get("id") for flow in root.iter(f"{B}sequenceFlow")
            if flow.find(f"{B}conditionExpression") is not None]


CASES = [(path, target) for path in CORPUS for target in targets(path)]


def case_id(case: tuple[Path, str]) -> str:
    return f"{case[0].stem}-{case[1]}"


def insert(path: Path, target: str) -> tuple[etree._Element, bytes]:
    payload = load_payload(path.read_bytes(), source=path.name)
    insert_task_before(payload, target, tag="businessRuleTask", task_id="Activity_Inserted", name="Decide route")
    out = save_payload(payload)
    return parse_xml(out, source=path.name).getroot(), out


def boxes(root: etree._Element) -> dict[str, tuple[float, ...]]:
    return {s.get("bpmnElement"): tuple(float(s.find(f"{DC}Bounds").get(k)) for k in ("x", "y", "width", "height"))
            for s in root.iter(f"{BPMNDI}BPMNShape") if s.find(f"{DC}Bounds") is not None}


def lanes_of(root: etree._Element, node_id: str) -> list[str]:
    return sorted(r.getparent().get("id") for r in root.iter(f"{B}flowNodeRef") if r.text == node_id)


# -- the corpus and the checker -----------------------------------------------------------


@pytest.mark.parametrize("path", CORPUS + DMN_CORPUS, ids=lambda p: p.name)
def test_the_corpus_round_trips_and_the_diagrams_written_for_it_are_clean(path: Path) -> None:
    data = path.read_bytes()
    payload = load_payload(data, source=path.name)
    assert save_payload(payload) == data
    if path.parent == DIAGRAMS:
        assert problems(payload.root) == []


def mutated(path: Path, old: str, new: str) -> etree._Element:
    text = path.read_text()
    assert text.count(old) == 1, old
    return parse_xml(text.replace(old, new).encode(), source=path.name).getroot()


@pytest.mark.parametrize("name,old,new,problem", [
    ("lanes_nested_c7.bpmn", '<dc:Bounds x="632" y="412" width="36" height="36" />',
     '<dc:Bounds x="632" y="452" width="36" height="36" />',
     "boundary event Event_Timeout is not on the border of Task_Approve"),
    ("lanes_nested_c7.bpmn", '<dc:Bounds x="640" y="207" width="100" height="80" />',
     '<dc:Bounds x="470" y="207" width="100" height="80" />', "shapes Gateway_Check and Task_Ship overlap"),
    ("lanes_nested_c7.bpmn", '<dc:Bounds x="242" y="148" width="76" height="14" />',
     '<dc:Bounds x="342" y="148" width="76" height="14" />', "label of StartEvent_1 overlaps Task_Enter"),
    ("lanes_nested_c7.bpmn", '<di:waypoint x="812" y="247" />', '<di:waypoint x="800" y="247" />',
     "edge Flow_3 does not end on EndEvent_Done"),
    ("lanes_nested_c7.bpmn", '<dc:Bounds x="340" y="83" width="100" height="80" />',
     '<dc:Bounds x="340" y="203" width="100" height="80" />', "Task_Enter is not inside Lane_Intake"),
    ("subprocess_c8.bpmn", '<dc:Bounds x="600" y="160" width="100" height="80" />',
     '<dc:Bounds x="720" y="160" width="100" height="80" />', "Task_Rate is not inside SubProcess_Assess"),
    ("legacy_subprocess.bpmn", 'width="400" height="200"', 'width="300" height="200"',
     "EndEvent_0inner is not inside SubProcess_1fix"),
    ("vertical_pool.bpmn", '<dc:Bounds x="160" y="80" width="500" height="760" />',
     '<dc:Bounds x="160" y="80" width="500" height="600" />', "EndEvent_Sent is not inside Participant_Quotes"),
    ("vertical_process.bpmn", '<di:waypoint x="250" y="522" />', '<di:waypoint x="240" y="522" />',
     "edge Flow_3 has a slanted segment"),
    ("drd_dishes.dmn", '<dmndi:DMNShape id="DMNShape_Season" dmnElementRef="InputData_Season">',
     '<dmndi:DMNShape id="DMNShape_Season" dmnElementRef="InputData_Other">',
     "inputData InputData_Season has no shape in the DMNDI"),
    ("drd_dishes.dmn", 'x="160" y="80"', 'x="160" y="220"', "shapes Decision_Beverages and Decision_Dish overlap"),
])
def test_the_checker_finds_each_kind_of_problem(name: str, old: str, new: str, problem: str) -> None:
    path = DIAGRAMS / name
    before = parse_xml(path.read_bytes(), source=name).getroot()
    found = new_problems(before, mutated(path, old, new))
    assert problem in found, found


def test_a_problem_that_only_moved_is_not_new() -> None:
    path = DIAGRAMS / "vertical_process.bpmn"
    before = mutated(path, '<di:waypoint x="250" y="522" />', '<di:waypoint x="240" y="522" />')
    after = mutated(path, '<di:waypoint x="250" y="522" />', '<di:waypoint x="245" y="522" />')
    assert problems(after) == ["edge Flow_3 has a slanted segment"]
    assert new_problems(before, after) == []


# -- every edit on every diagram ----------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_a_task_inserted_anywhere_adds_no_layout_problem(case: tuple[Path, str]) -> None:
    path, target = case
    before = parse_xml(path.read_bytes(), source=path.name).getroot()
    after, _ = insert(path, target)
    assert new_problems(before, after) == []
    assert lanes_of(after, "Activity_Inserted") == lanes_of(before, target)
    task = next(t for t in after.iter(f"{B}businessRuleTask") if t.get("id") == "Activity_Inserted")
    assert task.getparent().get("id") == next(e for e in before.iter() if e.get("id") == target).getparent().get("id")
    old, new = boxes(before), boxes(after)
    for event in before.iter(f"{B}boundaryEvent"):  # boundary events keep their place on their host
        host = event.get("attachedToRef")
        if event.get("id") in old and host in old and old[host][2:] == new[host][2:]:
            offset = [a - b for a, b in zip(old[event.get("id")][:2], old[host][:2])]
            assert [a - b for a, b in zip(new[event.get("id")][:2], new[host][:2])] == offset, event.get("id")


@pytest.mark.parametrize("case", [(p, f) for p in CORPUS for f in conditional_flows(p)], ids=case_id)
def test_a_new_condition_adds_no_layout_problem(case: tuple[Path, str]) -> None:
    path, flow = case
    payload = load_payload(path.read_bytes(), source=path.name)
    before = parse_xml(path.read_bytes(), source=path.name).getroot()
    set_condition(payload, flow, 'route == "review"', name="review")
    after = parse_xml(save_payload(payload), source=path.name).getroot()
    assert new_problems(before, after) == []


def test_a_top_down_pool_makes_room_downward_and_keeps_the_task_in_its_lane() -> None:
    path = DIAGRAMS / "vertical_pool.bpmn"
    before = boxes(parse_xml(path.read_bytes(), source=path.name).getroot())
    after_root, _ = insert(path, "Gateway_Discount")
    after = boxes(after_root)
    x, y, w, h = after["Activity_Inserted"]
    gateway = after["Gateway_Discount"]
    assert x + w / 2 == gateway[0] + gateway[2] / 2  # on the gateway's column
    assert y + h < gateway[1]  # above it
    assert after["Gateway_Discount"][0] == before["Gateway_Discount"][0]  # nothing moved sideways
    assert after["Gateway_Discount"][1] - before["Gateway_Discount"][1] == 125
    assert after["Participant_Quotes"][3] - before["Participant_Quotes"][3] == 125  # the pool grew downward
    assert after["Event_Late"][1] - before["Event_Late"][1] == 125  # with its host
    lane = after["Lane_Sales"]
    assert lane[0] <= x and x + w <= lane[0] + lane[2]


def test_a_top_down_process_without_a_pool_is_read_from_its_flows() -> None:
    path = DIAGRAMS / "vertical_process.bpmn"
    before = boxes(parse_xml(path.read_bytes(), source=path.name).getroot())
    after = boxes(insert(path, "Gateway_Ok")[0])
    assert after["Gateway_Ok"][0] == before["Gateway_Ok"][0] and after["Gateway_Ok"][1] > before["Gateway_Ok"][1]
    assert after["Activity_Inserted"][:2] == (200, 290)  # centred between Task_Check and the gateway


def test_a_lane_too_narrow_for_the_task_grows_and_the_lane_below_moves_down() -> None:
    path = DIAGRAMS / "tight_lanes_c8.bpmn"
    before = boxes(parse_xml(path.read_bytes(), source=path.name).getroot())
    after = boxes(insert(path, "Gateway_Triage")[0])
    assert after["Lane_Bot"][3] == 100 and after["Lane_Desk"][1] == before["Lane_Desk"][1] + 20
    assert after["Participant_Support"][3] == before["Participant_Support"][3] + 20
    lane = after["Lane_Bot"]
    task = after["Activity_Inserted"]
    assert lane[1] < task[1] and task[1] + task[3] < lane[1] + lane[3]


def test_a_legacy_expanded_sub_process_holds_the_task_and_grows() -> None:
    path = DIAGRAMS / "legacy_subprocess.bpmn"
    before = boxes(parse_xml(path.read_bytes(), source=path.name).getroot())
    after = boxes(insert(path, "ExclusiveGateway_0early")[0])
    sub, task = after["SubProcess_1fix"], after["Activity_Inserted"]
    assert sub[2] == before["SubProcess_1fix"][2] + 158
    assert sub[0] < task[0] and task[0] + task[2] < sub[0] + sub[2] and sub[1] < task[1]


def test_a_boundary_event_on_a_growing_sub_process_moves_with_its_far_side() -> None:
    path = DIAGRAMS / "subprocess_c8.bpmn"
    root = parse_xml(path.read_bytes(), source=path.name).getroot()
    before = boxes(root)
    after_root, _ = insert(path, "Gateway_Complete")
    after = boxes(after_root)
    grown = after["SubProcess_Assess"][2] - before["SubProcess_Assess"][2]
    assert grown > 0
    assert after["Event_Rejected"][0] - before["Event_Rejected"][0] == grown
    edge = next(e for e in after_root.iter(f"{BPMNDI}BPMNEdge") if e.get("bpmnElement") == "Flow_Reject")
    assert float(edge.find(f"{DI}waypoint").get("x")) == after["Event_Rejected"][0] + 18


def test_the_new_task_keeps_clear_of_its_targets_label() -> None:
    path = DIAGRAMS / "vertical_process.bpmn"
    after = boxes(insert(path, "EndEvent_Done")[0])
    assert after["Activity_Inserted"][1] + after["Activity_Inserted"][3] <= after["EndEvent_Done"][1]


# -- DMN ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", DMN_CORPUS, ids=lambda p: p.name)
def test_a_decision_added_to_any_dmn_file_adds_no_layout_problem(path: Path) -> None:
    before = parse_xml(path.read_bytes(), source=path.name).getroot()
    payload = load_payload(path.read_bytes(), source=path.name)
    add_decision(payload, **DECISION)
    out = save_payload(payload)
    after = parse_xml(out, source=path.name).getroot()
    assert new_problems(before, after) == []
    assert (b"DMNDI" in out) == (b"DMNDI" in path.read_bytes())


# -- bpmn-moddle / dmn-moddle ---------------------------------------------------------------


def moddle_ready() -> bool:
    return shutil.which("node") is not None and all(
        (NODE_DIR / "node_modules" / name / "package.json").is_file() for name in ("bpmn-moddle", "dmn-moddle"))


def moddle_warnings(paths: list[Path]) -> dict[str, list[str]]:
    done = subprocess.run(["node", str(NODE_DIR / "moddle_check.mjs"), *map(str, paths)], capture_output=True,
                          text=True, timeout=120, check=True)
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r.get("error") for r in results] == [None] * len(paths)
    return {r["file"]: r["warnings"] for r in results}


@pytest.mark.skipif(not moddle_ready(), reason="node with bpmn-moddle/dmn-moddle in .ci/node (installed by .ci/run)")
def test_moddle_reports_no_new_warning_after_any_edit(tmp_path: Path) -> None:
    edited: dict[Path, Path] = {}
    for path, target in CASES:
        out = tmp_path / f"{path.stem}-{target}.bpmn"
        out.write_bytes(insert(path, target)[1])
        edited[out] = path
    for path in CORPUS:
        flows = conditional_flows(path)
        if flows:
            payload = load_payload(path.read_bytes(), source=path.name)
            set_condition(payload, flows[0], 'route == "review"')
            (out := tmp_path / f"{path.stem}-condition.bpmn").write_bytes(save_payload(payload))
            edited[out] = path
    for path in DMN_CORPUS:
        payload = load_payload(path.read_bytes(), source=path.name)
        add_decision(payload, **DECISION)
        (out := tmp_path / f"{path.stem}-decision.dmn").write_bytes(save_payload(payload))
        edited[out] = path
    warnings = moddle_warnings([*CORPUS, *DMN_CORPUS, *edited])
    new = {out.name: [w for w in warnings[str(out)] if _general(w) not in map(_general, warnings[str(source)])]
           for out, source in edited.items()}
    assert {name: found for name, found in new.items() if found} == {}
    assert len(edited) > 60


def _general(warning: str) -> str:
    """A warning without its line and column, which an edit shifts."""
    return re.sub(r"\s*line: \d+\s*column: \d+", "", warning)


# -- what running every edit on public suites taught (tests/run_layout_corpus.py) ------------


def test_a_task_leaving_its_annotation_behind_keeps_the_association_attached() -> None:
    path = DIAGRAMS / "legacy_subprocess.bpmn"
    before = boxes(parse_xml(path.read_bytes(), source=path.name).getroot())
    after_root, _ = insert(path, "Task_0fix")
    after = boxes(after_root)
    assert after["Task_0fix"][0] > before["Task_0fix"][0]
    assert after["TextAnnotation_0note"] == before["TextAnnotation_0note"]
    edge = next(e for e in after_root.iter(f"{BPMNDI}BPMNEdge") if e.get("bpmnElement") == "Association_0note")
    points = [(float(p.get("x")), float(p.get("y"))) for p in edge.iter(f"{DI}waypoint")]
    assert points[0] == (after["Task_0fix"][0] + 50, 150) and points[-1] == (520, 280)
    assert len(points) == 4  # a jog keeps the segments right-angled


def test_a_label_bpmn_js_does_not_draw_is_no_obstacle_and_no_problem() -> None:
    """A task's DI label (its name is drawn inside it) and an unnamed element's label are not drawn."""
    path = DIAGRAMS / "legacy_subprocess.bpmn"
    root = parse_xml(path.read_bytes(), source=path.name).getroot()
    assert problems(root) == []  # Task_0fix's DI label lies over SequenceFlow_1c's end event area
    unnamed = mutated(DIAGRAMS / "lanes_nested_c7.bpmn", '<bpmn:startEvent id="StartEvent_1" name="Order received">',
                      '<bpmn:startEvent id="StartEvent_1">')
    moved = mutated(DIAGRAMS / "lanes_nested_c7.bpmn", '<dc:Bounds x="242" y="148" width="76" height="14" />',
                    '<dc:Bounds x="342" y="148" width="76" height="14" />')
    assert "label of StartEvent_1 overlaps Task_Enter" in problems(moved)
    moved_unnamed = etree.fromstring(etree.tostring(moved).replace(b' name="Order received"', b""))
    assert problems(unnamed) == [] and "label of StartEvent_1 overlaps Task_Enter" not in problems(moved_unnamed)

"""seams suggest on a gateway with a default flow: the flow taken when no other condition holds.

The leave example's Gateway_Escalate is rewritten the way Camunda Modeler
draws it: ``default="Flow_Done"`` and no condition on Flow_Done.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from helpers import copy_example, edit

from seams.checks.decisions import decision_findings
from seams.checks.shapes import shape_findings
from seams.errors import GeneratorError
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.suggestions.answer import parse_answer, parse_object
from seams.suggestions.candidates import candidate_for, find_candidates
from seams.suggestions.routing import check_routing
from seams_cli.llm.answer_text import strip_fence
from seams_cli.main import main
from seams_cli.workflows.suggest.build import build_change, change_files
from seams_cli.workflows.suggest.prompt import build_prompt

FIXTURES = Path(__file__).parent / "fixtures" / "suggest"
ANSWER_FILE = FIXTURES / "escalate_default.json"
ANSWER = json.loads(strip_fence(ANSWER_FILE.read_text(encoding="utf-8")))
PROVIDER = f"{sys.executable} {FIXTURES / 'provider.py'}"
BLOCK = re.compile(r"^(`{3,})DATA-([0-9a-f]{8}) ([^\n]+)\n(.*?)^\1DATA-\2$", re.M | re.S)
GATEWAY = '<bpmn:exclusiveGateway id="Gateway_Escalate" name="Needs HR?">'
DONE = ('    <bpmn:sequenceFlow id="Flow_Done" name="otherwise" sourceRef="Gateway_Escalate" '
        'targetRef="EndEvent_Done">\n'
        '      <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression"><![CDATA[days <= 20 and leave_type != '
        '"unpaid"]]></bpmn:conditionExpression>\n    </bpmn:sequenceFlow>')
DONE_WITHOUT_CONDITION = ('    <bpmn:sequenceFlow id="Flow_Done" name="otherwise" sourceRef="Gateway_Escalate" '
                          'targetRef="EndEvent_Done" />')


def _default_flow_copy(tmp_path: Path, default: str | None = "Flow_Done", *, keep_condition: bool = False) -> Path:
    """The example with Flow_Done's condition removed (unless kept) and, unless None,
    ``default`` on Gateway_Escalate."""
    root = copy_example(tmp_path)
    bpmn = root / "model" / "leave.bpmn"
    if not keep_condition:
        edit(bpmn, DONE, DONE_WITHOUT_CONDITION)
    if default:
        edit(bpmn, GATEWAY, GATEWAY.replace('">', f'" default="{default}">'))
    return root


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return _default_flow_copy(tmp_path_factory.mktemp("default"))


@pytest.fixture(scope="module")
def model(root):
    return load_model(load_project(root))


def _check(model, answer: dict):
    candidates = find_candidates(model)
    suggestion = parse_object(answer, model, candidates)
    return check_routing(model, candidate_for(candidates, model, suggestion.gateway), suggestion)


def _narrowed(answer: dict, old: str, new: str) -> dict:
    return json.loads(json.dumps(answer).replace(old, new))


def test_the_default_flow_is_read_and_the_gateway_stays_a_candidate(model):
    assert decision_findings(model) == []  # the decision checks accept a default flow without a condition
    process = next(p for p in model.view.processes.values() if "Gateway_Escalate" in p.nodes)
    assert process.nodes["Gateway_Escalate"].default_flow == "Flow_Done"
    assert process.nodes["Gateway_Reviewed"].default_flow is None
    escalate, reviewed = find_candidates(model)
    assert (escalate.element_id, escalate.default) == ("Gateway_Escalate", "Flow_Done")
    assert [f.id for f in escalate.flows] == ["Flow_HR", "Flow_Done"]
    assert escalate.conditional_flows == ("Flow_HR",)
    assert list(escalate.conditions) == ["Flow_HR"]
    assert (reviewed.default, reviewed.conditional_flows) == (None, ("Flow_Approved", "Flow_Rejected"))


def test_the_prompt_names_the_default_flow_and_says_it_gets_no_condition(model):
    prompt = build_prompt(model, find_candidates(model))
    blocks = {m.group(3): m.group(4) for m in BLOCK.finditer(prompt)}
    gateways = json.loads(blocks["gateways"])
    assert [g["default"] for g in gateways] == ["Flow_Done", None]
    assert gateways[0]["outgoing"][1] == {"flow": "Flow_Done", "name": "otherwise", "condition": None}
    assert 'default="Flow_Done"' in blocks["bpmn elements"]
    assert "The default flow gets no condition and stays the default." in prompt
    assert "Never give the default flow a condition" in prompt


def test_conditions_for_every_flow_but_the_default_keep_routing(model):
    suggestion = parse_answer(strip_fence(ANSWER_FILE.read_text(encoding="utf-8")), model, find_candidates(model))
    assert suggestion.conditions == (("Flow_HR", 'escalation == "hr"'),)
    result = _check(model, ANSWER)
    assert result.findings == []
    assert result.samples == 21


@pytest.mark.parametrize("conditions, message", [
    ({"Flow_HR": 'escalation == "hr"', "Flow_Done": 'escalation == "none"'},
     "answer conditions: Flow_Done is the gateway's default flow; it keeps no condition"),
    ({"Flow_Done": 'escalation == "none"'},
     "answer conditions: Flow_Done is the gateway's default flow; it keeps no condition"),
    ({}, "answer conditions: no condition for Flow_HR (outgoing flow of Gateway_Escalate)"),
])
def test_a_condition_on_the_default_flow_or_none_on_another_is_refused(model, conditions, message):
    with pytest.raises(GeneratorError) as caught:
        parse_object({**ANSWER, "conditions": conditions}, model, find_candidates(model))
    assert str(caught.value) == message


def test_flow_hr_taken_where_the_original_takes_the_default_is_caught(model):
    wrong = _narrowed(ANSWER, "20", "19")
    assert [f.line() for f in _check(model, wrong).findings] == [
        'routing Gateway_Escalate Flow_HR: {"days": 20, "leave_type": "annual"} took Flow_Done before, Flow_HR after',
        'routing Gateway_Escalate Flow_HR: {"days": 20, "leave_type": "sick"} took Flow_Done before, Flow_HR after',
    ]


def test_an_uncovered_input_falls_to_the_default_flow_on_both_sides(model):
    # no "none" rule: the output stays empty, no condition holds, and the default flow is taken as before
    hr_only = {**ANSWER, "rules": ANSWER["rules"][:2]}
    assert _check(model, hr_only).findings == []


def test_the_rewrite_keeps_the_default_flow_untouched(root, model, tmp_path):
    files = change_files(model, build_change(model, parse_object(ANSWER, model, find_candidates(model))))
    bpmn = files[root / "model" / "leave.bpmn"].decode()
    assert '<bpmn:exclusiveGateway id="Gateway_Escalate" name="Needs HR?" default="Flow_Done">' in bpmn
    assert DONE_WITHOUT_CONDITION in bpmn
    assert '<![CDATA[escalation == "hr"]]>' in bpmn
    assert "days > 20" not in bpmn

    copy = _default_flow_copy(tmp_path)
    for path, data in files.items():
        (copy / path.relative_to(root)).write_bytes(data)
    changed = load_model(load_project(copy))
    assert shape_findings(changed) == [] and decision_findings(changed) == []
    assert [c.element_id for c in find_candidates(changed)] == ["Gateway_Reviewed"]


def test_accept_then_generate_then_check_is_clean(tmp_path, capsys):
    root = _default_flow_copy(tmp_path)
    assert main(["suggest", "--project", str(root), "--kind", "condition-to-dmn", "--provider", f"{PROVIDER} {ANSWER_FILE}"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[3:8] == ["gateway Gateway_Escalate", "shapes passed", "decisions passed",
                        "routing kept (21 samples)", "generate passed"]
    assert main(["suggest", "--project", str(root), "--accept", out[-2].removeprefix("suggestion ")]) == 0
    assert 'default="Flow_Done"' in (root / "model" / "leave.bpmn").read_text()
    assert main(["generate", "--project", str(root)]) == 0
    capsys.readouterr()
    assert main(["check", "--project", str(root)]) == 0
    assert capsys.readouterr().out.strip() == "seams check: no problems"


def test_the_cli_rejects_the_wrong_table_naming_flow_and_input(tmp_path, capsys):
    root = _default_flow_copy(tmp_path)
    answer = tmp_path / "answer.json"
    answer.write_text(ANSWER_FILE.read_text(encoding="utf-8").replace("20", "19"), encoding="utf-8")
    assert main(["suggest", "--project", str(root), "--kind", "condition-to-dmn", "--provider", f"{PROVIDER} {answer}"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "routing changed (24 samples)"  # 18 joins the days samples
    assert err.splitlines()[:2] == [
        "seams suggest: suggestion rejected: routing failed in the changed model",
        'routing Gateway_Escalate Flow_HR: {"days": 20, "leave_type": "annual"} took Flow_Done before, Flow_HR after',
    ]
    assert [p.name for p in (root / ".seams" / "suggestions").iterdir()] == ["cache"]  # nothing pending


def test_a_flow_without_condition_that_is_not_the_default_is_always_taken(tmp_path):
    model = load_model(load_project(_default_flow_copy(tmp_path, default=None)))
    candidate = find_candidates(model)[0]
    assert (candidate.default, candidate.conditional_flows) == (None, ("Flow_HR", "Flow_Done"))
    only_when_none = {**ANSWER, "conditions": {"Flow_HR": 'escalation == "hr"', "Flow_Done": 'escalation == "none"'}}
    assert _check(model, only_when_none).findings[0].line() == (
        'routing Gateway_Escalate Flow_Done: {"days": 1, "leave_type": "unpaid"} took Flow_HR and Flow_Done '
        "before, Flow_HR after")
    always = {**only_when_none, "conditions": {"Flow_HR": 'escalation == "hr"',
                                               "Flow_Done": 'escalation == "hr" or escalation == "none"'}}
    assert _check(model, always).findings == []


def test_a_condition_on_the_default_flow_is_ignored_as_bpmn_ignores_it(tmp_path):
    model = load_model(load_project(_default_flow_copy(tmp_path, keep_condition=True)))
    assert list(find_candidates(model)[0].conditions) == ["Flow_HR"]
    assert _check(model, ANSWER).findings == []
    files = change_files(model, build_change(model, parse_object(ANSWER, model, find_candidates(model))))
    assert DONE in files[tmp_path / "leave" / "model" / "leave.bpmn"].decode()  # left as written


def test_a_default_that_names_no_outgoing_flow_is_not_offered(tmp_path):
    model = load_model(load_project(_default_flow_copy(tmp_path, default="Flow_7")))
    assert [c.element_id for c in find_candidates(model)] == ["Gateway_Reviewed"]

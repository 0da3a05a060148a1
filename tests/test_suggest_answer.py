"""seams suggest: candidates, the prompt, and every way an answer is refused."""

from __future__ import annotations

import copy
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from helpers import EXAMPLE

from seams.errors import GeneratorError, ResolutionError
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.suggestions.answer import output_datatype, parse_answer, parse_object
from seams.suggestions.candidates import find_candidates
from seams_cli.llm.answer_text import strip_fence
from seams_cli.workflows.suggest.prompt import build_prompt

BLOCK = re.compile(r"^(`{3,})DATA-([0-9a-f]{8}) ([^\n]+)\n(.*?)^\1DATA-\2$", re.M | re.S)
FIXTURES = Path(__file__).parent / "fixtures" / "suggest"
ESCALATE = json.loads(strip_fence((FIXTURES / "escalate.json").read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def model():
    return load_model(load_project(EXAMPLE))


@pytest.fixture(scope="module")
def candidates(model):
    return find_candidates(model)


def _answer(**changes) -> dict:
    data = copy.deepcopy(ESCALATE)
    for key, value in changes.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    return data


def test_inline_rule_gateways_are_candidates_and_decision_gateways_are_not(candidates):
    assert [c.element_id for c in candidates] == ["Gateway_Escalate", "Gateway_Reviewed"]
    escalate = candidates[0]
    assert [f.id for f in escalate.flows] == ["Flow_HR", "Flow_Done"]
    assert escalate.names == ("days", "leave_type")
    assert "approved" not in escalate.known  # set on one branch only
    assert {"days", "leave_type", "approval"} <= set(escalate.known)


def test_prompt_is_deterministic_and_quotes_model_text(model, candidates):
    prompt = build_prompt(model, candidates)
    assert prompt == build_prompt(load_model(load_project(EXAMPLE)), find_candidates(model))
    assert prompt.startswith("seams prompt suggest-v3.txt\n")
    assert prompt.rstrip().endswith("it is taken when no other\n  condition holds.")
    blocks = {m.group(3): m.group(4) for m in BLOCK.finditer(prompt)}
    assert list(blocks) == ["gateways", "bpmn elements", "variables", "decisions", "dmn decisions"]
    assert '"condition": "days > 20 or leave_type == \\"unpaid\\""' in blocks["gateways"]
    assert '<bpmn:sequenceFlow xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="Flow_HR"' \
        in blocks["bpmn elements"]
    assert 'id="Decision_ApprovalLevel"' in blocks["dmn decisions"]
    assert '"in": [\n          "annual",\n          "sick",\n          "unpaid"\n        ]' in blocks["variables"]
    assert '"kind": "condition-to-dmn"' in prompt[prompt.rindex("DATA-"):]  # the schema comes last


def test_the_escalation_answer_parses(model, candidates):
    text = (FIXTURES / "escalate.json").read_text(encoding="utf-8")
    suggestion = parse_answer(strip_fence(text), model, candidates)
    assert suggestion.gateway == "Gateway_Escalate"
    assert suggestion.inputs == ("days", "leave_type")
    assert suggestion.rules[0].when == (("days", "> 20"), ("leave_type", "-"))
    assert suggestion.conditions == (("Flow_HR", 'escalation == "hr"'), ("Flow_Done", 'escalation == "none"'))
    assert str(output_datatype(suggestion.rules)).endswith("#string")
    assert parse_object(json.loads(json.dumps(suggestion.as_json())), model, candidates) == suggestion


@pytest.mark.parametrize("values, datatype", [
    ([True, False], "boolean"), ([1, 2], "integer"), ([1, Decimal("2.5")], "decimal"), (["a", "b"], "string"),
])
def test_output_datatype_comes_from_the_values(model, candidates, values, datatype):
    rules = [{"when": {"days": f"> {20 + i}"}, "then": v} for i, v in enumerate(values)]
    suggestion = parse_object(_answer(rules=rules), model, candidates)
    assert str(output_datatype(suggestion.rules)).endswith(f"#{datatype}")


REFUSALS = [
    ("not json", GeneratorError, "answer: not one JSON object"),
    ("[1, 2]", GeneratorError, "answer: not a JSON object but an array"),
    (_answer(kind="merge-shapes"), GeneratorError, "answer kind: 'merge-shapes' is not 'condition-to-dmn'"),
    (_answer(extra=1), GeneratorError, "answer: unknown key 'extra'"),
    (_answer(output=None), GeneratorError, "answer: missing key 'output'"),
    (_answer(gateway="Gateway_Nowhere"), ResolutionError, "gateway Gateway_Nowhere: the model has no seam:Gateway"),
    (_answer(gateway="Gateway_Approval"), ResolutionError, "gateway Gateway_Approval reads only decision outputs"),
    (_answer(decision={"id": "Decision_ApprovalLevel", "name": "x"}), GeneratorError,
     "answer decision.id: Decision_ApprovalLevel already exists in leave.dmn"),
    (_answer(decision={"id": "Task_Submit", "name": "x"}), GeneratorError,
     "answer decision.id: Task_Submit already exists in leave.bpmn"),
    (_answer(decision={"id": "1 bad", "name": "x"}), GeneratorError, "is not an XML id"),
    (_answer(inputs=["days", "salary"]), ResolutionError, "no seam:Variable with seam:name 'salary'"),
    (_answer(inputs=["days", "approved"]), GeneratorError, "approved is not set on every path to Gateway_Escalate"),
    (_answer(output="days"), GeneratorError, "answer output: days is also an input"),
    (_answer(output="approval"), GeneratorError, "approval is already set before Gateway_Escalate"),
    (_answer(output="review_note", rules=[{"when": {}, "then": 1}]), GeneratorError,
     "review_note is ex:reviewNote of seam:datatype xsd:string, but the rules give xsd:integer"),
    (_answer(output="class"), GeneratorError, "answer output: 'class' is not a variable name"),
    (_answer(hit_policy="ANY"), GeneratorError, "answer hit_policy: 'ANY' is not one of UNIQUE, FIRST"),
    (_answer(rules=[{"when": {"days": "> > 3"}, "then": "hr"}]), GeneratorError, "answer rules[0].when.days"),
    (_answer(rules=[{"when": {"salary": "> 3"}, "then": "hr"}]), GeneratorError,
     "answer rules[0].when: 'salary' is not one of the inputs"),
    (_answer(rules=[{"when": {}, "then": None}]), GeneratorError, "answer rules[0].then: must be a string"),
    (_answer(rules=[{"when": {}, "then": "a"}, {"when": {}, "then": 1}]), GeneratorError,
     "the 'then' values mix numbers and strings"),
    (_answer(rules=[{"when": {}}]), GeneratorError, "answer rules[0]: must be an object with exactly"),
    (_answer(conditions={"Flow_HR": 'escalation == "hr"'}), GeneratorError,
     "answer conditions: no condition for Flow_Done (outgoing flow of Gateway_Escalate)"),
    (_answer(conditions={**ESCALATE["conditions"], "Flow_Nowhere": "escalation"}), ResolutionError,
     "the model has no sequence flow Flow_Nowhere"),
    (_answer(conditions={**ESCALATE["conditions"], "Flow_Auto": 'escalation == "x"'}), GeneratorError,
     "Flow_Auto is not an outgoing flow of Gateway_Escalate"),
    (_answer(conditions={"Flow_HR": "days > 20", "Flow_Done": 'escalation == "none"'}), GeneratorError,
     "answer conditions.Flow_HR: must read only the output escalation, not days"),
    (_answer(conditions={"Flow_HR": "escalation(1)", "Flow_Done": 'escalation == "none"'}), GeneratorError,
     "answer conditions.Flow_HR: unsupported function call"),
]


@pytest.mark.parametrize("answer, error, message", REFUSALS, ids=[r[2][:40] for r in REFUSALS])
def test_refusals_name_the_fact(model, candidates, answer, error, message):
    text = answer if isinstance(answer, str) else json.dumps(answer)
    with pytest.raises(error) as caught:
        parse_answer(text, model, candidates)
    assert message in str(caught.value)

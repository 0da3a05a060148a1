"""Routing kept: the rewritten gateway must send every sample input where the original did."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

import pytest
from helpers import EXAMPLE

from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.suggestions import routing
from seams.suggestions.answer import parse_answer, parse_object
from seams.suggestions.candidates import candidate_for, find_candidates
from seams.suggestions.routing import check_routing
from seams_cli.llm.answer_text import strip_fence
from seams_cli.workflows.suggest.prompt import build_prompt

FIXTURES = Path(__file__).parent / "fixtures" / "suggest"
ESCALATE = json.loads(strip_fence((FIXTURES / "escalate.json").read_text(encoding="utf-8")))
OFF_BY_ONE = json.loads(strip_fence((FIXTURES / "escalate_off_by_one.json").read_text(encoding="utf-8")))
REVIEWED = {
    "kind": "condition-to-dmn", "gateway": "Gateway_Reviewed",
    "decision": {"id": "Decision_Outcome", "name": "Review outcome"},
    "inputs": ["approved"], "output": "outcome",
    "rules": [{"when": {"approved": "true"}, "then": "book"}, {"when": {"approved": "false"}, "then": "refuse"}],
    "conditions": {"Flow_Approved": 'outcome == "book"', "Flow_Rejected": 'outcome == "refuse"'},
}


@pytest.fixture(scope="module")
def model():
    return load_model(load_project(EXAMPLE))


def _check(model, answer: dict):
    candidates = find_candidates(model)
    suggestion = parse_object(answer, model, candidates)
    return check_routing(model, candidate_for(candidates, model, suggestion.gateway), suggestion)


def _rules(*rules) -> dict:
    answer = copy.deepcopy(ESCALATE)
    answer["rules"] = [{"when": when, "then": then} for when, then in rules]
    return answer


def test_the_faithful_table_keeps_routing_on_every_sample(model):
    result = _check(model, ESCALATE)
    assert result.findings == []
    # days: 1 and 60 (the shape's bounds), 19, 20, 21 (around the literal 20), 2 and 59 (inside the bounds);
    # leave_type: the shape's three values
    assert result.samples == 21
    assert _check(model, ESCALATE).samples == result.samples  # deterministic


def test_a_subtly_wrong_rule_is_caught_with_the_input_that_shows_it(model):
    result = _check(model, OFF_BY_ONE)
    assert [f.line() for f in result.findings] == [
        'routing Gateway_Escalate Flow_HR: {"days": 21, "leave_type": "annual"} took Flow_HR before, Flow_Done after',
        'routing Gateway_Escalate Flow_HR: {"days": 21, "leave_type": "sick"} took Flow_HR before, Flow_Done after',
    ]


def test_a_boolean_gateway_keeps_routing(model):
    assert _check(model, REVIEWED).findings == []
    swapped = {**REVIEWED, "conditions": {"Flow_Approved": 'outcome == "refuse"', "Flow_Rejected": 'outcome == "book"'}}
    lines = [f.line() for f in _check(model, swapped).findings]
    assert lines[0] == ('routing Gateway_Reviewed Flow_Approved: {"approved": false} took Flow_Rejected before, '
                        "Flow_Approved after")


def test_an_input_no_rule_covers_takes_no_flow(model):
    result = _check(model, _rules(({"days": "> 20"}, "hr"), ({"days": "<= 20", "leave_type": '"unpaid"'}, "hr"),
                                  ({"days": "<= 20", "leave_type": '"annual"'}, "none")))
    assert result.findings[0].line() == ('routing Gateway_Escalate Flow_Done: {"days": 1, "leave_type": "sick"} '
                                         "took Flow_Done before, no flow after")


def test_overlapping_rules_of_a_unique_table_are_a_finding_but_first_picks_one(model):
    overlapping = _rules(({"days": "> 20"}, "hr"), ({"leave_type": '"unpaid"'}, "hr"), ({}, "none"))
    first = _check(model, overlapping).findings[0]
    assert first.line() == ('routing Gateway_Escalate Decision_Escalation: {"days": 1, "leave_type": "unpaid"} '
                            "matches rules 2 and 3 of a UNIQUE table")
    assert _check(model, {**overlapping, "hit_policy": "FIRST"}).findings == []


def test_findings_are_capped(model, monkeypatch):
    everything_hr = _rules(({}, "hr"))
    assert len(_check(model, everything_hr).findings) == 8  # days 1, 2, 19, 20 of annual and sick leave
    monkeypatch.setattr(routing, "MAX_FINDINGS", 3)
    assert len(_check(model, everything_hr).findings) == 3


def test_samples_are_capped_evenly_and_deterministically(model, monkeypatch):
    monkeypatch.setattr(routing, "MAX_SAMPLES", 5)
    result = _check(model, OFF_BY_ONE)
    assert result.samples == 5
    assert result == _check(model, OFF_BY_ONE)


def test_the_example_recorded_provider_answers_with_a_faithful_table(model):
    spec = importlib.util.spec_from_file_location("recorded", EXAMPLE / "provider" / "recorded.py")
    recorded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recorded)
    candidates = find_candidates(model)
    text = recorded.answer(build_prompt(model, candidates))
    suggestion = parse_answer(strip_fence(text), model, candidates)
    assert suggestion.gateway == "Gateway_Escalate" and suggestion.output == "escalation"
    assert check_routing(model, candidates[0], suggestion).findings == []

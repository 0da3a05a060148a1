"""``pytest --seams-suggestion=PATH``: the routing gate of a pending suggestion is an item, run
over the model the suggestion changed (its DMN table and new conditions) against the original
conditions kept in the record."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import REPO, copy_example

from pytest_seams.runner import run_session
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.suggestions.answer import parse_answer
from seams.suggestions.candidates import candidate_for, find_candidates
from seams.suggestions.routing import check_routing, original_conditions
from seams_cli.llm.answer_text import strip_fence
from seams_cli.workflows.suggest.build import build_change, change_files
from seams_edit import apply

FIXTURES = REPO / "tests" / "fixtures" / "suggest"


def _changed_project(tmp_path: Path, answer: str) -> tuple[Path, Path, int]:
    """A copy of the example with the suggestion written in, its record beside it, and the
    sample count of the in-process routing check of the same suggestion."""
    root = copy_example(tmp_path)
    project = load_project(root)
    model = load_model(project)
    candidates = find_candidates(model)
    suggestion = parse_answer(strip_fence((FIXTURES / answer).read_text(encoding="utf-8")), model, candidates)
    candidate = candidate_for(candidates, model, suggestion.gateway)
    expected = check_routing(model, candidate, suggestion)
    apply(root, change_files(model, build_change(model, suggestion)), undo_dir=None)
    record = tmp_path / "suggestion.json"
    record.write_text(json.dumps({"suggestion": suggestion.as_json(),
                                  "original_conditions": original_conditions(candidate)}, default=str),
                      encoding="utf-8")
    return root, record, expected


def _routing(root: Path, record: Path):
    result = run_session(root, select="model", timeout=120, args=[f"--seams-suggestion={record}"])
    names = [item.name for item in result.items]
    assert names == ["seams.toml::shapes", "seams.toml::decisions", "seams.toml::generate",
                     "seams.toml::routing"]  # the model gates only, then routing
    (item,) = [item for item in result.items if item.gate == "routing"]
    return item


def test_a_kept_routing_passes_and_reports_its_samples(tmp_path):
    root, record, expected = _changed_project(tmp_path, "escalate.json")
    item = _routing(root, record)
    assert (item.outcome, item.facts) == ("passed", {"samples": expected.samples})
    assert expected.findings == []


def test_a_changed_routing_fails_with_the_same_findings_as_the_check(tmp_path):
    root, record, expected = _changed_project(tmp_path, "escalate_off_by_one.json")
    item = _routing(root, record)
    assert item.outcome == "failed"
    assert item.facts == {"samples": expected.samples}
    assert [f.line() for f in item.findings] == [f.line() for f in expected.findings]
    assert item.findings  # the fixture routes day 21 differently


def test_the_item_reads_the_changed_dmn_file_not_the_record(tmp_path):
    """A record whose rules claim the right table changes nothing: the item reads the DMN."""
    root, record, _ = _changed_project(tmp_path, "escalate_off_by_one.json")
    right = json.loads(strip_fence((FIXTURES / "escalate.json").read_text(encoding="utf-8")))
    data = json.loads(record.read_text(encoding="utf-8"))
    data["suggestion"]["rules"] = right["rules"]
    record.write_text(json.dumps(data), encoding="utf-8")
    assert _routing(root, record).outcome == "failed"


def test_an_unreadable_record_is_one_finding(tmp_path):
    root = copy_example(tmp_path)
    record = tmp_path / "suggestion.json"
    record.write_text("{}", encoding="utf-8")
    item = _routing(root, record)
    assert item.outcome == "failed"
    assert [f.line() for f in item.findings] == [
        "routing suggestion.json: the suggestion record has no original_conditions; run seams suggest again"]

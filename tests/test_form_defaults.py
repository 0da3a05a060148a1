"""Form defaults behave alike in ``seams check``, ``seams run`` and a scenario: a Camunda Forms
``defaultValue`` is imported as the field's ``sh:defaultValue``, the engine submits it when an
answer leaves the field out (as Tasklist does), and the terminal offers it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_seams

FIXTURES = Path(__file__).parent / "fixtures" / "form_defaults"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    done = run_seams("init", "--from", str(FIXTURES / "review.bpmn"), "p", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path / "p"


def test_the_import_keeps_each_default_and_check_is_clean(project):
    trig = (project / "model" / "model.trig").read_text(encoding="utf-8")
    assert "sh:datatype xsd:boolean ; sh:defaultValue false ;" in trig
    assert "sh:defaultValue 3 ;" in trig
    done = run_seams("check", "--no-cache", cwd=project)
    assert (done.returncode, done.stdout.strip()) == (0, "seams check: no problems"), done.stdout


def test_run_submits_the_default_of_a_field_the_answer_leaves_out(project, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"Task_Review": {}}), encoding="utf-8")
    done = run_seams("run", "review-process", "--answers", str(answers), cwd=project)
    assert done.returncode == 0, done.stderr
    assert 'exclusiveGateway Gateway_Approved "Approved?": took Flow_No "no"' in done.stdout
    assert done.stdout.splitlines()[-1] == 'variables {"approved": false, "priority": 3}'
    answers.write_text(json.dumps({"Task_Review": {"approved": True}}), encoding="utf-8")
    done = run_seams("run", "review-process", "--answers", str(answers), cwd=project)
    assert 'endEvent EndEvent_Approved "Approved"' in done.stdout and '"priority": 3' in done.stdout


def test_a_scenario_that_submits_nothing_gets_the_defaults(project, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"Task_Review": {}}), encoding="utf-8")
    saved = run_seams("run", "review-process", "--answers", str(answers), "--save-scenario", "left as it is",
                      cwd=project)
    assert saved.returncode == 0, saved.stderr
    replayed = run_seams("run", "review-process", "--scenario", "left as it is", cwd=project)
    assert replayed.returncode == 0 and 'scenario "left as it is": as expected' in replayed.stdout


def test_the_terminal_offers_the_default():
    from seams.runs import FormField
    from seams_cli.form_prompts import answer, prompt

    field = FormField(variable="approved", label="Approved", datatype="boolean", required=False, default=False)
    assert prompt(field) == "Approved (boolean, default false, empty to take it)"
    assert answer(None, None, field, "") == (False, None)  # type: ignore[arg-type]

"""The ``engine-bindings`` gate: a service task's job type or topic exists and names its handler.

It applies only to a project that lists the ``zeebe`` or ``camunda7``
generator; the BPMN edits below follow the shapes the Camunda Modeler writes
(``<zeebe:taskDefinition type="..."/>`` in a service task's
extensionElements for Camunda 8; ``camunda:type="external"
camunda:topic="..."`` attributes for a Camunda 7 external task).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import copy_example, edit

from seams.checks.engine_bindings import engine_binding_findings
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_cli.main import main


def _findings(root: Path) -> list[str]:
    project = load_project(root, env={})
    return [f.line() for f in engine_binding_findings(project, load_model(project))]


def test_projects_without_a_worker_generator_get_no_finding(tmp_path):
    plain = copy_example(tmp_path)
    assert _findings(plain) == []
    c8 = copy_example(tmp_path, "leave-c8")  # copies examples/leave under another name
    edit(c8 / "seams.toml", '[generate]\ngenerators = ["stubs", "decisions"]\n', "")
    assert _findings(c8) == []  # the default generators run no worker generator


@pytest.mark.parametrize("variant", ["leave-c8", "leave-c7"])
def test_the_engine_variants_bind_every_service_task(variant):
    assert _findings(Path(__file__).resolve().parents[1] / "examples" / variant) == []


def _variant(tmp_path: Path, variant: str) -> Path:
    import shutil

    root = tmp_path / variant
    shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / variant, root,
                    ignore=shutil.ignore_patterns(".seams", "__pycache__"))
    return root


@pytest.mark.parametrize(("old", "new", "problem"), [
    ('<zeebe:taskDefinition type="check-balance" />', "",
     'no zeebe:taskDefinition (the zeebe generator is enabled); add <zeebe:taskDefinition type="check-balance" /> '
     "to its extensionElements"),
    ('type="check-balance"', 'type="balances"',
     "zeebe:taskDefinition type 'balances' does not name the handler check_balance (use check_balance or check-balance)"),
    ('type="check-balance"', 'type="=balanceJob"',
     "zeebe:taskDefinition type '=balanceJob' is an expression; a generated worker subscribes to a fixed job type: "
     'set type="check-balance"'),
    ('type="check-balance"', 'type=""', 'zeebe:taskDefinition has no type; set type="check-balance"'),
])
def test_a_camunda8_task_without_its_job_type_is_one_finding(tmp_path, old, new, problem):
    root = _variant(tmp_path, "leave-c8")
    edit(root / "model" / "leave.bpmn", old, new)
    assert _findings(root) == [f"engine-binding ex:CheckBalance: model/leave.bpmn Task_CheckBalance: {problem}"]


@pytest.mark.parametrize(("old", "new", "problem"), [
    ('camunda:type="external" camunda:topic="record-leave"', 'camunda:delegateExpression="${recordLeave}"',
     'not an external task (the camunda7 generator is enabled); set camunda:type="external" '
     'camunda:topic="record-leave"'),
    (' camunda:topic="record-leave"', "", 'no camunda:topic; set camunda:topic="record-leave"'),
    ('camunda:topic="record-leave"', 'camunda:topic="booking"',
     "camunda:topic 'booking' does not name the handler record_leave (use record_leave or record-leave)"),
])
def test_a_camunda7_task_without_its_topic_is_one_finding(tmp_path, old, new, problem):
    root = _variant(tmp_path, "leave-c7")
    edit(root / "model" / "leave.bpmn", old, new)
    assert _findings(root) == [f"engine-binding ex:RecordLeave: model/leave.bpmn Task_RecordLeave: {problem}"]


def test_seams_check_and_the_pytest_item_report_the_same_line(tmp_path, capsys):
    root = _variant(tmp_path, "leave-c8")
    edit(root / "model" / "leave.bpmn", '<zeebe:taskDefinition type="record-leave" />', "")
    assert main(["generate", "--project", str(root)]) == 0  # the job type falls back to the handler name
    capsys.readouterr()
    line = ("engine-binding ex:RecordLeave: model/leave.bpmn Task_RecordLeave: no zeebe:taskDefinition (the zeebe "
            'generator is enabled); add <zeebe:taskDefinition type="record-leave" /> to its extensionElements')
    assert main(["check", "--project", str(root)]) == 1
    out, err = capsys.readouterr()
    assert line in (out + err).splitlines()

    env = {k: v for k, v in os.environ.items() if not k.startswith(("SEAMS_", "PYTEST_"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rf",
                           "seams.toml::engine-bindings"], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert line in done.stdout and "1 failed" in done.stdout


def test_the_item_is_collected_only_where_a_worker_generator_is_listed():
    from pytest_seams.expected import expected_items

    repo = Path(__file__).resolve().parents[1]
    for variant, collected in (("leave", False), ("leave-c8", True), ("leave-c7", True)):
        project = load_project(repo / "examples" / variant, env={})
        items = expected_items(project, load_model(project), task="model")
        assert ("seams.toml::engine-bindings" in items) is collected, (variant, items)


RETRIES_FIX = ("zeebe:taskDefinition retries '5' disagrees with seam:retries 3 (Zeebe gives a job the BPMN's "
               "retries, the worker backs off by seam:retries); set retries=\"3\" in the zeebe:taskDefinition or "
               "seam:retries 5 on the task")


@pytest.mark.parametrize(("bpmn_retries", "seam_retries", "problem"), [
    ('retries="5"', "seam:retries 3 ;", RETRIES_FIX),
    ('retries="x3"', "seam:retries 3 ;",
     "zeebe:taskDefinition retries 'x3' is not a whole number; set retries=\"3\" as the task's seam:retries says"),
    ('retries="3"', "seam:retries 3 ;", None),  # both stated and equal
    ('retries="5"', "", None),  # only the BPMN states it: the [workers] default is not the task's own
    ("", "seam:retries 3 ;", None),  # only the task states it
    ('retries="=retriesLeft"', "seam:retries 3 ;", None),  # an expression Zeebe evaluates per job
])
def test_a_camunda8_task_whose_retries_disagree_with_the_bpmn_is_one_finding(tmp_path, bpmn_retries, seam_retries,
                                                                           problem):
    root = _variant(tmp_path, "leave-c8")
    edit(root / "model" / "leave.bpmn", '<zeebe:taskDefinition type="check-balance" />',
         f'<zeebe:taskDefinition type="check-balance" {bpmn_retries} />')
    if seam_retries:
        edit(root / "model" / "model.trig", 'seam:handler "check_balance" ;',
             f'seam:handler "check_balance" ;\n        {seam_retries}')
    expected = [f"engine-binding ex:CheckBalance: model/leave.bpmn Task_CheckBalance: {problem}"] if problem else []
    assert _findings(root) == expected


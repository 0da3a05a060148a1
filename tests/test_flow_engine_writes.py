"""The dataflow checks follow the engine (docs/model.md): what a connector's result, an error boundary's
output mapping, a multi-instance output collection, a message's variables, a call activity's
``camunda:out`` or a required decision sets counts as set where the engine sets it; a condition over
a path into a JSON object, or a FEEL null test, is typed as the engine evaluates it. Files written in
the shapes of the Camunda 8 connector examples (tests/fixtures/engine)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import edit, run_seams

from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_runtime.engine import run_instance

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "engine"


@pytest.fixture(scope="module")
def connector(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("connector")
    assert run_seams("init", "--from", str(FIXTURES / "connector-flow.bpmn"), "p", cwd=tmp).returncode == 0
    root = tmp / "p"
    with (root / "model" / "model.trig").open("a", encoding="utf-8") as trig:
        trig.write('ex:graph\\/seams {\n'
                   '    ex:response seam:datatype rdf:JSON .\n    ex:failure seam:datatype xsd:string .\n'
                   '    ex:verdicts seam:datatype xsd:boolean .\n    ex:reviewers seam:datatype xsd:string .\n}\n')
    return root


def test_what_the_engine_sets_counts_as_set(connector: Path) -> None:
    lines = run_seams("check", cwd=connector).stdout.splitlines()
    assert lines == [
        "shape ex:fetchPullRequest seam:example: a service task needs at least one seam:example (given inputs, "
        "binding replies, expected outputs): acceptance judges its handler by them",
        "shape ex:fetchPullRequest seam:reads: a service task needs seam:reads and/or seam:writes: the process "
        "variables its handler reads and the ones it sets (neither is stated)",
    ]


def test_the_import_marks_an_output_collection_a_list(connector: Path) -> None:
    view = load_model(load_project(connector)).view
    # the input collection (=reviewers) is a list the process reads: declared, as a condition's names are
    assert {v.name: v.many for v in view.variables.values()} == {"response": False, "failure": False,
                                                                  "verdicts": True, "reviewers": True}


def test_without_the_writes_the_same_reads_are_findings(connector: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(connector, copy)
    bpmn = copy / "model" / "connector-flow.bpmn"
    edit(bpmn, '<zeebe:header key="resultVariable" value="response" />', "")
    edit(bpmn, 'outputCollection="verdicts" ', "")
    lines = run_seams("check", cwd=copy).stdout
    assert 'decision Flow_Merge bpmn:conditionExpression: reads "response" (ex:response), which no task of ' \
           "ex:connector-flow sets yet" in lines
    assert 'decision Flow_Verdicts bpmn:conditionExpression: reads "verdicts" (ex:verdicts), which no task of ' \
           "ex:connector-flow sets yet" in lines


def test_a_path_condition_and_a_null_test_run_as_checked(connector: Path) -> None:
    (connector / "handlers" / "io_camunda_http_json_1.py").write_text(
        "def handle(inputs, bindings):\n    return {}\n", encoding="utf-8")
    project = load_project(connector)
    model = load_model(project)
    stopped = run_instance(project, model, "connector-flow", given={"response": {"body": {"action": "merge"}}},
                           user_task_data=lambda info: {"verdict": True})
    assert stopped.error == "review: the multi-instance collection '=reviewers' is not a list (it is None); give " \
                            "it in the run's variables"
    merge = run_instance(project, model, "connector-flow",  # the resultExpression maps reviewers out of the response
                         given={"response": {"body": {"action": "merge", "reviewers": ["ana", "ben"]}}},
                         user_task_data=lambda info: {"verdict": True})
    assert merge.ok, merge.error
    assert "Flow_Merge" in merge.flows and "Flow_Verdicts" in merge.flows
    assert merge.variables["verdicts"] == [True, True]
    other = run_instance(project, model, "connector-flow", given={"response": {"body": {"action": "close"}}},
                         user_task_data=lambda info: {})
    assert other.flows[-1] == "Flow_Ignore"

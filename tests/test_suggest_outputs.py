"""`seams suggest` answers whose decision has several outputs (a context result): parsed,
built, checked in the scratch copy, accepted through the one write path, undone, and read by
dmn-moddle as dmn-js reads it (where node and .ci/node's packages are installed).

The two-output answer follows the shape of the one-output escalation answer the example's
recorded provider replays; the Camunda 7 output mapping follows the camunda:inputOutput
blocks of Camunda 7 process files, the Camunda 8 one the zeebe:ioMapping blocks of
Camunda 8 process files (both as Camunda Modeler writes them)."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, copy_example
from lxml import etree

from seams.errors import GeneratorError
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.suggestions.answer import parse_object
from seams.suggestions.candidates import find_candidates
from seams_cli.main import main

FIXTURES = Path(__file__).parent / "fixtures" / "suggest"
PROVIDER = f"{sys.executable} {FIXTURES / 'provider.py'}"
TWO = FIXTURES / "escalate_two_outputs.json"
ANSWER = json.loads(TWO.read_text(encoding="utf-8"))
MODEL_FILES = ("model/model.trig", "model/leave.bpmn", "model/leave.dmn")
DMN = "{https://www.omg.org/spec/DMN/20191111/MODEL/}"
NODE_MODULES = REPO / ".ci" / "node" / "node_modules"
VALIDATOR = REPO / "tests" / "node" / "validate_dmn.mjs"
HAS_MODDLE = shutil.which("node") is not None and (NODE_MODULES / "dmn-moddle").is_dir() \
    and (NODE_MODULES / "@bpmn-io" / "dmn-migrate").is_dir()


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(REPO / "examples" / name, target, ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    return target


def _run(capsys, root: Path, *args: str) -> tuple[int, list[str], list[str]]:
    if "--provider" in args and "--kind" not in args:  # these tests are about condition-to-dmn; the
        args = ("--kind", "condition-to-dmn", *args)  # example also offers the other kinds (test_suggest_kinds)
    code = main(["suggest", "--project", str(root), *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def _suggest_and_accept(capsys, root: Path, answer: Path = TWO) -> list[str]:
    code, out, err = _run(capsys, root, "--provider", f"{PROVIDER} {answer}")
    assert (code, err) == (0, []), out
    code, accepted, err = _run(capsys, root, "--accept", out[-2].removeprefix("suggestion "))
    assert (code, err) == (0, [])
    return out


@pytest.fixture(scope="module")
def model():
    return load_model(load_project(REPO / "examples" / "leave"))


def test_an_answer_with_two_outputs_parses_and_round_trips(model):
    candidates = find_candidates(model)
    suggestion = parse_object(copy.deepcopy(ANSWER), model, candidates)
    assert suggestion.outputs == ("escalation", "escalation_reason") and suggestion.several
    assert suggestion.rules[1].results == ("hr", "unpaid leave")
    assert [str(d).rsplit("#", 1)[1] for d in suggestion.datatypes()] == ["string", "string"]
    assert suggestion.as_json()["rules"][0]["then"] == {"escalation": "hr", "escalation_reason": "long leave"}
    assert "output" not in suggestion.as_json()
    assert parse_object(json.loads(json.dumps(suggestion.as_json())), model, candidates) == suggestion


def _changed(**changes) -> dict:
    data = copy.deepcopy(ANSWER)
    data.update(changes)
    return data


REFUSALS = [
    (_changed(output="escalation"), "answer: both 'output' and 'outputs'"),
    (_changed(outputs=["escalation"]), "answer outputs: must be an array of at least two variable names"),
    (_changed(outputs=["escalation", "escalation"]), "answer outputs: an output is named twice"),
    (_changed(outputs=["escalation", "days"]), "answer outputs[1]: days is also an input"),
    (_changed(outputs=["escalation", "approval"],
              rules=[{"when": {}, "then": {"escalation": "hr", "approval": "x"}}]),
     "approval is already set before Gateway_Escalate"),
    (_changed(rules=[{"when": {}, "then": {"escalation": "hr"}}]),
     "answer rules[0].then: must be an object with one value for each output (escalation, escalation_reason)"),
    (_changed(rules=[{"when": {}, "then": "hr"}]), "answer rules[0].then: must be an object"),
    (_changed(rules=[{"when": {"days": "> 20"}, "then": {"escalation": "hr", "escalation_reason": 1}},
                     {"when": {}, "then": {"escalation": "none", "escalation_reason": "x"}}]),
     "the 'then' values of escalation_reason mix numbers and strings"),
    (_changed(conditions={"Flow_HR": "days > 20", "Flow_Done": 'escalation == "none"'}),
     "must read only the outputs (escalation, escalation_reason), not days"),
]


@pytest.mark.parametrize("answer, message", REFUSALS, ids=[m[:40] for _, m in REFUSALS])
def test_refusals_of_several_outputs_name_the_key(model, answer, message):
    with pytest.raises(GeneratorError) as caught:
        parse_object(answer, model, find_candidates(model))
    assert message in str(caught.value)


def test_missing_output_names_both_forms(model):
    data = copy.deepcopy(ANSWER)
    del data["outputs"]
    with pytest.raises(GeneratorError, match=r"missing key 'output' \(or 'outputs' for several\)"):
        parse_object(data, model, find_candidates(model))


def test_two_outputs_are_checked_accepted_undone_and_the_model_checks_clean(tmp_path, capsys):
    root = copy_example(tmp_path)
    before = {name: (root / name).read_bytes() for name in MODEL_FILES}
    out = _suggest_and_accept(capsys, root)
    assert out[3:8] == ["gateway Gateway_Escalate", "shapes passed", "decisions passed",
                        "routing kept (21 samples)", "generate passed"]

    table = etree.parse(root / "model" / "leave.dmn").find(f".//{DMN}decision[@id='Decision_Escalation']")
    outputs = table.findall(f"{DMN}decisionTable/{DMN}output")
    assert [(o.get("id"), o.get("name"), o.get("typeRef")) for o in outputs] == [
        ("OutputClause_Decision_Escalation_1", "escalation", "string"),
        ("OutputClause_Decision_Escalation_2", "escalation_reason", "string")]
    rule = table.find(f"{DMN}decisionTable/{DMN}rule")
    assert [e.findtext(f"{DMN}text") for e in rule.findall(f"{DMN}outputEntry")] == ['"hr"', '"long leave"']
    trig = (root / "model" / "model.trig").read_text()
    assert 'dec:variable "escalation_reason"' in trig and "ex:escalation_reason a seam:Variable" in trig
    bpmn = (root / "model" / "leave.bpmn").read_text()
    assert 'camunda:resultVariable="decision_escalation_result"' in bpmn
    assert 'camunda:mapDecisionResult="singleResult"' in bpmn
    assert ('<camunda:outputParameter name="escalation_reason">${decision_escalation_result.escalation_reason}'
            '</camunda:outputParameter>') in bpmn

    assert main(["generate", "--project", str(root)]) == 0
    capsys.readouterr()
    namespace: dict = {}
    exec((root / "generated" / "decisions.py").read_text(), namespace)  # noqa: S102 - the generated module
    assert namespace["escalation"](days=5, leave_type="unpaid") == {
        "escalation": "hr", "escalation_reason": "unpaid leave"}
    assert main(["check", "--project", str(root)]) == 0
    assert capsys.readouterr().out.strip() == "seams check: no problems"

    assert main(["undo", "--project", str(root)]) == 0  # the accept (generate keeps no undo entry)
    capsys.readouterr()
    assert {name: (root / name).read_bytes() for name in MODEL_FILES} == before


@pytest.mark.parametrize("example, mapping", [
    ("leave-c7", '<camunda:outputParameter name="escalation">${decision_escalation_result.escalation}'),
    ("leave-c8", '<zeebe:output source="=decision_escalation_result.escalation" target="escalation" />'),
])
def test_each_engine_maps_every_output_onto_its_variable(tmp_path, capsys, example, mapping):
    root = _copy(tmp_path, example)
    _suggest_and_accept(capsys, root)
    bpmn = (root / "model" / "leave.bpmn").read_text()
    assert mapping in bpmn
    assert main(["generate", "--project", str(root)]) == 0
    capsys.readouterr()
    assert main(["check", "--project", str(root)]) == 0
    assert capsys.readouterr().out.strip() == "seams check: no problems"


def test_a_result_variable_that_maps_no_output_is_still_a_finding(tmp_path, capsys):
    root = copy_example(tmp_path)
    _suggest_and_accept(capsys, root)
    path = root / "model" / "leave.bpmn"
    path.write_text(path.read_text().replace("${decision_escalation_result.escalation_reason}",
                                             "${other.escalation_reason}"))
    assert main(["generate", "--project", str(root)]) == 0
    capsys.readouterr()
    assert main(["check", "--project", str(root)]) == 1
    out = capsys.readouterr().out
    assert 'stores the result in "decision_escalation_result", but ex:Decision_Escalation sets escalation, ' \
           "escalation_reason (dec:processVariable)" in out


@pytest.mark.skipif(not HAS_MODDLE, reason="node or .ci/node/node_modules not installed; .ci/run installs them")
@pytest.mark.parametrize("example", ["leave", "leave-c7", "leave-c8"])
def test_the_accepted_dmn_opens_in_dmn_moddle(tmp_path, capsys, example):
    root = _copy(tmp_path, example)
    _suggest_and_accept(capsys, root)
    result = subprocess.run(["node", str(VALIDATOR), str(NODE_MODULES), str(root / "model" / "leave.dmn")],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Decision_Escalation" in result.stdout


def test_a_second_output_that_routes_wrongly_is_rejected(tmp_path, capsys):
    """The routing check reads every output the new conditions read, not only the first."""
    wrong = copy.deepcopy(ANSWER)
    wrong["rules"][2]["then"]["escalation_reason"] = ""  # Flow_Done's condition then never holds
    answer = tmp_path / "wrong.json"
    answer.write_text(json.dumps(wrong), encoding="utf-8")
    root = copy_example(tmp_path)
    code, out, err = _run(capsys, root, "--provider", f"{PROVIDER} {answer}")
    assert (code, out[-1]) == (1, "routing changed (21 samples)")
    assert err[0] == "seams suggest: suggestion rejected: routing failed in the changed model"
    assert "took Flow_Done before, no flow after" in err[1]


def test_a_pending_one_output_suggestion_made_from_suggest_v2_is_still_accepted(tmp_path, capsys):
    """A suggestion stored before suggest-v3 (its record names suggest-v2.txt) applies as before."""
    root = copy_example(tmp_path)
    code, out, _ = _run(capsys, root, "--provider", f"{PROVIDER} {FIXTURES / 'escalate.json'}")
    assert code == 0
    ident = out[-2].removeprefix("suggestion ")
    record_path = root / ".seams" / "suggestions" / ident / "suggestion.json"
    record = json.loads(record_path.read_text())
    assert record["suggestion"]["output"] == "escalation" and "outputs" not in record["suggestion"]
    record["template"] = "suggest-v2.txt"
    record_path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    code, out, err = _run(capsys, root, "--accept", ident)
    assert (code, err, out[0]) == (0, [], f"applied {ident}")

"""conformance/camunda_models.py on two small repositories written for these tests in the shapes of
the public Camunda example repositories (tests/fixtures/camunda_mini): each executable process is
imported with ``seams init --from`` and run with ``seams run --answers``, and its outcome classified."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from helpers import REPO

SCRIPT = REPO / "conformance" / "camunda_models.py"
MINI = REPO / "tests" / "fixtures" / "camunda_mini"
C7, C8 = MINI / "c7-examples", MINI / "c8-examples"

_spec = importlib.util.spec_from_file_location("camunda_models", SCRIPT)
assert _spec is not None and _spec.loader is not None
camunda_models = importlib.util.module_from_spec(_spec)
sys.modules["camunda_models"] = camunda_models
_spec.loader.exec_module(camunda_models)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300,
                          check=False, cwd=REPO)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """One run of the runner over both fixture repositories: its stdout and its JSON document."""
    document = tmp_path_factory.mktemp("camunda") / "outcomes.json"
    result = run("--lines", "--json", str(document), str(C7), str(C8))
    assert result.returncode == 0, result.stderr
    return result.stdout, json.loads(document.read_text(encoding="utf-8"))


def test_each_executable_process_gets_its_outcome(measured):
    _, document = measured
    outcomes = {(p["repository"], p["file"], p["process"]): (p["outcome"], p["imported"], p["started"], p["runs"])
                for p in document["processes"]}
    assert outcomes == {
        # a call activity and a timer boundary event: refused before the engine ran them, run now
        ("c7-examples", "call-activity/src/main/resources/order.bpmn", "order"):
            ("ran to an end event", True, True, True),
        ("c7-examples", "call-activity/src/main/resources/packing.bpmn", "packing"):
            ("ran to an end event", True, True, True),
        # the runner gave the collection and the mapped variable the run named; the form script's
        # variable was read by the import, so the form was answered
        ("c7-examples", "script-form/src/main/resources/pick.bpmn", "pick-order"):
            ("ran to an end event", True, True, True),
        ("c7-examples", "servicetask/straight/src/main/resources/straight.bpmn", "straight-through"):
            ("ran to an end event", True, True, True),
        ("c7-examples", "timer/src/main/resources/reminder.bpmn", "reminder"):
            ("ran to an end event", True, True, True),
        # the Camunda Form's select, bounded integer, patterned text, checkbox and date were answered
        # with values the form accepts, so the run got past the user task to the job worker
        ("c8-examples", "approval/src/main/resources/approval.bpmn", "approval"):
            ("stopped: missing handler", True, True, True),
        # the start event's example data, the variable the gateway named as null, the message waited for
        ("c8-examples", "review/src/main/resources/review.bpmn", "quote-review"):
            ("ran to an end event", True, True, True),
    }
    assert [p["process"] for p in document["processes"]] == ["order", "packing", "pick-order", "straight-through",
                                                             "reminder", "approval",
                                                             "quote-review"]  # path order; the sketch is skipped
    given = {p["process"]: json.loads(p["given"]) if p["given"] else None for p in document["processes"]}
    assert given["pick-order"] == {"given": {"orderLines": [{}], "shippingAddress": "example"}}
    assert given["quote-review"] == {
        "events": ["Task_Signature"],
        "given": {"approved": True, "customer": "Ana",
                  "lines": [{"item": "desk", "monthly": None, "price": 250},
                            {"item": "support", "monthly": True, "price": 20}]}}
    assert given["order"] is None and given["approval"] is None  # nothing beyond the forms' answers
    assert not any(p["traceback"] for p in document["processes"])
    assert document["refusals"] == {}  # refusal lines are parsed in the tests of classify() below
    approval = next(p for p in document["processes"] if p["process"] == "approval")
    assert "handlers.notify_requester" in approval["detail"]


def test_the_table_counts_per_repository_and_in_total(measured):
    stdout, document = measured
    lines = stdout.splitlines()
    assert lines[0] == "c7-examples/call-activity/src/main/resources/order.bpmn order: ran to an end event"
    table = "\n".join(lines[lines.index("") + 1:])
    assert table == camunda_models.table([camunda_models.ProcessOutcome(**{k: v for k, v in p.items() if k != "runs"})
                                          for p in document["processes"]], ["c7-examples", "c8-examples"])
    assert "| c7-examples | 5 | 5 | 5 | 5 (100%) |" in lines
    assert "| c8-examples | 2 | 2 | 2 | 2 (100%) |" in lines
    assert "| **total** | 7 | 7 | 7 | 7 (100%) |" in lines
    assert "| ran to an end event | 5 | 1 | 6 |" in lines
    assert "| stopped: missing handler | 0 | 1 | 1 |" in lines
    assert [row["repository"] for row in document["summary"]] == ["c7-examples", "c8-examples", "total"]


def test_a_call_activity_brings_its_called_process_and_a_form_its_file():
    repo = camunda_models.read_repository(C7)
    order = next(b for b in repo.bpmn if b.path.name == "order.bpmn")
    files, html = camunda_models.dependencies(repo, order)
    assert [p.name for p in files] == ["order.bpmn", "packing.bpmn"] and html == []
    assert [b.path.name for b in repo.bpmn if b.executable] == ["order.bpmn", "packing.bpmn", "pick.bpmn",
                                                                "straight.bpmn", "reminder.bpmn"]
    pick = next(b for b in repo.bpmn if b.path.name == "pick.bpmn")
    files, html = camunda_models.dependencies(repo, pick)
    # two forms end with forms/check-parcel.html: the one of the BPMN's own module is taken
    assert [p.relative_to(C7).as_posix() for p in html] == ["script-form/src/main/webapp/forms/check-parcel.html"]
    c8 = camunda_models.read_repository(C8)
    files, _ = camunda_models.dependencies(c8, c8.bpmn[0])
    assert [p.name for p in files] == ["approval.bpmn", "decide.form"]


def test_a_callee_that_is_not_executable_is_left_out_and_one_name_is_given_once(tmp_path):
    bpmn = camunda_models._Bpmn
    main = bpmn(tmp_path / "a" / "main.bpmn", ["main"], ["main"], called={"sketch", "child", "elsewhere"})
    sketch = bpmn(tmp_path / "sketch.bpmn", [], ["sketch"])  # isExecutable="false": Camunda deploys no such
    child = bpmn(tmp_path / "b" / "main.bpmn", ["child"], ["child"])  # a second file called main.bpmn
    repo = camunda_models._Repository("r", tmp_path, [main, sketch, child], {}, {}, [])
    assert camunda_models.dependencies(repo, main) == ([main.path], [])


@pytest.mark.parametrize(("line", "kind"), [
    ('seams run: leave.bpmn: boundaryEvent Timer_1 "Remind": the embedded engine does not run a boundaryEvent '
     "(it runs businessRuleTask, endEvent)", "boundaryEvent"),
    ("seams run: a.bpmn: endEvent End_Msg: the embedded engine does not run a messageEventDefinition (only plain "
     "start and end events)", "messageEventDefinition"),
    ("seams run: a.bpmn: userTask Task_Each: the embedded engine does not run multiInstanceLoopCharacteristics",
     "multiInstanceLoopCharacteristics"),
    ("seams run: a.bpmn: inclusiveGateway Gw_1: the embedded engine does not run an inclusiveGateway (it runs ...)",
     "inclusiveGateway"),
    ("seams run: a.bpmn: Task_1: SpiffWorkflow cannot run it: No output task connected",
     "SpiffWorkflow: No output task connected"),
    ("seams run: a.bpmn: P_1: SpiffWorkflow cannot run it: Cannot resolve dataOutputAssociation <Element "
     "{http://www.omg.org/spec/BPMN/20100524/MODEL}targetRef at 0x7f81d1033800>",
     "SpiffWorkflow: Cannot resolve dataOutputAssociation"),
    ("seams run: stopped at Task_Notify: ex:Task_Notify seam:handler: handler module handlers.x not found", None),
])
def test_a_refusal_line_is_parsed_to_its_element_kind(line, kind):
    assert camunda_models.refused_kind(line) == kind


@pytest.mark.parametrize(("code", "err", "outcome", "crash"), [
    (0, "", "ran to an end event", False),
    (1, "seams run: stopped at Task_A: ex:Task_A seam:handler: handler module handlers.a not found "
        "(handlers/a.py); run seams propose a", "stopped: missing handler", False),
    (2, 'seams run: user task Task_B "B" needs its form filled, but --answers a.json has no entry for it',
     "stopped: user task without answers", False),
    (1, "seams run: a.bpmn: subProcess Sub_1: the embedded engine does not run a subProcess (it runs ...)",
     "refused: subProcess", False),
    (1, "seams run: stopped at Gateway_1: Gateway_1: no condition of its outgoing flows holds and it has no default",
     "stopped: no condition held", False),
    (1, 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n'
        "SpiffWorkflow.exceptions.WorkflowException: No output task connected.",
     "error: SpiffWorkflow.exceptions.WorkflowException: No output task connected.", True),
    (None, "", "error: timed out", False),
    # a BPMN name with a line break: the refusal is read whole, not cut at the break
    (1, 'seams run: p.bpmn: boundaryEvent Ev_1 "Invalid expiry\ndate": the embedded engine does not run a '
        "boundaryEvent (it runs ...)\n", "refused: boundaryEvent", False),
    (1, "seams run: stopped at Gw_1: Gw_1: Flow_2 conditionExpression: variable 'approved' is not set",
     "stopped: condition on an unset variable", False),
    (2, "seams init: x.bpmn: not well-formed XML", "error: x.bpmn: not well-formed XML", False),
])
def test_a_run_is_classified_by_its_exit_code_and_first_stderr_line(code, err, outcome, crash):
    got, _, traceback = camunda_models.classify(code, "", err)
    assert (got, traceback) == (outcome, crash)


def test_a_refusal_cut_at_a_line_break_of_a_name_still_names_the_element_kind():
    """seams prints the first line of a message; a BPMN name with a line break cuts the refusal there.
    Before any element ran, the element it names is the one refused; after, it is no refusal."""
    cut = 'seams run: payment.bpmn: boundaryEvent Ev_Expired "Invalid expiry\n'
    assert camunda_models.classify(1, 'run payment "Payment"\n', cut)[0] == "refused: boundaryEvent"
    assert camunda_models.classify(1, "run payment\nstartEvent S\n", cut)[0].startswith("error: ")


def test_a_missing_folder_is_a_usage_error(tmp_path):
    result = run(str(tmp_path / "nope"))
    assert result.returncode == 2 and "not a directory" in result.stderr
    assert run().returncode == 2

"""``seams run PROCESS``: one instance of the bundled example on the embedded engine, its forms
answered at a pseudo-terminal or from ``--answers FILE``, every element printed as it runs."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import copy_example, edit, run_seams

# the handler `seams propose record_leave` writes from the example's recorded answer
RECORD_LEAVE = '''"""Record leave: book the approved days and keep the booking reference."""


def handle(inputs, bindings):
    booking_ref = bindings.calendar(inputs["employee"], inputs["leave_type"], inputs["days"])
    return {"booking_ref": str(booking_ref)}
'''

HEAD = [
    'run Process_LeaveRequest "Leave request"',
    'reply balances 12.5 (example "annual leave left" of ex:CheckBalance)',
    'reply calendar "BK-1042" (example "annual leave is booked" of ex:RecordLeave)',
    'startEvent StartEvent_1 "Leave wanted"',
    'userTask Task_Submit "Submit leave request"',
]
SUBMIT = {"employee": "ana", "leave_type": "annual", "days": 3, "start_date": "2024-05-02"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = copy_example(tmp_path)
    (root / "handlers" / "record_leave.py").write_text(RECORD_LEAVE, encoding="utf-8")
    return root


def _answers(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _variables(lines: list[str]) -> dict:
    (line,) = [line for line in lines if line.startswith("variables ")]
    return json.loads(line[len("variables "):])


# ------------------------------------------------------------------ --answers


def test_answers_file_walks_the_auto_approved_path(project, tmp_path):
    answers = _answers(tmp_path, {"Task_Submit": SUBMIT})
    result = run_seams("run", "Leave request", "--answers", str(answers), cwd=project)
    assert (result.returncode, result.stderr) == (0, "")
    assert _lines(result.stdout) == [
        *HEAD,
        'serviceTask Task_CheckBalance "Check leave balance"',
        'businessRuleTask Task_ApprovalLevel "Determine approval level": Decision_ApprovalLevel decided by '
        'Rule_ShortAnnual',
        'exclusiveGateway Gateway_Approval "Approval level?": took Flow_Auto "auto"',
        'serviceTask Task_RecordLeave "Record leave"',
        'exclusiveGateway Gateway_Escalate "Needs HR?": took Flow_Done "otherwise"',
        'endEvent EndEvent_Done "Leave booked"',
        'variables {"approval": "auto", "balance_left": 12.5, "booking_ref": "BK-1042", "days": 3, '
        '"employee": "ana", "leave_type": "annual", "start_date": "2024-05-02"}',
    ]


def test_answers_by_label_and_replies_file_take_the_review_path(project, tmp_path):
    answers = _answers(tmp_path, {
        "Submit leave request": {**SUBMIT, "days": 25, "leave_type": "unpaid"},
        "Task_ManagerReview": {"approved": True, "review_note": "ok"},
    })
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"balances": 0, "calendar": "BK-7"}), encoding="utf-8")
    result = run_seams("run", "Process_LeaveRequest", "--answers", str(answers), "--replies", str(replies),
                       cwd=project)
    assert result.returncode == 0, result.stderr
    lines = _lines(result.stdout)
    assert not [line for line in lines if line.startswith("reply ")]  # nothing defaulted
    assert lines[lines.index('exclusiveGateway Gateway_Approval "Approval level?": took Flow_Review "manager"') + 1:] == [
        'userTask Task_ManagerReview "Review leave request"',
        'exclusiveGateway Gateway_Reviewed "Approved?": took Flow_Approved "yes"',
        'serviceTask Task_RecordLeave "Record leave"',
        'exclusiveGateway Gateway_Escalate "Needs HR?": took Flow_HR "long or unpaid"',
        'userTask Task_HRReview "HR review"',  # no form: nothing to ask
        'endEvent EndEvent_Done "Leave booked"',
        'variables {"approval": "manager", "approved": true, "balance_left": 0, "booking_ref": "BK-7", '
        '"days": 25, "employee": "ana", "leave_type": "unpaid", "review_note": "ok", "start_date": "2024-05-02"}',
    ]
    assert "Decision_ApprovalLevel decided by Rule_Long" in result.stdout


def test_a_handler_that_raises_stops_the_run_naming_the_element(project, tmp_path):
    (project / "handlers" / "record_leave.py").write_text(
        "def handle(inputs, bindings):\n    raise RuntimeError('calendar down')\n", encoding="utf-8")
    result = run_seams("run", "Leave request", "--answers", str(_answers(tmp_path, {"Task_Submit": SUBMIT})),
                       cwd=project)
    assert result.returncode == 1
    lines = _lines(result.stdout)
    assert lines[-2] == 'exclusiveGateway Gateway_Approval "Approval level?": took Flow_Auto "auto"'
    assert _variables(lines)["approval"] == "auto"
    assert result.stderr.startswith("seams run: stopped at Task_RecordLeave: ex:RecordLeave (handler "
                                    "handlers.record_leave): handle raised RuntimeError")


# ------------------------------------------------------------------ error lines (exit 2)


@pytest.mark.parametrize(("data", "line"), [
    ({"Task_Submit": {**SUBMIT, "days": 99}},
     "seams run: --answers {answers}: task Task_Submit: 'days': 99 breaks sh:maxInclusive 60 "
     "(sh:property of ex:LeaveForm)"),
    ({"Task_Submit": {**SUBMIT, "colour": "red"}},
     "seams run: --answers {answers}: task Task_Submit: 'colour' is no field of form ex:LeaveForm"),
    ({"Task_Submit": {k: v for k, v in SUBMIT.items() if k != "employee"}},
     "seams run: --answers {answers}: task Task_Submit: 'employee' is required by form ex:LeaveForm and missing"),
    ({"Task_Nope": {}},
     "seams run: --answers {answers}: 'Task_Nope' is no user task of Process_LeaveRequest "
     "(user tasks: Task_Submit, Task_ManagerReview, Task_HRReview)"),
    ({"Task_Submit": {**SUBMIT, "days": 10}},  # the manager review is reached and has no entry
     "seams run: user task Task_ManagerReview \"Review leave request\" needs its form filled, but --answers "
     "{answers} has no entry for it; pass --answers FILE (a JSON object keyed by user task id)"),
])
def test_invalid_answers_are_one_line_naming_task_and_field(project, tmp_path, data, line):
    answers = _answers(tmp_path, data)
    result = run_seams("run", "Leave request", "--answers", str(answers), cwd=project)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [line.format(answers=answers)]


@pytest.mark.parametrize(("args", "line"), [
    (["No such process"], "seams run: no process 'No such process' in the model (candidates: ex:LeaveRequestProcess)"),
    (["Leave request"], "seams run: user task Task_Submit \"Submit leave request\" needs its form filled, but "
                        "stdin is no terminal and no --answers FILE was given; pass --answers FILE (a JSON "
                        "object keyed by user task id)"),
    (["Leave request", "--given", "{days: 3}"], "seams run: --given: not JSON (Expecting property name "
                                                "enclosed in double quotes: line 1 column 2 (char 1))"),
    (["Leave request", "--given", '{"dayz": 3}'], "seams run: --given: 'dayz' is no variable of the model "
                                                  "(variables: approval, approved, balance_left, booking_ref, "
                                                  "days, employee, leave_type, review_note, start_date)"),
    (["Leave request", "--given", '{"days": "3"}'], "seams run: --given: 'days': '3' is not an xsd:integer"),
    (["Leave request", "--answers", "missing.json"],
     "seams run: --answers missing.json: cannot read it (No such file or directory)"),
])
def test_error_lines(project, args, line):
    result = run_seams("run", *args, cwd=project)
    assert (result.returncode, result.stderr.splitlines()) == (2, [line])
    assert "Traceback" not in result.stderr


def test_a_reply_for_no_binding_is_refused(project, tmp_path):
    replies = tmp_path / "replies.json"
    replies.write_text('{"payroll": 1}', encoding="utf-8")
    result = run_seams("run", "Leave request", "--replies", str(replies), cwd=project)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "seams run: --replies: 'payroll' is no binding of a service task of Process_LeaveRequest "
        "(bindings: balances, calendar)"]


# ------------------------------------------------------------------ at a terminal


class Terminal:
    """``seams run`` with a pseudo-terminal as its stdin and stdout, answered as a person would."""

    def __init__(self, args: list[str], cwd: Path):
        self.master, slave = os.openpty()
        env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMS_")}
        self.proc = subprocess.Popen([sys.executable, "-m", "seams_cli", "run", *args], cwd=cwd,
                                     env={**env, "PYTHONDONTWRITEBYTECODE": "1"},
                                     stdin=slave, stdout=slave, stderr=slave, close_fds=True)
        os.close(slave)
        self.text = ""
        self.seen = 0  # where the next expect starts looking: after the last text it found

    def expect(self, wanted: str, timeout: float = 60) -> None:
        """Read until ``wanted`` has been printed (after the text the last call found)."""
        deadline = time.monotonic() + timeout
        while wanted not in self.text[self.seen:]:
            left = deadline - time.monotonic()
            assert left > 0, f"waited for {wanted!r}; the terminal shows:\n{self.text}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                assert chunk, f"the run ended before {wanted!r}:\n{self.text}"
                self.text += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        self.seen = self.text.index(wanted, self.seen) + len(wanted)

    def answer(self, prompt: str, text: str) -> None:
        self.expect(prompt + ": ")
        os.write(self.master, text.encode("utf-8") + b"\n")

    def finish(self, timeout: float = 60) -> int:
        try:
            while True:
                ready, _, _ = select.select([self.master], [], [], timeout)
                if not ready:
                    break
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                self.text += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
            return self.proc.wait(timeout=timeout)
        finally:
            os.close(self.master)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()

    def shown(self) -> list[str]:
        """The lines printed, without the echo of the answers typed."""
        return self.text.splitlines()


def test_forms_are_asked_at_a_terminal_and_invalid_answers_asked_again(project):
    term = Terminal(["Leave request"], project)
    term.answer("Employee (string, required)", "Ana")
    term.expect("invalid: 'Ana' does not match '^[a-z][a-z0-9_]*$' (sh:property of ex:LeaveForm)")
    term.answer("Employee (string, required)", "ana")
    term.answer("Leave type (one of annual, sick, unpaid, required)", "holiday")
    term.expect("invalid: 'holiday' is not one of 'annual', 'sick', 'unpaid' (sh:property of ex:LeaveForm)")
    term.answer("Leave type (one of annual, sick, unpaid, required)", "sick")
    term.answer("Days (integer, required)", "")
    term.expect("invalid: required")
    term.answer("Days (integer, required)", "4")
    term.answer("Start date (date YYYY-MM-DD, required)", "2024-02-30")
    term.expect("invalid: '2024-02-30' is not an xsd:date (YYYY-MM-DD)")
    term.answer("Start date (date YYYY-MM-DD, required)", "2024-03-01")
    term.expect('exclusiveGateway Gateway_Approval "Approval level?": took Flow_Review "manager"\n'
                'userTask Task_ManagerReview "Review leave request"\n')
    term.answer("Approved (boolean, required)", "no")
    term.answer("Note (string, optional, empty to skip)", "")
    assert term.finish() == 0, term.text
    lines = term.shown()
    assert lines[lines.index('userTask Task_Submit "Submit leave request"') - 1] == 'startEvent StartEvent_1 "Leave wanted"'
    assert lines[-3:] == [
        'exclusiveGateway Gateway_Reviewed "Approved?": took Flow_Rejected "no"',
        'endEvent EndEvent_Rejected "Leave refused"',
        'variables {"approval": "manager", "approved": false, "balance_left": 12.5, "days": 4, '
        '"employee": "ana", "leave_type": "sick", "start_date": "2024-03-01"}',
    ]
    assert "Decision_ApprovalLevel decided by Rule_ShortOther" in term.text


def test_the_answers_file_wins_over_the_terminal_for_the_tasks_it_names(project, tmp_path):
    answers = _answers(tmp_path, {"Task_Submit": {**SUBMIT, "days": 8}})
    term = Terminal(["Leave request", "--answers", str(answers)], project)
    term.answer("Approved (boolean, required)", "yes")
    term.answer("Note (string, optional, empty to skip)", "enjoy")
    assert term.finish() == 0, term.text
    assert "  Employee" not in term.text  # Task_Submit came from the file
    assert _variables(term.shown())["review_note"] == "enjoy"


def test_a_broken_condition_takes_the_other_flow(project, tmp_path):
    """The run uses the model's own conditions: an edited gateway routes differently."""
    edit(project / "model" / "leave.bpmn", '<![CDATA[days > 20 or leave_type == "unpaid"]]>',
         "<![CDATA[days > 2 or leave_type == \"unpaid\"]]>")
    edit(project / "model" / "leave.bpmn", '<![CDATA[days <= 20 and leave_type != "unpaid"]]>',
         "<![CDATA[days <= 2 and leave_type != \"unpaid\"]]>")
    result = run_seams("run", "Leave request", "--answers", str(_answers(tmp_path, {"Task_Submit": SUBMIT})),
                       cwd=project)
    assert result.returncode == 0, result.stderr
    assert 'exclusiveGateway Gateway_Escalate "Needs HR?": took Flow_HR "long or unpaid"' in result.stdout


# ------------------------------------------------------------------ the README


def test_the_readme_try_your_model_commands_run_as_written(tmp_path):
    """The README's "Try your model" block, after command 1 (here: the example with the handler
    command 1 writes), paths under /tmp moved into the test's directory."""
    import re
    import shlex

    from helpers import REPO

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Try your model", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    project = copy_example(tmp_path)  # /tmp/leave after command 1
    (project / "handlers" / "record_leave.py").write_text(RECORD_LEAVE, encoding="utf-8")
    seams = f"{shlex.quote(sys.executable)} -m seams_cli"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMS_")}
    done = None
    for command in filter(None, block.splitlines()):
        line = command.replace("/tmp/", f"{tmp_path}/").replace(".venv/bin/seams", seams)
        done = subprocess.run(["bash", "-c", line], cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=120, check=False, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    assert done is not None
    lines = done.stdout.splitlines()
    assert lines[-2] == 'endEvent EndEvent_Done "Leave booked"'
    assert _variables(lines)["booking_ref"] == "BK-1042" and _variables(lines)["approval"] == "auto"


# ------------------------------------------------------------------ the step lines


def test_step_lines_for_parallel_and_exclusive_gateways():
    """A parallel gateway takes every flow and prints at once; an exclusive one prints the flow
    it took when the next element arrives by it, and toward the element a run stopped at."""
    import io

    from rdflib import URIRef

    from seams.model.view import BpmnNode, Flow, Process
    from seams.runs import Step
    from seams_cli.commands.run import StepPrinter

    nodes = {n: BpmnNode(id=n, kind=k, name=None) for n, k in [
        ("Start", "startEvent"), ("Fork", "parallelGateway"), ("A", "task"), ("B", "task"),
        ("Join", "parallelGateway"), ("Choice", "exclusiveGateway"), ("Yes", "endEvent"), ("No", "userTask")]}
    flows = {f: Flow(id=f, source=s, target=t, name=n, condition=None) for f, s, t, n in [
        ("f1", "Start", "Fork", None), ("fa", "Fork", "A", None), ("fb", "Fork", "B", None),
        ("fa2", "A", "Join", None), ("fb2", "B", "Join", None), ("f2", "Join", "Choice", None),
        ("fy", "Choice", "Yes", "yes"), ("fn", "Choice", "No", None)]}
    process = Process(iri=URIRef("urn:p"), label="P", payload=None, element_id="P", nodes=nodes, flows=flows,
                      found=True)
    out = io.StringIO()
    printer = StepPrinter(process, out)
    for element, kind, flow in [("Start", "startEvent", None), ("Fork", "parallelGateway", "f1"),
                                ("A", "task", "fa"), ("B", "task", "fb"), ("Join", "parallelGateway", "fb2"),
                                ("Choice", "exclusiveGateway", "f2"), ("Yes", "endEvent", "fy")]:
        printer.step(Step(element_id=element, name=None, kind=kind, flow=flow))
    printer.flush()
    assert out.getvalue().splitlines() == [
        "startEvent Start", "parallelGateway Fork", "task A", "task B", "parallelGateway Join",
        'exclusiveGateway Choice: took fy "yes"', "endEvent Yes"]

    stopped = io.StringIO()
    printer = StepPrinter(process, stopped)
    printer.step(Step(element_id="Choice", name=None, kind="exclusiveGateway", flow="f2"))
    printer.flush("No")  # the run stopped at the user task the gateway chose
    assert stopped.getvalue().splitlines() == ["exclusiveGateway Choice: took fn"]


# ------------------------------------------------------------------ --scenario


def test_a_scenario_replays_with_its_data_and_is_held_to_its_expectations(project):
    result = run_seams("run", "Leave request", "--scenario", "the manager refuses the leave", cwd=project)
    assert (result.returncode, result.stderr) == (0, "")
    lines = _lines(result.stdout)
    assert lines[-4:-1] == ['exclusiveGateway Gateway_Reviewed "Approved?": took Flow_Rejected "no"',
                            'endEvent EndEvent_Rejected "Leave refused"',
                            'variables {"approval": "manager", "approved": false, "balance_left": 4, "days": 10, '
                            '"employee": "ben", "leave_type": "annual", "review_note": "busy month", '
                            '"start_date": "2026-03-02"}']
    assert lines[-1] == 'scenario "the manager refuses the leave": as expected'


def test_a_broken_decision_rule_fails_the_replayed_scenario(project):
    """Rule_Long moved from > 5 to > 15 days (and the short rules with it): ten days are now
    auto-approved, so the manager's scenario leaves its path at the approval gateway."""
    dmn = project / "model" / "leave.dmn"
    edit(dmn, "&gt; 5", "&gt; 15")
    edit(dmn, "&lt;= 5", "&lt;= 15")
    result = run_seams("run", "Leave request", "--scenario", "long leave approved by the manager", cwd=project)
    assert result.returncode == 1
    assert _lines(result.stdout)[-1] == (
        'scenario "long leave approved by the manager" seam:expectFlows: left the expected path at '
        'exclusiveGateway Gateway_Approval "Approval level?": took Flow_Auto "auto" to Task_RecordLeave, '
        'expected Flow_Review "manager" to Task_ManagerReview (expected flow 5)')


def test_an_unknown_scenario_names_the_ones_there_are(project):
    result = run_seams("run", "Leave request", "--scenario", "nope", cwd=project)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "seams run: --scenario: no scenario 'nope' of Process_LeaveRequest (candidates: long leave approved by "
        "the manager, long unpaid leave goes to HR, short annual leave is booked at once, short sick leave is "
        "reviewed, the manager refuses the leave)"]

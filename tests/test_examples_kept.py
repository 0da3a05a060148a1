"""Examples and scenarios a person can write and keep, without typing a backslash:
``seams example TASK`` (from JSON or asked at a terminal) and ``seams run --save-scenario``,
each added through seams_edit (undoable, layout kept), each then judged by ``seams check``
and pytest as if written by hand."""

from __future__ import annotations

import os
import subprocess
import sys

from helpers import copy_example, run_seams

ANSWERS = ('{"Task_Submit": {"employee": "ana", "leave_type": "annual", "days": 3, '
           '"start_date": "2024-05-02"}}')


def test_an_example_from_json_is_added_as_long_strings_and_undone_byte_for_byte(tmp_path):
    root = copy_example(tmp_path)
    trig = root / "model" / "model.trig"
    before = trig.read_bytes()
    added = run_seams("example", "record_leave", "--label", "sick leave is booked",
                      "--given", '{"employee": "bo", "leave_type": "sick", "days": 2}',
                      "--replies", '{"calendar": "BK-77"}', "--expect", '{"booking_ref": "BK-77"}', cwd=root)
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith('added example "sick leave is booked" to ex:RecordLeave (model/model.trig)')
    text = trig.read_text(encoding="utf-8")
    new_lines = [line for line in text.splitlines() if line not in before.decode("utf-8").splitlines()]
    assert '            seam:given """{"days": 2, "employee": "bo", "leave_type": "sick"}"""^^rdf:JSON ;' in new_lines
    assert not any("\\" in line for line in new_lines), new_lines
    assert run_seams("generate", cwd=root).returncode == 0  # the stub lists the examples
    assert run_seams("check", cwd=root).returncode in (0, 1)
    assert run_seams("undo", cwd=root).returncode == 0
    assert trig.read_bytes() == before


def test_an_example_the_task_refuses_writes_nothing_and_names_the_fault(tmp_path):
    root = copy_example(tmp_path)
    trig = root / "model" / "model.trig"
    before = trig.read_bytes()
    unknown = run_seams("example", "record_leave", "--label", "x", "--given", '{"employe": "bo"}',
                        "--replies", "{}", "--expect", "{}", cwd=root)
    assert unknown.returncode == 2 and unknown.stderr.strip() == (
        "seams example: --given: 'employe' is no input of the task (inputs: days, employee, leave_type)")
    refused = run_seams("example", "record_leave", "--label", "y",
                        "--given", '{"employee": "bo", "leave_type": "holiday", "days": 2}',
                        "--replies", '{"calendar": "BK-1"}', "--expect", '{"booking_ref": "BK-1"}', cwd=root)
    assert refused.returncode == 2 and "'holiday' is not one of 'annual', 'sick', 'unpaid'" in refused.stderr
    asked = run_seams("example", "record_leave", "--label", "z", cwd=root)
    assert asked.returncode == 2 and "stdin is no terminal" in asked.stderr
    assert trig.read_bytes() == before


def test_an_example_asked_at_a_terminal(tmp_path):
    root = copy_example(tmp_path)
    controller, terminal = os.openpty()
    # fields in name order: days, employee, leave_type; then the reply; then the output
    answers = "walk-in leave\n4\nbo\nannual\n\"BK-9\"\nBK-9\n"
    process = subprocess.Popen([sys.executable, "-m", "seams_cli", "example", "record_leave"], cwd=root,
                               stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.close(terminal)
    os.write(controller, answers.encode())
    out, err = process.communicate(timeout=120)
    os.close(controller)
    assert process.returncode == 0, out + err
    assert 'added example "walk-in leave"' in out
    text = (root / "model" / "model.trig").read_text(encoding="utf-8")
    assert 'seam:given """{"days": 4, "employee": "bo", "leave_type": "annual"}"""^^rdf:JSON' in text
    assert 'seam:expect """{"booking_ref": "BK-9"}"""^^rdf:JSON' in text


def test_a_run_saved_as_a_scenario_passes_as_a_scenario_item(tmp_path):
    root = copy_example(tmp_path)
    assert run_seams("propose", "record_leave", cwd=root, timeout=300).returncode == 0
    answers = tmp_path / "answers.json"
    answers.write_text(ANSWERS, encoding="utf-8")
    trig = root / "model" / "model.trig"
    before = trig.read_bytes()
    saved = run_seams("run", "Leave request", "--answers", str(answers), "--save-scenario", "ana takes three days",
                      cwd=root, timeout=300)
    assert saved.returncode == 0, saved.stderr
    assert 'saved scenario "ana takes three days" of ex:LeaveRequestProcess (model/model.trig)' in saved.stdout
    text = trig.read_text(encoding="utf-8")
    assert 'seam:expectFlows """["Flow_1", "Flow_2", "Flow_3", "Flow_4", "Flow_Auto", "Flow_6", "Flow_Done"]"""' in text
    assert run_seams("check", cwd=root).returncode == 0
    session = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "ana and takes and three"],
                             cwd=root, capture_output=True, text=True, timeout=600)
    assert "1 passed" in session.stdout, session.stdout[-2000:]
    again = run_seams("run", "Leave request", "--answers", str(answers), "--save-scenario", "ana takes three days",
                      cwd=root, timeout=300)
    assert again.returncode == 2 and "has a scenario 'ana takes three days' already" in again.stderr
    assert run_seams("undo", cwd=root).returncode == 0 and trig.read_bytes() == before

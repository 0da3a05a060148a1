"""A project's own pytest tests use what the seams items use (docs/plugin.md): the
``seams_model`` and ``seams_run``/``seams_scenario`` fixtures, the ``seams_*`` markers,
the ``pytest_seams_findings`` hook, and locations that point at the TriG line."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from helpers import copy_example, run_seams

USER_TESTS = textwrap.dedent('''
    import pytest

    def test_the_model_has_the_leave_process(seams_model):
        assert "Leave request" in [p.label for p in seams_model.view.processes.values()]

    def test_short_annual_leave_is_booked_at_once(seams_run):
        result = seams_run("Leave request", answers={"Task_Submit": {
            "employee": "ana", "leave_type": "annual", "days": 3, "start_date": "2024-05-02"}})
        assert result.ok and result.end_event == "EndEvent_Done"
        assert result.variables["approval"] == "auto"

    def test_a_refused_answer_fails_the_test(seams_run):
        seams_run("Leave request", answers={"Task_Submit": {
            "employee": "ana", "leave_type": "holiday", "days": 3, "start_date": "2024-05-02"}})

    def test_a_scenario_replays(seams_scenario):
        result = seams_scenario("short annual leave is booked at once")
        assert result.end_event == "EndEvent_Done"

    def test_an_unknown_scenario_is_named(seams_scenario):
        seams_scenario("no such scenario")
''')

CONFTEST = textwrap.dedent('''
    import json, os

    def pytest_seams_findings(item, findings):
        with open(os.environ["FINDINGS_LOG"], "a") as out:
            out.write(json.dumps([item.gate, len(findings)]) + "\\n")
''')


def _pytest(root, *args, env=None):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=root,
                          capture_output=True, text=True, timeout=600, env=env)


def test_a_user_s_tests_load_the_model_and_run_scenarios(tmp_path):
    root = copy_example(tmp_path)
    assert run_seams("propose", "record_leave", cwd=root, timeout=300).returncode == 0
    (root / "tests").mkdir()
    (root / "tests" / "test_mine.py").write_text(USER_TESTS, encoding="utf-8")
    done = _pytest(root, "-q", "tests/test_mine.py", "-rf")
    out = done.stdout
    assert "2 failed, 3 passed" in out, out[-3000:]
    assert "answers for Task_Submit: 'leave_type': 'holiday' is not one of" in out, out[-3000:]
    assert "seams_scenario: no scenario 'no such scenario' (scenarios: long leave approved" in out, out[-3000:]


def test_markers_select_gates_and_the_hook_sees_every_item(tmp_path):
    import os

    root = copy_example(tmp_path)
    (root / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    log = tmp_path / "findings.log"
    env = {**os.environ, "FINDINGS_LOG": str(log)}
    model_only = _pytest(root, "-q", "-m", "seams_model", "--collect-only", env=env)
    names = [line for line in model_only.stdout.splitlines() if "::" in line]
    assert names == ["seams.toml::shapes", "seams.toml::decisions", "seams.toml::generate"], model_only.stdout
    acceptance = _pytest(root, "-q", "-m", "seams_acceptance", "--collect-only", env=env)
    assert all("::check_balance::" in n or "::record_leave::" in n
               for n in acceptance.stdout.splitlines() if "::" in n), acceptance.stdout
    ran = _pytest(root, "-q", "-m", "seams_model", env=env)
    assert "3 passed" in ran.stdout, ran.stdout[-2000:]
    assert [line for line in log.read_text().splitlines()] == ['["shapes", 0]', '["decisions", 0]', '["generate", 0]']


def test_an_acceptance_item_s_location_is_the_task_s_trig_line(tmp_path):
    """``reportinfo`` gives the TriG statement of the item's subject: where junit XML, IDEs and
    ``--tb=line`` point."""
    from xml.etree import ElementTree

    root = copy_example(tmp_path)
    report = tmp_path / "junit.xml"
    _pytest(root, "-q", "-k", "record_leave and import", f"--junitxml={report}", "-o", "junit_family=xunit1")
    case = next(ElementTree.parse(report).iter("testcase"))
    trig = (root / "model" / "model.trig").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(trig) if text.strip().startswith("ex:RecordLeave "))
    assert (case.get("file"), case.get("line")) == ("model/model.trig", str(line))

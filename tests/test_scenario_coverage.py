"""Scenario coverage: the gateway flows and decision rules no scenario run exercised, with seeds
(sample values that take the flow or match the rule), and the ``--seams-coverage`` report."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest
from helpers import EXAMPLE, copy_example, edit

from seams.lang.condition import parse_condition
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.suggestions.coverage import Trace, coverage

pytest_plugins = ["pytester"]
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-W", "ignore::DeprecationWarning")

PROCESS = "Process_LeaveRequest"
ALL_FLOWS = ["Flow_Auto", "Flow_Review", "Flow_Approved", "Flow_Rejected", "Flow_HR", "Flow_Done"]
ALL_RULES = ["Rule_ShortAnnual", "Rule_Long", "Rule_ShortOther"]


@pytest.fixture(scope="module")
def model():
    return load_model(load_project(EXAMPLE))


def _trace(flows, rules=()):
    return Trace.of({"process": PROCESS, "flows": flows, "decisions": {"Decision_ApprovalLevel": list(rules)}})


def _decisions_module():
    spec = importlib.util.spec_from_file_location("leave_decisions", EXAMPLE / "generated" / "decisions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_runs_leave_every_flow_and_rule_uncovered_in_document_order(model):
    report = coverage(model, [])
    assert [(u.kind, u.owner, u.target) for u in report.uncovered] == [
        ("flow", "Gateway_Approval", "Flow_Auto"), ("flow", "Gateway_Approval", "Flow_Review"),
        ("flow", "Gateway_Reviewed", "Flow_Approved"), ("flow", "Gateway_Reviewed", "Flow_Rejected"),
        ("flow", "Gateway_Escalate", "Flow_HR"), ("flow", "Gateway_Escalate", "Flow_Done"),
        *(("rule", "Decision_ApprovalLevel", r) for r in ALL_RULES)]
    assert report.lines()[0] == ("seams coverage: 0/6 gateway flows, 0/3 decision rules exercised "
                                 "by 0 scenario run(s)")


def test_runs_that_take_every_branch_leave_nothing_uncovered(model):
    runs = [_trace(["Flow_1", "Flow_Auto", "Flow_Done"], ["Rule_ShortAnnual"]),
            _trace(["Flow_Review", "Flow_Approved", "Flow_HR"], ["Rule_Long"]),
            _trace(["Flow_Review", "Flow_Rejected"], ["Rule_ShortOther"])]
    report = coverage(model, runs)
    assert report.uncovered == ()
    assert report.lines() == ["seams coverage: 6/6 gateway flows, 3/3 decision rules exercised "
                              "by 3 scenario run(s)"]


def test_a_trace_of_another_process_covers_nothing_here(model):
    report = coverage(model, [Trace.of({"process": "Process_Other", "flows": ALL_FLOWS,
                                        "decisions": {"Decision_ApprovalLevel": ALL_RULES}})])
    assert len(report.uncovered) == 9


def test_a_run_names_its_process_by_prefixed_name_or_bpmn_id(model):
    by_name = coverage(model, [Trace.of({"process": "ex:LeaveRequestProcess", "flows": ALL_FLOWS,
                                         "decisions": {"Decision_ApprovalLevel": ALL_RULES}})])
    assert by_name.uncovered == ()


def test_one_line_per_uncovered_target_with_its_seed(model):
    report = coverage(model, [_trace(["Flow_Auto", "Flow_Done"], ["Rule_ShortAnnual"])])
    lines = report.lines()
    assert lines[0] == "seams coverage: 2/6 gateway flows, 1/3 decision rules exercised by 1 scenario run(s)"
    assert lines[1:] == [
        'uncovered flow Process_LeaveRequest Gateway_Approval Flow_Review (manager): '
        'e.g. {"days": 6, "leave_type": "annual"} via Task_Submit',
        'uncovered flow Process_LeaveRequest Gateway_Reviewed Flow_Approved (yes): e.g. {"approved": true} '
        'via Task_ManagerReview',
        'uncovered flow Process_LeaveRequest Gateway_Reviewed Flow_Rejected (no): e.g. {"approved": false} '
        'via Task_ManagerReview',
        'uncovered flow Process_LeaveRequest Gateway_Escalate Flow_HR (long or unpaid): '
        'e.g. {"days": 1, "leave_type": "unpaid"} via Task_Submit',
        'uncovered rule Process_LeaveRequest Decision_ApprovalLevel Rule_Long: '
        'e.g. {"days": 6, "leave_type": "annual"} via Task_Submit',
        'uncovered rule Process_LeaveRequest Decision_ApprovalLevel Rule_ShortOther: '
        'e.g. {"days": 1, "leave_type": "sick"} via Task_Submit',
    ]


def test_a_seed_variable_no_form_sets_comes_from_the_start_or_its_service_task(tmp_path):
    """Conditions on variables the handlers write: the seeds name the service tasks (their
    values come from the handlers, given the scenario's replies)."""
    root = copy_example(tmp_path)
    edit(root / "model" / "leave.bpmn", '<![CDATA[days > 20 or leave_type == "unpaid"]]>',
         "<![CDATA[balance_left < 1]]>")
    edit(root / "model" / "leave.bpmn", '<![CDATA[days <= 20 and leave_type != "unpaid"]]>',
         "<![CDATA[booking_ref == \"x\"]]>")
    report = coverage(load_model(load_project(root)), [])
    lines = {u.target: u.line() for u in report.uncovered}
    # a seed gives every variable the gateway's conditions read, in name order
    assert lines["Flow_HR"] == ('uncovered flow Process_LeaveRequest Gateway_Escalate Flow_HR (long or unpaid): '
                                'e.g. {"balance_left": 0, "booking_ref": "other"} '
                                'via Task_CheckBalance, Task_RecordLeave')
    assert lines["Flow_Done"].endswith('"booking_ref": "x"} via Task_CheckBalance, Task_RecordLeave')


def test_every_seed_takes_its_flow_through_the_generated_decision(model):
    """Each flow seed, run through the generated decision module and the gateway's own
    conditions, takes the flow it was printed for; each rule seed gives that rule's output."""
    decide = _decisions_module().approval_level
    process = next(iter(model.view.processes.values()))
    outputs = {"Rule_ShortAnnual": "auto", "Rule_Long": "manager", "Rule_ShortOther": "manager"}
    for uncovered in coverage(model, []).uncovered:
        seed = dict(uncovered.seed or {})
        assert seed, uncovered.line()
        if uncovered.kind == "rule":
            assert decide(seed["days"], seed["leave_type"]) == outputs[uncovered.target]
            continue
        if "days" in seed and uncovered.owner == "Gateway_Approval":
            seed["approval"] = decide(seed["days"], seed["leave_type"])
        flow = process.flows[uncovered.target]
        assert parse_condition(flow.condition, where=flow.id).evaluate(seed), uncovered.line()


def test_no_seed_when_no_sample_takes_the_flow(tmp_path):
    """A condition that is never true on the variable's domain gets a line without a seed."""
    root = copy_example(tmp_path)
    edit(root / "model" / "leave.bpmn", '<![CDATA[days > 20 or leave_type == "unpaid"]]>',
         "<![CDATA[days > 60]]>")
    report = coverage(load_model(load_project(root)), [])
    (line,) = [u.line() for u in report.uncovered if u.target == "Flow_HR"]
    assert line == "uncovered flow Process_LeaveRequest Gateway_Escalate Flow_HR (long or unpaid)"


def test_seams_coverage_option_reports_after_the_session(pytester):
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    result = pytester.runpytest("--seams-only", "model", "--seams-coverage", *QUIET)
    result.assert_outcomes(passed=3)
    lines = result.outlines
    head = lines.index("seams coverage: 0/6 gateway flows, 0/3 decision rules exercised by 0 scenario run(s)")
    assert lines[head + 1].startswith("uncovered flow Process_LeaveRequest Gateway_Approval Flow_Auto (auto): ")
    assert len([line for line in lines if line.startswith("uncovered ")]) == 9


def test_without_the_option_no_coverage_section(pytester):
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    result = pytester.runpytest("--seams-only", "model", *QUIET)
    result.assert_outcomes(passed=3)
    assert not [line for line in result.outlines if "seams coverage" in line]


def test_traces_reported_by_items_are_counted(pytester):
    """The report reads the facts a scenario item reports (here added to a model gate's report
    as a scenario item's: gate ``scenario``, the run's process, flows and decisions)."""
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    Path(pytester.path / "conftest.py").write_text(
        "import pytest\n"
        "@pytest.hookimpl(wrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n"
        "    report = yield\n"
        "    if call.when == 'call' and item.name == 'decisions':\n"
        "        report.user_properties.append(('seams', {'gate': 'scenario', 'facts': {\n"
        "            'process': 'ex:LeaveRequestProcess', 'flows': ['Flow_Auto', 'Flow_Done'],\n"
        "            'decisions': {'Decision_ApprovalLevel': ['Rule_ShortAnnual']}}}))\n"
        "    return report\n", encoding="utf-8")
    result = pytester.runpytest("--seams-only", "model", "--seams-coverage", *QUIET)
    assert ("seams coverage: 2/6 gateway flows, 1/3 decision rules exercised by 1 scenario run(s)"
            in result.outlines)


@pytest.mark.parametrize("dialect", ["leave-c7", "leave-c8"])
def test_juel_and_feel_conditions_give_the_same_report(model, dialect):
    """The example as a Camunda 7 (JUEL) and a Camunda 8 (FEEL) model routes alike, so its
    coverage report, seeds included, is the same line for line."""
    other = load_model(load_project(EXAMPLE.parent / dialect))
    assert coverage(other, []).lines() == coverage(model, []).lines()


# ------------------------------------------------------------------ with the real scenario items

RECORD_LEAVE = ("def handle(inputs, bindings):\n"
                "    return {'booking_ref': str(bindings.calendar(inputs['employee'], inputs['leave_type'], "
                "inputs['days']))}\n")


def _example_with_handlers(pytester) -> Path:
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    (pytester.path / "handlers" / "record_leave.py").write_text(RECORD_LEAVE, encoding="utf-8")
    return pytester.path


def test_the_example_scenarios_cover_every_branch_and_rule(pytester):
    _example_with_handlers(pytester)
    result = pytester.runpytest("-k", "scenario", "--seams-coverage", *QUIET)
    result.assert_outcomes(passed=5)
    assert [line for line in result.outlines if line.startswith(("seams coverage", "uncovered"))] == [
        "seams coverage: 6/6 gateway flows, 3/3 decision rules exercised by 5 scenario run(s)"]


def test_a_scenario_that_takes_another_branch_leaves_its_flow_uncovered(pytester):
    """The refusal scenario now submits an approval: it fails (its path is not the expected one),
    its run still counts, and the refusal flow is reported with the data that would take it."""
    root = _example_with_handlers(pytester)
    edit(root / "model" / "model.trig", '{"approved": false, "review_note": "busy month"}',
         '{"approved": true, "review_note": "busy month"}')
    result = pytester.runpytest("-k", "scenario", "--seams-coverage", *QUIET)
    result.assert_outcomes(passed=4, failed=1)
    assert [line for line in result.outlines if line.startswith(("seams coverage", "uncovered"))] == [
        "seams coverage: 5/6 gateway flows, 3/3 decision rules exercised by 5 scenario run(s)",
        'uncovered flow Process_LeaveRequest Gateway_Reviewed Flow_Rejected (no): e.g. {"approved": false} '
        "via Task_ManagerReview",
    ]

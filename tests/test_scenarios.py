"""Scenarios: the example's runs pass with the recorded handlers, and a broken handler,
condition or decision rule fails exactly the scenarios that pass through it, naming where."""

from __future__ import annotations

import runpy
import shutil
from pathlib import Path

import importlib_metadata  # noqa: F401  (pyshacl's backport swaps the finder once: see test_plugin_items)
import pytest
from helpers import EXAMPLE, copy_example, edit

import pytest_seams.collect  # noqa: F401  imported once here, so in-process runs do not re-import
from seams.checks.registry import all_findings
from seams.checks.scenarios import scenario_findings
from seams.model.context import context_for
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_runtime.sandbox.channel import Executor
from seams_runtime.scenarios import run_scenario, scenario_specs

pytest_plugins = ["pytester"]
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-W", "ignore::DeprecationWarning")

LABELS = ["long leave approved by the manager", "long unpaid leave goes to HR",
          "short annual leave is booked at once", "short sick leave is reviewed", "the manager refuses the leave"]


def recorded_record_leave() -> str:
    """The handler the README's ``seams propose record_leave`` writes: the recorded provider's answer."""
    answer = runpy.run_path(str(EXAMPLE / "provider" / "recorded.py"), run_name="recorded")["RECORD_LEAVE"]
    return answer.strip().removeprefix("```python").removesuffix("```").strip() + "\n"


def proposed(root: Path) -> Path:
    (root / "handlers" / "record_leave.py").write_text(recorded_record_leave(), encoding="utf-8")
    return root


def failing(root: Path) -> dict[str, list[str]]:
    """Label -> finding lines of every scenario that fails, all run in one executor."""
    project = load_project(root)
    model = load_model(project)
    out = {}
    executors: dict = {}

    def executor_for(spec):
        source = spec.handlers_parent / "handlers"
        if source not in executors:
            executors[source] = Executor([(source, "handlers")])
        return executors[source]

    try:
        for spec in scenario_specs(model):
            _, findings = run_scenario(project, model, spec, executor_for=executor_for)
            if findings:
                out[spec.plan.label] = [f.line() for f in findings]
    finally:
        for executor in executors.values():
            executor.close()
    return out


@pytest.fixture
def leave(tmp_path: Path) -> Path:
    return proposed(copy_example(tmp_path))


def test_pytest_runs_every_scenario_green_once_record_leave_is_proposed(pytester: pytest.Pytester) -> None:
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    proposed(pytester.path)
    reprec = pytester.inline_run(*QUIET)
    reports = {r.nodeid: r for r in reprec.getreports("pytest_runtest_logreport") if r.when == "call"}
    scenarios = [n for n in reports if "::scenario[" in n]
    assert scenarios == [f"seams.toml::scenario[{label}]" for label in LABELS]
    assert [n for n, r in reports.items() if not r.passed] == []
    facts = dict(reports["seams.toml::scenario[short sick leave is reviewed]"].user_properties)["seams"]["facts"]
    assert facts["end_event"] == "EndEvent_Done"
    assert facts["decisions"] == {"Decision_ApprovalLevel": ["Rule_ShortOther"]}
    assert facts["flows"][4:7] == ["Flow_Review", "Flow_5", "Flow_Approved"]


def test_a_broken_decision_rule_fails_the_scenario_it_routes(pytester: pytest.Pytester) -> None:
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    proposed(pytester.path)
    edit(pytester.path / "model" / "leave.dmn",
         '<outputEntry id="LiteralExpression_3">\n          <text>"manager"</text>',
         '<outputEntry id="LiteralExpression_3">\n          <text>"auto"</text>')
    reprec = pytester.inline_run(*QUIET, "-k", "scenario")
    failed = [r for r in reprec.getreports("pytest_runtest_logreport") if r.when == "call" and r.failed]
    assert [r.nodeid for r in failed] == ["seams.toml::scenario[short sick leave is reviewed]"]
    assert failed[0].longreprtext == (
        'scenario ex:LeaveRequestProcess seam:expectFlows: "short sick leave is reviewed": left the expected '
        'path at exclusiveGateway Gateway_Approval "Approval level?": took Flow_Auto "auto" to Task_RecordLeave, '
        'expected Flow_Review "manager" to Task_ManagerReview (expected flow 5)')


def test_a_broken_handler_fails_only_the_scenarios_it_runs_in(leave: Path) -> None:
    edit(leave / "handlers" / "record_leave.py", "    booking_ref = ",
         '    if inputs["leave_type"] == "unpaid":\n        raise ValueError("no unpaid leave in the calendar")\n'
         "    booking_ref = ")
    found = failing(leave)
    assert list(found) == ["long unpaid leave goes to HR"]
    (line,) = found["long unpaid leave goes to HR"]
    assert line.startswith('scenario ex:LeaveRequestProcess seam:scenario: "long unpaid leave goes to HR": '
                           'stopped at serviceTask Task_RecordLeave "Record leave": ex:RecordLeave (handler '
                           "handlers.record_leave): handle raised ValueError: no unpaid leave in the calendar")


def test_a_broken_condition_fails_only_the_scenarios_that_reach_it_with_those_values(leave: Path) -> None:
    edit(leave / "model" / "leave.bpmn", 'days <= 20 and leave_type != "unpaid"', 'days <= 5 and leave_type != "unpaid"')
    found = failing(leave)
    assert list(found) == ["long leave approved by the manager"]
    (line,) = found["long leave approved by the manager"]
    assert "stopped at exclusiveGateway Gateway_Escalate \"Needs HR?\": Gateway_Escalate: no condition" in line
    assert "days=10" in line


def test_a_changed_variable_is_named_with_both_values(leave: Path) -> None:
    edit(leave / "handlers" / "record_leave.py", 'return {"booking_ref": str(booking_ref)}',
         'return {"booking_ref": "BK-9" + str(booking_ref)[3:]}')
    found = failing(leave)
    assert sorted(found) == LABELS[:4]  # every scenario that books
    assert found["short annual leave is booked at once"] == [
        'scenario ex:LeaveRequestProcess seam:expect: "short annual leave is booked at once": variable '
        "'booking_ref' is 'BK-91042', expected 'BK-1042'"]


def test_scenarios_are_checked_against_the_bpmn_and_the_model(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    trig = root / "model" / "model.trig"
    edit(trig, 'seam:expectEnd "EndEvent_Rejected"', 'seam:expectEnd "EndEvent_Refused"')
    edit(trig, '"Flow_Auto", "Flow_6"', '"Flow_Automatic", "Flow_6"')
    edit(trig, 'rdfs:label "short sick leave is reviewed"', 'rdfs:label "long unpaid leave goes to HR"')
    edit(trig, 'seam:task ex:ManagerReview ; seam:values """{"approved": false',
         'seam:task ex:CheckBalance ; seam:values """{"approved": false', 1)
    model = load_model(load_project(root))
    lines = [f.line() for f in scenario_findings(model)]
    assert lines == [
        'shape ex:LeaveRequestProcess seam:scenario: "long unpaid leave goes to HR": another scenario of the '
        "process has this rdfs:label; each needs its own (it names the item)",
        'shape ex:LeaveRequestProcess seam:scenario: "short annual leave is booked at once": seam:expectFlows names '
        '"Flow_Automatic", which is no sequence flow of Process_LeaveRequest',
        'shape ex:LeaveRequestProcess seam:scenario: "the manager refuses the leave": seam:expectEnd '
        '"EndEvent_Refused" is no end event of Process_LeaveRequest (end events: EndEvent_Done, EndEvent_Rejected)',
        'shape ex:LeaveRequestProcess seam:scenario: "the manager refuses the leave": seam:submits names '
        "ex:CheckBalance, which is no user task of ex:LeaveRequestProcess or of a process it calls",
    ]
    assert ("shape ex:LeaveRequestProcess seam:scenario: a submission needs exactly one seam:task, the "
            "seam:UserTask that submits") in [f.line() for f in all_findings(load_project(root), model)]


def test_submitted_values_are_checked_against_the_variables(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    edit(root / "model" / "model.trig", '"days": 3,', '"days": "three", "nights": 2,')
    lines = [f.line() for f in scenario_findings(load_model(load_project(root)))]
    assert lines == [
        'shape ex:LeaveRequestProcess seam:scenario: "short annual leave is booked at once": seam:values of '
        'ex:SubmitRequest "days": \'three\' is not an xsd:integer',
        'shape ex:LeaveRequestProcess seam:scenario: "short annual leave is booked at once": seam:values of '
        'ex:SubmitRequest names "nights", which is no variable of the model',
    ]


def test_a_scenario_changes_no_task_s_context_hash(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    before = load_model(load_project(root))
    hashes = {t.iri: context_for(before, t).hash for t in before.view.service_tasks()}
    edit(root / "model" / "model.trig", "    # Process variables\n",
         '    ex:LeaveRequestProcess seam:scenario [ rdfs:label "one more" ; seam:expectEnd "EndEvent_Done" ;\n'
         '        seam:replies """{"balances": 1}"""^^rdf:JSON ] .\n\n    # Process variables\n')
    after = load_model(load_project(root))
    assert len(after.view.processes[next(iter(after.view.processes))].scenarios) == 6
    assert {t.iri: context_for(after, t).hash for t in after.view.service_tasks()} == hashes


@pytest.mark.parametrize("variant", ["leave-c7", "leave-c8"])
def test_the_camunda_variants_run_their_scenarios_with_juel_and_feel_conditions(tmp_path: Path, variant: str) -> None:
    root = tmp_path / variant
    shutil.copytree(EXAMPLE.parent / variant, root, ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    assert failing(proposed(root)) == {}
    edit(root / "model" / "leave.dmn", '<text>"manager"</text>', '<text>"auto"</text>')  # every rule auto
    assert sorted(failing(root)) == LABELS[:2] + LABELS[3:]  # all but the one already auto


def test_expected_flows_are_taken_in_order_with_unlisted_flows_between() -> None:
    from seams.runs import RunResult, Step
    from seams.scenarios import ScenarioPlan, scenario_problems

    model = load_model(load_project(EXAMPLE))
    process = next(iter(model.view.processes.values()))

    def run(*flows: str, end: str | None = "EndEvent_Done", error: str | None = None) -> RunResult:
        steps = [Step(element_id=process.flows[f].target, name=None, kind="x", flow=f) for f in flows]
        return RunResult(steps=steps, end_event=end, error=error, error_element="Task_RecordLeave" if error else None)

    plan = ScenarioPlan(label="l", expect_flows=("Flow_Review", "Flow_Approved", "Flow_Done"))
    assert scenario_problems(process, plan, run("Flow_4", "Flow_Review", "Flow_5", "Flow_Approved", "Flow_6",
                                                "Flow_Done")) == []
    assert scenario_problems(process, plan, run("Flow_Review", "Flow_5", "Flow_Approved", "Flow_6", "Flow_HR",
                                                "Flow_7")) == [
        ("seam:expectFlows", 'left the expected path at exclusiveGateway Gateway_Escalate "Needs HR?": took '
                             'Flow_HR "long or unpaid" to Task_HRReview, expected Flow_Done "otherwise" to '
                             "EndEvent_Done (expected flow 3)")]
    assert scenario_problems(process, plan, run("Flow_Review", "Flow_5", "Flow_Rejected", end="EndEvent_Rejected")) == [
        ("seam:expectFlows", 'left the expected path at exclusiveGateway Gateway_Reviewed "Approved?": took '
                             'Flow_Rejected "no" to EndEvent_Rejected, expected Flow_Approved "yes" to Task_RecordLeave '
                             "(expected flow 2)")]
    stopped = run("Flow_Review", "Flow_5", "Flow_Approved", end=None, error="handle raised KeyError")
    assert scenario_problems(process, plan, stopped) == [
        ("seam:scenario", 'stopped at serviceTask Task_RecordLeave "Record leave": handle raised KeyError')]


def test_a_variable_name_two_variables_share_still_lets_scenario_keys_be_judged(tmp_path: Path) -> None:
    """Another process's ``days`` (the usual case in a model of many processes): a key that names
    no variable at all is still reported, and ``days`` is the run's own, typed as its own."""
    root = copy_example(tmp_path)
    edit(root / "model" / "model.trig", "    # Process variables\n",
         '    ex:OtherDays a seam:Variable ; rdfs:label "Days elsewhere" ; seam:name "days" ;\n'
         "        seam:datatype xsd:string .\n\n    # Process variables\n")
    edit(root / "model" / "model.trig", '"days": 3,', '"days": "three", "nights": 2,')
    lines = [f.line() for f in scenario_findings(load_model(load_project(root)))]
    assert lines == [
        'shape ex:LeaveRequestProcess seam:scenario: "short annual leave is booked at once": seam:values of '
        'ex:SubmitRequest "days": \'three\' is not an xsd:integer',
        'shape ex:LeaveRequestProcess seam:scenario: "short annual leave is booked at once": seam:values of '
        'ex:SubmitRequest names "nights", which is no variable of the model',
    ]


def test_a_name_only_other_variables_have_is_typed_when_one_has_it(tmp_path: Path) -> None:
    """A key no variable of the run has falls back to the model's: known, and typed when one
    variable has the name, untyped when several do."""
    root = copy_example(tmp_path)
    edit(root / "model" / "model.trig", "    # Process variables\n",
         '    ex:Bonus a seam:Variable ; rdfs:label "Bonus" ; seam:name "bonus" ; seam:datatype xsd:integer .\n\n'
         "    # Process variables\n")
    edit(root / "model" / "model.trig", '"days": 3,', '"days": 3, "bonus": "x",')
    lines = [f.line() for f in scenario_findings(load_model(load_project(root)))]
    assert lines == ['shape ex:LeaveRequestProcess seam:scenario: "short annual leave is booked at once": '
                     'seam:values of ex:SubmitRequest "bonus": \'x\' is not an xsd:integer']
    edit(root / "model" / "model.trig", "    # Process variables\n",
         '    ex:Bonus2 a seam:Variable ; rdfs:label "Bonus 2" ; seam:name "bonus" ; seam:datatype xsd:string .\n\n'
         "    # Process variables\n")
    assert scenario_findings(load_model(load_project(root))) == []

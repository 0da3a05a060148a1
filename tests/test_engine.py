"""The embedded engine: the example's process runs on SpiffWorkflow with seams' conditions,
the generated decisions and the handlers in the sandbox; what it cannot run is refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import copy_example, edit

from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_runtime.engine import EngineRefused, run_instance

# what a recorded propose of record_leave writes (README walkthrough); the example ships without it
RECORD_LEAVE = '''"""Record leave: book the approved days and keep the booking reference."""


def handle(inputs, bindings):
    return {"booking_ref": bindings.calendar(inputs["employee"], inputs["leave_type"], inputs["days"])}
'''

SUBMIT = {"employee": "ana", "leave_type": "annual", "start_date": "2026-03-02"}
REPLIES = {"balances": 12.5, "calendar": "BK-1042"}


@pytest.fixture
def leave(tmp_path: Path) -> Path:
    root = copy_example(tmp_path)
    (root / "handlers" / "record_leave.py").write_text(RECORD_LEAVE, encoding="utf-8")
    return root


def run(root: Path, days: int, approved: bool = True, **kwargs):
    project = load_project(root)
    model = load_model(project)
    data = {"Task_Submit": {**SUBMIT, "days": days}, "Task_ManagerReview": {"approved": approved},
            "Task_HRReview": {}}
    steps = []
    result = run_instance(project, model, "Process_LeaveRequest", given={},
                          user_task_data=lambda info: data[info.element_id], replies=REPLIES,
                          on_step=steps.append, **kwargs)
    return result, steps


def test_short_annual_leave_is_booked_without_review(leave: Path) -> None:
    result, steps = run(leave, 3)
    assert result.error is None
    assert result.end_event == "EndEvent_Done"
    assert result.flows == ["Flow_1", "Flow_2", "Flow_3", "Flow_4", "Flow_Auto", "Flow_6", "Flow_Done"]
    assert result.elements == ["StartEvent_1", "Task_Submit", "Task_CheckBalance", "Task_ApprovalLevel",
                               "Gateway_Approval", "Task_RecordLeave", "Gateway_Escalate", "EndEvent_Done"]
    assert result.decisions == {"Decision_ApprovalLevel": ["Rule_ShortAnnual"]}
    assert result.variables["approval"] == "auto" and result.variables["booking_ref"] == "BK-1042"
    assert [s.kind for s in steps][:4] == ["startEvent", "userTask", "serviceTask", "businessRuleTask"]
    assert steps[2].outputs == {"balance_left": 12.5}


def test_rejected_and_escalated_paths(leave: Path) -> None:
    rejected, _ = run(leave, 10, approved=False)
    assert (rejected.end_event, rejected.flows[-2:]) == ("EndEvent_Rejected", ["Flow_5", "Flow_Rejected"])
    long, _ = run(leave, 25)
    assert long.end_event == "EndEvent_Done" and long.flows[-3:] == ["Flow_6", "Flow_HR", "Flow_7"]


def test_a_handler_error_stops_the_run_at_its_task(leave: Path) -> None:
    edit(leave / "handlers" / "check_balance.py", 'return {"balance_left"', 'return {"balance"')
    result, _ = run(leave, 3)
    assert result.error_element == "Task_CheckBalance"
    assert "declared output(s) missing: balance_left" in (result.error or "")
    assert result.end_event is None and result.elements[-1] == "Task_Submit"


def test_a_form_refuses_what_a_user_task_submits(leave: Path) -> None:
    result, _ = run(leave, 99)
    assert result.error_element == "Task_Submit"
    assert "'days'" in (result.error or "") and "60" in (result.error or "")


def test_a_boundary_timer_is_refused_naming_it(leave: Path) -> None:
    edit(leave / "model" / "leave.bpmn", '    <bpmn:endEvent id="EndEvent_Rejected"',
         '    <bpmn:boundaryEvent id="Timer_Remind" attachedToRef="Task_ManagerReview">'
         '<bpmn:timerEventDefinition /></bpmn:boundaryEvent>\n    <bpmn:endEvent id="EndEvent_Rejected"')
    with pytest.raises(EngineRefused, match="boundaryEvent Timer_Remind: the embedded engine does not run"):
        run(leave, 3)


def test_a_terminal_can_judge_each_answer_with_the_engine_s_own_form_check(leave: Path) -> None:
    from seams.forms import submitted_problems

    project = load_project(leave)
    model = load_model(project)
    asked = []

    def answer(info):
        asked.append(info)
        if info.element_id != "Task_Submit":
            return {"approved": True}
        assert [f.variable for f in info.fields] == ["employee", "leave_type", "days", "start_date"]
        assert info.fields[1].choices == ("annual", "sick", "unpaid") and info.fields[2].datatype == "integer"
        assert submitted_problems(model, info, {**SUBMIT, "days": 0}) == ["'days': 0 breaks sh:minInclusive 1 (sh:property of ex:LeaveForm)"]
        assert submitted_problems(model, info, {"employee": "ana", "colour": "red"}) == [
            "'colour' is no field of form ex:LeaveForm", "'leave_type' is required by form ex:LeaveForm and missing",
            "'days' is required by form ex:LeaveForm and missing", "'start_date' is required by form ex:LeaveForm and missing"]
        return {**SUBMIT, "days": 8}

    result = run_instance(project, model, "ex:LeaveRequestProcess", user_task_data=answer, replies=REPLIES)
    assert [i.element_id for i in asked] == ["Task_Submit", "Task_ManagerReview"]
    assert asked[1].form == "ex:ReviewForm" and asked[1].variables["approval"] == "manager"
    assert result.end_event == "EndEvent_Done"

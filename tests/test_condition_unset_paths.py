"""`seams check` names a path on which a condition's variable is unset: the shortest from a start
to the gateway (ids in sorted order when paths tie), and counts a form field as set after its
user task only when an answer cannot leave it out (sh:minCount 1) or the form submits its
sh:defaultValue, as `seams run` does (docs/conditions.md)."""

from __future__ import annotations

from pathlib import Path

from helpers import copy_example, edit

from seams.checks.flow import upstream_findings
from seams.model.loading import load_model
from seams.project.layout import load_project

APPROVED = ('sh:path ex:approved ; sh:name "Approved" ; sh:datatype xsd:boolean ;\n'
            "                      sh:minCount 1 ; sh:order 1 ]")
PATH = ("StartEvent_1 -> Task_Submit -> Task_CheckBalance -> Task_ApprovalLevel -> Gateway_Approval -> "
        "Task_ManagerReview -> Gateway_Reviewed")


def _lines(root: Path) -> list[str]:
    return [f.line() for f in upstream_findings(load_model(load_project(root)))]


def test_an_optional_field_without_a_default_leaves_the_gateway_s_variable_unset(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    edit(root / "model" / "model.trig", APPROVED,
         APPROVED.replace("sh:minCount 1 ; ", ""))
    hint = ("the form of Task_ManagerReview may leave it out (an optional field without sh:defaultValue); "
            "expected a sh:defaultValue or sh:minCount 1 on that field, or a seam:writes or decision output "
            "that sets it earlier")
    assert _lines(root) == [
        f'decision Flow_Approved bpmn:conditionExpression: "approved" read by gateway Gateway_Reviewed is not '
        f"set on the path {PATH}; {hint}",
        f'decision Flow_Rejected bpmn:conditionExpression: "approved" read by gateway Gateway_Reviewed is not '
        f"set on the path {PATH}; {hint}",
    ]


def test_a_field_with_a_default_counts_as_set_after_its_user_task(tmp_path: Path) -> None:
    root = copy_example(tmp_path)
    edit(root / "model" / "model.trig", APPROVED,
         APPROVED.replace("sh:minCount 1 ; ", "sh:defaultValue false ; "))
    assert _lines(root) == []


def test_the_path_named_is_the_shortest_and_the_same_every_time(tmp_path: Path) -> None:
    """The gateway after HR review reads a variable only the manager's review sets: of the paths
    that skip it, the auto-approved one (shorter) is named."""
    root = copy_example(tmp_path)
    bpmn = root / "model" / "leave.bpmn"
    edit(bpmn, '<![CDATA[days > 20 or leave_type == "unpaid"]]>', "<![CDATA[days > 20 or approved]]>")
    first = _lines(root)
    assert first == [
        'decision Flow_HR bpmn:conditionExpression: "approved" read by gateway Gateway_Escalate is not set on '
        "the path StartEvent_1 -> Task_Submit -> Task_CheckBalance -> Task_ApprovalLevel -> Gateway_Approval -> "
        "Task_RecordLeave -> Gateway_Escalate; expected a form field, seam:writes or decision output that sets "
        "it earlier"]
    assert _lines(root) == first

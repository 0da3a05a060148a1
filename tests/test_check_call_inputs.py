"""``seams check`` counts what a call activity passes in as set at the called process's start, on
files written in the shapes of the public Camunda 7 and 8 examples (tests/fixtures/call_in):
``camunda:in`` by name and by source expression, ``variables="all"``, Zeebe's default of passing
every variable, ``propagateAllParentVariables="false"`` with a ``zeebe:input`` mapping."""

from __future__ import annotations

from pathlib import Path

from helpers import edit, run_seams

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "call_in"


def _findings(tmp_path: Path, *names: str) -> tuple[Path, list[str]]:
    args = [a for name in names for a in ("--from", str(FIXTURES / name))]
    done = run_seams("init", *args, "project", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    root = tmp_path / "project"
    return root, _check(root)


def _check(root: Path) -> list[str]:
    return [line for line in run_seams("check", "--no-cache", cwd=root).stdout.splitlines()
            if line.startswith("decision ")]


def test_camunda_in_targets_are_set_at_the_called_process_s_start(tmp_path: Path) -> None:
    root, lines = _findings(tmp_path, "intake-c7.bpmn", "check-c7.bpmn")
    assert lines == ['decision Flow_Known bpmn:conditionExpression: reads "urgent" (ex:urgent), which no task of '
                     "ex:invoice-check sets yet; expected it in the seam:writes or the form of the task that sets it"]
    # without the mapping of payee, the called process's condition reads a variable nothing passes
    edit(root / "model" / "intake-c7.bpmn", '<camunda:in sourceExpression="${creditor}" target="payee" />', "")
    assert any('reads "payee" (ex:payee), which no task of ex:invoice-check sets yet' in line
               for line in _check(root))


def test_camunda_in_variables_all_passes_what_is_set_before_the_call(tmp_path: Path) -> None:
    root, _ = _findings(tmp_path, "intake-c7.bpmn", "check-c7.bpmn")
    edit(root / "model" / "intake-c7.bpmn", '<camunda:in source="amount" target="amount" />',
         '<camunda:in variables="all" />')
    lines = _check(root)
    assert not any('"amount"' in line for line in lines)  # set by the start form, so passed
    assert any('"urgent"' in line for line in lines)


def test_a_called_process_no_call_activity_calls_gets_nothing(tmp_path: Path) -> None:
    _, lines = _findings(tmp_path, "check-c7.bpmn")
    assert [line.split(":")[0] for line in lines] == ["decision Flow_Known bpmn", "decision Flow_Known bpmn",
                                                      "decision Flow_Large bpmn"]


def test_zeebe_passes_every_variable_unless_told_not_to_and_every_caller_must_pass_it(tmp_path: Path) -> None:
    root, lines = _findings(tmp_path, "dispatch-c8.bpmn")
    # Call_All passes express and parcel; Call_Some only parcel: express is not set on every call
    assert lines == ['decision Flow_Express bpmn:conditionExpression: reads "express" (ex:express), which no task '
                     "of ex:ship sets yet; expected it in the seam:writes or the form of the task that sets it"]
    edit(root / "model" / "dispatch-c8.bpmn", ' propagateAllParentVariables="false"', "")
    assert _check(root) == []

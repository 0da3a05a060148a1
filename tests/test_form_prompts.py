"""A user task's form at the terminal: prompts from seams.forms.form_fields, typed answers read
as the field's datatype and judged by seams.forms.form_problems (the engine's own check)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from helpers import EXAMPLE

from seams.forms import form_fields, submitted
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.runs import FormField
from seams_cli.form_prompts import answer, prompt, read_typed


@pytest.fixture(scope="module")
def model():
    return load_model(load_project(EXAMPLE))


def _task(model, element_id):
    return next(t for t in model.view.tasks.values() if t.element_id == element_id)


def _fields(model, element_id):
    return {f.variable: f for f in form_fields(model, _task(model, element_id))}


def test_prompts_follow_the_form_in_sh_order(model):
    assert [prompt(f) for f in _fields(model, "Task_Submit").values()] == [
        "Employee (string, required)",
        "Leave type (one of annual, sick, unpaid, required)",
        "Days (integer, required)",
        "Start date (date YYYY-MM-DD, required)",
    ]
    assert [prompt(f) for f in _fields(model, "Task_ManagerReview").values()] == [
        "Approved (boolean, required)", "Note (string, optional, empty to skip)"]
    assert _fields(model, "Task_HRReview") == {}  # a user task without seam:form asks nothing


@pytest.mark.parametrize(("field", "text", "value"), [
    ("days", " 12 ", 12), ("start_date", "2024-02-29", date(2024, 2, 29)),
    ("employee", "ana", "ana"), ("leave_type", "sick", "sick"),
])
def test_a_valid_typed_answer_becomes_the_process_value(model, field, text, value):
    assert answer(model, _task(model, "Task_Submit"), _fields(model, "Task_Submit")[field], text) == (value, None)


@pytest.mark.parametrize(("field", "text", "reason"), [
    ("days", "twelve", "'twelve' is not an xsd:integer"),
    ("days", "61", "61 breaks sh:maxInclusive 60 (sh:property of ex:LeaveForm)"),
    ("days", "0", "0 breaks sh:minInclusive 1 (sh:property of ex:LeaveForm)"),
    ("days", "", "required"),
    ("start_date", "2023-02-29", "'2023-02-29' is not an xsd:date (YYYY-MM-DD)"),
    ("employee", "Ana", "'Ana' does not match '^[a-z][a-z0-9_]*$' (sh:property of ex:LeaveForm)"),
    ("leave_type", "holiday", "'holiday' is not one of 'annual', 'sick', 'unpaid' (sh:property of ex:LeaveForm)"),
])
def test_an_invalid_typed_answer_gets_one_reason(model, field, text, reason):
    assert answer(model, _task(model, "Task_Submit"), _fields(model, "Task_Submit")[field], text) == (None, reason)


def test_booleans_and_optional_fields(model):
    task, fields = _task(model, "Task_ManagerReview"), _fields(model, "Task_ManagerReview")
    assert answer(model, task, fields["approved"], "yes") == (True, None)
    assert answer(model, task, fields["approved"], "False") == (False, None)
    assert answer(model, task, fields["approved"], "maybe")[1] == "'maybe' is not an xsd:boolean (true/false, yes/no or y/n)"
    assert answer(model, task, fields["review_note"], "") == (None, None)
    assert answer(model, task, fields["review_note"], "x" * 501)[1].endswith(
        "is longer than 500 (sh:property of ex:ReviewForm)")


def test_json_answers_are_judged_by_the_form_and_typed(model):
    task = _task(model, "Task_Submit")
    fields = tuple(_fields(model, "Task_Submit").values())
    data = {"employee": "ana", "leave_type": "annual", "days": 3, "start_date": "2024-01-02"}
    assert submitted(model, task, fields, data, "task Task_Submit") == {**data, "start_date": date(2024, 1, 2)}
    with pytest.raises(ValueError, match=r"^task Task_Submit: 'days': 99 breaks sh:maxInclusive 60"):
        submitted(model, task, fields, {**data, "days": 99}, "task Task_Submit")
    with pytest.raises(ValueError, match=r"^task Task_Submit: 'days': '3' is not an xsd:integer$"):
        submitted(model, task, fields, {**data, "days": "3"}, "task Task_Submit")
    with pytest.raises(ValueError, match=r"^task Task_Submit: 'start_date' is required by form ex:LeaveForm"):
        submitted(model, task, fields, {k: v for k, v in data.items() if k != "start_date"}, "task Task_Submit")
    with pytest.raises(ValueError, match=r"^task Task_Submit: 'age' is no field of form ex:LeaveForm$"):
        submitted(model, task, fields, {**data, "age": 3}, "task Task_Submit")
    with pytest.raises(ValueError, match=r"expected a JSON object of field values by variable name"):
        submitted(model, task, fields, [1], "task Task_Submit")


def test_decimals_are_read_exactly():
    assert read_typed("12.50", "decimal") == (Decimal("12.50"), None)
    assert read_typed("nan", "decimal") == (None, "'nan' is not an xsd:decimal")
    assert read_typed("1e400", "decimal")[0] == Decimal("1e400")
    assert prompt(FormField(variable="rate", label=None, datatype="decimal", required=False)) == \
        "rate (decimal, optional, empty to skip)"

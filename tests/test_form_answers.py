"""A user task's form as questions; typed and JSON answers judged by the form's SHACL fields."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from helpers import EXAMPLE

from seams.checks.form_answers import answer, form_data, form_questions
from seams.model.loading import load_model
from seams.project.layout import load_project


@pytest.fixture(scope="module")
def model():
    return load_model(load_project(EXAMPLE))


def _questions(model, element_id):
    task = next(t for t in model.view.tasks.values() if t.element_id == element_id)
    return {q.name: q for q in form_questions(model, task)}


def test_questions_follow_the_form_in_sh_order(model):
    submit = _questions(model, "Task_Submit")
    assert [q.prompt() for q in submit.values()] == [
        "Employee (string, required)",
        "Leave type (one of annual, sick, unpaid, required)",
        "Days (integer, required)",
        "Start date (date YYYY-MM-DD, required)",
    ]
    review = _questions(model, "Task_ManagerReview")
    assert [q.prompt() for q in review.values()] == ["Approved (boolean, required)",
                                                     "Note (string, optional, empty to skip)"]
    assert _questions(model, "Task_HRReview") == {}  # a user task without seam:form asks nothing


@pytest.mark.parametrize(("field", "text", "value"), [
    ("days", " 12 ", 12), ("start_date", "2024-02-29", date(2024, 2, 29)),
    ("employee", "ana", "ana"), ("leave_type", "sick", "sick"),
])
def test_a_valid_typed_answer_becomes_the_process_value(model, field, text, value):
    assert answer(text, _questions(model, "Task_Submit")[field]) == (value, None)


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
    assert answer(text, _questions(model, "Task_Submit")[field]) == (None, reason)


def test_booleans_and_optional_fields(model):
    review = _questions(model, "Task_ManagerReview")
    assert answer("yes", review["approved"]) == (True, None)
    assert answer("False", review["approved"]) == (False, None)
    assert answer("maybe", review["approved"])[1] == "'maybe' is not an xsd:boolean (true or false)"
    assert answer("", review["review_note"]) == (None, None)
    assert answer("x" * 501, review["review_note"])[1].endswith("is longer than 500 (sh:property of ex:ReviewForm)")


def test_json_answers_are_checked_and_typed(model):
    questions = list(_questions(model, "Task_Submit").values())
    data = {"employee": "ana", "leave_type": "annual", "days": 3, "start_date": "2024-01-02"}
    assert form_data(questions, data, "task Task_Submit") == {**data, "start_date": date(2024, 1, 2)}
    with pytest.raises(ValueError, match=r"^task Task_Submit: field 'days': 99 breaks sh:maxInclusive 60"):
        form_data(questions, {**data, "days": 99}, "task Task_Submit")
    with pytest.raises(ValueError, match=r"^task Task_Submit: field 'days': '3' is not an xsd:integer$"):
        form_data(questions, {**data, "days": "3"}, "task Task_Submit")
    with pytest.raises(ValueError, match=r"^task Task_Submit: field 'start_date' is required$"):
        form_data(questions, {k: v for k, v in data.items() if k != "start_date"}, "task Task_Submit")
    with pytest.raises(ValueError, match=r"'age' is no field of the task's form \(fields: employee, "):
        form_data(questions, {**data, "age": 3}, "task Task_Submit")
    with pytest.raises(ValueError, match=r"expected a JSON object of field values, got \[1\]"):
        form_data(questions, [1], "task Task_Submit")


def test_a_decimal_answer_is_exact(model):
    from seams.checks.form_answers import Question

    question = Question(name="rate", label="Rate", datatype="decimal", allowed=None, required=True,
                        rule={"shape": "ex:F", "datatype": "decimal", "minInclusive": 0})
    assert answer("12.50", question) == (Decimal("12.50"), None)
    assert answer("nan", question)[1] == "'nan' is not an xsd:decimal"
    assert answer("-1", question)[1] == "-1 breaks sh:minInclusive 0 (sh:property of ex:F)"

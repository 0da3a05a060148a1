"""Acceptance as pytest source, and the runtime checks the items and the source share."""

from __future__ import annotations

import shutil
from datetime import date
from decimal import Decimal
from pathlib import Path

import importlib_metadata  # noqa: F401  before any in-process run; see test_plugin_items.py
import pytest
from helpers import EXAMPLE

import pytest_seams.collect  # noqa: F401
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_runtime.acceptance_source import acceptance_source
from seams_runtime.handler_checks import Bindings, Inputs, constraint_problems, datatype_problem, same

pytest_plugins = ["pytester"]

QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-W", "ignore::DeprecationWarning")
GOOD = ("def handle(inputs, bindings):\n"
        "    return {'booking_ref': bindings.calendar(inputs['employee'], inputs['leave_type'], inputs['days'])}\n")
BAD = ("def handle(inputs, bindings):\n"
       "    inputs.get('start_date')\n"
       "    ref = bindings.calendar(inputs['employee'], inputs['leave_type'], inputs['days'])\n"
       "    return {'booking_ref': ref, 'days_left': 3}\n")


def copy_project(target: Path) -> Path:
    shutil.copytree(EXAMPLE, target, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".seams", "generated"))
    return target


def source_of(root: Path, task: str) -> str:
    project = load_project(root)
    return acceptance_source(project, load_model(project), task)


def test_source_is_deterministic_and_independent_of_where_the_project_is(tmp_path):
    text = source_of(copy_project(tmp_path / "a"), "record_leave")
    assert text == source_of(tmp_path / "a", "https://example.org/leave/RecordLeave")
    assert text == source_of(copy_project(tmp_path / "elsewhere" / "b"), "Task_RecordLeave")
    assert str(tmp_path) not in text
    compile(text, "test_c2.py", "exec")
    assert "MODULE = 'handlers.record_leave'" in text and "BINDINGS = ('calendar',)" in text


def test_rendered_module_is_runnable_pytest_that_judges_the_handler(pytester):
    root = copy_project(pytester.path)
    (root / "test_c2.py").write_text(source_of(root, "record_leave"), encoding="utf-8")
    names = ["test_import", "test_example_annual_leave_is_booked",
             "test_example_unpaid_leave_is_booked", "test_contract"]

    missing = pytester.runpytest("test_c2.py", *QUIET)
    missing.assert_outcomes(failed=4)
    missing.stdout.fnmatch_lines(["*handler module handlers.record_leave not found (handlers/record_leave.py)*"])

    (root / "handlers" / "record_leave.py").write_text(GOOD, encoding="utf-8")
    good = pytester.runpytest("test_c2.py", "-v", *QUIET)
    good.assert_outcomes(passed=4)
    good.stdout.fnmatch_lines([f"test_c2.py::{name} PASSED*" for name in names])

    (root / "handlers" / "record_leave.py").write_text(BAD, encoding="utf-8")
    bad = pytester.runpytest("test_c2.py", *QUIET)
    bad.assert_outcomes(passed=3, failed=1)
    bad.stdout.fnmatch_lines([
        "*seam:reads: example 'annual leave is booked': read input 'start_date', which the task does not declare*",
        "*seam:writes: example 'annual leave is booked': undeclared output(s) returned: days_left*",
    ])


def test_each_item_renders_the_function_the_module_holds(pytester):
    root = copy_project(pytester.path)
    items = pytester.inline_genitems(*QUIET, "--seams-only", "check_balance")[0]
    text = source_of(root, "check_balance")
    assert [item.name for item in items] == ["import", "example[annual leave left]",
                                             "example[no sick days left]", "contract"]
    for item in items:
        function = item.as_pytest_source()
        assert function.startswith("def test_") and function in text


@pytest.mark.parametrize(("actual", "expected", "equal"), [
    (Decimal("12.5"), 12.5, True), (0, 0.0, True), (Decimal("0.1"), 0.1, True), (Decimal("0.1"), 0.2, False),
    (1, True, False), (True, True, True), (False, 0, False), ("2024-01-31", date(2024, 1, 31), True),
    ({"a": [1, 2.0]}, {"a": [1.0, Decimal(2)]}, True), ({"a": 1}, {"a": 1, "b": 2}, False),
    ("1", 1, False), (None, None, True), (None, 0, False), (float("nan"), float("nan"), False),
])
def test_values_compare_json_like(actual, expected, equal):
    assert same(actual, expected) is equal
    assert same(expected, actual) is equal


@pytest.mark.parametrize(("value", "datatype", "ok"), [
    (1, "integer", True), (1.0, "integer", False), (True, "integer", False), (Decimal("2.5"), "decimal", True),
    (float("inf"), "decimal", False), (False, "decimal", False), ("2024-02-29", "date", True),
    ("2024-02-30", "date", False), (date(2024, 1, 1), "date", True), (0, "boolean", False),
    (None, "string", False), ("x", "string", True),
])
def test_datatypes(value, datatype, ok):
    assert (datatype_problem(value, datatype) is None) is ok


@pytest.mark.parametrize(("rule", "value", "predicates"), [
    ({"in": ("annual", "sick")}, "sick", []),
    ({"in": ("annual", "sick")}, "unpaid", ["sh:in"]),
    ({"maxLength": 3}, "abcd", ["sh:maxLength"]),
    ({"minLength": 2, "pattern": "^BK-[0-9]+$"}, "BK-1", []),
    ({"pattern": "^BK-[0-9]+$"}, "bk-1", ["sh:pattern"]),
    ({"minExclusive": 0}, 0, ["sh:minExclusive"]),
    ({"minExclusive": 0, "maxInclusive": Decimal("1.5")}, Decimal("1.5"), []),
    ({"maxInclusive": date(2024, 12, 31)}, "2025-01-01", ["sh:maxInclusive"]),
    ({"minInclusive": 1}, "5", ["sh:minInclusive"]),
    ({"datatype": "integer"}, 2.5, ["sh:datatype"]),
])
def test_form_field_constraints(rule, value, predicates):
    problems = constraint_problems(value, {"shape": "ex:S", **rule})
    assert [p for p, _ in problems] == predicates
    assert all(message.endswith("(sh:property of ex:S)") for _, message in problems)


def test_inputs_record_every_undeclared_read_even_when_caught():
    given = {"a": [1], "b": 2}
    inputs = Inputs(given, ["a", "c"])
    assert list(inputs) == ["a"] and dict(inputs) == {"a": [1]}
    assert "b" not in inputs and inputs.get("b") is None
    with pytest.raises(KeyError, match="'d' is not an input of this task"):
        inputs["d"]
    with pytest.raises(KeyError):
        inputs["c"]  # declared but not given
    inputs["a"].append(2)
    assert given["a"] == [1]
    assert inputs.undeclared == ["b", "b", "d"]


def test_bindings_answer_with_copies_of_the_replies_and_record_undeclared_names():
    replies = {"calendar": {"ref": ["BK-1"]}}
    bindings = Bindings(["calendar", "mail"], replies)
    answer = bindings.calendar("ana", days=3)
    answer["ref"].append("changed")
    assert bindings.calendar() == {"ref": ["BK-1"]}
    with pytest.raises(LookupError, match=r"called mail\(\), which the example's seam:replies does not mention"):
        bindings.mail()
    with pytest.raises(AttributeError, match="'payroll' is not a binding of this task"):
        _ = bindings.payroll
    assert bindings.undeclared == ["payroll"]
    assert bindings.wrong_calls == ["called mail(), which the example's seam:replies does not mention"]

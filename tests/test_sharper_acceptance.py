"""Acceptance beyond the shown examples: generated inputs, held-out examples, checked binding calls.

A handler that only knows the examples its prompt showed (a table of their
answers, or a default beside them) fails the contract on generated inputs or
a held-out example; a handler that calls a binding with the wrong argument,
with none, or calls one its example does not mention fails with a line
naming the binding, the example and the call. Through ``seams propose`` (fake
providers, tests/fixtures/providers/fake.py) and through plain pytest on the
project. The correct handlers of the bundled examples still pass.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from helpers import EXAMPLE, copy_example, edit

from pytest_seams.generated_inputs import contract_on_generated_inputs, value_strategy
from seams.lang.field_values import constraint_problems
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_cli.main import main
from seams_runtime.handler_checks import Bindings
from seams_runtime.task_specs import task_specs

pytest_plugins = ["pytester"]
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-W", "ignore::DeprecationWarning")
FAKE = Path(__file__).parent / "fixtures" / "providers" / "fake.py"
TRIG = Path("model") / "model.trig"
ITEM = "seams.toml::record_leave::"
HELD_OUT = ('''            seam:expect """{"booking_ref": "BK-2001"}"""^^rdf:JSON
        ] .''', '''            seam:expect """{"booking_ref": "BK-2001"}"""^^rdf:JSON
        ], [
            rdfs:label "one sick day is booked" ;
            seam:heldOut true ;
            seam:given """{"employee": "cy", "days": 1, "leave_type": "sick"}"""^^rdf:JSON ;
            seam:replies """{"calendar": "BK-3003"}"""^^rdf:JSON ;
            seam:expect """{"booking_ref": "BK-3003"}"""^^rdf:JSON
        ] .''')


def fake(mode: str) -> str:
    return shlex.join([sys.executable, str(FAKE), mode])


@pytest.fixture
def propose(capsys, monkeypatch):
    monkeypatch.delenv("SEAMS_MODEL", raising=False)

    def run(root: Path, mode: str) -> tuple[int, list[str]]:
        code = main(["propose", "record_leave", "--provider", fake(mode), "--project", str(root)])
        return code, capsys.readouterr().out.splitlines()

    return run


def failed(lines: list[str]) -> dict[str, str]:
    """item name -> why, of each ``failed seams.toml::record_leave::<item>: <why>`` line."""
    prefix = "failed " + ITEM
    return dict(line.removeprefix(prefix).split(": ", 1) for line in lines if line.startswith(prefix))


# ---------------------------------------------------------------- through seams propose


def test_a_table_of_the_shown_examples_fails_the_generated_contract_and_a_held_out_example(tmp_path, propose):
    root = copy_example(tmp_path)
    code, lines = propose(root, "lookup")
    assert code == 1
    assert list(failed(lines)) == ["contract"], lines  # both visible examples pass
    why = failed(lines)["contract"]
    assert why.startswith("generated input (days=1, employee="), why  # the input, shrunk, in the line
    assert "handle raised KeyError" in why

    edit(root / TRIG, *HELD_OUT)
    code, lines = propose(root, "lookup")
    assert (code, list(failed(lines))) == (1, ["example[one sick day is booked]", "contract"]), lines


def test_a_default_beside_the_shown_examples_passes_the_contract_but_fails_a_held_out_example(tmp_path, propose):
    root = copy_example(tmp_path)
    edit(root / TRIG, *HELD_OUT)
    code, lines = propose(root, "defaulted")
    assert code == 1
    assert failed(lines) == {"example[one sick day is booked]":
                             "example 'one sick day is booked': output 'booking_ref' is 'BK-1', expected 'BK-3003'"}


def test_the_correct_handler_passes_with_a_held_out_example_and_generated_inputs(tmp_path, propose):
    root = copy_example(tmp_path)
    edit(root / TRIG, *HELD_OUT)
    code, lines = propose(root, "good")
    assert (code, lines[-2:]) == (0, ["tests passed", "wrote handlers/record_leave.py"]), lines


@pytest.mark.parametrize(("mode", "why"), [
    ("wrong-argument", "example 'unpaid leave is booked': called calendar('ben', 'annual', 25): leave_type is "
                       "'annual', expected 'unpaid' (the input 'leave_type')"),
    ("no-argument", "example 'annual leave is booked': called calendar() without employee (expected 'ana', "
                    "the input 'employee')"),
    ("other-binding", "example 'annual leave is booked': called balances('ana', 'annual'), which the "
                      "example's seam:replies does not mention"),
])
def test_a_call_the_example_does_not_expect_names_the_binding_the_example_and_the_call(tmp_path, propose,
                                                                                        mode, why):
    root = copy_example(tmp_path)
    if mode == "other-binding":
        edit(root / TRIG, "        seam:uses ex:Calendar ;", "        seam:uses ex:Calendar, ex:Balances ;")
    code, lines = propose(root, mode)
    assert code == 1
    reasons = failed(lines)
    assert why in reasons.values(), lines
    assert not (root / "handlers" / "record_leave.py").exists()


# ---------------------------------------------------------------- through plain pytest


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".seams", "generated"))
    return pytester.path


def run_record_leave(pytester, root: Path, body: str) -> dict[str, list[str]]:
    """item name -> the lines of its failure (none when it passed)."""
    (root / "handlers" / "record_leave.py").write_text(body, encoding="utf-8")
    reprec = pytester.inline_run(*QUIET, "--seams-only", "record_leave")
    reports = [r for r in reprec.getreports("pytest_runtest_logreport") if r.when == "call"]
    assert len(reports) >= 4
    return {r.nodeid.removeprefix(ITEM): r.longreprtext.splitlines() for r in reports}


GOOD = ("def handle(inputs, bindings):\n"
        "    return {'booking_ref': bindings.calendar(inputs['employee'], inputs['leave_type'], inputs['days'])}\n")
KEYWORDS = ("def handle(inputs, bindings):\n"
            "    return {'booking_ref': bindings.calendar(days=inputs['days'], employee=inputs['employee'],\n"
            "                                             leave_type=inputs['leave_type'])}\n")
PINNED = ('seam:replies """{"calendar": "BK-1042"}"""^^rdf:JSON',
          'seam:replies """{"calendar": [{"args": ["ana", "annual", 3], "reply": "BK-1042"}]}"""'
          '^^rdf:JSON')


def test_plain_pytest_judges_calls_and_generated_inputs_alike(pytester, project):
    results = run_record_leave(pytester, project, GOOD)
    assert all(not lines for lines in results.values()), results
    results = run_record_leave(pytester, project, (
        "ANSWERS = {('ana', 'annual', 3): 'BK-1042', ('ben', 'unpaid', 25): 'BK-2001'}\n\n\n"
        "def handle(inputs, bindings):\n"
        "    return {'booking_ref': ANSWERS[inputs['employee'], inputs['leave_type'], inputs['days']]}\n"))
    assert [name for name, lines in results.items() if lines] == ["contract"]
    first, *detail = results["contract"]
    assert first.startswith("contract ex:RecordLeave seam:writes: generated input (days=1, employee="), first
    assert "the failing generated input (shrunk; the same every run):" in detail
    # the same failing input on a second run: the seed is fixed
    again = run_record_leave(pytester, project, (project / "handlers" / "record_leave.py").read_text())
    assert again["contract"][0] == first


def test_pinned_replies_expect_the_arguments_whatever_way_they_are_passed(pytester, project):
    edit(project / TRIG, *PINNED)
    results = run_record_leave(pytester, project, KEYWORDS)
    assert all(not lines for lines in results.values()), results
    results = run_record_leave(pytester, project, (
        "def handle(inputs, bindings):\n"
        "    return {'booking_ref': bindings.calendar(inputs['employee'], inputs['leave_type'], 4)}\n"))
    assert results["example[annual leave is booked]"][0] == (
        "example ex:RecordLeave seam:replies: example 'annual leave is booked': called calendar('ana', 'annual', 4), "
        "which no entry of seam:replies expects (expected: calendar('ana', 'annual', 3))")
    results = run_record_leave(pytester, project, "def handle(inputs, bindings):\n    return {'booking_ref': 'BK-1042'}\n")
    assert results["example[annual leave is booked]"][0] == (
        "example ex:RecordLeave seam:replies: example 'annual leave is booked': never called "
        "calendar('ana', 'annual', 3), which seam:replies expects")


def test_the_bundled_examples_correct_handlers_pass(tmp_path):
    """examples/leave (check_balance, and record_leave as recorded), leave-c7 and leave-c8: the items
    of every handler they ship pass, generated inputs included."""
    from pytest_seams.runner import run_session

    for name in ("leave", "leave-c7", "leave-c8"):
        root = copy_example(tmp_path, name)
        handlers = sorted(p.stem for p in (root / "handlers").glob("*.py") if p.stem != "__init__")
        if name == "leave":
            (root / "handlers" / "record_leave.py").write_text(GOOD, encoding="utf-8")
            handlers.append("record_leave")
        for handler in handlers:
            result = run_session(root, select=handler, timeout=120)
            names = [item.name for item in result.items]
            assert f"seams.toml::{handler}::contract" in names, (name, handler, result.error)
            assert [i.name for i in result.failures()] == [], (name, handler, [i.text for i in result.failures()])


# ---------------------------------------------------------------- the parts, in-process


def _spec(root: Path, handler: str):
    project = load_project(root)
    ((_, spec),) = task_specs(project, load_model(project), handler)
    return spec


def test_generated_inputs_keep_every_form_field_and_repeat_run_to_run(tmp_path):
    spec = _spec(copy_example(tmp_path), "record_leave")
    seen: list[tuple] = []

    def handle(inputs, bindings):
        seen.append((dict(inputs), bindings.calendar(inputs["employee"], inputs["leave_type"], inputs["days"])))
        return {"booking_ref": seen[-1][1]}

    assert contract_on_generated_inputs(handle, spec) == ([], "")
    first, seen[:] = list(seen), []
    assert contract_on_generated_inputs(handle, spec) == ([], "")
    assert seen == first and len(first) == spec.generated_cases == 25
    for given, reply in first:
        assert given["leave_type"] in ("annual", "sick", "unpaid") and 1 <= given["days"] <= 60
        assert re.search("^[a-z][a-z0-9_]*$", given["employee"])
        assert re.search("^BK-[0-9]+$", reply)  # seam:result ex:bookingRef: the booking shape's pattern


def test_value_strategies_meet_bounds_patterns_lengths_and_datatypes():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    rules = [("decimal", ({"shape": "s", "minExclusive": Decimal("0"), "maxInclusive": Decimal("9.5")},)),
             ("integer", ({"shape": "s", "minExclusive": 1, "maxExclusive": 4},)),
             ("string", ({"shape": "s", "minLength": 2, "maxLength": 3},)),
             ("string", ({"shape": "s", "pattern": "^P-[0-9]{3}$"},)),
             ("date", ({"shape": "s", "minInclusive": date(2024, 1, 1), "maxInclusive": date(2024, 1, 31)},)),
             ("boolean", ())]

    @settings(max_examples=30, derandomize=True, database=None)
    @given(st.tuples(*(value_strategy(datatype, rule) for datatype, rule in rules)))
    def check(values):
        for value, (datatype, rule) in zip(values, rules):
            assert not constraint_problems(value, {**rule[0], "datatype": datatype} if rule else
                                           {"shape": "s", "datatype": datatype}), (value, datatype)

    check()


def test_a_binding_with_no_declared_result_answers_with_its_examples_replies(tmp_path):
    root = copy_example(tmp_path)
    edit(root / TRIG, "        seam:result ex:bookingRef .", "        .")
    spec = _spec(root, "record_leave")
    replies: set = set()

    def handle(inputs, bindings):
        replies.add(bindings.calendar(inputs["employee"], inputs["leave_type"], inputs["days"]))
        return {"booking_ref": "BK-1"}

    assert contract_on_generated_inputs(handle, spec) == ([], "")
    assert replies == {"BK-1042", "BK-2001"}


def test_bindings_fake_checks_calls_against_the_signature_and_the_entries():
    signatures = {"calendar": (("employee", "employee"), ("leave_type", None))}
    fakes = Bindings(["calendar"], {"calendar": "BK-1"}, signatures, {"employee": "ana"})
    assert fakes.calendar("ana", "sick") == "BK-1"
    assert fakes.calendar(leave_type="x", employee="ana") == "BK-1"
    with pytest.raises(LookupError):
        fakes.calendar("ana", "sick", 3)
    assert fakes.wrong_calls == ["called calendar('ana', 'sick', 3), but calendar takes (employee, leave_type)"]
    entries = [{"args": ["ana"], "kwargs": {"leave_type": "sick"}, "reply": "BK-2"}, {"args": ["bo", "x"], "reply": 1}]
    fakes = Bindings(["calendar"], {"calendar": entries}, signatures, {"employee": "ana"})
    assert fakes.calendar(employee="ana", leave_type="sick") == "BK-2"
    assert fakes.unused() == ["calendar('bo', 'x')"]


def test_seams_check_names_reply_entries_that_cannot_match(tmp_path):
    from seams.checks.examples import example_findings

    root = copy_example(tmp_path)
    edit(root / TRIG, 'seam:replies """{"calendar": "BK-1042"}"""^^rdf:JSON',
         'seam:replies """{"calendar": [{"args": ["ana", "annual", 3, 4], "reply": "BK-1"}, '
         '{"args": ["ana"], "kwargs": {"leave_type": "annual"}, "reply": "BK-2"}, '
         '{"kwargs": {"employee": "ana", "leave_type": "annual"}, "reply": "BK-3"}]}"""'
         '^^rdf:JSON')
    edit(root / TRIG, 'seam:replies """{"calendar": "BK-2001"}"""^^rdf:JSON',
         'seam:replies """{"calendar": [{"arg": ["ben"], "reply": "BK-2001"}]}"""^^rdf:JSON')
    project = load_project(root)
    lines = [f.line() for f in example_findings(load_model(project))]
    assert lines == [
        'shape ex:RecordLeave seam:example: "annual leave is booked": seam:replies "calendar": entry 1: its '
        "arguments do not fit calendar(employee, leave_type, days)",
        'shape ex:RecordLeave seam:example: "annual leave is booked": seam:replies "calendar": entry 3 expects '
        "the same call as an earlier one",
        'shape ex:RecordLeave seam:example: "unpaid leave is booked": seam:replies "calendar": an entry has '
        "'arg'; a reply entry has only args, kwargs and reply (as it is, the list is one reply)",
    ], lines


@pytest.mark.parametrize(("value", "message"), [
    ("-1", "acceptance.generated_cases must be a whole number from 0 to 10000, not -1"),
    ('"25"', "acceptance.generated_cases has the wrong type (str)"),
    ("true", "acceptance.generated_cases has the wrong type (bool)"),
])
def test_the_number_of_generated_inputs_is_checked_in_the_config(tmp_path, value, message):
    from seams.errors import ProjectError

    root = copy_example(tmp_path)
    (root / "seams.toml").write_text((root / "seams.toml").read_text() + f"\n[acceptance]\ngenerated_cases = {value}\n")
    with pytest.raises(ProjectError, match=re.escape(message)):
        load_project(root)


def test_no_generated_inputs_when_turned_off(tmp_path):
    root = copy_example(tmp_path)
    (root / "seams.toml").write_text((root / "seams.toml").read_text() + "\n[acceptance]\ngenerated_cases = 0\n")
    spec = _spec(root, "record_leave")
    assert spec.generated_cases == 0
    assert contract_on_generated_inputs(lambda inputs, bindings: None, spec) == ([], "")

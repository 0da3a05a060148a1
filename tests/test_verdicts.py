"""The one verdict mapper: one walk over a session's reports, three wordings as data.

The commands' own tests pin each command's lines end to end; these pin the
places where the three wordings differ, on one hand-made session, so a change
to the shared walk that moves a line of one command shows here by name.
"""

from __future__ import annotations

import pytest

from pytest_seams.runner import ItemResult, SessionResult
from seams.errors import GeneratorError
from seams.findings import Finding
from seams_cli.verdicts import gate_verdicts, golden_lines, propose_lines

ROOT = "/tmp/seams-scratch-x"
FINDING = Finding("shape", "ex:Leave", "ex:days", "must be at least 1")


def session(*items: ItemResult, error: str | None = None, timed_out: bool = False) -> SessionResult:
    return SessionResult(list(items), timed_out, 1, error)


def item(name: str, outcome: str, *, gate: str = "test", findings: tuple[Finding, ...] = (),
         text: str = "") -> ItemResult:
    return ItemResult(name, name, gate, outcome, list(findings), text)


MIXED = session(item("other", "failed", text=f"E   assert 1\n{ROOT}/h.py:3: AssertionError\n"),
                item("a", "skipped", text="skipped: no executor"),
                item("b", "failed", findings=(FINDING,)),
                item("unexpected-skip", "skipped", text="skipped"))


def test_propose_says_failures_in_session_order_then_what_was_skipped_or_never_ran():
    assert propose_lines(MIXED, ["a", "b", "c"], scratch_root=ROOT, module="handlers/h.py") == [
        "failed other: E   assert 1",
        "failed b: must be at least 1",
        "failed a: was skipped",
        "failed c: did not run",
    ]


def test_golden_says_expected_items_in_their_order_then_other_failures_then_the_session():
    assert golden_lines(MIXED, ["c", "b", "a"], timeout=2.5) == [
        "c: did not run",
        "b: must be at least 1",
        "a: skipped: no executor",
        "other: E   assert 1",
    ]  # the session completed: no line of its own
    timed_out = session(item("a", "passed"), error="time limit", timed_out=True)
    assert golden_lines(timed_out, ["a"], timeout=2.5) == ["tests: the golden session timed out after 2.5 s"]


def test_golden_scrubs_whole_lines_only_when_given_replacements():
    result = session(item("a", "failed", text=f"{ROOT}/x.py:\x01 broke"))
    assert golden_lines(result, ["a"], timeout=1, replacements={ROOT: "."}) == [
        "a: ./x.py: broke"]
    assert golden_lines(result, ["a"], timeout=1) == [f"a: {ROOT}/x.py:\x01 broke"]


def test_propose_names_the_module_only_when_no_item_says_why():
    died = session(error="the worker died")
    assert propose_lines(died, ["a"], scratch_root=ROOT, module="handlers/h.py") == [
        "failed a: did not run"]
    assert propose_lines(session(item("a", "passed"), error="the worker died"), ["a"], scratch_root=ROOT,
                         module="handlers/h.py") == ["failed handlers/h.py: the worker died"]


def test_gates_say_findings_first_then_items_without_any_by_their_last_line():
    result = session(item("routing-a", "failed", gate="routing", text=f"first\n{ROOT}/m.trig: last line\n"),
                     item("routing-b", "failed", gate="routing", findings=(FINDING,)),
                     item("shapes", "passed", gate="shapes"))
    routing, shapes = gate_verdicts(result, ["routing", "shapes"], scratch_root=ROOT)
    assert routing.lines == (FINDING.line(), "routing routing-a: ./m.trig: last line") and not routing.passed
    assert shapes.passed and shapes.lines == ()
    with pytest.raises(GeneratorError, match="the scratch check ran no generate item"):
        gate_verdicts(result, ["generate"], scratch_root=ROOT)

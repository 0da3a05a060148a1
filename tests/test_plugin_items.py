"""The seams pytest plugin: seams.toml collects the gates; each item passes and fails for real."""

from __future__ import annotations

import shutil
import sys
import types
from pathlib import Path

import importlib_metadata  # noqa: F401  (see below)
import pytest
from helpers import EXAMPLE, edit

import pytest_seams.collect  # noqa: F401  imported once here, so in-process runs do not re-import
import seams.checks.decisions  # noqa: F401
import seams.checks.shapes  # noqa: F401
import seams.generators.generate  # noqa: F401
from pytest_seams.expected import expected_items
from seams.model.loading import load_model
from seams.project.layout import load_project

pytest_plugins = ["pytester"]

# pyshacl imports the importlib_metadata backport, which swaps the stdlib's distribution
# finder for its own on sys.meta_path. Done first inside an in-process pytester run, the
# swap is undone half-way when pytester restores sys.meta_path, and no entry point (this
# plugin's included) is found again. Importing it here does the swap once, for good.

# in-process runs: no cache files, no hypothesis plugin (it imports hypothesis at the end
# of every run, and pytester drops what a run imported), no rdflib deprecation noise
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-W", "ignore::DeprecationWarning")

CHECK_BALANCE = [
    "seams.toml::check_balance::import",
    "seams.toml::check_balance::example[annual leave left]",
    "seams.toml::check_balance::example[no sick days left]",
    "seams.toml::check_balance::contract",
]
RECORD_LEAVE = [
    "seams.toml::record_leave::import",
    "seams.toml::record_leave::example[annual leave is booked]",
    "seams.toml::record_leave::example[unpaid leave is booked]",
    "seams.toml::record_leave::contract",
]

SCENARIOS = [  # by label; only the refusal passes before record_leave is proposed (it never books)
    "seams.toml::scenario[long leave approved by the manager]",
    "seams.toml::scenario[long unpaid leave goes to HR]",
    "seams.toml::scenario[short annual leave is booked at once]",
    "seams.toml::scenario[short sick leave is reviewed]",
    "seams.toml::scenario[the manager refuses the leave]",
]


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """The example project as pytester's directory (pytester runs there)."""
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".seams", "generated"))
    return pytester.path


def write_handler(root: Path, name: str, source: str) -> None:
    (root / "handlers" / f"{name}.py").write_text(source, encoding="utf-8")


def call_reports(reprec) -> dict[str, pytest.TestReport]:
    return {r.nodeid: r for r in reprec.getreports("pytest_runtest_logreport") if r.when == "call"}


def findings(report: pytest.TestReport) -> list[dict]:
    (data,) = [value for name, value in report.user_properties if name == "seams"]
    return data["findings"]


def test_example_project_collects_every_gate_under_stable_names(pytester, project):
    result = pytester.runpytest("--collect-only", "-q", *QUIET)
    collected = [line for line in result.outlines if "::" in line]
    real = load_project(project)
    assert collected == expected_items(real, load_model(real))
    assert collected == ["seams.toml::shapes", "seams.toml::decisions", "seams.toml::generate",
                         *CHECK_BALANCE, *RECORD_LEAVE, *SCENARIOS]


def test_handler_passes_and_missing_module_fails_naming_it(pytester, project):
    reprec = pytester.inline_run(*QUIET)
    reports = call_reports(reprec)
    passed = [n for n, r in reports.items() if r.passed]
    failed = [n for n, r in reports.items() if r.failed]
    assert passed == ["seams.toml::shapes", "seams.toml::decisions", "seams.toml::generate", *CHECK_BALANCE,
                      SCENARIOS[-1]]
    assert failed == RECORD_LEAVE + SCENARIOS[:-1]
    for nodeid in RECORD_LEAVE:
        (finding,) = findings(reports[nodeid])
        assert finding["subject"] == "ex:RecordLeave" and finding["predicate"] == "seam:handler"
        assert "handlers.record_leave not found (handlers/record_leave.py)" in finding["message"]
        assert finding["kind"] == nodeid.rsplit("::", 1)[1].split("[")[0]
    assert findings(reports["seams.toml::check_balance::contract"]) == []
    text = reports["seams.toml::record_leave::import"].longreprtext
    assert text == ("import ex:RecordLeave seam:handler: handler module handlers.record_leave "
                    "not found (handlers/record_leave.py); run seams propose record_leave, or write it from "
                    "its stub (stubs/record_leave.py in the generated directory)")


def test_example_and_contract_name_what_the_body_did_wrong(pytester, project):
    write_handler(project, "record_leave", (
        "def handle(inputs, bindings):\n"
        "    try:\n"
        "        inputs['start_date']\n"
        "    except KeyError:\n"
        "        pass\n"
        "    ref = bindings.calendar(inputs['employee'], inputs['leave_type'], inputs['days'])\n"
        "    if inputs['days'] > 10:\n"
        "        return {'booking_ref': 'XX-' + ref, 'extra': 1}\n"
        "    return {'booking_ref': ref}\n"))
    reprec = pytester.inline_run(*QUIET, "--seams-only", "record_leave")
    reports = call_reports(reprec)
    assert [n for n, r in reports.items() if r.passed] == RECORD_LEAVE[:2]
    (wrong,) = findings(reports[RECORD_LEAVE[2]])
    assert wrong == {"kind": "example", "subject": "ex:RecordLeave", "predicate": "seam:expect",
                     "message": "example 'unpaid leave is booked': output 'booking_ref' is "
                                "'XX-BK-2001', expected 'BK-2001'"}
    contract = findings(reports[RECORD_LEAVE[3]])
    assert [(f["predicate"], f["message"]) for f in contract] == [
        ("seam:reads", "example 'annual leave is booked': read input 'start_date', which the task does not declare"),
        ("seam:reads", "example 'unpaid leave is booked': read input 'start_date', which the task does not declare"),
        ("seam:writes", "example 'unpaid leave is booked': undeclared output(s) returned: extra"),
        ("sh:pattern", "example 'unpaid leave is booked': output 'booking_ref': 'XX-BK-2001' does not "
                       "match '^BK-[0-9]+$' (sh:property of ex:BookingShape)"),
        # the example's rebooking shape constrains booking_ref alike (a merge-shapes candidate)
        ("sh:pattern", "example 'unpaid leave is booked': output 'booking_ref': 'XX-BK-2001' does not "
                       "match '^BK-[0-9]+$' (sh:property of ex:RebookingShape)"),
    ]
    assert reports[RECORD_LEAVE[3]].longreprtext.splitlines()[0] == (
        "contract ex:RecordLeave seam:reads: example 'annual leave is booked': read input "
        "'start_date', which the task does not declare")


@pytest.mark.parametrize(("body", "predicate", "message"), [
    ("return {'balance_left': True}", "seam:datatype", "output 'balance_left': True is not an xsd:decimal"),
    ("return {'balance_left': -1}", "sh:minInclusive",
     "output 'balance_left': -1 breaks sh:minInclusive 0 (sh:property of ex:BookingShape)"),
    ("return {}", "seam:writes", "declared output(s) missing: balance_left"),
    ("return [1]", "seam:writes", "handle returned list, not a mapping"),
    ("bindings.calendar()", "seam:uses", "used binding 'calendar', which the task does not declare"),
])
def test_contract_checks_outputs_and_bindings(pytester, project, body, predicate, message):
    write_handler(project, "check_balance", f"def handle(inputs, bindings):\n    {body}\n")
    reports = call_reports(pytester.inline_run(*QUIET, "--seams-only", "check_balance"))
    contract = findings(reports[CHECK_BALANCE[3]])
    assert (predicate, f"example 'annual leave left': {message}") in [
        (f["predicate"], f["message"]) for f in contract]
    assert reports[CHECK_BALANCE[0]].passed


@pytest.mark.parametrize(("source", "message"), [
    ("raise RuntimeError('boom')\n", "importing handlers.check_balance failed: RuntimeError: boom (check_balance.py:1)"),
    ("import sys\nsys.exit(0)\n", "importing handlers.check_balance failed: SystemExit: 0 (check_balance.py:2)"),
    ("HANDLE = None\n", "handlers/check_balance.py defines no handle(inputs, bindings)"),
])
def test_import_failures_fail_every_item_of_the_task(pytester, project, source, message):
    write_handler(project, "check_balance", source)
    reports = call_reports(pytester.inline_run(*QUIET, "--seams-only", "check_balance"))
    assert [n for n, r in reports.items() if r.failed] == CHECK_BALANCE
    assert [f["message"] for f in findings(reports[CHECK_BALANCE[0]])] == [message]


def test_handler_is_imported_fresh_not_from_sys_modules(pytester, project, monkeypatch):
    stale = types.ModuleType("handlers.check_balance")
    stale.handle = lambda inputs, bindings: {"balance_left": 999}
    monkeypatch.setitem(sys.modules, "handlers", types.ModuleType("handlers"))
    monkeypatch.setitem(sys.modules, "handlers.check_balance", stale)
    reports = call_reports(pytester.inline_run(*QUIET, "--seams-only", "check_balance"))
    assert all(reports[n].passed for n in CHECK_BALANCE)
    assert not list((project / "handlers").glob("__pycache__"))


def test_model_that_cannot_load_fails_collection_with_one_line(pytester, project):
    edit(project / "model" / "model.trig", "ex:CheckBalance a seam:ServiceTask ;", "ex:CheckBalance a seam:ServiceTask ; ]")
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(errors=1)
    errors = [line for line in result.outlines if line.startswith("seams: ")]
    assert len(errors) == 1 and "model/model.trig:" in errors[0] and "TriG syntax error" in errors[0]
    assert "Traceback" not in result.stdout.str()


def test_seams_only_selects_the_model_gates_or_one_task(pytester, project):
    def collected(*args):
        return [ln for ln in pytester.runpytest("--collect-only", "-q", *QUIET, *args).outlines if "::" in ln]

    assert collected("--seams-only", "model") == ["seams.toml::shapes", "seams.toml::decisions",
                                                  "seams.toml::generate"]
    assert collected("--seams-only", "Task_RecordLeave") == RECORD_LEAVE
    assert collected("--seams-only", "https://example.org/leave/CheckBalance") == CHECK_BALANCE
    unknown = pytester.runpytest("--collect-only", *QUIET, "--seams-only", "nope")
    unknown.stdout.fnmatch_lines(["seams: no service task with a handler matches 'nope' "
                                  "(candidates: ex:CheckBalance, ex:RecordLeave)"])


def test_model_gates_fail_with_their_findings(pytester, project):
    edit(project / "model" / "model.trig", 'dec:payloadElement "Decision_ApprovalLevel"',
         'dec:payloadElement "Decision_Nope"')
    edit(project / "model" / "model.trig", 'seam:handler "record_leave" ;', "")
    reports = call_reports(pytester.inline_run(*QUIET))
    assert [n for n, r in reports.items() if r.failed] == [
        "seams.toml::shapes", "seams.toml::decisions", "seams.toml::generate", *SCENARIOS]
    shapes = findings(reports["seams.toml::shapes"])
    assert {(f["kind"], f["subject"], f["predicate"]) for f in shapes} == {
        ("shape", "ex:RecordLeave", "seam:handler")}
    decisions = findings(reports["seams.toml::decisions"])
    assert ("decision", "ex:ApprovalLevel", "dec:payloadElement") in {
        (f["kind"], f["subject"], f["predicate"]) for f in decisions}
    assert {f["kind"] for f in findings(reports["seams.toml::generate"])} == {"generate"}
    assert not any("record_leave" in n for n in reports)  # no handler: no acceptance items


def test_inert_without_a_seams_project(pytester):
    pytester.makepyfile(test_plain="""
        import sys

        def test_nothing_heavy_was_imported():
            heavy = [m for m in ("rdflib", "pyshacl", "lxml", "seams.model.loading", "pytest_seams.collect")
                     if m in sys.modules]
            assert heavy == []
        """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
    result.assert_outcomes(passed=1)


def test_unlabeled_and_broken_examples_get_stable_items(pytester, project):
    trig = project / "model" / "model.trig"
    edit(trig, 'rdfs:label "annual leave is booked" ;', "")
    edit(trig, 'rdfs:label "unpaid leave is booked" ;', "")
    edit(trig, 'seam:given """{"employee": "ben", "days": 25, "leave_type": "unpaid"}"""^^rdf:JSON',
         'seam:given "[1, 2]"^^rdf:JSON')
    write_handler(project, "record_leave",
                  "def handle(inputs, bindings):\n    return {'booking_ref': bindings.calendar(inputs['employee'], inputs['leave_type'], inputs['days'])}\n")
    real = load_project(project)
    names = expected_items(real, load_model(real), task="record_leave")
    assert names == ["seams.toml::record_leave::import", "seams.toml::record_leave::example[example 1]",
                     "seams.toml::record_leave::example[example 2]", "seams.toml::record_leave::contract"]
    reports = call_reports(pytester.inline_run(*QUIET, "--seams-only", "record_leave"))
    assert list(reports) == names
    assert [n for n, r in reports.items() if r.failed] == [names[1]]  # "[1, 2]" sorts first
    assert [f["message"] for f in findings(reports[names[1]])] == [
        "example 'example 1': seam:given is missing or not a JSON object"]

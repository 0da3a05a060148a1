"""The invoice example (examples/invoice, in the shape of Camunda 7's invoice receipt): imported with
``seams init --from`` as a team has it (the BPMN, the called review process, the DMN with its
decision requirements graph and COLLECT table, the embedded HTML forms), checked, and run through
``seams run`` and as scenarios on the paths Camunda's own test case for it walks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import run_seams

from seams.model.loading import load_model
from seams.project.layout import load_project

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "invoice"
SOURCES = EXAMPLE / "camunda"
PAYLOADS = ("invoice.bpmn", "reviewInvoice.bpmn", "invoiceBusinessDecisions.dmn")
GIVEN = {"creditor": "Great Pizza for Everyone Inc.", "amount": 300.0, "invoiceCategory": "Travel Expenses",
         "invoiceNumber": "GPFE-23232323"}
TO_FILL_IN = [
    "shape ex:archiveInvoice seam:example: a service task needs at least one seam:example (given inputs, "
    "binding replies, expected outputs): acceptance judges its handler by them",
    "shape ex:archiveInvoice seam:reads: a service task needs seam:reads and/or seam:writes: the process "
    "variables its handler reads and the ones it sets (neither is stated)",
]


def _import(tmp_path: Path, *extra: str, sources: Path = SOURCES) -> tuple[Path, str]:
    args = [a for name in PAYLOADS for a in ("--from", str(sources / name))]
    done = run_seams("init", *args, *[a for e in extra for a in ("--from", e)], "invoice", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path / "invoice", done.stdout


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return _import(tmp_path_factory.mktemp("invoice"))


@pytest.fixture(scope="module")
def runnable(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The import with nothing added but a hand-written handler module and the scenarios."""
    root, _ = _import(tmp_path_factory.mktemp("runnable"))
    shutil.copy(EXAMPLE / "handlers" / "archive_invoice_service.py", root / "handlers")
    with (root / "model" / "model.trig").open("a", encoding="utf-8") as trig:
        trig.write((EXAMPLE / "scenarios.trig").read_text(encoding="utf-8"))
    return root


def test_import_reads_forms_beside_the_bpmn_and_notes_what_it_cannot_carry(imported: tuple[Path, str]) -> None:
    root, out = imported
    for form in ("start-form", "approve-invoice", "prepare-bank-transfer", "assign-reviewer", "review-invoice"):
        assert f"copied invoice/model/forms/{form}.html (byte for byte; the form linked from the BPMN)" in out
        assert (root / "model" / "forms" / f"{form}.html").read_bytes() == \
            (SOURCES / "forms" / f"{form}.html").read_bytes()
    notes = [line for line in out.splitlines() if line.startswith("note: ")]
    assert notes == [
        "note: not carried over from invoice.bpmn (1): a form script (cam-script) seams does not run in an "
        "embedded form",
        'note: not carried over from invoice.bpmn (1): file field "invoiceDocument" (a File variable seams '
        "cannot carry) in an embedded form",
        "note: not carried over from invoice.bpmn (1): script in an extension (camunda:script): seams runs no "
        "script",
        "note: not carried over from invoice.bpmn (1): task listener (camunda:taskListener): seams runs no "
        "listener",
    ]
    view = load_model(load_project(root)).view
    by_name = {v.name: v for v in view.variables.values()}
    assert by_name["approverGroups"].many and str(by_name["approverGroups"].datatype).endswith("#string")
    assert str(by_name["amount"].datatype).endswith("#decimal")
    start = view.forms[view.processes[next(iter(p for p in view.processes if str(p).endswith("/invoice")))]
                       .start_form]
    fields = {view.variable_name(f.path): f for f in start.fields}
    assert sorted(fields) == ["amount", "creditor", "invoiceCategory", "invoiceNumber"]
    assert fields["creditor"].min_count == 1 and fields["creditor"].max_length == 120
    assert fields["invoiceCategory"].in_values == ("Travel Expenses", "Misc", "Software License Costs")
    assert fields["invoiceNumber"].pattern == "^(?:[A-Z0-9-]+)$"
    approve = next(t for t in view.tasks.values() if t.element_id == "approveInvoice")
    # readonly inputs are shown, not submitted: the approval form submits `approved` only
    assert [view.variable_name(f.path) for f in view.forms[approve.form].fields] == ["approved"]
    decide = next(t for t in view.tasks.values() if t.element_id == "assignApprover")
    # the DRD: the task reads what the required classification reads, not the classification itself
    assert sorted(view.variable_name(r) for r in decide.reads) == ["amount", "invoiceCategory"]


def test_check_lists_only_what_a_person_fills_in(imported: tuple[Path, str]) -> None:
    root, _ = imported
    done = run_seams("check", cwd=root)
    assert done.stdout.splitlines() == TO_FILL_IN, done.stdout


def test_forms_given_with_from_when_not_beside_the_bpmn(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in PAYLOADS:
        shutil.copy(SOURCES / name, bare / name)
    forms = [str(p) for p in sorted((SOURCES / "forms").glob("*.html"))]
    root, out = _import(tmp_path, *forms, sources=bare)
    assert "has the embedded form" not in out
    assert run_seams("check", cwd=root).stdout.splitlines() == TO_FILL_IN


def test_a_form_neither_beside_nor_given_is_a_note(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in PAYLOADS:
        shutil.copy(SOURCES / name, bare / name)
    _, out = _import(tmp_path, sources=bare)
    assert ('note: StartEvent_1 in invoice.bpmn has the embedded form "forms/start-form.html", which is neither '
            "beside the BPMN nor given with --from; its fields are left to you") in out.splitlines()


@pytest.mark.parametrize("label, end", [
    ("happy path: the approver groups approve, the invoice is archived", "invoiceProcessed"),
    ("rejected, reviewed and not clarified", "invoiceNotProcessed"),
    ("rejected, clarified in review, then approved", "invoiceProcessed"),
    ("started before the approval, with the approver groups given", "invoiceProcessed"),
])
def test_seams_run_walks_the_scenario(runnable: Path, label: str, end: str) -> None:
    done = run_seams("run", "invoice", "--scenario", label, cwd=runnable)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert f'scenario "{label}": as expected' in lines
    assert any(line.startswith(f"endEvent {end} ") for line in lines)
    if label.startswith("started before"):  # as Camunda's startBeforeActivity: the decision never ran
        assert not any(line.startswith("businessRuleTask") for line in lines)


def test_scenario_items_pass(runnable: Path) -> None:
    from seams_runtime.scenarios import scenario_run_findings

    project = load_project(runnable)
    assert scenario_run_findings(project, load_model(project)) == []


def test_seams_run_with_answers_the_rejected_path(runnable: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"approveInvoice": {"approved": False}, "assignReviewer": {"reviewer": "john"},
                                   "reviewInvoice": {"clarified": False}}), encoding="utf-8")
    done = run_seams("run", "invoice", "--given", json.dumps(GIVEN), "--answers", str(answers), cwd=runnable)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:6] == [
        'run invoice "Invoice Receipt"',
        'startEvent StartEvent_1 "Invoice received"',
        'businessRuleTask assignApprover "Assign Approver Group": invoice-assign-approver COLLECT matched '
        "Rule_DayToDayAccounting, Rule_DayToDaySales",
        'userTask approveInvoice "Approve Invoice"',
        'exclusiveGateway invoice_approved "Invoice approved?": took invoiceNotApproved "no"',
        'callActivity reviewInvoice "Review Invoice"',
    ]
    assert 'endEvent invoiceNotProcessed "Invoice not processed"' in lines
    variables = json.loads(lines[-1][len("variables "):])
    # the call activity passes back `clarified` only (camunda:out), not the reviewer
    assert variables["clarified"] is False and "reviewer" not in variables
    assert variables["approverGroups"] == ["accounting", "sales"]


def test_approver_groups_the_drd_gives(runnable: Path) -> None:
    from seams_runtime.engine import run_instance

    project = load_project(runnable)
    model = load_model(project)
    groups = {}
    for category, amount in (("Misc", 100), ("Misc", 500), ("Misc", 5000), ("Software License Costs", 1)):
        result = run_instance(project, model, "invoice",
                              given={**GIVEN, "invoiceCategory": category, "amount": float(amount)},
                              user_task_data=lambda info: {})
        groups[(category, amount)] = result.variables.get("approverGroups")
    assert groups == {("Misc", 100): ["accounting", "sales"], ("Misc", 500): ["management"],
                      ("Misc", 5000): ["management"], ("Software License Costs", 1): ["management"]}


def test_a_scenario_value_of_the_wrong_item_type_is_a_finding(runnable: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(runnable, copy)
    trig = copy / "model" / "model.trig"
    trig.write_text(trig.read_text(encoding="utf-8").replace(
        '{"approverGroups": ["accounting", "sales"], "approved": true}',
        '{"approverGroups": ["accounting", 7], "approved": true}'), encoding="utf-8")
    lines = run_seams("check", cwd=copy).stdout.splitlines()
    assert ('shape ex:invoice seam:scenario: "happy path: the approver groups approve, the invoice is archived": '
            'seam:expect "approverGroups": item 7 is not an xsd:string') in lines


def test_the_generated_decisions_module_evaluates_the_drd(imported: tuple[Path, str]) -> None:
    from seams.generators.decisions import decisions_source

    root, _ = imported
    namespace: dict = {}
    exec(compile(decisions_source(load_model(load_project(root))) or "", "decisions.py", "exec"), namespace)
    graph = namespace["assign_approver_group_graph"]
    assert graph(amount=300.0, invoiceCategory="Travel Expenses") == ["accounting", "sales"]
    assert graph(amount=5000, invoiceCategory="Misc") == ["management"]
    assert namespace["assign_approver_group"](invoiceClassification="budget") == ["management"]


def test_update_prints_the_to_do_of_a_task_it_adds(imported: tuple[Path, str], tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(imported[0], root)
    bpmn = root / "model" / "invoice.bpmn"
    bpmn.write_text(bpmn.read_text(encoding="utf-8").replace(
        '<bpmn:sequenceFlow id="Flow_Archived" sourceRef="archiveInvoice" targetRef="invoiceProcessed" />',
        '<bpmn:sequenceFlow id="Flow_Archived" sourceRef="archiveInvoice" targetRef="notifyCreditor" />'
        '<bpmn:serviceTask id="notifyCreditor" name="Notify creditor" camunda:class="org.example.NotifyCreditor">'
        '<bpmn:incoming>Flow_Archived</bpmn:incoming><bpmn:outgoing>Flow_Notified</bpmn:outgoing>'
        '</bpmn:serviceTask><bpmn:sequenceFlow id="Flow_Notified" sourceRef="notifyCreditor" '
        'targetRef="invoiceProcessed" />'), encoding="utf-8")
    done = run_seams("init", "--update", ".", cwd=root)
    assert done.returncode == 0, done.stderr
    assert ("to do: ex:notifyCreditor seam:example: examples (given, replies, expect), and seam:reads and "
            "seam:writes, before seams propose notify_creditor") in done.stdout.splitlines()

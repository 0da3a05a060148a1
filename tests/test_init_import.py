"""``seams init``: a new project that ``seams check`` passes, and Camunda 7/8 models imported.

The fixtures in tests/fixtures/import/ are written after public Camunda
examples (tests/fixtures/import/README.md names each shape). Every import
must load, keep its payloads byte for byte, and leave ``seams check`` with
nothing but what the user has to fill in.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import etree
from rdflib import Graph, Literal, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import SH, XSD

from seams import vocab as V
from seams.checks import registry as checks
from seams.errors import ExpressionError
from seams.importer.bpmn_read import condition_names
from seams.importer.build import build_import
from seams.importer.names import snake_case
from seams.importer.render import render_trig
from seams.importer.sources import read_sources
from seams.lang.condition import parse_condition
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_cli.main import main
from tests.helpers import EXAMPLE

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "import"
BAD = Path(__file__).resolve().parent / "fixtures" / "import_bad"
CASES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


def _init(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["init", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _payloads(case: str) -> list[Path]:
    return sorted([*FIXTURES.joinpath(case).glob("*.bpmn"), *FIXTURES.joinpath(case).glob("*.dmn")],
                  key=lambda p: (p.suffix != ".bpmn", p.name))


def _findings(root: Path):
    project = load_project(root)
    model = load_model(project)
    return model, checks.all_findings(project, model)


# ------------------------------------------------------------------ new project


def test_init_makes_a_project_that_check_passes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = _init(capsys, "shop")
    assert (code, err) == (0, "")
    root = tmp_path / "shop"
    assert sorted(_files(root)) == [".gitignore", "handlers/__init__.py", "model/model.trig",
                                    "model/process.bpmn", "seams.lock", "seams.toml"]
    lines = out.splitlines()
    assert lines[0] == ("created shop/seams.toml: base https://example.org/shop/ (a placeholder: change it "
                        "and the ex: prefix in model/model.trig to an IRI you own)")
    assert lines[1] == "created shop/model/model.trig: 1 process"
    assert lines.index("next:") == len(lines) - 4 and lines[-3].startswith("  cd shop && seams check")
    assert (root / ".gitignore").read_text().splitlines()[0] == ".seams/"
    bpmn = etree.fromstring((root / "model" / "process.bpmn").read_bytes())
    assert bpmn.find(f"{{{V.BPMNDI_NS}}}BPMNDiagram") is not None  # drawn, not only modelled
    trig = (root / "model" / "model.trig").read_text()
    assert [line for line in trig.splitlines() if line.endswith("{")] == [
        "ex:graph\\/seams {", "ex:graph\\/shapes {", "ex:graph\\/ontology {"]
    _, findings = _findings(root)
    assert findings == []
    assert main(["check", "--project", str(root)]) == 0


def test_init_is_deterministic_and_takes_a_base(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in ("a", "b"):
        assert _init(capsys, name, "--base", "urn:acme:shop:")[0] == 0
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    assert 'base = "urn:acme:shop:"' in (tmp_path / "a" / "seams.toml").read_text()
    assert _findings(tmp_path / "a")[1] == []


def test_init_refuses_a_project_directory_and_writes_nothing(tmp_path, capsys):
    root = tmp_path / "p"
    root.mkdir()
    (root / "seams.toml").write_text("[project]\nbase = 'x'\n")
    before = _files(root)
    code, out, err = _init(capsys, str(root))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "seams.toml: a seams project is already here" in err
    assert _files(root) == before


def test_init_refuses_to_overwrite_a_model_file(tmp_path, capsys):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "model.trig").write_text("# mine\n")
    code, _, err = _init(capsys, str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and "model.trig: already exists" in err
    assert _files(tmp_path) == {"model/model.trig": b"# mine\n"}


def test_an_existing_gitignore_gets_the_cache_line(tmp_path, capsys):
    (tmp_path / ".gitignore").write_text("node_modules/")
    assert _init(capsys, str(tmp_path))[0] == 0
    assert (tmp_path / ".gitignore").read_text() == "node_modules/\n.seams/\n"


# ------------------------------------------------------------- import fixtures


def _allowed(model, finding) -> bool:
    """A finding the user resolves by filling the model in, never one about the imported files."""
    if finding.kind == "shape":
        return finding.predicate in ("seam:datatype", "seam:decidedBy", "dec:fromPath", "seam:example",
                                     "seam:reads")
    if finding.kind == "decision" and ("not set on every path" in finding.message
                                       or " is not set on the path " in finding.message
                                       or "which no task of" in finding.message):
        return True
    return False


@pytest.mark.parametrize("case", CASES)
def test_a_camunda_model_imports_and_check_lists_only_fill_ins(case, tmp_path, capsys):
    payloads = _payloads(case)
    root = tmp_path / case
    code, out, err = _init(capsys, *(a for p in payloads for a in ("--from", str(p))), str(root))
    assert (code, err) == (0, ""), err
    for path in payloads:
        assert (root / "model" / path.name).read_bytes() == path.read_bytes()
        assert f"copied {root}/model/{path.name} (byte for byte)" in out
    model, findings = _findings(root)
    assert model.view.processes, "no process imported"
    unexpected = [f.line() for f in findings if not _allowed(model, f)]
    assert unexpected == []
    imported_ids = {t.element_id for t in (*model.view.tasks.values(), *model.view.gateways.values())}
    for payload in (p for p in payloads if p.suffix == ".bpmn"):
        root_el = etree.fromstring(payload.read_bytes())
        for kind in ("userTask", "serviceTask", "businessRuleTask", "exclusiveGateway"):
            for el in root_el.iter(f"{{{V.BPMN_NS}}}{kind}"):
                process = next(el.iterancestors(f"{{{V.BPMN_NS}}}process"))
                if process.get("isExecutable") != "false":
                    assert el.get("id") in imported_ids, f"{kind} {el.get('id')} not imported"


def test_fixture_shapes_the_checks_must_fully_accept(tmp_path, capsys):
    """Models whose every other fact is inferable (no untyped variable, no unmapped input): what
    is left to fill in is exactly each service task's examples, which no BPMN holds."""
    # c8_decision needs a parallel join to set what either branch set; c7_start_form the start
    # event's form to set its fields (tests/fixtures/import/README.md)
    for case in ("c7_forms", "c7_dish", "c7_collaboration", "c7_subprocess", "c7_start_form", "c8_decision"):
        root = tmp_path / case
        assert _init(capsys, *(a for p in _payloads(case) for a in ("--from", str(p))), str(root))[0] == 0
        model, findings = _findings(root)
        # what cannot be inferred is listed: the examples of each service task, its reads and
        # writes where no IO mapping told them, and nothing else
        expected = sorted((model.qname(t.iri), p) for t in model.view.service_tasks()
                          for p in ("seam:example", *(() if t.reads or t.writes else ("seam:reads",))))
        assert sorted((f.subject, f.predicate) for f in findings) == expected, case


def _graph(root: Path) -> Graph:
    return load_model(load_project(root)).union


def test_camunda7_form_fields_become_a_shacl_form(tmp_path, capsys):
    root = tmp_path / "f"
    assert _init(capsys, "--from", str(FIXTURES / "c7_forms" / "vacation-request.bpmn"), str(root))[0] == 0
    g = _graph(root)
    ex = "https://example.org/f/"
    form = g.value(URIRef(ex + "requestVacation"), V.form)
    fields = {str(g.value(f, SH.name)): {p: o for p, o in g.predicate_objects(f) if p != SH.path}
              for f in g.objects(form, SH.property)}
    assert fields["Employee name"] == {SH.name: Literal("Employee name"), SH.datatype: XSD.string,
                                       SH.minCount: Literal(1), SH.minLength: Literal(2),
                                       SH.maxLength: Literal(80), SH.order: Literal(1)}
    assert fields["Number of days"] == {SH.name: Literal("Number of days"), SH.datatype: XSD.integer,
                                        SH.minCount: Literal(1), SH.minInclusive: Literal(1),
                                        SH.maxInclusive: Literal(30), SH.defaultValue: Literal(1),
                                        SH.order: Literal(2)}  # camunda:formField defaultValue="1"
    assert fields["First day"][SH.datatype] == XSD.date and fields["Half day?"][SH.datatype] == XSD.boolean
    values = fields["Type"][SH["in"]]
    assert [str(v) for v in g.items(values)] == ["annual", "special"]
    assert SH.minCount not in fields["Comment"]  # readonly is no seams constraint
    assert g.value(URIRef(ex + "numberOfDays"), V.datatype) == XSD.integer


def test_camunda8_linked_and_embedded_forms(tmp_path, capsys):
    root = tmp_path / "o"
    code, out, _ = _init(capsys, "--from", str(FIXTURES / "c8_order" / "order-process.bpmn"), str(root))
    assert code == 0 and "copied " + str(root) + "/model/enter-order.form (byte for byte;" in out
    assert [line for line in out.splitlines() if line.startswith("to do:")] == [
        "to do: ex:Task_ChargeCard seam:example: examples (given, replies, expect) before seams propose "
        "payment_service",
        "to do: ex:Task_ShipWithInsurance seam:example: examples (given, replies, expect), and seam:reads and "
        "seam:writes, before seams propose ship_with_insurance",
        "to do: ex:Task_ShipWithoutInsurance seam:example: examples (given, replies, expect), and seam:reads "
        "and seam:writes, before seams propose ship_without_insurance"]
    form = FIXTURES / "c8_order" / "enter-order.form"
    assert (root / "model" / "enter-order.form").read_bytes() == form.read_bytes()
    again = _init(capsys, "--update", str(root))  # the copied form is found beside the copied BPMN
    assert again[0] == 0 and "note:" not in again[1] and "added nothing" in again[1]
    g = _graph(root)
    ex = "https://example.org/o/"
    form = g.value(URIRef(ex + "Task_EnterOrder"), V.form)
    by_path = {str(g.value(f, SH.path))[len(ex):]: f for f in g.objects(form, SH.property)}
    assert sorted(by_path) == ["customerId", "delivery", "deliveryDate", "giftWrap", "orderValue"]
    assert g.value(by_path["customerId"], SH.pattern) == Literal("^C-[0-9]+$")
    assert g.value(by_path["orderValue"], SH.datatype) == XSD.decimal
    assert g.value(by_path["orderValue"], SH.maxInclusive).toPython() == 100000
    assert g.value(by_path["deliveryDate"], SH.datatype) == XSD.date
    handlers = sorted(str(o) for o in g.objects(None, V.handler))
    assert handlers == ["payment_service", "ship_with_insurance", "ship_without_insurance"]
    charge = URIRef(ex + "Task_ChargeCard")
    assert {str(v)[len(ex):] for v in g.objects(charge, V.reads)} == {"orderValue", "customerId"}
    assert {str(v)[len(ex):] for v in g.objects(charge, V.writes)} == {"paymentReference"}

    root = tmp_path / "e"
    code, out, _ = _init(capsys, "--from", str(FIXTURES / "c8_embedded_form" / "onboarding.bpmn"), str(root))
    assert code == 0 and 'skipped field "skills"' not in out
    g = _graph(root)
    ex = "https://example.org/e/"
    form = g.value(URIRef(ex + "Task_Profile"), V.form)
    names = sorted(str(g.value(f, SH.path))[len(ex):] for f in g.objects(form, SH.property))
    assert names == ["city", "fullName", "needsLaptop", "skills", "team"]  # the group's field too
    assert g.value(URIRef(ex + "skills"), V.list_) == Literal(True)  # a checklist holds a list of strings


def test_decisions_bind_across_several_dmn_files(tmp_path, capsys):
    root = tmp_path / "d"
    args = [a for p in _payloads("c7_dish") for a in ("--from", str(p))]
    assert _init(capsys, *args, str(root))[0] == 0
    view = load_model(load_project(root)).view
    ex = "https://example.org/d/"
    dish = view.tasks[URIRef(ex + "Task_Dish")]
    beverage = view.tasks[URIRef(ex + "Task_Beverages")]
    assert dish.decided_by == URIRef(ex + "dish") and beverage.decided_by == URIRef(ex + "beverage")
    decision = view.decisions[URIRef(ex + "beverage")]
    assert [(i.variable, view.variable_name(i.from_path)) for i in decision.inputs] == [
        ("desiredDish", "desiredDish"), ("guestsWithChildren", "guestsWithChildren")]
    assert [view.variable_name(o.process_variable) for o in decision.outputs] == ["beverage"]
    payloads = {view.decisions[d].payload for d in view.decisions}
    assert len(payloads) == 2


def test_an_import_is_deterministic(tmp_path, capsys):
    args = [a for p in _payloads("c7_invoice") for a in ("--from", str(p))]
    for name in ("one", "two"):
        assert _init(capsys, *args, "--base", "https://acme.test/inv/", str(tmp_path / name))[0] == 0
    assert _files(tmp_path / "one") == _files(tmp_path / "two")


def test_rendered_trig_holds_exactly_the_plan(tmp_path):
    files = [(p.name, p, p.read_bytes()) for p in _payloads("c7_invoice")]
    plan = build_import("https://x.test/", read_sources(files, {}))
    graphs = {r: URIRef(f"https://x.test/graph/{r}") for r in ("seams", "shapes", "ontology")}
    text = render_trig(plan, "https://x.test/", graphs)
    parsed, expected = Graph(), Graph()
    from rdflib import Dataset

    dataset = Dataset()
    dataset.parse(data=text, format="trig")
    for s, p, o, _ in dataset.quads((None, None, None, None)):
        parsed.add((s, p, o))
    for s, p, o, _ in plan.quads(graphs):
        expected.add((s, p, o))
    assert isomorphic(parsed, expected)


# -------------------------------------------------------- the bundled example


def _facts(root: Path) -> dict[str, object]:
    view = load_model(load_project(root)).view
    name = view.variable_name
    tasks = {(t.kind, t.element_id, t.label): t for t in view.tasks.values()}
    return {
        "processes": {(p.element_id, p.label) for p in view.processes.values()},
        "tasks": set(tasks),
        "gateways": {(g.element_id, g.label) for g in view.gateways.values()},
        "handlers": {t.element_id: t.handler for t in view.service_tasks()},
        "decisions": {(d.element_id, d.label, tuple((i.variable, name(i.from_path)) for i in d.inputs),
                       tuple((o.variable, name(o.process_variable)) for o in d.outputs),
                       tuple(sorted(name(r) for r in d.reads))) for d in view.decisions.values()},
        "rule reads/writes": {t.element_id: (sorted(map(name, t.reads)), sorted(map(name, t.writes)))
                              for t in view.tasks.values() if t.kind == V.BusinessRuleTask},
        "variables": {v.name: v.datatype for v in view.variables.values()},
        "forms": {t.element_id: sorted((name(f.path), f.name, f.datatype, f.min_count, f.in_values,
                                        f.min_inclusive, f.max_inclusive, f.max_length, f.order)
                                       for f in view.forms[t.form].fields)
                  for t in view.tasks.values() if t.form is not None},
    }


def test_the_example_imports_to_the_hand_written_model(tmp_path, capsys):
    root = tmp_path / "leave"
    model_dir = EXAMPLE / "model"
    code, _, err = _init(capsys, "--from", str(model_dir / "leave.bpmn"), "--from", str(model_dir / "leave.dmn"),
                         "--base", "https://example.org/leave/", str(root))
    assert (code, err) == (0, "")
    imported, written = _facts(root), _facts(EXAMPLE)
    for key in ("processes", "tasks", "gateways", "handlers", "decisions", "rule reads/writes"):
        assert imported[key] == written[key], key
    # variables: the BPMN and DMN name those its conditions and decision read or set; each with the
    # hand-written datatype where the DMN gives one (the rest live only in the hand-written forms)
    inferable = {"approval", "approved", "days", "leave_type"}
    assert set(imported["variables"]) == inferable
    for var, datatype in imported["variables"].items():
        assert datatype in (None, written["variables"][var]), var
    assert imported["forms"] == {}  # leave.bpmn has no camunda:formData: nothing to infer


def _field(key: str, label: str, kind: str, *, required: bool = False, values: tuple[str, ...] = (),
           **config: str) -> str:
    """One Camunda 7 ``camunda:formField``, as Camunda Modeler writes it."""
    constraints = (['<camunda:constraint name="required" />'] if required else []) + [
        f'<camunda:constraint name="{name}" config="{value}" />' for name, value in config.items()]
    validation = f"<camunda:validation>{''.join(constraints)}</camunda:validation>" if constraints else ""
    options = "".join(f'<camunda:value id="{v}" name="{v.title()}" />' for v in values)
    return f'<camunda:formField id="{key}" label="{label}" type="{kind}">{validation}{options}</camunda:formField>'


def _form_data(*fields: str) -> str:
    return f"<bpmn:extensionElements><camunda:formData>{''.join(fields)}</camunda:formData></bpmn:extensionElements>"


def test_the_example_with_its_forms_in_the_bpmn_imports_the_same_form_fields(tmp_path, capsys):
    """The hand-written forms, drawn as Camunda 7 form fields, come back field for field
    (all but sh:pattern, which Camunda 7 form validation cannot say)."""
    bpmn = (EXAMPLE / "model" / "leave.bpmn").read_text()
    submit = _form_data(
        _field("employee", "Employee", "string", required=True),
        _field("leave_type", "Leave type", "enum", required=True, values=("annual", "sick", "unpaid")),
        _field("days", "Days", "long", required=True, min="1", max="60"),
        _field("start_date", "Start date", "date", required=True))
    review = _form_data(_field("approved", "Approved", "boolean", required=True),
                        _field("review_note", "Note", "string", maxlength="500"))
    bpmn = bpmn.replace('name="Submit leave request">', f'name="Submit leave request">{submit}')
    bpmn = bpmn.replace('name="Review leave request">', f'name="Review leave request">{review}')
    (tmp_path / "leave.bpmn").write_text(bpmn)
    root = tmp_path / "leave"
    assert _init(capsys, "--from", str(tmp_path / "leave.bpmn"), "--from", str(EXAMPLE / "model" / "leave.dmn"),
                 "--base", "https://example.org/leave/", str(root))[0] == 0
    imported, written = _facts(root), _facts(EXAMPLE)
    assert imported["forms"] == written["forms"]
    for var, datatype in imported["variables"].items():
        assert datatype in (None, written["variables"][var]), var


# ------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("name", "message"), [
    ("not-bpmn.bpmn", "not a BPMN or DMN file (root element {http://maven.apache.org/POM/4.0.0}project)"),
    ("dtd.bpmn", "a DTD is not allowed in a payload"),
    ("no-process.bpmn", "no bpmn:process in the file"),
    ("unknown-task.bpmn", "unknown task type bpmn:robotTask"),
    ("text.bpmn", "not well-formed XML"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(name, message, tmp_path, capsys):
    target = tmp_path / "p"
    code, out, err = _init(capsys, "--from", str(BAD / name), str(target))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and message in err and name in err, err
    assert not target.exists()


def test_a_dmn_version_the_loader_does_not_read_writes_nothing(tmp_path, capsys):
    """DMN 1.2 is read by the importer; whether the model loads it is the loader's call
    (issue 15). Either it loads, or one line, exit 2 and nothing written."""
    target = tmp_path / "p"
    code, _, err = _init(capsys, "--from", str(FIXTURES / "c7_forms" / "vacation-request.bpmn"),
                         "--from", str(BAD / "dmn12.dmn"), str(target))
    if code == 0:
        assert _findings(target)[0].payloads
    else:
        assert code == 2 and err.count("\n") == 1 and "dmn12.dmn" in err
        assert not target.exists()


# ---------------------------------------------------------------------- update


def test_update_adds_new_elements_reports_removed_ones_and_keeps_hand_written_facts(tmp_path, capsys):
    source = tmp_path / "src"
    source.mkdir()
    bpmn = (FIXTURES / "c7_invoice" / "invoice.bpmn").read_text()
    (source / "invoice.bpmn").write_text(bpmn)
    dmn = FIXTURES / "c7_invoice" / "invoiceBusinessDecisions.dmn"
    root = tmp_path / "p"
    assert _init(capsys, "--from", str(source / "invoice.bpmn"), "--from", str(dmn), str(root))[0] == 0
    trig = root / "model" / "model.trig"
    typed = 'seam:name "creditor" ;\n        seam:datatype xsd:string .'
    hand = trig.read_text().replace('seam:name "creditor" .', typed)
    hand = hand.replace("    # Processes\n", "    # Processes (reviewed by Ana)\n")
    trig.write_text(hand)
    changed = bpmn.replace(
        '<bpmn:serviceTask id="ServiceTask_Archive" name="Archive original invoice" '
        'camunda:class="org.camunda.bpm.example.invoice.service.ArchiveInvoiceService">',
        '<bpmn:serviceTask id="ServiceTask_Archive" name="Archive original invoice" '
        'camunda:class="org.camunda.bpm.example.invoice.service.ArchiveInvoiceService">'
        '<bpmn:incoming>Flow_X</bpmn:incoming></bpmn:serviceTask>'
        '<bpmn:serviceTask id="ServiceTask_Notify" name="Notify creditor" camunda:topic="notify-creditor">')
    changed = changed.replace("bpmn:exclusiveGateway", "bpmn:inclusiveGateway")  # no seam:Gateway any more
    (source / "invoice.bpmn").write_text(changed)
    code, out, err = _init(capsys, "--update", "--from", str(source / "invoice.bpmn"), str(root))
    assert (code, err) == (0, ""), err
    assert out.splitlines()[:3] == ["copied model/invoice.bpmn (byte for byte)", "updated model/model.trig",
                                    "added 1 task"]
    assert ('removed: element "Gateway_Approved" is no longer in invoice.bpmn; ex:Gateway_Approved and its '
            "facts are kept: delete them, or put the element back") in out
    text = trig.read_text()
    assert text.startswith(hand[: hand.index("    ex:ServiceTask_Archive")])  # untouched up to the new task
    assert 'seam:name "creditor" ;\n        seam:datatype xsd:string .' in text
    assert "# Processes (reviewed by Ana)" in text
    assert 'ex:ServiceTask_Notify a seam:ServiceTask' in text and 'seam:handler "notify_creditor"' in text
    assert (root / "model" / "invoice.bpmn").read_text() == changed
    again = _init(capsys, "--update", "--from", str(source / "invoice.bpmn"), str(root))
    assert again[0] == 0 and "added nothing" in again[1] and trig.read_text() == text
    assert main(["undo", "--project", str(root)]) == 0
    assert trig.read_text() == hand


def test_update_without_from_rereads_the_model_payloads(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert _init(capsys, "p")[0] == 0
    bpmn = tmp_path / "p" / "model" / "process.bpmn"
    bpmn.write_text(bpmn.read_text().replace(
        '<bpmn:endEvent id="EndEvent_1" name="Done">',
        '<bpmn:userTask id="Task_Fill" name="Fill in" /><bpmn:endEvent id="EndEvent_1" name="Done">'))
    monkeypatch.chdir(tmp_path / "p")
    code, out, _ = _init(capsys, "--update")
    assert code == 0 and "added 1 task" in out
    view = load_model(load_project(tmp_path / "p")).view
    assert [t.element_id for t in view.tasks.values()] == ["Task_Fill"]


def test_update_needs_a_project(tmp_path, capsys):
    code, _, err = _init(capsys, "--update", str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and "no seams.toml" in err


# ------------------------------------------------------------------ the pieces


@pytest.mark.parametrize(("hint", "name"), [
    ("ArchiveInvoiceService", "archive_invoice_service"), ("charge-card", "charge_card"),
    ("notifyCustomerDelegate", "notify_customer_delegate"), ("HTTPConnector", "http_connector"),
    ("Activity_0x1", "activity_0x1"), ("import", "import_"), ("9lives", "task_9lives"),
])
def test_handler_names_are_snake_case_identifiers(hint, name):
    assert snake_case(hint) == name and name.isidentifier()


def test_service_task_handlers_are_named_and_unique(tmp_path, capsys):
    root = tmp_path / "x"
    assert _init(capsys, "--from", str(FIXTURES / "c7_external_tasks" / "payment.bpmn"), str(root))[0] == 0
    view = load_model(load_project(root)).view
    assert {t.element_id: t.handler for t in view.service_tasks()} == {
        "Activity_ChargeCard": "charge_card", "Activity_NotifyCustomer": "notify_customer_delegate",
        "Activity_1x7kq2p": "activity_1x7kq2p"}


def test_condition_names_fall_back_to_juel_and_feel_bodies():
    assert condition_names("amount > 1000", where="f") == {"amount"}
    assert condition_names("${amount > 1000 && !approved}", where="f") == {"amount", "approved"}
    assert condition_names("=orderValue >= 100 and priority = \"high\"", where="f") == {"orderValue", "priority"}
    assert condition_names("${execution.getVariable('x')}", where="f") == {"x"}  # JUEL: the variable x
    assert condition_names("${x.isEmpty()}", where="f") is None  # a method call: refused, left to the user
    try:  # the check reads the wrapped form too once the condition language does (issue 14)
        parse_condition("${approved}", where="f")
    except ExpressionError:
        pass


def test_a_payload_already_in_model_is_imported_in_place(tmp_path, capsys):
    (tmp_path / "model").mkdir()
    bpmn = tmp_path / "model" / "payment.bpmn"
    bpmn.write_bytes((FIXTURES / "c7_external_tasks" / "payment.bpmn").read_bytes())
    code, _, err = _init(capsys, "--from", str(bpmn), str(tmp_path))
    assert (code, err) == (0, "")
    assert bpmn.read_bytes() == (FIXTURES / "c7_external_tasks" / "payment.bpmn").read_bytes()


def test_a_camunda7_form_ref_reads_the_form_file_beside_the_bpmn(tmp_path, capsys):
    """Camunda 7.15+ links a Camunda Form with camunda:formRef (the form's id)."""
    source = tmp_path / "src"
    source.mkdir()
    bpmn = (FIXTURES / "c7_forms" / "vacation-request.bpmn").read_text()
    bpmn = bpmn.replace('<bpmn:userTask id="approveVacation" name="Approve vacation" '
                        'camunda:candidateGroups="management">\n      <bpmn:extensionElements>',
                        '<bpmn:userTask id="approveVacation" name="Approve vacation" camunda:formRef="approval">'
                        "\n      <bpmn:extensionElements><!-- no formData -->")
    bpmn = re.sub(r"<!-- no formData -->\s*<camunda:formData>.*?</camunda:formData>", "", bpmn, flags=re.S)
    (source / "vacation.bpmn").write_text(bpmn)
    (source / "approval.form").write_text(
        '{"id": "approval", "components": [{"type": "checkbox", "key": "vacationApproved", "label": "OK?",'
        ' "validate": {"required": true}}]}')
    root = tmp_path / "p"
    assert _init(capsys, "--from", str(source / "vacation.bpmn"), str(root))[0] == 0
    assert (root / "model" / "approval.form").read_bytes() == (source / "approval.form").read_bytes()
    view = load_model(load_project(root)).view
    task = view.tasks[URIRef("https://example.org/p/approveVacation")]
    [field] = view.forms[task.form].fields
    assert (view.variable_name(field.path), field.name, field.datatype, field.min_count) == (
        "vacationApproved", "OK?", XSD.boolean, 1)


def test_check_lists_a_service_task_that_states_neither_reads_nor_writes(tmp_path, capsys):
    """The reads and writes no BPMN tells are a to-do line of their own, naming task and predicate."""
    root = tmp_path / "leave"
    example = Path(__file__).resolve().parents[1] / "examples" / "leave" / "model"
    assert _init(capsys, "--from", str(example / "leave.bpmn"), "--from", str(example / "leave.dmn"),
                 str(root))[0] == 0
    model, findings = _findings(root)
    lines = [f.line() for f in findings if f.predicate == "seam:reads"]
    assert lines == [
        f"shape ex:{task} seam:reads: a service task needs seam:reads and/or seam:writes: the process "
        "variables its handler reads and the ones it sets (neither is stated)"
        for task in ("Task_CheckBalance", "Task_RecordLeave")]

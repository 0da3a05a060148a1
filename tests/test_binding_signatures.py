"""Binding signatures and held-out examples in the model.

A binding may declare how it is called (``seam:parameters``, an rdf:List of
process variables or named, typed values) and what it returns (``seam:result``:
a datatype, or the fields of a JSON object). The stub's ``Bindings`` Protocol
and the propose prompt then show exactly that. An example marked
``seam:heldOut true`` judges a draft like any other but is never shown in a
prompt.
"""

from __future__ import annotations

from pathlib import Path

from helpers import copy_example, edit

from pytest_seams.expected import expected_items
from seams.checks.shapes import shape_findings
from seams.generators.stubs import stub_source
from seams.model.context import context_for
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_cli.commands.propose import build_prompt
from seams_runtime.acceptance_source import acceptance_source

TRIG = Path("model") / "model.trig"
HELD_OUT = ('''            seam:expect """{"booking_ref": "BK-2001"}"""^^rdf:JSON
        ] .''', '''            seam:expect """{"booking_ref": "BK-2001"}"""^^rdf:JSON
        ], [
            rdfs:label "one sick day is booked" ;
            seam:heldOut true ;
            seam:given """{"employee": "cy", "days": 1, "leave_type": "sick"}"""^^rdf:JSON ;
            seam:replies """{"calendar": "BK-3003"}"""^^rdf:JSON ;
            seam:expect """{"booking_ref": "BK-3003"}"""^^rdf:JSON
        ] .''')


def _hold_out_a_third_example(root: Path) -> None:
    edit(root / TRIG, *HELD_OUT)


def _model(root: Path):
    return load_model(load_project(root))


def _prompt(model, task):
    project = model.project
    return build_prompt(context_for(model, task.iri).manifest, stub=stub_source(model, task),
                        tests=acceptance_source(project, model, task))


def _task(model, handler: str):
    return next(t for t in model.view.service_tasks() if t.handler == handler)


def test_the_example_declares_its_bindings_and_the_stub_types_them(tmp_path):
    model = _model(copy_example(tmp_path))
    stub = stub_source(model, _task(model, "record_leave"))
    assert "    def calendar(self, employee: str, leave_type: str, days: int) -> str:" in stub
    stub = stub_source(model, _task(model, "check_balance"))
    assert "    def balances(self, employee: str, leave_type: str) -> Decimal:" in stub
    facts = context_for(model, _task(model, "record_leave").iri).manifest["bindings"]
    assert facts[0]["parameters"] == [
        {"name": "employee", "datatype": "http://www.w3.org/2001/XMLSchema#string",
         "variable": "https://example.org/leave/employee"},
        {"name": "leave_type", "datatype": "http://www.w3.org/2001/XMLSchema#string",
         "variable": "https://example.org/leave/leaveType"},
        {"name": "days", "datatype": "http://www.w3.org/2001/XMLSchema#integer",
         "variable": "https://example.org/leave/days"}]


def test_an_object_result_becomes_a_typed_dict(tmp_path):
    root = copy_example(tmp_path)
    edit(root / TRIG, 'seam:result ex:bookingRef .',
         'seam:result [ seam:field [ seam:name "ref" ; seam:datatype xsd:string ], '
         '[ seam:name "confirmed" ; seam:datatype xsd:boolean ] ] .')
    model = _model(root)
    stub = stub_source(model, _task(model, "record_leave"))
    assert ("class CalendarResult(TypedDict):\n"
            '    """What bindings.calendar(...) returns (seam:result)."""\n'
            "    confirmed: bool\n    ref: str\n") in stub
    assert "days: int) -> CalendarResult:" in stub
    assert shape_findings(model) == []


def test_a_binding_without_a_signature_keeps_its_context_as_before(tmp_path):
    root = copy_example(tmp_path)
    edit(root / TRIG, "        seam:parameters ( ex:employee ex:leaveType ex:days ) ;\n"
         "        seam:result ex:bookingRef .", "        .")
    model = _model(root)
    (binding,) = context_for(model, _task(model, "record_leave").iri).manifest["bindings"]
    assert sorted(binding) == ["comment", "label", "name"]  # the keys every earlier draft was hashed with
    assert "def calendar(self, *args: Any, **kwargs: Any) -> Any:" in stub_source(model, _task(model, "record_leave"))


def test_malformed_signatures_and_held_out_flags_are_shape_findings(tmp_path):
    root = copy_example(tmp_path)
    _hold_out_a_third_example(root)
    edit(root / TRIG, "seam:parameters ( ex:employee ex:leaveType ex:days )",
         'seam:parameters ( ex:employee [ seam:name "leave type" ] )')
    edit(root / TRIG, "seam:result ex:balanceLeft", "seam:result [ rdfs:comment \"a number\" ]")
    edit(root / TRIG, "seam:heldOut true", 'seam:heldOut "yes"')
    lines = [f.line() for f in shape_findings(_model(root))]
    assert "shape ex:Calendar: a binding parameter is a seam:Variable, or a node with a seam:name (a Python " \
           "identifier) and a seam:datatype" in lines, lines
    assert any(line.startswith("shape ex:Balances seam:result") for line in lines), lines
    assert any("seam:heldOut is at most one boolean" in line for line in lines), lines


def test_a_held_out_example_judges_but_is_never_shown(tmp_path):
    root = copy_example(tmp_path)
    _hold_out_a_third_example(root)
    model = _model(root)
    task = _task(model, "record_leave")
    prompt = _prompt(model, task)
    assert "one sick day is booked" not in prompt and "BK-3003" not in prompt
    assert "unpaid leave is booked" in prompt  # the others are shown as before
    assert "seams.toml::record_leave::example[one sick day is booked]" in expected_items(
        model.project, model, task=str(task.iri))
    # part of the context hash: holding an example out (or back in) is a change to review
    held = context_for(model, task.iri).hash
    edit(root / TRIG, "            seam:heldOut true ;\n", "")
    assert context_for(_model(root), task.iri).hash != held


def test_check_advises_holding_out_an_example_once_a_task_has_three(tmp_path, capsys):
    from seams_cli.main import main

    root = copy_example(tmp_path)
    _hold_out_a_third_example(root)
    assert main(["generate", "--project", str(root)]) == 0
    capsys.readouterr()
    assert main(["check", "--project", str(root)]) == 0
    assert capsys.readouterr().out == "seams check: no problems\n"  # record_leave holds one out
    edit(root / TRIG, "            seam:heldOut true ;\n", "")
    assert main(["generate", "--project", str(root)]) == 0  # the stub now shows the third example
    capsys.readouterr()
    assert main(["check", "--project", str(root)]) == 0  # advice, not a problem
    assert capsys.readouterr().out.splitlines() == [
        "seams check: no problems",
        "note ex:RecordLeave seam:example: 3 examples and none held out; mark one seam:heldOut true so "
        "acceptance tries an input no prompt showed"]

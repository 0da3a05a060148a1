"""Issue 34's "done when", walked on an imported Camunda 8 model as a new team would: our own
hand-drawn purchase approval (tests/fixtures/day_three: a user task whose Camunda Form has a
checkbox with ``"defaultValue": false``, a job worker, a gateway on the checkbox) brought in with
``seams init --from``, filled in, its handler drafted by a fake provider and accepted by hand.

A hand-accepted handler survives every ``propose`` without ``--overwrite``, the replacement is
undone by ``seams undo``, an example and a scenario are added without typing a backslash, and
the checkbox with a default behaves the same in ``seams check``, ``seams run`` and a scenario
(an optional field without one is reported by check with its path, and stops the run). The
README example's walk is tests/test_reviewed_handlers.py and tests/test_examples_kept.py."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from helpers import edit, run_seams

FIXTURES = Path(__file__).parent / "fixtures" / "day_three"
PROVIDER = '''import sys
sys.stdin.read()
print("""def handle(inputs, bindings):
    \\"\\"\\"Tell the requester how the review went.\\"\\"\\"
    return {"notice": inputs["item"] + (": approved" if inputs["approved"] else ": declined")}
""")
'''
REVIEWED = "\n# reviewed by the team: keep the wording\n"


def _ok(done) -> str:
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done.stdout


def _import(tmp_path: Path, form: str | None = None) -> Path:
    sources = tmp_path / "drawn"
    shutil.copytree(FIXTURES, sources)
    if form is not None:
        (sources / "purchase-review.form").write_text(form, encoding="utf-8")
    _ok(run_seams("init", "--from", str(sources / "purchase.bpmn"), "--from", str(sources / "purchase-review.form"),
                  "purchase", cwd=tmp_path))
    return tmp_path / "purchase"


def _fill_in(root: Path) -> None:
    """What the import cannot know, typed as a person would: the worker's reads and writes and
    its output variable (plain TriG), then its examples through ``seams example``."""
    trig = root / "model" / "model.trig"
    edit(trig, 'seam:handler "notify_requester" .',
         'seam:handler "notify_requester" ;\n        seam:reads ex:item, ex:approved ;\n        seam:writes ex:notice .')
    edit(trig, "    ex:comment a seam:Variable",
         '    ex:notice a seam:Variable, owl:DatatypeProperty ;\n        rdfs:label "Notice" ;\n'
         '        seam:name "notice" ;\n        seam:datatype xsd:string .\n\n    ex:comment a seam:Variable')
    for label, given, expect in (("an approved desk", {"item": "desk", "approved": True}, {"notice": "desk: approved"}),
                                 ("a declined chair", {"item": "chair", "approved": False},
                                  {"notice": "chair: declined"})):
        _ok(run_seams("example", "notify_requester", "--label", label, "--given", json.dumps(given),
                      "--replies", "{}", "--expect", json.dumps(expect), cwd=root))
    _ok(run_seams("generate", cwd=root))


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = _import(tmp_path)
    _fill_in(root)
    return root


def test_the_imported_model_walks_issue_34_done_when(project: Path, tmp_path: Path) -> None:
    root = project
    trig = root / "model" / "model.trig"
    assert "sh:datatype xsd:boolean ; sh:defaultValue false ;" in trig.read_text(encoding="utf-8")
    assert _ok(run_seams("check", cwd=root)).strip() == "seams check: no problems"

    # a handler drafted by the provider, reviewed and accepted by hand
    script = tmp_path / "provider.py"
    script.write_text(PROVIDER, encoding="utf-8")
    provider = ("--provider", f"{sys.executable} {script}")
    assert "wrote handlers/notify_requester.py" in _ok(
        run_seams("propose", "notify_requester", *provider, cwd=root, timeout=600))
    module = root / "handlers" / "notify_requester.py"
    reviewed = module.read_text(encoding="utf-8") + REVIEWED
    module.write_text(reviewed, encoding="utf-8")
    _ok(run_seams("accept", "notify_requester", cwd=root, timeout=600))
    lock = (root / "seams.lock").read_bytes()
    assert b'"by": "hand"' in lock

    # every propose without --overwrite leaves it alone, before asking the provider, and names --overwrite
    for extra in ((), ("--force",), ("--force", "--refresh")):
        refused = run_seams("propose", "notify_requester", *provider, *extra, cwd=root, timeout=600)
        assert refused.returncode == 1 and "Traceback" not in refused.stderr, refused.stderr
        assert refused.stderr == (
            'seams propose: handlers/notify_requester.py was reviewed and accepted by hand (seams.lock: "by": '
            '"hand"); --force never replaces it: use --overwrite to replace it (seams undo takes it back)\n')
        assert module.read_text(encoding="utf-8") == reviewed and (root / "seams.lock").read_bytes() == lock

    # --overwrite replaces it, and seams undo takes the replacement back byte for byte
    _ok(run_seams("propose", "notify_requester", *provider, "--overwrite", cwd=root, timeout=600))
    assert REVIEWED not in module.read_text(encoding="utf-8")
    assert "restored handlers/notify_requester.py" in _ok(run_seams("undo", cwd=root))
    assert module.read_text(encoding="utf-8") == reviewed and (root / "seams.lock").read_bytes() == lock

    # the checkbox left as it is: run submits its default, the gateway takes "no", and the run
    # kept as a scenario replays as expected; nothing anyone typed holds a backslash
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"Task_Review": {"item": "desk"}}), encoding="utf-8")
    ran = _ok(run_seams("run", "purchase-process", "--answers", str(answers), "--save-scenario", "left as it is",
                        cwd=root, timeout=600))
    assert 'exclusiveGateway Gateway_Approved "Approved?": took Flow_No "no"' in ran
    assert 'variables {"approved": false, "item": "desk", "notice": "desk: declined"}' in ran
    replayed = _ok(run_seams("run", "purchase-process", "--scenario", "left as it is", cwd=root, timeout=600))
    assert 'scenario "left as it is": as expected' in replayed
    text = trig.read_text(encoding="utf-8")
    kept = [line for line in text.splitlines() if "rdf:JSON" in line]
    assert len(kept) >= 6 and not any("\\" in line for line in kept), kept
    assert '"""{"approved": false, "item": "desk", "notice": "desk: declined"}"""^^rdf:JSON' in text
    assert _ok(run_seams("check", cwd=root)).strip() == "seams check: no problems"

    # a fact the accepted handler was checked against changes: check's line names --overwrite, not --force
    edit(trig, 'rdfs:label "Notify requester"', 'rdfs:label "Notify the requester"', 1)
    stale = run_seams("check", cwd=root)
    assert ("draft-stale ex:Task_Notify: a fact the handler handlers/notify_requester.py was accepted against "
            "changed; review it, then run seams accept notify_requester (or seams propose notify_requester "
            "--overwrite for a new draft; seams undo takes it back)") in stale.stdout.splitlines(), stale.stdout


def test_a_checkbox_without_a_default_submits_false_as_tasklist_does(tmp_path: Path) -> None:
    """A checkbox left as it is submits false, default or not: imported as the default."""
    form = json.loads((FIXTURES / "purchase-review.form").read_text(encoding="utf-8"))
    for component in form["components"]:
        component.pop("defaultValue", None)
    root = _import(tmp_path, json.dumps(form, indent=2))
    assert "sh:datatype xsd:boolean ; sh:defaultValue false ;" in (root / "model/model.trig").read_text("utf-8")


def test_an_optional_field_without_a_default_is_named_by_check_and_null_in_the_run(project: Path, tmp_path: Path) -> None:
    """The gateway on the optional comment field: check names the path that leaves it unset,
    and the run reads it as Zeebe does (docs/conditions.md, "Missing variables"): null, so
    ``comment != "hold"`` holds and the flow is taken."""
    bpmn = project / "model" / "purchase.bpmn"
    edit(bpmn, "=approved = true", '=approved = true and comment != "hold"')
    checked = run_seams("check", cwd=project)
    assert checked.returncode == 1
    assert checked.stdout.splitlines() == [
        'decision Flow_Yes bpmn:conditionExpression: "comment" read by gateway Gateway_Approved is not set on the '
        "path StartEvent_1 -> Task_Review -> Task_Notify -> Gateway_Approved; the form of Task_Review may leave it "
        "out (an optional field without sh:defaultValue); expected a sh:defaultValue or sh:minCount 1 on that "
        "field, or a seam:writes or decision output that sets it earlier"]
    (project / "handlers" / "notify_requester.py").write_text(
        'def handle(inputs, bindings):\n    return {"notice": inputs["item"]}\n', encoding="utf-8")
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"Task_Review": {"item": "desk", "approved": True}}), encoding="utf-8")
    ran = run_seams("run", "purchase-process", "--answers", str(answers), cwd=project, timeout=600)
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stdout + ran.stderr
    assert "Flow_Yes" in ran.stdout and "EndEvent_Ordered" in ran.stdout, ran.stdout


def test_every_kind_of_checkbox_imports_with_the_value_it_submits_untouched() -> None:
    """Camunda Forms, Camunda 7 formData and an embedded HTML form: a checkbox left as it is
    submits false (true for an embedded one marked checked), so that is its default; a stated
    defaultValue wins; other fields get none."""
    from lxml import etree

    from seams.importer.forms import camunda7_fields, camunda_form_fields
    from seams.importer.html_forms import read_html_form

    fields, _ = camunda_form_fields({"components": [
        {"type": "checkbox", "key": "a"}, {"type": "checkbox", "key": "b", "defaultValue": True},
        {"type": "textfield", "key": "c"}]})
    assert [(f.key, f.default) for f in fields] == [("a", False), ("b", True), ("c", None)]
    task = etree.fromstring(
        '<userTask xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn">'
        '<extensionElements><camunda:formData><camunda:formField id="a" type="boolean" />'
        '<camunda:formField id="b" type="boolean" defaultValue="true" /><camunda:formField id="c" type="string" />'
        "</camunda:formData></extensionElements></userTask>")
    assert [(f.key, f.default) for f in camunda7_fields(task) or ()] == [("a", False), ("b", True), ("c", None)]
    html = read_html_form(b'<form><input cam-variable-name="a" cam-variable-type="Boolean" type="checkbox">'
                          b'<input cam-variable-name="b" type="checkbox" checked>'
                          b'<input cam-variable-name="c" cam-variable-type="String" type="text"></form>', source="f.html")
    assert [(f.key, f.default) for f in html.fields] == [("a", False), ("b", True), ("c", None)]

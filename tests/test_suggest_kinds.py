"""`seams suggest`'s merge-shapes and gist-anchor kinds end to end, with fake providers.

The project is the example with two alike forms (the manager's review form
and an HR review form constraining the same fields under other labels) and
an ontology class with no gist superclass. Every kind is asked in one run; a
fake provider answers each prompt by its template.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import copy_example, edit

from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_cli.main import main

FIXTURES = Path(__file__).parent / "fixtures" / "suggest"
BY_TEMPLATE = FIXTURES / "by_template.py"
MERGE = "suggest-merge-shapes-v1.txt"
ANCHOR = "suggest-gist-anchor-v1.txt"
C2D = "suggest-v3.txt"
MERGE_ANSWER = {"kind": "merge-shapes", "shapes": ["ex:ReviewForm", "ex:HrReviewForm"],
                "class": {"iri": "ex:Review", "label": "Review", "superclass": "gist:Event"},
                "shape": {"iri": "ex:ReviewShape", "label": "Review"}}
ANCHOR_ANSWER = {"kind": "gist-anchor", "class": "ex:LeaveBalance", "superclass": "gist:Magnitude",
                 "reason": "A leave balance is an amount of days an employee has left."}
HANDLER = '''"""Record leave: book the approved days in the team calendar and keep the booking reference."""


def handle(inputs, bindings):
    """Book the employee's days off and return the calendar's booking reference."""
    booking_ref = bindings.calendar(inputs["employee"], inputs["leave_type"], inputs["days"])
    return {"booking_ref": str(booking_ref)}
'''


def alike_project(tmp_path: Path) -> Path:
    """The example with an HR review form alike the manager's, an unanchored class and the
    record_leave handler (so a plain ``pytest`` in it is green)."""
    root = copy_example(tmp_path)
    trig = root / "model" / "model.trig"
    edit(trig, '        seam:payloadElement "Task_HRReview" .',
         '        seam:payloadElement "Task_HRReview" ;\n        seam:form ex:HrReviewForm .')
    edit(trig, '[ seam:task ex:ManagerReview ; seam:values """{"approved": true}"""^^rdf:JSON ] ;\n'
               '            seam:replies """{"balances": 0',
         '[ seam:task ex:ManagerReview ; seam:values """{"approved": true}"""^^rdf:JSON ] ,\n'
         '                [ seam:task ex:HrReview ; seam:values """{"approved": true}"""^^rdf:JSON ] ;\n'
         '            seam:replies """{"balances": 0')
    edit(trig, "    ex:BookingShape a sh:NodeShape ;", """    ex:HrReviewForm a sh:NodeShape ;
        rdfs:label "HR review form" ;
        sh:targetClass ex:HrReviewRecord ;
        sh:property [ sh:path ex:approved ; sh:name "Approved by HR" ; sh:datatype xsd:boolean ;
                      sh:minCount 1 ; sh:order 1 ] ,
                    [ sh:path ex:reviewNote ; sh:name "HR note" ; sh:datatype xsd:string ;
                      sh:maxLength 500 ; sh:order 2 ] .

    ex:BookingShape a sh:NodeShape ;""")
    edit(trig, "    ex:LeaveBooking a owl:Class ;", """    ex:HrReviewRecord a owl:Class ;
        rdfs:label "HR review record" ;
        rdfs:subClassOf gist:Event .

    ex:LeaveBalance a owl:Class ;
        rdfs:label "Leave balance" ;
        rdfs:comment "How many days of one leave type an employee has left." .

    ex:LeaveBooking a owl:Class ;""")
    (root / "handlers" / "record_leave.py").write_text(HANDLER, encoding="utf-8")
    return root


def answers(tmp_path: Path, **by_template: object) -> Path:
    folder = tmp_path / "answers"
    folder.mkdir(exist_ok=True)
    for template, answer in by_template.items():
        text = answer if isinstance(answer, str) else json.dumps(answer)
        (folder / f"{template}.json").write_text(text, encoding="utf-8")
    return folder


def provider(folder: Path, log: Path | None = None) -> str:
    return f"{sys.executable} {BY_TEMPLATE} {folder}" + (f" {log}" if log else "")


def run(capsys, root: Path, *args: str) -> tuple[int, list[str], list[str]]:
    code = main(["suggest", "--project", str(root), *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def ids(out: list[str]) -> list[str]:
    return [line.removeprefix("suggestion ") for line in out if line.startswith("suggestion ")]


def pending(root: Path) -> list[str]:
    folder = root / ".seams" / "suggestions"
    return sorted(p.name for p in folder.iterdir() if p.name != "cache") if folder.is_dir() else []


def pytest_in(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"],
                          cwd=root, capture_output=True, text=True, timeout=300, check=False)


def test_candidates_of_each_kind(tmp_path):
    from seams.suggestions.gist_anchor import find_class_candidates
    from seams.suggestions.merge_shapes import find_shape_candidates

    model = load_model(load_project(alike_project(tmp_path)))
    assert [[model.qname(s) for s in g.shapes] for g in find_shape_candidates(model)] == [
        ["ex:BookingShape", "ex:RebookingShape"], ["ex:HrReviewForm", "ex:ReviewForm"]]
    assert [model.qname(c.iri) for c in find_class_candidates(model)] == ["ex:LeaveBalance", "ex:LeaveRebooking"]
    bundled = load_model(load_project(copy_example(tmp_path, "bundled")))  # a case of each (docs/suggest.md)
    assert [[bundled.qname(s) for s in g.shapes] for g in find_shape_candidates(bundled)] == [
        ["ex:BookingShape", "ex:RebookingShape"]]
    assert [bundled.qname(c.iri) for c in find_class_candidates(bundled)] == ["ex:LeaveRebooking"]


def without_the_examples_cases(root: Path) -> None:
    """The example without its alike data shape and its unanchored class."""
    trig = root / "model" / "model.trig"
    text = trig.read_text(encoding="utf-8")
    start, end = text.index("    ex:RebookingShape a sh:NodeShape ;"), text.index("\n}\n", text.index("ex:RebookingShape"))
    text = text[:start].rstrip(" \n") + text[end:]
    start = text.index("    ex:LeaveRebooking a owl:Class ;")
    text = text[:start].rstrip(" \n") + "\n}\n"
    trig.write_text(text, encoding="utf-8")


def test_with_no_candidate_of_any_kind_the_provider_is_not_called(tmp_path, capsys):
    from seams.suggestions.gist_anchor import find_class_candidates
    from seams.suggestions.merge_shapes import find_shape_candidates

    root = copy_example(tmp_path)
    without_the_examples_cases(root)
    bpmn = root / "model" / "leave.bpmn"
    edit(bpmn, '<![CDATA[days > 20 or leave_type == "unpaid"]]>', 'approval == "manager"')
    edit(bpmn, '<![CDATA[days <= 20 and leave_type != "unpaid"]]>', 'approval == "auto"')
    edit(bpmn, "approved == True", 'approval == "manager"')
    edit(bpmn, "not approved", 'approval == "auto"')
    model = load_model(load_project(root))
    assert find_shape_candidates(model) == [] and find_class_candidates(model) == []
    failing = f"{sys.executable} {FIXTURES / 'fail.py'}"
    assert run(capsys, root, "--provider", failing) == (0, [
        "no candidates: every gateway condition reads decision outputs",
        "no candidates: no two node shapes constrain the same properties",
        "no candidates: every ontology class has a gist superclass"], [])
    assert run(capsys, root, "--provider", failing, "--kind", "gist-anchor") == (0, [
        "no candidates: every ontology class has a gist superclass"], [])


def test_the_bundled_example_offers_one_suggestion_of_each_kind_offline(tmp_path, capsys):
    """Its recorded provider answers every kind, as the README walkthrough runs it."""
    root = copy_example(tmp_path)
    code, out, err = run(capsys, root)
    assert (code, err) == (0, [])
    assert [line for line in out if line.startswith(("template ", "forms ", "routing "))] == [
        f"template {C2D}", "routing kept (21 samples)", f"template {MERGE}", "forms kept (32 samples)",
        f"template {ANCHOR}"]
    c2d, merge, anchor = ids(out)
    assert run(capsys, root, "--list")[1] == sorted([
        f"{c2d} condition-to-dmn Gateway_Escalate fresh",
        f"{merge} merge-shapes ex:BookingShape+ex:RebookingShape fresh",
        f"{anchor} gist-anchor ex:LeaveRebooking fresh"])


def test_every_kind_is_offered_accepted_checked_and_undone(tmp_path, capsys):
    root = alike_project(tmp_path)
    trig = root / "model" / "model.trig"
    before = trig.read_bytes()
    log = tmp_path / "calls.log"
    folder = answers(tmp_path, **{MERGE: MERGE_ANSWER, ANCHOR: ANCHOR_ANSWER,
                                  C2D: (FIXTURES / "escalate.json").read_text()})
    code, out, err = run(capsys, root, "--provider", provider(folder, log))
    assert (code, err) == (0, [])
    assert log.read_text() == f"called {C2D}\ncalled {MERGE}\ncalled {ANCHOR}\n"
    c2d, merge, anchor = ids(out)
    start = out.index(f"template {MERGE}")
    assert out[start:] == [
        f"template {MERGE}", f"provider {provider(folder, log)}", "cache miss",
        "shapes ex:ReviewForm ex:HrReviewForm", "merged shape ex:ReviewShape",
        "class ex:Review (new: 'Review', rdfs:subClassOf gist:Event)",
        "shapes passed", "decisions passed", "forms kept (16 samples)", "generate passed",
        "would change model/model.trig", f"suggestion {merge}", f"accept with: seams suggest --accept {merge[:12]}",
        f"template {ANCHOR}", f"provider {provider(folder, log)}", "cache miss",
        "class ex:LeaveBalance", "superclass gist:Magnitude",
        "reason A leave balance is an amount of days an employee has left.",
        "shapes passed", "decisions passed", "generate passed",
        "would change model/model.trig", f"suggestion {anchor}", f"accept with: seams suggest --accept {anchor[:12]}",
    ]
    assert trig.read_bytes() == before  # pending, not applied
    assert run(capsys, root, "--list")[1] == sorted([
        f"{c2d} condition-to-dmn Gateway_Escalate fresh",
        f"{merge} merge-shapes ex:ReviewForm+ex:HrReviewForm fresh",
        f"{anchor} gist-anchor ex:LeaveBalance fresh"])

    assert run(capsys, root, "--accept", merge) == (0, [f"applied {merge}", "wrote model/model.trig",
                                                        f"review .seams/review/{merge}.html"], [])
    text = trig.read_text()
    assert text.count("seam:form ex:ReviewShape .") == 2
    assert "ex:ReviewForm a sh:NodeShape" not in text and "ex:HrReviewForm" not in text
    assert "    ex:Review a owl:Class ;\n        rdfs:label \"Review\" ;\n        rdfs:subClassOf gist:Event ." in text
    # layout kept: every line of the old file that is not about the merged shapes is still there, in order
    kept = [line for line in before.decode().splitlines() if "Review" not in line and "HR note" not in line]
    assert [line for line in text.splitlines() if line in set(kept)][:40] == kept[:40]
    # the other two were made from the old model: stale now
    assert run(capsys, root, "--accept", anchor) == (1, [], [
        f"seams suggest: suggestion {anchor} is stale: the model changed since it was made; run seams suggest again"])
    assert main(["check", "--project", str(root)]) == 0
    assert capsys.readouterr().out.strip() == "seams check: no problems"
    tested = pytest_in(root)
    assert tested.returncode == 0 and " passed" in tested.stdout, tested.stdout[-2000:]
    assert main(["undo", "--project", str(root)]) == 0
    capsys.readouterr()
    assert trig.read_bytes() == before  # byte for byte

    code, out, err = run(capsys, root, "--accept", anchor[:8])  # fresh again after the undo
    assert (code, out, err) == (0, [f"applied {anchor}", "wrote model/model.trig",
                                    f"review .seams/review/{anchor}.html"], [])
    assert "        rdfs:comment \"How many days of one leave type an employee has left.\" ;\n" \
           "        rdfs:subClassOf gist:Magnitude .\n" in trig.read_text()
    assert trig.read_text().replace("an employee has left.\" ;\n        rdfs:subClassOf gist:Magnitude .\n",
                                    "an employee has left.\" .\n") == before.decode()  # one statement added
    assert main(["check", "--project", str(root)]) == 0
    capsys.readouterr()
    tested = pytest_in(root)
    assert tested.returncode == 0 and " passed" in tested.stdout, tested.stdout[-2000:]
    assert main(["undo", "--project", str(root)]) == 0
    capsys.readouterr()
    assert trig.read_bytes() == before
    # after undo the answers come from the cache, the ids unchanged
    log.write_text("")
    code, out, _ = run(capsys, root, "--provider", provider(folder, log), "--kind", "gist-anchor")
    assert (code, out[2], ids(out), log.read_text()) == (0, "cache hit", [anchor], "")


def test_a_merge_that_changes_what_a_form_accepts_is_refused_with_the_sample(tmp_path, capsys):
    """ex:LeaveRequest is the leave form's class: a shape on it adds that form's required fields."""
    root = alike_project(tmp_path)
    wrong = {**MERGE_ANSWER, "class": {"iri": "ex:LeaveRequest"}}
    folder = answers(tmp_path, **{MERGE: wrong})
    code, out, err = run(capsys, root, "--provider", provider(folder), "--kind", "merge-shapes")
    assert code == 1
    assert out[-1] == "forms changed (16 samples)"
    assert err[0] == "seams suggest: suggestion rejected: forms failed in the changed model"
    assert err[1] == ('forms ex:ReviewForm: {"approved": true, "review_note": "aaaaaaaa... (500 characters)"} '
                      "was accepted before, refused by ex:ReviewShape after")
    assert len(err) == 9  # the four samples the review forms accepted, for each of the two forms
    assert err[5].startswith('forms ex:HrReviewForm: {"approved": true, ')
    assert pending(root) == []


@pytest.mark.parametrize(("kind", "answer", "error"), [
    (MERGE, {**MERGE_ANSWER, "shapes": ["ex:ReviewForm", "ex:NoSuchForm"]},
     "seams suggest: answer shapes: the shapes graph has no sh:NodeShape ex:NoSuchForm with sh:property"),
    (MERGE, {**MERGE_ANSWER, "shapes": ["ex:ReviewForm", "ex:BookingShape"]},
     "seams suggest: answer shapes: ex:ReviewForm and ex:BookingShape are not alike: "
     "ex:ReviewForm constrains ex:approved, ex:BookingShape does not"),
    (MERGE, {**MERGE_ANSWER, "class": {"iri": "ex:Review", "label": "Review", "superclass": "gist:Thing"}},
     "seams suggest: answer class.superclass: gist:Thing is not one of the gist classes listed"),
    (MERGE, {**MERGE_ANSWER, "class": {"iri": "ex:LeaveReview", "label": "Again"}},
     "seams suggest: answer class.label: ex:LeaveReview is an existing class; give only its iri"),
    (MERGE, {**MERGE_ANSWER, "shape": {"iri": "ex:days", "label": "x"}},
     "seams suggest: answer shape.iri: ex:days already names something in the model"),
    (MERGE, {**MERGE_ANSWER, "class": {"iri": "nope:Review"}},
     "seams suggest: answer class.iri: 'nope:Review' is neither a full IRI nor a prefixed name the model binds"),
    (ANCHOR, {**ANCHOR_ANSWER, "class": "ex:LeaveRequest"},
     "seams suggest: answer class: ex:LeaveRequest is already anchored in gist"),
    (ANCHOR, {**ANCHOR_ANSWER, "class": "ex:Nothing"},
     "seams suggest: answer class: the ontology graph has no owl:Class ex:Nothing"),
    (ANCHOR, {**ANCHOR_ANSWER, "superclass": "ex:LeaveReview"},
     "seams suggest: answer superclass: ex:LeaveReview is not one of the gist classes listed"),
    (ANCHOR, {**ANCHOR_ANSWER, "kind": "merge-shapes"}, "seams suggest: answer kind: 'merge-shapes' is not 'gist-anchor'"),
    (ANCHOR, {key: v for key, v in ANCHOR_ANSWER.items() if key != "reason"}, "seams suggest: answer: missing key 'reason'"),
    (ANCHOR, "[]", "seams suggest: answer: not a JSON object but an array"),
])
def test_a_wrong_answer_names_the_fact_at_fault(tmp_path, capsys, kind, answer, error):
    root = alike_project(tmp_path)
    trig = (root / "model" / "model.trig").read_bytes()
    folder = answers(tmp_path, **{kind: answer})
    name = "merge-shapes" if kind == MERGE else "gist-anchor"
    code, _, err = run(capsys, root, "--provider", provider(folder), "--kind", name)
    assert code == 1
    assert err[0].startswith(error), err
    assert pending(root) == [] and (root / "model" / "model.trig").read_bytes() == trig


def test_prompts_are_deterministic_fenced_and_list_the_gist_table(tmp_path):
    from seams.suggestions.gist import GIST_CLASSES
    from seams.suggestions.gist_anchor import find_class_candidates
    from seams.suggestions.merge_shapes import find_shape_candidates
    from seams_cli.workflows.suggest.prompt_classes import gist_anchor_prompt, merge_shapes_prompt

    root = alike_project(tmp_path)
    model = load_model(load_project(root))
    merge = merge_shapes_prompt(model, find_shape_candidates(model))
    anchor = gist_anchor_prompt(model, find_class_candidates(model))
    again = load_model(load_project(root))
    assert merge == merge_shapes_prompt(again, find_shape_candidates(again))
    assert anchor == gist_anchor_prompt(again, find_class_candidates(again))
    assert merge.startswith(f"seams prompt {MERGE}\n") and anchor.startswith(f"seams prompt {ANCHOR}\n")
    for text, labels in ((merge, ("alike shapes", "ontology classes", "gist classes")),
                         (anchor, ("unanchored classes", "anchored classes", "gist classes"))):
        for label in labels:
            assert f" {label}\n" in text and "DATA-" in text
        assert all(f'"gist:{row.name}"' in text for row in GIST_CLASSES)
    assert '"HR note"' in merge and '"ex:Task_HRReview"' not in merge and '"ex:HrReview"' in merge
    assert '"How many days of one leave type an employee has left."' in anchor


def test_keys_name_the_template_and_the_gist_table(tmp_path):
    from seams.suggestions.gist import GIST_TABLE_VERSION
    from seams_cli.workflows.suggest.kinds import FLOWS
    from seams_cli.workflows.suggest.store import cache_key

    assert FLOWS["gist-anchor"].key_extra == (GIST_TABLE_VERSION,)
    keys = {cache_key("h", flow.template, "p", None, flow.key_extra) for flow in FLOWS.values()}
    assert len(keys) == 3
    assert cache_key("h", C2D, "p", None) == cache_key("h", C2D, "p", None, ())


def test_suggest_runs_every_registry_gate_engine_bindings_too(tmp_path, capsys):
    """Issue: suggest judged shapes, decisions and generate by name, so a Camunda 8 model whose job
    type names no handler got a suggestion stored that --accept then refused."""
    import shutil

    root = tmp_path / "leave-c8"
    shutil.copytree(Path(__file__).resolve().parents[1] / "examples" / "leave-c8", root,
                    ignore=shutil.ignore_patterns(".seams", "__pycache__"))
    edit(root / "model" / "leave.bpmn", 'type="check-balance"', 'type="balances"')
    answer = f"{sys.executable} {FIXTURES / 'provider.py'} {FIXTURES / 'escalate.json'}"
    code, out, err = run(capsys, root, "--provider", answer, "--kind", "condition-to-dmn")
    assert code == 1
    assert out[-1] == "engine-bindings failed"
    assert err[0] == "seams suggest: suggestion rejected: engine-bindings failed in the changed model"
    assert pending(root) == []


def test_a_kind_that_fails_does_not_stop_the_others(tmp_path, capsys):
    """Several kinds asked: a provider failure or a refused answer is reported, the rest still offered."""
    root = alike_project(tmp_path)
    folder = answers(tmp_path, **{ANCHOR: ANCHOR_ANSWER, MERGE: {**MERGE_ANSWER, "shapes": ["ex:ReviewForm"]}})
    code, out, err = run(capsys, root, "--provider", provider(folder))
    assert code == 1
    assert err == [f"seams suggest: provider {sys.executable} exited with status 3: "
                   f"no answer recorded for {C2D}",
                   "seams suggest: answer shapes: must be an array of at least two shapes"]
    (anchor,) = ids(out)
    assert pending(root) == [anchor]


def test_a_reference_nested_in_a_blank_node_is_repointed(tmp_path):
    """An sh:node inside another shape's property shape names the merged shape after the change."""
    from rdflib import Dataset, URIRef

    from seams.suggestions.merge_shapes import find_shape_candidates, parse_merge_shapes
    from seams_cli.workflows.suggest.build import change_files
    from seams_cli.workflows.suggest.build_shapes import build_merge_shapes

    root = alike_project(tmp_path)
    trig = root / "model" / "model.trig"
    edit(trig, "    ex:BookingShape a sh:NodeShape ;", """    ex:ArchiveShape a sh:NodeShape ;
        rdfs:label "Review archive" ;
        sh:targetClass ex:LeaveReview ;
        sh:property [ sh:path ex:approved ; sh:node ex:ReviewForm ; sh:order 1 ] .

    ex:BookingShape a sh:NodeShape ;""")
    model = load_model(load_project(root))
    suggestion = parse_merge_shapes(MERGE_ANSWER, model, find_shape_candidates(model))
    text = change_files(model, build_merge_shapes(model, suggestion))[trig].decode()
    data = Dataset(default_union=True)
    data.parse(data=text, format="trig")
    ex = "https://example.org/leave/"
    nodes = set(data.objects(None, URIRef("http://www.w3.org/ns/shacl#node")))
    assert nodes == {URIRef(ex + "ReviewShape")}
    assert "ex:ArchiveShape a sh:NodeShape ;\n        rdfs:label \"Review archive\" ;" in text  # kept in place
    assert "sh:node ex:ReviewShape ;" in text and "sh:path ex:approved ] ." in text
    assert "ex:ReviewForm" not in text and "ex:HrReviewForm" not in text

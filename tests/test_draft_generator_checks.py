"""The parts of ``seams draft-generator`` that run no drafted code: the prompt, the
answer's shape, and the extract, no-logic and restated-label checks (docs/draft-generator.md)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from rdflib import RDFS, Literal, URIRef

from seams.errors import DraftGeneratorError
from seams.generators.new_generator import read_reference, scaffold
from seams.generators.package_rules import check_extract, check_no_logic, check_no_restated_label
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_cli.commands.draft_generator import build_prompt
from seams_cli.workflows.generator_draft import model_names, model_subjects, names_text, parse_answer

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "leave"
FIXTURES = Path(__file__).parent / "fixtures" / "draft_generator"
REFERENCE = FIXTURES / "references" / "bindings.md"
GOOD = json.loads(FIXTURES.joinpath("answers", "bindings.txt").read_text().strip().strip("`").removeprefix("json"))


@pytest.fixture(scope="module")
def model():
    return load_model(load_project(EXAMPLE, env={}))


def prompt_for(model, name: str = "bindings") -> str:
    package = scaffold(name, REFERENCE)[f"seams_{name}/__init__.py"].decode()
    return build_prompt(reference_name=REFERENCE.name, reference=read_reference(REFERENCE),
                        subjects=model_subjects(model), package=package)


# --- the prompt ---------------------------------------------------------------------------------

def test_prompt_is_the_same_bytes_for_the_same_reference_and_model(model):
    fresh = load_model(load_project(EXAMPLE, env={}))
    assert prompt_for(model).encode() == prompt_for(fresh).encode()


def test_prompt_holds_the_reference_the_names_and_the_package_as_data(model):
    prompt = prompt_for(model)
    assert prompt.startswith("seams prompt draft-generator-v2.txt\n")
    assert f"DATA-{hashlib.sha256(b'bindings.md').hexdigest()[:8]} reference name\nbindings.md\n" in prompt
    assert REFERENCE.read_text() in prompt
    assert "ex:Balances\tseam:Binding\tLeave balance service\n" in prompt  # subject, its types, its label
    assert "ex:balanceLeft\towl:DatatypeProperty, seam:Variable\tBalance left\n" in prompt
    assert "Variable\tseam:Variable\n" in prompt and "decidedBy\tseam:decidedBy\n" in prompt  # seams.vocab
    assert "for variable in sorted(dataset.subjects(vocab.RDF.type, vocab.Variable)):" in prompt
    assert "def sources(trig: Path)" in prompt and "--- extract:" in prompt
    for words in ("[[ value ]]", "[% ... %]", "[fixed]", "[graph: ", "no logic", "restates no model label",
                  '"extract"', '"template"', '"golden"'):
        assert words in prompt, words


def test_prompt_changes_with_the_model_and_the_name(model):
    other = load_model(load_project(EXAMPLE, env={}))
    other.union.add((URIRef("https://example.org/leave/Extra"), RDFS.label, Literal("Extra")))
    assert "ex:Extra\t\tExtra\n" in prompt_for(other)
    assert prompt_for(other) != prompt_for(model)
    assert prompt_for(model, "services") != prompt_for(model)


def test_names_are_every_labelled_iri_sorted_with_escapes(model):
    names = model_names(model)
    assert names == sorted(names)
    assert ("https://example.org/leave/employee", "Employee") in names
    assert not any(iri.startswith("_:") or "annual leave left" == label for iri, label in names)
    assert names_text([("urn:a", "tab\there\nline \\ end")]) == "urn:a\ttab\\there\\nline \\\\ end\n"


# --- the answer ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("not json", "answer: not JSON: Expecting value (line 1, column 1)"),
    ('["extract", "template", "golden"]', "answer: not a JSON object but an array"),
    ('{"extract": "", "template": ""}', "answer: missing key golden"),
    ('{"extract": "", "template": "", "golden": "", "notes": ""}', "answer: unexpected key notes"),
    ('{"extract": "", "template": 3, "golden": ""}', "answer: key template must be a string, not a number"),
    ('{"extract": "", "template": "", "golden": null}', "answer: key golden must be a string, not null"),
    ('{"extract": "", "extract": "", "template": "", "golden": ""}', "answer: key extract given twice"),
])
def test_answer_shape_is_refused_naming_the_key(text, message):
    with pytest.raises(DraftGeneratorError) as refused:
        parse_answer(text)
    assert str(refused.value).startswith(message)


def test_answer_round_trips_through_its_cache_text():
    answer = parse_answer(json.dumps(GOOD))
    assert (answer.extract, answer.template, answer.golden) == (GOOD["extract"], GOOD["template"], GOOD["golden"])
    assert parse_answer(answer.cache_text()) == answer
    assert answer.cache_text().endswith("}\n")


# --- no logic -----------------------------------------------------------------------------------

def test_plain_values_and_simple_loops_are_allowed():
    check_no_logic(GOOD["template"])
    check_no_logic("[[ a ]] [[- a.b -]]\n[%- for x in xs.items %][[ x ]][% endfor -%]\n")


@pytest.mark.parametrize("template, line, what", [
    ("a\n[% if x %]y[% endif %]\n", 2, "[% if %] is logic"),
    ("a\nb\n[% set x = 1 %]\n", 3, "[% set %] is logic"),
    ("[[ a ]]\n[[ a|upper ]]\n", 2, "a filter (|) is logic"),
    ("\n\n\n[[ f(a) ]]", 4, "a call is logic"),
    ("[[ a + b ]]", 1, "an operator (+) is logic"),
    ("x\n[[ a == b ]]", 2, "an operator (==) is logic"),
    ("[[ not a ]]", 1, "an operator (not) is logic"),
    ("[[ a[0] ]]", 1, "a subscript is logic"),
    ("[[ 'text' ]]", 1, "a literal ('text') in a tag is logic"),
    ("ok\n[# a comment #]\n", 2, "a [# comment #]"),
    ("[% for x in xs if x %][% endfor %]", 1, "a condition (if) is logic"),
    ("[% for x in xs %]\n[% else %][% endfor %]", 2, "[% else %] is logic"),
    ("[% raw %][[ x ]][% endraw %]", 1, "a [% raw %] block"),
    ("[[ a.b.c ]]", 1, "this tag is neither a value nor a loop"),
    ("a\n[% for x in xs %]\n", 2, "not a valid template"),
])
def test_logic_is_refused_naming_the_line(template, line, what):
    with pytest.raises(DraftGeneratorError) as refused:
        check_no_logic(template)
    assert str(refused.value).startswith(f"template line {line}: {what}")


# --- restated labels ----------------------------------------------------------------------------

NAMES = [("https://example.org/leave/Balances", "Leave balance service"),
         ("https://example.org/leave/Calendar", "Team calendar"),
         ("https://example.org/leave/LeaveRequest", "Leave request")]
REFERENCE_TEXT = "| balances | Leave balance service |\n| calendar | Team calendar |\n"


def test_a_label_of_the_reference_in_the_template_is_refused_naming_line_and_label():
    template = "# Services\n\n| [[ b.name ]] | Leave balance service |\n| x | Team calendar |\n"
    with pytest.raises(DraftGeneratorError) as refused:
        check_no_restated_label(template, REFERENCE_TEXT, NAMES)
    assert str(refused.value) == ("template line 3: restates the model label 'Leave balance service' "
                                  "(<https://example.org/leave/Balances>); extract has to read it from the model")


def test_labels_outside_the_reference_or_inside_tags_are_not_restatements():
    check_no_restated_label("Leave request\n[[ Team calendar ]]\n", REFERENCE_TEXT, NAMES)
    check_no_restated_label("anything\n", REFERENCE_TEXT, [("urn:blank", " ")])


# --- the extract step ---------------------------------------------------------------------------

PACKAGE = scaffold("bindings", REFERENCE)["seams_bindings/__init__.py"].decode()


def test_the_fixture_extract_passes():
    check_extract(GOOD["extract"], PACKAGE)


@pytest.mark.parametrize("source, message", [
    ("def extract(trig, out)\n    return {}\n", "answer extract: not valid Python: expected ':' (line 1)"),
    ("def other(trig, out):\n    return {}\n", "answer extract: defines no function extract(trig, out)"),
    ("def extract(trig, out):\n    return {}\n\n\ndef sources(trig):\n    return []\n",
     "answer extract line 5: redefines sources, which the package module defines"),
    ("from os import path as TEMPLATES\n\ndef extract(trig, out):\n    return {}\n",
     "answer extract line 1: redefines TEMPLATES, which the package module defines"),
    ("def extract(trig, out):\n    return {}\n\nprint('hi')\n",
     "answer extract line 4: only imports, definitions and constants may be at the top level"),
])
def test_extract_steps_that_change_the_judge_are_refused(source, message):
    with pytest.raises(DraftGeneratorError) as refused:
        check_extract(source, PACKAGE)
    assert str(refused.value) == message


# --- reading the golden session -----------------------------------------------------------------

def test_failure_lines_name_failed_missing_and_stray_items_and_a_timeout():
    from pytest_seams.runner import ItemResult, SessionResult
    from seams.findings import Finding
    from seams_cli.verdicts import golden_lines
    from seams_cli.workflows.generator_draft import expected_items

    expected = expected_items("r.md")
    items = [ItemResult(expected[0], expected[0], "golden", "failed",
                        [Finding("golden", "tests/golden/r.md", None, "the rendered output differs")]),
             ItemResult(expected[1], expected[1], "determinism", "passed"),
             ItemResult(expected[2], expected[2], "parses", "skipped", text="\n  skipped: why\n"),
             ItemResult("tests/test_x.py", "tests/test_x.py", "collect", "error", text="ImportError: x")]
    result = SessionResult(items=items, timed_out=True, exit_status=None, error="stopped")
    assert golden_lines(result, expected, timeout=2.5) == [
        "tests/golden/r.md::golden: the rendered output differs",
        "tests/golden/r.md::parses: skipped: why",
        "tests/golden/r.md::sources: did not run",
        "tests/test_x.py: ImportError: x",
        "tests: the golden session timed out after 2.5 s"]

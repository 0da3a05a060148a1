"""A drafted generator package's own pytest enforces the drafting rules: its golden file
collects ``extract``, ``no-logic`` and ``restated-label`` beside the four golden items, and a
hand-scaffolded package (``seams new-generator``) collects only the four."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import EXAMPLE

from pytest_seams.runner import run_session
from seams.generators.new_generator import scaffold, write
from seams.generators.package import draft_reference

FIXTURES = Path(__file__).parent / "fixtures" / "draft_generator"
REFERENCE = FIXTURES / "references" / "bindings.md"
ANSWER = json.loads((FIXTURES / "answers" / "bindings.txt").read_text().strip()
                    .removeprefix("```json").removesuffix("```"))
MODEL = EXAMPLE / "model" / "model.trig"
RULES = ("extract", "no-logic", "restated-label")
GOLDEN = ("golden", "determinism", "parses", "sources")


def _session(tmp_path: Path, **answer: str) -> dict[str, tuple[str, list[str]]]:
    texts = {**ANSWER, **answer}
    package = tmp_path / "seams-bindings"
    write(scaffold("bindings", REFERENCE, extract_source=texts["extract"], template=texts["template"],
                   golden=texts["golden"]), package, force=False)
    result = run_session(package, select="tests", timeout=120, env={"SEAMS_MODEL": str(MODEL)})
    return {item.name.rpartition("::")[2]: (item.outcome, [f.message for f in item.findings])
            for item in result.items}


def test_a_drafted_package_keeps_its_reference_and_passes_all_seven_items(tmp_path):
    files = scaffold("bindings", REFERENCE, extract_source=ANSWER["extract"], template=ANSWER["template"],
                     golden=ANSWER["golden"])
    pyproject = files["pyproject.toml"].decode()
    assert draft_reference(pyproject) == REFERENCE.read_text()
    assert pyproject.startswith(scaffold("bindings", REFERENCE)["pyproject.toml"].decode())
    assert draft_reference(scaffold("bindings", REFERENCE)["pyproject.toml"].decode()) is None
    outcomes = _session(tmp_path)
    assert list(outcomes) == [*RULES, *GOLDEN]
    assert {name: outcome for name, (outcome, _) in outcomes.items()} == dict.fromkeys([*RULES, *GOLDEN], "passed")


def test_logic_and_a_restated_label_fail_their_items_in_the_package_s_own_session(tmp_path):
    template = ANSWER["template"].replace("[[ b.label ]]", "[[ b.label|upper ]]")
    outcomes = _session(tmp_path, template=template)
    assert outcomes["no-logic"] == ("failed", [
        "template line 7: a filter (|) is logic; only [[ name ]], [[ name.attr ]], "
        "[% for x in xs %] and [% endfor %] are allowed"])
    assert outcomes["extract"][0] == outcomes["restated-label"][0] == "passed"

    restating = _session(tmp_path / "second", template=REFERENCE.read_text())
    assert restating["restated-label"] == ("failed", [
        "template line 7: restates the model label 'Leave balance service' "
        "(<https://example.org/leave/Balances>); extract has to read it from the model"])


def test_an_extract_that_redefines_the_scaffold_fails_the_extract_item(tmp_path):
    extract = ANSWER["extract"] + "\n\ndef sources(trig, out):\n    return []\n"
    outcomes = _session(tmp_path, extract=extract)
    (outcome, messages), = [outcomes["extract"]]
    assert outcome == "failed" and len(messages) == 1
    assert messages[0].startswith("answer extract line ") and messages[0].endswith(
        ": redefines sources, which the package module defines")

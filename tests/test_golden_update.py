"""Golden files that follow the model: ``pytest --seams-update-golden``, and golden items
that find the project's model by themselves.

The unit tests pin how markers are carried over; the end-to-end test is the
day-two story: a drafted generator package inside the project, a suggestion
accepted, the golden file re-rendered for review, ``pytest`` green again.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import run_seams

from pytest_seams.golden_update import updated_golden

FIXTURES = Path(__file__).parent / "fixtures" / "suggest"


def _no_subject(line: str, predicates: list[str]) -> str | None:
    return None


def test_unchanged_lines_keep_their_markers_and_a_replaced_line_keeps_its_place():
    golden = "[fixed] # Title\n\n[graph: ex:a seam:name] | a |\n[graph: ex:b seam:name] | b |\n"
    output = "# Title\n\n| a |\n| b2 |\n"
    assert updated_golden(golden, output, _no_subject) == (
        "[fixed] # Title\n\n[graph: ex:a seam:name] | a |\n[graph: ex:b seam:name] | b2 |\n")


def test_a_new_line_among_graph_lines_names_the_subject_it_comes_from():
    golden = "[graph: ex:a seam:name, rdfs:label] | a | A |\n[graph: ex:c seam:name, rdfs:label] | c | C |"
    output = "| a | A |\n| b | B |\n| c | C |"
    asked = []

    def find(line: str, predicates: list[str]) -> str | None:
        asked.append((line, predicates))
        return "ex:b"
    assert updated_golden(golden, output, find).split("\n")[1] == "[graph: ex:b seam:name, rdfs:label] | b | B |"
    assert asked == [("| b | B |", ["seam:name", "rdfs:label"])]
    # no subject found: the reviewer is asked to fill it in
    assert updated_golden(golden, output, _no_subject).split("\n")[1] == "[graph: ? seam:name, rdfs:label] | b | B |"


def test_a_new_line_among_fixed_lines_is_fixed():
    assert updated_golden("[fixed] a\n[fixed] c", "a\nb\nc", _no_subject) == "[fixed] a\n[fixed] b\n[fixed] c"


def _pytest(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}  # no SEAMS_MODEL: the project's model
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=root,
                          env=env, capture_output=True, text=True, timeout=300, check=False)


def test_a_package_in_the_project_follows_the_model_through_a_reviewed_update(example_project):
    root = example_project
    assert run_seams("propose", "record_leave", cwd=root).returncode == 0
    drafted = run_seams("draft-generator", "variables", "--reference", "reference/variables.md", cwd=root)
    assert drafted.returncode == 0, drafted.stderr
    first = _pytest(root)
    assert first.returncode == 0, first.stdout[-3000:]  # golden items found the project's model

    suggested = run_seams("suggest", "--kind", "condition-to-dmn", "--provider", f"{sys.executable} {FIXTURES / 'provider.py'} "
                          f"{FIXTURES / 'escalate.json'}", cwd=root)
    ident = suggested.stdout.splitlines()[-2].removeprefix("suggestion ")
    assert run_seams("suggest", "--accept", ident[:8], cwd=root).returncode == 0
    assert run_seams("generate", cwd=root).returncode == 0

    stale = _pytest(root)
    assert stale.returncode == 1 and "the rendered output differs from the golden text" in stale.stdout
    golden = root / "seams-variables" / "tests" / "golden" / "variables.md"
    before = golden.read_text()
    updated = _pytest(root, "--seams-update-golden")
    assert updated.returncode == 1 and "updated from the model (--seams-update-golden)" in updated.stdout
    after = golden.read_text()
    new = [line for line in after.splitlines() if line not in before.splitlines()]
    assert new == ["[graph: ex:escalation seam:name, seam:datatype, rdfs:label] | escalation | xsd:string "
                   "| Escalation |"]
    again = _pytest(root)
    assert again.returncode == 0, again.stdout[-3000:]

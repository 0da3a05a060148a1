"""What `seams check` and `seams suggest` say about Camunda conditions they cannot use.

An out-of-subset condition is one finding naming the flow, the dialect and
the construct; a script condition is not analysable; a gateway whose
conditions mix dialects is a finding and, like a gateway with a script
condition, is not offered to ``seams suggest``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import edit

from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.suggestions.candidates import find_candidates
from seams_cli.main import main
from seams_cli.workflows.suggest.prompt import build_prompt

REPO = Path(__file__).resolve().parents[1]
HR_C7 = "<![CDATA[${days > 20 || leave_type == 'unpaid'}]]>"


def _copy(tmp_path: Path, variant: str) -> Path:
    root = tmp_path / variant
    shutil.copytree(REPO / "examples" / variant, root, ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    return root


def _run(capsys, root: Path, *args: str) -> tuple[int, list[str], list[str]]:
    code = main([args[0], "--project", str(root), *args[1:]])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


@pytest.mark.parametrize(("variant", "old", "new", "line"), [
    ("leave-c7", HR_C7, "${leave_type.isEmpty()}",
     "decision Flow_HR bpmn:conditionExpression: JUEL method call leave_type.isEmpty() is not supported"),
    ("leave-c8", '<![CDATA[=days > 20 or leave_type = "unpaid"]]>', "=1 &lt; days &lt; 20",
     "decision Flow_HR bpmn:conditionExpression: FEEL chained comparison ('<' after a comparison) is not supported"),
    ("leave-c7", f'<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">{HR_C7}',
     '<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression" language="groovy">days &gt; 20',
     'decision Flow_HR bpmn:conditionExpression: script condition (language="groovy") is not analysable'),
    ("leave-c7", HR_C7, "days > 20 or leave_type == 'unpaid'",
     "decision Gateway_Escalate bpmn:conditionExpression: outgoing conditions mix dialects "
     "(Flow_Done JUEL, Flow_HR seams)"),
])
def test_a_condition_seams_cannot_use_is_one_finding_and_its_gateway_is_not_offered(
        capsys, tmp_path, variant, old, new, line):
    root = _copy(tmp_path, variant)
    edit(root / "model" / "leave.bpmn", old, new)
    code, out, err = _run(capsys, root, "check")
    assert code == 1
    assert any(text.startswith(line) for text in out + err), out + err
    assert not any("Traceback" in text for text in out + err)

    offered = [c.element_id for c in find_candidates(load_model(load_project(root)))]
    assert offered == ["Gateway_Reviewed"]  # Gateway_Escalate is left to the finding above


@pytest.mark.parametrize("variant", ["leave-c7", "leave-c8"])
def test_the_clean_variants_offer_both_inline_rule_gateways_in_their_dialect(variant):
    candidates = find_candidates(load_model(load_project(REPO / "examples" / variant)))
    assert [(c.element_id, c.dialect) for c in candidates] == [
        ("Gateway_Escalate", "juel" if variant == "leave-c7" else "feel"),
        ("Gateway_Reviewed", "juel" if variant == "leave-c7" else "feel")]


@pytest.mark.parametrize(("variant", "dialect", "written"), [
    ("leave-c7", "JUEL", "${days > 20 || leave_type == 'unpaid'}"),
    ("leave-c8", "FEEL", '=days > 20 or leave_type = \\"unpaid\\"'),
])
def test_the_prompt_shows_conditions_as_written_and_names_their_dialect(variant, dialect, written):
    model = load_model(load_project(REPO / "examples" / variant))
    prompt = build_prompt(model, find_candidates(model))
    assert prompt.startswith("seams prompt suggest-v3.txt\n")
    assert f'"dialect": "{dialect}"' in prompt
    assert written in prompt
    assert "Write every condition of your answer in the dialect of its gateway" in prompt

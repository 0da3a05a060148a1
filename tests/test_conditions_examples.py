"""The Camunda 7 and Camunda 8 variants of the example, end to end through `seams`.

examples/leave-c7 writes its gateway conditions in JUEL (``${...}``, with
``camunda:`` attributes), examples/leave-c8 in FEEL (``=...``, with
``zeebe:`` extensions). Each goes through check, suggest, accept, generate
and check again, and the rewritten conditions come back in the gateway's
own dialect; ``seams undo`` puts the model back byte for byte.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from seams_cli.main import main

REPO = Path(__file__).resolve().parents[1]
MODEL_FILES = ("model/model.trig", "model/leave.bpmn", "model/leave.dmn")


def _run(capsys, root: Path, *args: str) -> tuple[int, list[str]]:
    code = main([args[0], "--project", str(root), *args[1:]])
    out, err = capsys.readouterr()
    return code, (out + err).splitlines()


@pytest.mark.parametrize(("variant", "hr", "done", "before"), [
    ("leave-c7", "<![CDATA[${escalation == 'hr'}]]>", "<![CDATA[${escalation == 'none'}]]>",
     "<![CDATA[${days > 20 || leave_type == 'unpaid'}]]>"),
    ("leave-c8", '<![CDATA[=escalation = "hr"]]>', '<![CDATA[=escalation = "none"]]>',
     '<![CDATA[=days > 20 or leave_type = "unpaid"]]>'),
])
def test_variant_goes_through_suggest_accept_generate_check_and_undo(capsys, tmp_path, variant, hr, done, before):
    root = tmp_path / variant
    shutil.copytree(REPO / "examples" / variant, root, ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    original = {name: (root / name).read_bytes() for name in MODEL_FILES}
    assert before in original["model/leave.bpmn"].decode()

    assert _run(capsys, root, "check") == (0, ["seams check: no problems"])
    code, lines = _run(capsys, root, "suggest")
    assert code == 0, lines
    assert "routing kept (21 samples)" in lines and "generate passed" in lines
    ident = lines[-2].removeprefix("suggestion ")
    code, lines = _run(capsys, root, "suggest", "--accept", ident)
    assert code == 0, lines

    bpmn = (root / "model/leave.bpmn").read_text(encoding="utf-8")
    assert hr in bpmn and done in bpmn and before not in bpmn
    # "long or unpaid" restated the rule now in the table; "otherwise" did not and is kept
    assert '<bpmn:sequenceFlow id="Flow_HR" name="hr"' in bpmn
    assert '<bpmn:sequenceFlow id="Flow_Done" name="otherwise"' in bpmn
    assert _run(capsys, root, "generate")[0] == 0
    assert _run(capsys, root, "check") == (0, ["seams check: no problems"])

    code, lines = _run(capsys, root, "undo")
    assert code == 0, lines
    assert {name: (root / name).read_bytes() for name in MODEL_FILES} == original


@pytest.mark.parametrize(("variant", "written"), [
    ("leave-c7", '<![CDATA[${escalation == "hr"}]]>'),
    ("leave-c8", '<![CDATA[=escalation = "hr"]]>'),
])
def test_an_answer_in_seams_dialect_is_written_in_the_gateways_dialect(capsys, tmp_path, variant, written):
    root = tmp_path / variant
    shutil.copytree(REPO / "examples" / variant, root, ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    answer = Path(__file__).parent / "fixtures" / "suggest" / "escalate.json"
    assert 'escalation == \\"hr\\"' in answer.read_text(encoding="utf-8")  # seams' own dialect
    code, lines = _run(capsys, root, "suggest", "--provider",
                       f"{sys.executable} {Path(__file__).parent / 'fixtures' / 'suggest' / 'provider.py'} {answer}")
    assert code == 0, lines
    code, lines = _run(capsys, root, "suggest", "--accept", lines[-2].removeprefix("suggestion "))
    assert code == 0, lines
    assert written in (root / "model/leave.bpmn").read_text(encoding="utf-8")

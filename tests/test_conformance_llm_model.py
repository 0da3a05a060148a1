"""Conformance: an empty ``--llm-model`` is a ProjectError naming propose.model in every
mode of ``seams suggest`` (D-keys, docs/architecture.md), not only when the provider is asked.

``--list``, ``--accept`` and a model without candidates used to ignore the flag and
exit 0; the amendment says anything but a non-empty name is a ProjectError (exit 2).
The provider here fails if it runs, so a refusal that came after it would show.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from helpers import copy_example, edit

from seams_cli.commands.suggest import NO_CANDIDATES
from seams_cli.main import main

REFUSAL = "seams suggest: propose.model (--llm-model) must be a non-empty string"


def _failing_provider(tmp_path: Path) -> str:
    script = tmp_path / "must_not_run.py"
    script.write_text("import sys\nprint('provider ran', file=sys.stderr)\nsys.exit(9)\n", encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def _without_candidates(root: Path) -> None:
    """Every gateway condition reads the decision output ``approval``: nothing to suggest."""
    bpmn = root / "model" / "leave.bpmn"
    edit(bpmn, ">approved == True<", '>approval == "auto"<')
    edit(bpmn, ">not approved<", '>approval == "manager"<')
    edit(bpmn, '<![CDATA[days > 20 or leave_type == "unpaid"]]>', '<![CDATA[approval == "auto"]]>')
    edit(bpmn, '<![CDATA[days <= 20 and leave_type != "unpaid"]]>', '<![CDATA[approval == "manager"]]>')


@pytest.mark.parametrize("mode", [
    ["--list"],
    ["--accept", "0" * 64],
    [],  # the model has no candidates
])
def test_empty_llm_model_is_refused_in_every_suggest_mode(tmp_path, capsys, mode):
    root = copy_example(tmp_path)
    _without_candidates(root)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    code = main(["suggest", *mode, "--project", str(root), "--provider", _failing_provider(tmp_path),
                 "--llm-model", ""])
    out, err = capsys.readouterr()
    assert (code, out, err.splitlines()) == (2, "", [REFUSAL])
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_a_named_llm_model_still_lists_and_reports_no_candidates(tmp_path, capsys):
    """The check refuses only the empty name: a named model leaves both modes as they were."""
    root = copy_example(tmp_path)
    _without_candidates(root)
    provider = _failing_provider(tmp_path)
    assert main(["suggest", "--project", str(root), "--provider", provider, "--llm-model", "m1",
                 "--kind", "condition-to-dmn"]) == 0
    assert capsys.readouterr().out.splitlines() == [NO_CANDIDATES]
    assert main(["suggest", "--list", "--project", str(root), "--llm-model", "m1"]) == 0
    assert capsys.readouterr().out.splitlines() == ["no pending suggestions"]

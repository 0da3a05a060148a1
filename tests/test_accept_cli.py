"""``seams accept TASK``: a hand-edited handler goes back to green only after its tests pass.

Day two with seams: a person edits an accepted draft; ``seams check`` says
``draft-hand-edited``; ``seams accept`` judges the file as it is and records
it by hand in the lock; ``propose --force`` never drops such an edit silently.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
from pathlib import Path

import pytest
from helpers import edit, run_seams

from seams_cli.main import main

FAKE = Path(__file__).parent / "fixtures" / "providers" / "fake.py"
TASK = "https://example.org/leave/RecordLeave"
MODULE = "handlers/record_leave.py"


@pytest.fixture
def seams(capsys, monkeypatch):
    """Run ``seams ARGS --project ROOT`` in-process -> (exit, stdout lines, stderr)."""
    monkeypatch.delenv("SEAMS_MODEL", raising=False)

    def run(root: Path, *args: str) -> tuple[int, list[str], str]:
        code = main([*args, "--project", str(root)])
        out, err = capsys.readouterr()
        return code, out.splitlines(), err
    return run


@pytest.fixture
def accepted(example_project, seams):
    """The example after the README's propose: record_leave drafted, recorded in the lock."""
    code, lines, err = seams(example_project, "propose", "record_leave")
    assert code == 0, lines + [err]
    return example_project


def _drafts(root: Path) -> list[dict]:
    return json.loads((root / "seams.lock").read_text())["drafts"]


def test_a_hand_edit_is_recorded_by_hand_once_its_tests_pass(accepted, seams):
    module = accepted / MODULE
    module.write_text("# reviewed by Ada\n" + module.read_text())
    code, lines, _ = seams(accepted, "check")
    assert code == 1 and lines == [
        "draft-hand-edited handlers/record_leave.py: the file changed since its draft was accepted; "
        "review it, then run seams accept record_leave to record it"]

    code, lines, err = seams(accepted, "accept", "record_leave")
    assert (code, err) == (0, "")
    assert lines[0] == f"task {TASK}" and lines[1].startswith("context ")
    digest = hashlib.sha256(module.read_bytes()).hexdigest()
    assert lines[2:] == [f"module {MODULE} {digest}", "tests passed", f"recorded {MODULE}"]
    assert _drafts(accepted) == [{"by": "hand", "context_hash": lines[1].split()[1], "module": MODULE,
                                  "sha256": digest, "task": TASK}]
    assert seams(accepted, "check")[:2] == (0, ["seams check: no problems"])

    # the record still follows the model: a fact the handler depends on changes -> draft-stale
    edit(accepted / "model" / "model.trig", '"^BK-[0-9]+$"', '"^BK-[0-9]{4}$"')
    code, lines, _ = seams(accepted, "check")
    assert code == 1 and any(line.startswith("draft-stale ex:RecordLeave: ") for line in lines)


def test_a_broken_hand_edit_is_not_recorded(accepted, seams):
    before = (accepted / "seams.lock").read_bytes()
    (accepted / MODULE).write_text("def handle(inputs, bindings):\n    return {'booking_ref': 'BK-1'}\n")
    code, lines, _ = seams(accepted, "accept", "record_leave")
    assert code == 1 and lines[-1].startswith("failed seams.toml::record_leave::")
    assert "tests passed" not in lines and (accepted / "seams.lock").read_bytes() == before


def test_propose_force_keeps_a_hand_edit_unless_overwrite(accepted, seams):
    module = accepted / MODULE
    module.write_text(module.read_text() + "\n# my note\n")
    edited = module.read_bytes()
    fake = shlex.join([sys.executable, str(FAKE), "good"])
    code, lines, err = seams(accepted, "propose", "record_leave", "--provider", fake, "--force")
    assert (code, lines) == (1, [])
    assert err == (f"seams propose: {MODULE} was edited since its record in seams.lock; run seams accept "
                   "record_leave to keep it as it is, or --overwrite to replace it\n")
    assert module.read_bytes() == edited
    code, lines, _ = seams(accepted, "propose", "record_leave", "--provider", fake, "--overwrite")
    assert code == 0 and lines[-1] == f"wrote {MODULE}" and module.read_bytes() != edited


def test_accept_without_a_module_names_the_way_to_get_one(example_project, seams):
    code, lines, err = seams(example_project, "accept", "record_leave")
    assert (code, lines) == (2, [])
    assert err == ("seams accept: handlers/record_leave.py: no such handler module; run seams propose "
                   "record_leave, or copy generated/stubs/record_leave.py there and write its body\n")


def test_accept_is_a_command_of_the_installed_seams(accepted):
    (accepted / MODULE).write_text((accepted / MODULE).read_text() + "# tidy\n")
    result = run_seams("accept", "Task_RecordLeave", cwd=accepted)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == f"recorded {MODULE}"

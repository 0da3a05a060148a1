"""A reviewed handler is never replaced silently (docs/propose.md): ``propose --force`` leaves a
module accepted by hand alone, every replacement by propose is undoable with ``seams undo``,
and ``seams accept`` on an untouched stale draft refreshes the draft's record instead of
claiming it as hand-written. Each through the real ``seams`` command on a copy of the
example, with its recorded-answer provider."""

from __future__ import annotations

import json

from helpers import copy_example, edit, run_seams


def _record(root, module="handlers/record_leave.py") -> dict:
    return next(r for r in json.loads((root / "seams.lock").read_text())["drafts"] if r["module"] == module)


def test_force_never_replaces_a_hand_accepted_module_and_overwrite_is_undoable(tmp_path):
    root = copy_example(tmp_path)
    assert run_seams("propose", "record_leave", cwd=root, timeout=300).returncode == 0
    module = root / "handlers" / "record_leave.py"
    reviewed = module.read_text(encoding="utf-8") + "\n# reviewed: keep the strip() below\n"
    module.write_text(reviewed, encoding="utf-8")
    accepted = run_seams("accept", "record_leave", cwd=root, timeout=300)
    assert accepted.returncode == 0 and _record(root)["by"] == "hand", accepted.stdout + accepted.stderr
    lock_before = (root / "seams.lock").read_bytes()

    forced = run_seams("propose", "record_leave", "--force", cwd=root, timeout=300)
    assert forced.returncode != 0 and "Traceback" not in forced.stderr
    assert '"by": "hand"' in forced.stderr and "--overwrite" in forced.stderr, forced.stderr
    assert module.read_text(encoding="utf-8") == reviewed

    replaced = run_seams("propose", "record_leave", "--overwrite", cwd=root, timeout=300)
    assert replaced.returncode == 0, replaced.stdout + replaced.stderr
    assert module.read_text(encoding="utf-8") != reviewed and "by" not in _record(root)

    undone = run_seams("undo", cwd=root)
    assert undone.returncode == 0, undone.stderr
    assert module.read_text(encoding="utf-8") == reviewed
    assert (root / "seams.lock").read_bytes() == lock_before


def test_accept_of_an_untouched_stale_draft_keeps_it_a_draft(tmp_path):
    root = copy_example(tmp_path)
    assert run_seams("propose", "record_leave", cwd=root, timeout=300).returncode == 0
    drafted = _record(root)
    trig = root / "model" / "model.trig"
    edit(trig, 'rdfs:label "Record leave"', 'rdfs:label "Record the leave"', 1)
    stale = run_seams("check", cwd=root)
    assert stale.returncode == 1 and "draft-stale" in stale.stdout, stale.stdout
    accepted = run_seams("accept", "record_leave", cwd=root, timeout=300)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "refreshed handlers/record_leave.py" in accepted.stdout
    record = _record(root)
    assert "by" not in record and record["provider"] == drafted["provider"] and record["template"] == drafted["template"]
    assert record["context_hash"] != drafted["context_hash"]
    assert run_seams("generate", cwd=root).returncode == 0  # the stub shows the label too
    assert run_seams("check", cwd=root).returncode == 0

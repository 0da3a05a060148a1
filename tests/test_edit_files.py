"""files.apply: every changed file is written or none, inside the root, with an undo entry."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from seams.errors import EditError
from seams.fs import sha256_hex as sha256
from seams.project import writes
from seams_edit import files
from seams_edit.files import apply


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "model").mkdir(parents=True)
    (root / "model" / "model.trig").write_bytes(b"# model\n")
    (root / "model" / "claims.bpmn").write_bytes(b"<bpmn/>\n")
    return root


def undo_dir(root: Path) -> Path:
    return root / ".seams" / "undo"


def fail_second_call(monkeypatch, name: str, error: OSError) -> list[tuple]:
    """Make ``os.<name>`` raise ``error`` on its second call only; returns the calls seen."""
    real, calls = getattr(os, name), []

    def failing(*args):
        calls.append(args)
        if len(calls) == 2:
            raise error
        return real(*args)

    monkeypatch.setattr(os, name, failing)
    return calls


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_apply_writes_every_changed_file_and_records_what_it_replaced(project):
    changes = {
        Path("model/model.trig"): b"# model, changed\n",
        Path("model/claims.bpmn"): b"<bpmn/>\n",  # unchanged: not written
        project / "model" / "new.dmn": b"<dmn/>\n",
    }
    record = apply(project, changes, undo_dir=undo_dir(project))
    assert record.changed == (project / "model" / "model.trig", project / "model" / "new.dmn")
    assert (project / "model" / "model.trig").read_bytes() == b"# model, changed\n"
    assert (project / "model" / "new.dmn").read_bytes() == b"<dmn/>\n"
    entry = record.undo_entry
    assert entry is not None and entry.parent == undo_dir(project) and entry.name.startswith("000001-")
    manifest = json.loads((entry / "manifest.json").read_text())
    assert manifest["files"] == [
        {"path": "model/model.trig", "before": "0.before", "after_sha256": sha256(b"# model, changed\n")},
        {"path": "model/new.dmn", "before": None, "after_sha256": sha256(b"<dmn/>\n")},
    ]
    assert (entry / "0.before").read_bytes() == b"# model\n"
    assert (project / ".seams" / ".gitignore").read_text() == "*\n"
    second = apply(project, {Path("model/new.dmn"): b"<dmn2/>\n"}, undo_dir=undo_dir(project))
    assert second.undo_entry is not None and second.undo_entry.name.startswith("000002-")


def test_identical_content_writes_nothing_and_records_nothing(project):
    before = snapshot(project)
    record = apply(project, {Path("model/model.trig"): b"# model\n"}, undo_dir=undo_dir(project))
    assert record.changed == () and record.undo_entry is None
    assert snapshot(project) == before and not (project / ".seams").exists()


def test_an_existing_gitignore_is_left_alone(project):
    (project / ".seams").mkdir()
    (project / ".seams" / ".gitignore").write_text("drafts/\n")
    apply(project, {Path("model/model.trig"): b"x\n"}, undo_dir=undo_dir(project))
    assert (project / ".seams" / ".gitignore").read_text() == "drafts/\n"


@pytest.mark.parametrize("path", ["../outside.trig", "/etc/passwd", "model/../../outside.trig"])
def test_a_path_outside_the_root_is_refused_and_nothing_is_written(project, path):
    before = snapshot(project)
    with pytest.raises(EditError, match=f"{path}: outside the project root"):
        apply(project, {Path("model/model.trig"): b"changed\n", Path(path): b"x"}, undo_dir=undo_dir(project))
    assert snapshot(project) == before


def test_a_symlink_leading_out_of_the_root_is_refused(project, tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (project / "model" / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(EditError, match="outside the project root"):
        apply(project, {Path("model/link/model.trig"): b"x"}, undo_dir=None)
    assert not (tmp_path / "elsewhere" / "model.trig").exists()


def test_a_crash_between_two_replaces_leaves_the_originals(project, monkeypatch):
    before = snapshot(project)
    calls = fail_second_call(monkeypatch, "replace", OSError(28, "No space left on device"))
    changes = {
        Path("model/claims.bpmn"): b"<bpmn changed/>\n",
        Path("model/model.trig"): b"# changed\n",
        Path("model/new.dmn"): b"<dmn/>\n",
    }
    with pytest.raises(EditError, match=r"model.trig: cannot write: No space left on device; no file was changed"):
        apply(project, changes, undo_dir=undo_dir(project))
    assert len(calls) == 3  # the first file was replaced, then put back
    after = snapshot(project)
    assert {k: v for k, v in after.items() if not k.startswith(".seams/")} == before
    assert list(undo_dir(project).iterdir()) == []  # no undo entry for an apply that did not happen
    assert not any(name.endswith(".tmp") for name in after)


def test_a_failure_while_preparing_writes_nothing(project, monkeypatch):
    before = snapshot(project)
    real, calls = writes.temporary_beside, []

    def second_fails(target, content):  # the undo entry is written; the second temporary file fails
        calls.append(target)
        if len(calls) == 2:
            raise OSError(122, "Disk quota exceeded")
        return real(target, content)

    monkeypatch.setattr(writes, "temporary_beside", second_fails)  # the one all-or-none writer
    changes = {Path("model/model.trig"): b"# changed\n", Path("model/claims.bpmn"): b"<changed/>\n"}
    with pytest.raises(EditError, match="model.trig: cannot write: Disk quota exceeded; no file was changed"):
        apply(project, changes, undo_dir=undo_dir(project))
    assert {k: v for k, v in snapshot(project).items() if not k.startswith(".seams/")} == before
    assert list(undo_dir(project).iterdir()) == []


def test_a_path_that_cannot_be_read_is_an_edit_error_naming_it(project):
    (project / "blocker").write_bytes(b"a file, not a directory\n")
    with pytest.raises(EditError, match="blocker/inside.trig: cannot read: Not a directory"):
        apply(project, {Path("blocker/inside.trig"): b"x\n"}, undo_dir=None)


def test_a_replaced_file_keeps_its_permissions(project):
    target = project / "model" / "model.trig"
    target.chmod(0o640)
    apply(project, {Path("model/model.trig"): b"# changed\n"}, undo_dir=None)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_content_must_be_bytes(project):
    with pytest.raises(EditError, match="model/model.trig: new content must be bytes, not str"):
        apply(project, {Path("model/model.trig"): "text"}, undo_dir=None)  # type: ignore[dict-item]


def test_undo_entries_are_numbered_in_order(tmp_path):
    for name in ("000002-bbbbbbbbbbbb", "000010-aaaaaaaaaaaa", "000001-cccccccccccc", ".staging-x"):
        (tmp_path / name).mkdir()
    assert [p.name for p in files.undo_entries(tmp_path)] == [
        "000001-cccccccccccc", "000002-bbbbbbbbbbbb", "000010-aaaaaaaaaaaa",
    ]
    assert files.next_sequence(tmp_path) == 11

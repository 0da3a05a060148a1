"""Undo: the last apply comes back byte for byte, unless a file changed since."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from test_edit_files import fail_second_call

from seams.errors import EditError
from seams_cli.commands import undo as undo_command
from seams_edit import apply, undo_dir, undo_last


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "model").mkdir(parents=True)
    (root / "seams.toml").write_text('[project]\nbase = "https://example.org/x/"\n')
    (root / "model" / "model.trig").write_bytes(b"# model\r\nex:a ex:b ex:c .\n")  # odd bytes on purpose
    (root / "model" / "claims.bpmn").write_bytes(b"<bpmn/>")
    return root


def model_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "model").rglob("*")) if p.is_file()}


def change(root: Path, **contents: bytes) -> None:
    changes = {Path("model") / name.replace("_", "."): data for name, data in contents.items()}
    apply(root, changes, undo_dir=undo_dir(root))


def test_undo_restores_the_last_apply_byte_for_byte_and_deletes_new_files(project):
    original = model_files(project)
    change(project, model_trig=b"# changed\n", new_dmn=b"<dmn/>")
    restored = undo_last(project)
    assert restored == [project / "model" / "model.trig", project / "model" / "new.dmn"]
    assert model_files(project) == original
    assert list(undo_dir(project).iterdir()) == []


def test_each_undo_takes_back_one_apply_until_there_is_nothing_left(project):
    original = model_files(project)
    change(project, model_trig=b"# first\n")
    after_first = model_files(project)
    change(project, model_trig=b"# second\n", claims_bpmn=b"<bpmn v='2'/>")
    undo_last(project)
    assert model_files(project) == after_first
    undo_last(project)
    assert model_files(project) == original
    with pytest.raises(EditError, match="nothing to undo"):
        undo_last(project)


def test_undo_is_refused_naming_a_file_edited_since(project):
    change(project, model_trig=b"# changed\n", claims_bpmn=b"<bpmn v='2'/>")
    (project / "model" / "claims.bpmn").write_bytes(b"<bpmn v='hand edited'/>")
    edited = model_files(project)
    with pytest.raises(EditError, match=r"^model/claims.bpmn: changed since the apply \(sha256 differs\)"):
        undo_last(project)
    assert model_files(project) == edited
    (project / "model" / "claims.bpmn").write_bytes(b"<bpmn v='2'/>")  # the hand edit taken back
    undo_last(project)
    assert (project / "model" / "claims.bpmn").read_bytes() == b"<bpmn/>"


def test_undo_is_refused_when_a_written_file_was_deleted(project):
    change(project, new_dmn=b"<dmn/>")
    (project / "model" / "new.dmn").unlink()
    with pytest.raises(EditError, match="model/new.dmn: changed since the apply"):
        undo_last(project)


def test_a_manifest_pointing_outside_the_project_is_refused(project, tmp_path):
    change(project, model_trig=b"# changed\n")
    (entry,) = undo_dir(project).iterdir()
    manifest = json.loads((entry / "manifest.json").read_text())
    manifest["files"][0]["path"] = "../outside.trig"
    (entry / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "outside.trig").write_bytes(b"keep me")
    with pytest.raises(EditError, match="outside the project root"):
        undo_last(project)
    assert (tmp_path / "outside.trig").read_bytes() == b"keep me"


def test_an_unreadable_manifest_is_an_edit_error_naming_it(project):
    change(project, model_trig=b"# changed\n")
    (entry,) = undo_dir(project).iterdir()
    (entry / "manifest.json").write_text("{not json")
    with pytest.raises(EditError, match=r"manifest.json: unreadable undo manifest"):
        undo_last(project)


def test_a_crash_during_undo_leaves_the_files_as_the_apply_wrote_them(project, monkeypatch):
    change(project, model_trig=b"# changed\n", claims_bpmn=b"<bpmn v='2'/>")
    applied = model_files(project)
    fail_second_call(monkeypatch, "replace", OSError(5, "Input/output error"))
    with pytest.raises(EditError, match="Input/output error"):
        undo_last(project)
    assert model_files(project) == applied
    monkeypatch.undo()
    undo_last(project)  # the entry survived the failed undo
    assert (project / "model" / "model.trig").read_bytes() == b"# model\r\nex:a ex:b ex:c .\n"


def test_the_command_prints_each_restored_file(project, capsys):
    change(project, model_trig=b"# changed\n", new_dmn=b"<dmn/>")
    parser = argparse.ArgumentParser()
    undo_command.add_arguments(parser)
    assert undo_command.run(parser.parse_args(["--project", str(project)])) == 0
    assert capsys.readouterr().out == "restored model/model.trig\nrestored model/new.dmn\n"

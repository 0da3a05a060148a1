"""Regression tests of the security review: paths that led a write (or a delete) outside
its root, each tried as an attacker would, on a copy of the example."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from helpers import copy_example, edit
from hypothesis import given
from hypothesis import strategies as st

from seams.errors import EditError, GeneratorError, ProjectError
from seams.fs import ensure_local_dir
from seams.generators.generate import write_generated
from seams.generators.new_generator import scaffold, write
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_cli.llm.prompting import quote
from seams_edit.undo import undo_last

TRIG = Path("model") / "model.trig"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("spelling", ["absolute", "dotdot"])
def test_payload_path_that_comes_back_inside_is_refused(tmp_path, spelling):
    """``../../<abs model dir>/leave.bpmn`` resolves inside the model directory here, but the
    scratch copy joined the same text to its own directory and wrote the payload outside it."""
    root = copy_example(tmp_path)
    model_dir = (root / "model").resolve()
    text = (str(model_dir / "leave.bpmn") if spelling == "absolute"
            else "../" * (len(model_dir.parts) + 3) + str(model_dir / "leave.bpmn").lstrip("/"))
    edit(root / TRIG, 'seam:path "leave.bpmn"', f'seam:path "{text}"')
    with pytest.raises(ProjectError, match="leads outside the model directory"):
        load_model(load_project(root))


def test_payload_path_with_an_inner_dotdot_still_loads(tmp_path):
    root = copy_example(tmp_path)
    (root / "model" / "sub").mkdir()
    edit(root / TRIG, 'seam:path "leave.bpmn"', 'seam:path "sub/../leave.bpmn"')
    assert load_model(load_project(root)).payloads


@pytest.mark.parametrize("victim", ["model/leave.dmn", "model/model.trig", "handlers/check_balance.py",
                                    "seams.toml"])
def test_tampered_lock_cannot_get_a_hand_owned_file_deleted(tmp_path, victim):
    root = copy_example(tmp_path)
    lock = json.loads((root / "seams.lock").read_text())
    lock["generated"][victim] = _sha(root / victim)
    (root / "seams.lock").write_text(json.dumps(lock))
    project = load_project(root)
    report = write_generated(project, load_model(project))
    assert (root / victim).is_file()
    assert victim not in report.removed and victim in report.kept


def test_lock_still_removes_a_file_no_generator_writes(tmp_path):
    root = copy_example(tmp_path)
    orphan = root / "generated" / "old.py"
    orphan.write_text("# once generated\n")
    lock = json.loads((root / "seams.lock").read_text())
    lock["generated"]["generated/old.py"] = _sha(orphan)
    (root / "seams.lock").write_text(json.dumps(lock))
    project = load_project(root)
    assert write_generated(project, load_model(project)).removed == ["generated/old.py"]
    assert not orphan.exists()


def test_new_generator_out_does_not_follow_a_symlink_out(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "tests").symlink_to(outside)
    files = scaffold("vars", copy_example(tmp_path) / "reference" / "variables.md")
    with pytest.raises(GeneratorError, match="leads outside it"):
        write(files, out, force=True)
    assert list(outside.iterdir()) == [] and sorted(p.name for p in out.iterdir()) == ["tests"]


def test_cache_dir_that_is_a_symlink_out_is_refused(tmp_path):
    root, outside = tmp_path / "project", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / ".seams").symlink_to(outside)
    with pytest.raises(EditError, match="leads outside the project root"):
        ensure_local_dir(root, root / ".seams" / "drafts")
    assert list(outside.iterdir()) == []


def test_gitignore_is_not_written_through_a_dangling_symlink(tmp_path):
    root = tmp_path / "project"
    (root / ".seams").mkdir(parents=True)
    planted = tmp_path / "planted"
    (root / ".seams" / ".gitignore").symlink_to(planted)
    ensure_local_dir(root, root / ".seams" / "drafts")
    assert not os.path.lexists(planted)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    ensure_local_dir(fresh, fresh / ".seams" / "cache")
    assert (fresh / ".seams" / ".gitignore").read_text() == "*\n"


@pytest.mark.parametrize("target", ["../outside/victim.txt", "{outside}/victim.txt", "link/victim.txt"])
def test_tampered_undo_manifest_cannot_write_outside(tmp_path, target):
    root = copy_example(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("secret\n")
    (root / "link").symlink_to(outside)
    entry = root / ".seams" / "undo" / "000001-abc"
    entry.mkdir(parents=True)
    (entry / "0.before").write_text("pwned\n")
    item = {"path": target.format(outside=outside), "before": "0.before", "after_sha256": _sha(victim)}
    (entry / "manifest.json").write_text(json.dumps({"version": 1, "files": [item]}))
    with pytest.raises(EditError, match="outside the project root"):
        undo_last(root)
    assert victim.read_text() == "secret\n"


@given(st.text(alphabet=st.sampled_from("`~DATA-0123456789abcdef \n"), max_size=80))
def test_data_block_fence_cannot_be_forged(text):
    """No line of the data can close its block: the closing line (fence + token) occurs once, last."""
    block = quote(text, label="facts")
    lines = block.split("\n")
    closing = lines[-1]
    assert lines[0] == f"{closing} facts"
    assert [line for line in lines[1:-1] if line.startswith(closing.split("DATA-")[0] + "D")] == []
    assert all(closing not in line for line in lines[1:-1])


@pytest.mark.parametrize("name", ["x.xml", "x.bpmn", "x.dmn"])
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf_7"])
def test_golden_parses_item_refuses_a_dtd_in_any_encoding(name, encoding):
    """The golden ``parses`` item and new-generator's reference check share parse_problem."""
    from seams.generators.formats import parse_problem

    declared = "UTF-7" if encoding == "utf_7" else encoding
    text = (f'<?xml version="1.0" encoding="{declared}"?>\n'
            '<!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]>\n<r>&b;</r>\n')
    if encoding == "utf-8":
        assert "a DTD is not allowed" in parse_problem(text, name)
    from seams.model.payloads import parse_xml

    with pytest.raises(ProjectError, match="a DTD is not allowed"):
        parse_xml(text.encode(encoding), source=name)


@pytest.mark.parametrize("handler", ["class", "os.path", "a/b", "..", "__import__('os')", ""])
def test_handler_names_that_are_not_plain_module_names_are_refused(handler):
    from seams.generators.pysource import is_identifier

    assert not is_identifier(handler)

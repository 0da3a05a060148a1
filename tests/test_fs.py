"""seams.fs: the one atomic write, hash and containment rule every layer uses."""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path

import pytest
from helpers import REPO

from seams.fs import atomic_write, resolve_inside, sha256_hex, temporary_beside


def test_atomic_write_replaces_keeps_the_mode_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "deep" / "file.txt"
    atomic_write(target, b"one\n")
    os.chmod(target, 0o640)
    atomic_write(target, b"two\n")
    assert target.read_bytes() == b"two\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.txt"]


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary(tmp_path, monkeypatch):
    target = tmp_path / "file.txt"
    target.write_bytes(b"old\n")

    def broken(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        atomic_write(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]


def test_temporary_beside_is_in_the_target_directory(tmp_path):
    temporary = temporary_beside(tmp_path / "x.json", b"{}")
    assert temporary.parent == tmp_path and temporary.read_bytes() == b"{}"


def test_resolve_inside_follows_symlinks_and_refuses_what_leaves(tmp_path):
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "out").symlink_to(tmp_path)
    assert resolve_inside(root, "a/b") == (root / "a" / "b").resolve()
    assert resolve_inside(root, root / "a") == (root / "a").resolve()
    assert resolve_inside(root, "../x") is None
    assert resolve_inside(root, "out/elsewhere") is None
    assert resolve_inside(root, "/etc/passwd") is None


def test_sha256_hex():
    assert sha256_hex(b"seams") == hashlib.sha256(b"seams").hexdigest()


def test_shared_names_are_defined_once():
    """``CONFIG_NAME``, ``MODEL_ENV``, ``atomic_write``, ``inside``-style checks and sha256
    helpers: one definition, in seams.fs (others import it)."""
    defined: dict[str, list[str]] = {}
    for package in ("seams", "seams_edit", "pytest_seams", "seams_cli"):
        for path in sorted((REPO / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in tree.body:
                names = []
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names = [node.name]
                elif isinstance(node, ast.Assign):
                    names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                for name in names:
                    defined.setdefault(name, []).append(Path(path).relative_to(REPO).as_posix())
    for name in ("CONFIG_NAME", "MODEL_ENV", "atomic_write", "sha256_hex", "temporary_beside", "resolve_inside"):
        assert defined.get(name) == ["seams/fs.py"], (name, defined.get(name))

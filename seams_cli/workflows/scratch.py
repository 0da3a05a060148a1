"""A scratch copy of a project, for running code nobody has reviewed yet.

A draft (or a suggested change, or a drafted generator) is tried in a copy,
never in the project itself. The copy is made from an allow-list (the
config, the model and the payloads it names, the handlers package, the
lock), not by copying the tree minus some names: ``.git``, ``.seams``,
virtualenvs and whatever else a project root holds are never read, so a
large unrelated tree costs nothing and nothing private is copied along.

The session that runs in the copy gets a scrubbed environment (an
allow-list again: only what finding Python and decoding text need), and the
session runner puts HOME and TMPDIR inside the copy. The drafted code itself
runs in sandboxed executor processes (``seams_runtime.sandbox``) that see a
read-only copy of what they import and never the project.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from seams.fs import CONFIG_NAME, MODEL_ENV
from seams.project.layout import LOCK_NAME, inside

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.project.layout import Project

# variables the session needs to find Python and decode text; everything else is dropped
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "SYSTEMROOT")
_SKIPPED_DIRS = {"__pycache__"}  # and every name starting with a dot


@dataclass(frozen=True)
class Scratch:
    """A scratch copy: ``root`` is the copied project, ``model_path`` its TriG file."""

    root: Path
    model_path: Path

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for a session in the copy: only :data:`KEPT_ENV` of ``base``,
        and SEAMS_MODEL at the copied model (so the session never reads the real one)."""
        base = os.environ if base is None else base
        env = {key: base[key] for key in KEPT_ENV if key in base}
        env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
        env[MODEL_ENV] = str(self.model_path)
        return env

    def path_of(self, project: Project, path: Path) -> Path:
        """Where a file of the real project lives in the copy."""
        return self.root / Path(path).resolve().relative_to(project.root)


@contextmanager
def scratch_project(project: Project, model: Model) -> Iterator[Scratch]:
    """A fresh copy of what acceptance needs, removed when the block ends."""
    with tempfile.TemporaryDirectory(prefix="seams-scratch-") as tmp:
        root = Path(tmp).resolve() / "project"
        scratch = Scratch(root=root, model_path=_model_target(project, root))
        root.mkdir()
        copy_for_acceptance(project, model, scratch)
        yield scratch


def _model_target(project: Project, root: Path) -> Path:
    """The TriG's place in the copy: its own place, or the config's when ``--model``
    pointed outside the project."""
    try:
        return root / project.model_path.relative_to(project.root)
    except ValueError:
        return inside(root, project.config.model, what=f"{CONFIG_NAME}: project.model")


def copy_for_acceptance(project: Project, model: Model, scratch: Scratch) -> None:
    """Copy the allow-list into ``scratch.root``. The model and payloads are written
    from the bytes the model was loaded from, so the copy is what was checked."""
    _write(scratch.root / CONFIG_NAME, project.config_path.read_bytes())
    _write(scratch.model_path, model.trig_bytes)
    for payload in model.payloads.values():
        _write(scratch.model_path.parent / payload.relpath, payload.data)
    if project.lock_path.is_file():
        _write(scratch.root / LOCK_NAME, project.lock_path.read_bytes())
    handlers = project.handlers_dir
    target = scratch.path_of(project, handlers)
    target.mkdir(parents=True, exist_ok=True)
    if handlers.is_dir():
        _copy_tree(handlers, target)


def _copy_tree(source: Path, target: Path) -> None:
    """Regular files only: a symlink could lead the copy's writes back into the project,
    and hidden entries (``.git``, ``.venv``) are never part of a package."""
    for entry in sorted(os.scandir(source), key=lambda e: e.name):
        if entry.is_symlink() or entry.name.startswith("."):
            continue
        if entry.is_dir() and entry.name not in _SKIPPED_DIRS:
            (target / entry.name).mkdir(exist_ok=True)
            _copy_tree(Path(entry.path), target / entry.name)
        elif entry.is_file():
            shutil.copyfile(entry.path, target / entry.name)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)

"""The scratch copy of a project that also holds a large unrelated tree, against the same project without it.

A project root often holds far more than seams needs: ``.git``,
``node_modules``, virtualenvs, build output. ``seams propose`` and
``seams suggest`` copy the project before running anything in it, so that
copy must cost the same whatever else lies around.
"""

from __future__ import annotations

import shutil
from contextlib import ExitStack
from pathlib import Path

from measure import Row, processes, timed

from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_cli.workflows.scratch import scratch_project

_CHUNK = bytes(range(256)) * 256  # 64 KiB


def add_unrelated_tree(root: Path, *, megabytes: int, files: int) -> None:
    """``.git/objects`` and ``node_modules`` of ``files`` files holding ``megabytes`` in all."""
    size = megabytes * (1 << 20) // files
    data = (_CHUNK * (size // len(_CHUNK) + 1))[:size]
    for k in range(files):
        if k % 2:
            path = root / ".git" / "objects" / f"{k % 256:02x}" / f"{k:038x}"
        else:
            path = root / "node_modules" / f"package-{k % 97}" / "lib" / f"module-{k}.js"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def scratch_row(project: Path, *, copies: int, megabytes: int, files: int, repeats: int) -> Row:
    """Setting up the scratch copy, best of ``repeats``, with and without the unrelated tree."""
    cluttered = project.with_name(project.name + "-cluttered")
    shutil.copytree(project, cluttered)
    add_unrelated_tree(cluttered, megabytes=megabytes, files=files)
    plain_project, plain_model = _loaded(project)
    big_project, big_model = _loaded(cluttered)
    plain, big = [], []
    for _ in range(repeats):
        plain.append(_setup_seconds(plain_project, plain_model))
        big.append(_setup_seconds(big_project, big_model))
    shutil.rmtree(cluttered)
    return Row(f"scratch copy with {megabytes} MB in {files} unrelated files vs without, {processes(copies)}",
               min(big), min(plain), target=1.2)


def _loaded(root: Path):
    project = load_project(root, env={})
    return project, load_model(project)


def _setup_seconds(project, model) -> float:
    """The time to enter ``scratch_project`` (the copy is made); leaving it is not timed."""
    with ExitStack() as stack:
        return timed(lambda: stack.enter_context(scratch_project(project, model)))

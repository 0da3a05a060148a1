"""Small helpers the test modules share: a private copy of the example project,
the real ``seams`` command in a subprocess, and a synthetic model of any size.

Tests edit copies, never ``examples/leave`` itself, so they can run in
parallel (pytest-xdist) and the example stays the clean reference.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "leave"


def copy_example(tmp_path: Path, name: str = "leave", *, generated: bool = True) -> Path:
    """A fresh copy of the example project under ``tmp_path``; returns its root.

    The example ships its generated files and ``seams.lock``, as a real
    project commits them; ``generated=False`` copies the project as it was
    before its first ``seams generate``.
    """
    target = tmp_path / name
    skip = ["__pycache__", ".seams"] + ([] if generated else ["generated", "seams.lock"])
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns(*skip))
    return target


def edit(path: Path, old: str, new: str, count: int = -1) -> None:
    """Replace ``old`` by ``new`` (every one, or the first ``count``) in a text file, failing
    loudly when ``old`` is absent, so a broken-copy test cannot silently test the clean example."""
    text = path.read_text(encoding="utf-8")
    if old not in text:
        raise AssertionError(f"{path.name}: {old!r} not found")
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def assert_findings(findings: list, kind: str, want: list[tuple[str, str | None, str]]) -> None:
    """``findings`` are exactly ``want``: (subject, predicate) in order, each message holding its excerpt."""
    lines = [f.line() for f in findings]
    assert all(f.kind == kind for f in findings), lines
    assert [(f.subject, f.predicate) for f in findings] == [(s, p) for s, p, _ in want], lines
    for finding, (_, _, excerpt) in zip(findings, want):
        assert excerpt in finding.message, finding.line()


def run_seams(*args: str, cwd: Path, env: dict[str, str] | None = None,
              timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m seams_cli ARGS`` in ``cwd``; text output, never raises on exit status."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("SEAMS_")}
    full_env = {**inherited, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "seams_cli", *args],
        cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout, check=False,
    )


def synthetic_project(tmp_path: Path, copies: int) -> Path:
    """The example repeated ``copies`` times, as the benchmarks build it (without running
    ``seams generate``): every copy its own process, BPMN and DMN files, names, labels,
    handlers and element ids, so the copies share nothing but their variables' and
    bindings' names."""
    benchmarks = str(REPO / "benchmarks")
    if benchmarks not in sys.path:
        sys.path.append(benchmarks)
    from synthetic import build_project

    return build_project(tmp_path / f"synthetic{copies}", copies, generate=False)

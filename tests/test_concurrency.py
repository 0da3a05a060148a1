"""Concurrent writers (issue 21): the project lock keeps seams.lock and the model consistent.

Each round starts, at once, two ``seams generate`` and two processes that
accept a handler draft through ``seams propose``'s own write path (module
and lock record, under the project lock), then checks that no record was
lost and that every generated file matches the lock. Rounds repeat for a
bounded time (a few seconds, at least two rounds). A writer that finds the
lock busy prints that it waits; none may fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from helpers import copy_example

from seams.generators.generate import generated_findings
from seams.model.loading import load_model
from seams.project.layout import load_project

SECONDS = 3.0
ACCEPT = """
import sys
from pathlib import Path
from seams.checks.handler_drafts import draft_record
from seams.project.layout import load_project
from seams.project.project_lock import project_lock
from seams_cli.commands.propose import _write_accepted

project = load_project(sys.argv[1])
name = sys.argv[2]
target = project.handlers_dir / f"{name}.py"
data = f"# {name}\\n".encode()
with project_lock(project.root, timeout=60, command="seams propose"):
    _write_accepted(project, target, data, draft_record(
        task=f"https://example.org/leave/{name}", module=f"handlers/{name}.py", context_hash="0" * 64,
        template="draft-v1.txt", provider="stress", sha256="0" * 64))
"""


def _start(args: list[str], root: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMS_")}
    return subprocess.Popen([sys.executable, *args], cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_concurrent_writers_lose_nothing(tmp_path):
    root = copy_example(tmp_path, generated=False)
    expected: set[str] = set()
    rounds, deadline = 0, time.monotonic() + SECONDS
    while rounds < 2 or time.monotonic() < deadline:
        names = [f"stress_{rounds}_{n}" for n in range(2)]
        runs = [_start(["-m", "seams_cli", "generate"], root) for _ in range(2)]
        runs += [_start(["-c", ACCEPT, str(root), name], root) for name in names]
        for run in runs:
            out, err = run.communicate(timeout=120)
            assert run.returncode == 0, err
            assert all("waiting for the project lock" in line for line in err.splitlines()), err
        expected.update(f"https://example.org/leave/{name}" for name in names)
        lock = json.loads((root / "seams.lock").read_text())
        assert {record["task"] for record in lock["drafts"]} == expected, f"a record was lost in round {rounds}"
        project = load_project(root)
        assert generated_findings(project, load_model(project)) == []
        rounds += 1


def test_a_writer_waits_then_fails_with_one_line_after_the_timeout(tmp_path):
    from seams.project.project_lock import project_lock

    root = copy_example(tmp_path)
    with (root / "seams.toml").open("a") as config:
        config.write("\n[limits]\nlock_timeout = 0.5\n")
    with project_lock(root, timeout=1, command="seams propose"):
        result = _start(["-m", "seams_cli", "generate"], root)
        out, err = result.communicate(timeout=120)
    assert result.returncode == 2 and out == ""
    waiting, failed = err.splitlines()
    assert waiting == f"seams generate: waiting for the project lock .seams/lock (held by pid {os.getpid()} " \
                      "(seams propose); up to 0.5 s)"
    assert failed.startswith("seams generate: ") and failed.endswith(
        f"the project is locked by pid {os.getpid()} (seams propose) for more than 0.5 s; "
        "try again when it ends (or raise limits.lock_timeout in seams.toml)")

"""A crash at every rename of ``suggest --accept`` and of ``undo``, then recovery (issue 21).

The crash is real: ``SEAMS_CRASH_BEFORE_RENAME=N`` makes the command exit
(status 86) just before its Nth rename, as a kill there would. After each
crash the next seams command must leave the model all old or all new (never
a mix), say in one line what it repaired, and the interrupted command must
then work when run again.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from helpers import copy_example, run_seams

from seams_edit.journal import CRASH_ENV, CRASH_STATUS

MODEL_FILES = ("model/model.trig", "model/leave.bpmn", "model/leave.dmn")
FIXTURES = Path(__file__).parent / "fixtures" / "suggest"


def model(root: Path) -> dict[str, bytes | None]:
    return {name: (root / name).read_bytes() if (root / name).exists() else None for name in MODEL_FILES}


@pytest.fixture(scope="module")
def suggested(tmp_path_factory) -> tuple[Path, str]:
    """The example with one pending suggestion (made once: it runs a scratch session)."""
    root = copy_example(tmp_path_factory.mktemp("crash"))
    provider = f"{sys.executable} {FIXTURES / 'provider.py'} {FIXTURES / 'escalate.json'}"
    result = run_seams("suggest", "--kind", "condition-to-dmn", "--provider", provider, cwd=root)
    assert result.returncode == 0, result.stderr
    return root, result.stdout.splitlines()[-2].removeprefix("suggestion ")


def crash_every_rename(base: Path, tmp_path: Path, args: tuple[str, ...], before: dict, after: dict) -> int:
    """Run ``seams ARGS`` on a copy of ``base`` crashing at rename 1, 2, ... until it completes."""
    for point in range(1, 20):
        root = tmp_path / f"at-{point}"
        shutil.copytree(base, root, symlinks=True)
        crashed = run_seams(*args, cwd=root, env={CRASH_ENV: str(point)})
        if crashed.returncode == 0:
            assert model(root) == after
            return point - 1
        assert crashed.returncode == CRASH_STATUS, crashed.stderr
        recovered = run_seams("suggest", "--list", cwd=root)
        assert "Traceback" not in recovered.stderr, recovered.stderr
        repaired = [line for line in recovered.stderr.splitlines() if "interrupted" in line]
        assert len(repaired) <= 1, repaired
        assert model(root) in (before, after), f"a mixed model after a crash at rename {point}"
        if model(root) == before:  # the interrupted command works when run again
            again = run_seams(*args, cwd=root)
            assert again.returncode == 0, again.stderr
            assert model(root) == after
    raise AssertionError("the command never completed")


def test_accept_killed_at_every_rename_recovers(suggested, tmp_path):
    base, ident = suggested
    before = model(base)
    done = tmp_path / "done"
    shutil.copytree(base, done, symlinks=True)
    assert run_seams("suggest", "--accept", ident, cwd=done).returncode == 0
    renames = crash_every_rename(base, tmp_path, ("suggest", "--accept", ident), before, model(done))
    assert renames == 5  # the undo entry, three files, the "applied" mark


def test_undo_killed_at_every_rename_recovers(suggested, tmp_path):
    base, ident = suggested
    before = model(base)
    accepted = tmp_path / "accepted"
    shutil.copytree(base, accepted, symlinks=True)
    assert run_seams("suggest", "--accept", ident, cwd=accepted).returncode == 0
    renames = crash_every_rename(accepted, tmp_path, ("undo",), model(accepted), before)
    assert renames == 4  # the "undoing" mark, three files


def test_a_crash_mid_apply_is_rolled_back_with_one_line(suggested, tmp_path):
    base, ident = suggested
    root = tmp_path / "mid"
    shutil.copytree(base, root, symlinks=True)
    before = model(base)
    assert run_seams("suggest", "--accept", ident, cwd=root, env={CRASH_ENV: "3"}).returncode == CRASH_STATUS
    assert model(root) != before  # one file new, two old: the mixed model the issue saw
    result = run_seams("suggest", "--list", cwd=root)
    assert result.returncode == 0
    assert result.stderr.startswith("seams suggest: rolled back an interrupted apply (.seams/undo/000001-")
    assert result.stderr.endswith("): 1 of 3 file(s) restored\n")
    assert model(root) == before
    assert result.stdout == f"{ident} condition-to-dmn Gateway_Escalate fresh\n"

"""``benchmarks/workers_load.py --jobs 20`` works: both engines' worker processes run every job.

The figures come from the full run (1,000 jobs, docs/performance.md), never
from a timed unit test; this only keeps the load test from breaking.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

LOAD = Path(__file__).resolve().parents[1] / "benchmarks" / "workers_load.py"

pytest.importorskip("pyzeebe")


def test_the_load_test_runs_every_job_on_both_engines_and_prints_its_rows(tmp_path):
    done = subprocess.run([sys.executable, str(LOAD), "--jobs", "20"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    rows = [line.split(" | ") for line in done.stdout.splitlines()[2:]]
    assert [(row[0], row[1], row[2]) for row in rows] == [
        ("| zeebe_workers", "instant", "20"), ("| zeebe_workers", "io-10ms", "20"),
        ("| camunda7_workers", "instant", "20"), ("| camunda7_workers", "io-10ms", "20")]
    assert all(row[3].endswith("jobs/s") and int(row[6].rstrip(" |")) <= 32 for row in rows)

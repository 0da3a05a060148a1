"""The row for the cost of the whole-draft limits works (benchmarks/sandbox_limits_case.py):
both executors -- today's and the one before the limits, exported from git -- run their life
and the row prints; its target is checked by the full benchmark run, never here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_the_limits_row_measures_both_executors(tmp_path):
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from measure import table
        from sandbox_limits_case import export_before, limits_rows
    finally:
        sys.path.remove(str(BENCHMARKS))
    if export_before(tmp_path) is None:
        pytest.skip("the baseline commit is not in this checkout (a shallow clone)")
    said: list[str] = []
    rows = limits_rows(tmp_path, calls=2, repeats=1, say=said.append)
    if not rows:
        pytest.skip(f"no confining sandbox here: {said}")
    text = table(rows, enforced=False)
    assert all(row.measured > 0 and row.baseline > 0 for row in rows)
    assert "| sandboxed executor with the whole-draft limits vs before them, " in text

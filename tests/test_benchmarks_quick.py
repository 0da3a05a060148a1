"""``benchmarks/run.py --quick`` works: every benchmark runs on tiny projects and the table prints.

The targets themselves are checked by the full run (``python benchmarks/run.py``),
never by a timed unit test: timings on a shared CI machine would make the suite flaky.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RUN = Path(__file__).resolve().parents[1] / "benchmarks" / "run.py"
ROWS = ("seams check, 2 vs 1 process", "seams check vs bare rdflib parse, 2 processes: time",
        "seams check vs bare rdflib parse, 2 processes: peak memory",
        "cached seams propose vs pytest -q, 1 process",
        "sandboxed vs --no-sandbox cached seams propose, 1 process", "seams_edit 10-subject patch vs rdflib",
        "scratch copy with 2 MB in 40 unrelated files vs without",
        "type-aware checks vs seams check, 2 processes: CPU time",
        "seams check, UNIQUE table of 40 vs 8 rules", "seams check, UNIQUE table of 8 rules: sort-and-sweep vs",
        "seams check again, nothing changed (from .seams/check-cache) vs a full check, 2 processes",
        "seams check after a one-line TriG edit vs a full check, 2 processes (",
        "seams check after a one-line TriG edit vs a full check, 2 processes: CPU time",
        "TriG parse after a one-line edit, statements kept in .seams/parse-cache vs a bare parse, 2 processes",
        "seams check in a fresh clone (no .seams) vs a full check, 2 processes: CPU time",
        "seams check keeping the statements for the first time (checked here before, an edit since) "
        "vs a full check, 2 processes: CPU time",
        "seams check vs bare rdflib parse, 2 processes: CPU time",
        "seams check, 3 vs 2 processes (", "seams check, 3 vs 2 processes: CPU time",
        "seams check from its cache, 3 vs 2 processes", "seams check peak memory, 3 vs 2 processes",
        "scenario run on the embedded engine vs its handler and decision calls alone, per instance",
        "2000 evaluations of a FEEL condition the interpreter reads (count, some) vs one the condition tree",
        "reading the three boxed-expression decisions of a DMN file for seams check vs the leave example's")


def test_the_quick_benchmark_run_prints_every_row_and_exits_0(tmp_path):
    result = subprocess.run([sys.executable, str(RUN), "--quick"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=1200, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0] == "| benchmark | measured | baseline | ratio | target | result |"
    for row in ROWS:
        (line,) = [line for line in lines if line.startswith(f"| {row}")]
        assert line.endswith("| not enforced |") and "x | ≤ " in line, line  # never a FAIL that exits 0
    assert any(line.startswith("| load: TriG parse") for line in lines)
    assert "--quick: targets not enforced" in result.stdout


def _run_module():
    import importlib.util

    sys.path.insert(0, str(RUN.parent))
    try:
        spec = importlib.util.spec_from_file_location("benchmarks_run", RUN)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(RUN.parent))


def test_enforce_coarse_fails_only_a_figure_more_than_twice_its_target(capsys):
    run = _run_module()
    from measure import Row

    within = Row("a check", measured=3.0, baseline=1.0, target=2)  # 1.5x its target: slow, not a regression
    beyond = Row("a check", measured=4.2, baseline=1.0, target=2)  # 2.1x its target
    assert run._verdict([within], coarse=True) == 0
    assert run._verdict([within], coarse=False) == 1
    assert run._verdict([within, beyond], coarse=True) == 1
    assert "1 more than 2x over target: a check (4.20x, target 2x)" in capsys.readouterr().err


def test_unknown_groups_and_two_modes_are_usage_errors(tmp_path):
    for argv in (["--only", "check,nonsense"], ["--quick", "--enforce-coarse"]):
        result = subprocess.run([sys.executable, str(RUN), *argv], cwd=tmp_path, capture_output=True,
                                text=True, timeout=60, check=False)
        assert result.returncode == 2 and "usage:" in result.stderr, result.stderr

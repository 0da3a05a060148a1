"""The type-aware checks against a whole ``seams check`` of the same model.

The checks added for issue 16 (examples, form fields, decision tables and
conditions against the variables' types; every read set on every path) must
cost under 10% of ``seams check``. Both are measured side by side, as CPU
time (user + system) so that other jobs on the machine do not blur a 10%
margin: ``seams check`` as a fresh child (its rusage from ``os.wait4``), the
new checks in a child of their own (benchmarks/type_checks.py, which times
them once, cold, on the loaded model); best of ``repeats`` each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import BenchmarkError, Row, child_env, processes

HERE = Path(__file__).resolve().parent


def _cpu_child(argv: list[str], cwd: Path) -> tuple[float, str]:
    """Run ``argv``; its CPU seconds (user + system, from its own rusage) and its output."""
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(argv, cwd=cwd, env=child_env(), stdin=subprocess.DEVNULL,
                                 stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise BenchmarkError(f"{' '.join(argv)} (in {cwd}) failed:\n{text[-2000:]}")
    return usage.ru_utime + usage.ru_stime, text


def type_checks_row(project: Path, *, copies: int, repeats: int) -> tuple[Row, dict[str, float]]:
    """The row, and the parts of the fastest measurement of the new checks (seconds by check)."""
    checks: list[float] = []
    typed: list[tuple[float, dict[str, float]]] = []
    for _ in range(repeats):
        seconds, text = _cpu_child([sys.executable, "-m", "seams_cli", "check", "--no-cache"], project)
        if "seams check: no problems" not in text:
            raise BenchmarkError(f"seams check in {project} found problems:\n{text[-2000:]}")
        checks.append(seconds)
        _, text = _cpu_child([sys.executable, str(HERE / "type_checks.py"), str(project), "3"], project)
        result = json.loads(text)
        typed.append((result["seconds"], {**result["parts"], "all four without memos": result["unmemoized"]}))
    measured, parts = min(typed, key=lambda pair: pair[0])
    parts = {**parts, "all four without memos": min(p["all four without memos"] for _, p in typed)}
    return Row(f"type-aware checks vs seams check, {processes(copies)}: CPU time", measured, min(checks),
               target=0.1), parts

"""The embedded engine: a scenario's run per instance, against the same handler and decision calls alone.

A scenario item runs one process instance on SpiffWorkflow with seams'
conditions, the generated decisions and the handlers in the sandboxed
executor (docs/scenarios.md). Its overhead is what the engine adds to the
calls the run makes anyway: the baseline makes exactly those calls (each
handler imported and called in the same executor, each decision function
called) with nothing around them. Both are timed in one child process
(benchmarks/scenario_runs.py), alternating, best of ``repeats``, over the
leave example's five scenarios with the recorded ``record_leave`` handler.
"""

from __future__ import annotations

import json
import runpy
import shutil
import sys
from pathlib import Path

from measure import Row, run_child

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent / "examples" / "leave"


def scenario_row(workdir: Path, *, repeats: int) -> Row:
    root = workdir / "scenarios-leave"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    answer = runpy.run_path(str(EXAMPLE / "provider" / "recorded.py"), run_name="recorded")["RECORD_LEAVE"]
    handler = answer.strip().removeprefix("```python").removesuffix("```").strip() + "\n"
    (root / "handlers" / "record_leave.py").write_text(handler, encoding="utf-8")
    result = json.loads(run_child([sys.executable, str(HERE / "scenario_runs.py"), str(root), str(repeats)],
                                  cwd=root).stdout)
    return Row(f"scenario run on the embedded engine vs its handler and decision calls alone, per instance "
               f"({result['instances']} scenarios)", result["engine"], result["direct"], target=3)

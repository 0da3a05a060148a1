"""Generated inputs within a task's assumptions against the same inputs without them.

``seam:assumes`` (docs/model.md, "Assumptions") keeps generated cases inside
what the task assumes: a broken two-variable comparison is repaired by
exchanging its values, then cases are filtered. This measures what that costs
hypothesis: drawing ``[acceptance] generated_cases`` (25) cases for the
incident project's task (``incident_date <= clock``) against drawing them with
the assumption taken away, in this process, best of ``repeats`` each.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from measure import Row

INCIDENT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "incident"


def _draw(spec: object, cases: int) -> float:
    from hypothesis import HealthCheck, Phase, given, settings

    from pytest_seams.generated_inputs import case_strategy, quiet_hypothesis

    seen: list = []

    @settings(max_examples=cases, derandomize=True, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(case_strategy(spec))
    def draw(case: tuple) -> None:
        seen.append(case)

    start = time.perf_counter()
    with quiet_hypothesis():
        draw()
    return time.perf_counter() - start


def assumption_row(*, repeats: int, cases: int = 25) -> Row:
    from seams.model.loading import load_model
    from seams.project.layout import load_project
    from seams_runtime.task_specs import task_specs

    project = load_project(INCIDENT)
    (_, spec), = task_specs(project, load_model(project), "days_since")
    free = dataclasses.replace(spec, assumes=())
    _draw(spec, cases), _draw(free, cases)  # warm: hypothesis's first run in a process pays its setup
    within, without = [], []
    for _ in range(repeats):
        within.append(_draw(spec, cases))
        without.append(_draw(free, cases))
    return Row(f"{cases} generated inputs within seam:assumes vs without it (incident task)", min(within),
               min(without), target=2.0)


if __name__ == "__main__":
    row = assumption_row(repeats=5)
    print(f"{row.name}: {row.measured:.4f} s vs {row.baseline:.4f} s = {row.ratio:.2f}x (target <= {row.target}x)")

"""``seams.toml::scenario[<label>]``: each scenario of the model, run on the embedded engine.

One item per ``seam:scenario`` of every process (docs/scenarios.md); the run
itself is :func:`seams_runtime.scenarios.run_scenario`, with the service tasks'
handlers in the session's executor (the acceptance items' own,
:func:`pytest_seams.acceptance.session_executor`). Its report carries the run as
facts (process, end event, elements, flows, matched decision rules), which the
coverage report reads.
"""

from __future__ import annotations

from typing import Any

from pytest_seams.items import GateItem
from seams_runtime.scenarios import SCENARIO, ScenarioSpec, run_scenario


class ScenarioItem(GateItem):
    """One scenario: a whole run of its process, held to the scenario's expectations."""

    gate = SCENARIO.name
    marker = "seams_scenario"

    def __init__(self, *, spec: ScenarioSpec, **kwargs):
        super().__init__(subject=spec.process, **kwargs)
        self.spec = spec

    def runtest(self) -> None:
        from pytest_seams.acceptance import session_executor
        from seams_runtime.sandbox.channel import Executor

        owner: Any = self.parent
        result, findings = run_scenario(owner.project, owner.model, self.spec,
                                        executor_for=lambda task: session_executor(self.session, task, Executor))
        if result is not None:
            self.facts = {"process": self.spec.process, "end_event": result.end_event,
                          "elements": result.elements, "flows": result.flows, "decisions": result.decisions,
                          "error": result.error}
        if findings:
            self.fail_with(findings)

    def reportinfo(self):
        where = self.subject_location()
        path, line = where if where is not None else (self.path, None)
        return path, line, f"{self.gate}: {self.spec.plan.label} ({self.spec.process})"


def scenario_items(parent: Any, specs: list[ScenarioSpec]) -> list[ScenarioItem]:
    return [ScenarioItem.from_parent(parent, name=spec.item, spec=spec) for spec in specs]

"""``seams.toml::scenario[<label>]``: each scenario of the model, run on the embedded engine.

One item per ``seam:scenario`` of every process (docs/scenarios.md). The
item runs one instance with pytest_seams.engine.run_instance, the service
tasks' handlers in the session's executor (the acceptance items' own,
pytest_seams.acceptance.session_executor), and compares the run with the
scenario (seams.scenarios.scenario_problems). It fails naming the first
element where the run left the expected path, the error that stopped it
(a handler, a decision, a form), the end event or the variable that
differs. Its report carries the run as facts (process, end event, elements,
flows, matched decision rules), which the coverage report reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_seams.items import GateItem
from seams.checks.registry import SCENARIO

if TYPE_CHECKING:
    from seams.findings import Finding
    from seams.model.loading import Model
    from seams.model.view import Process
    from seams.project.layout import Project
    from seams.runs import RunResult
    from seams.scenarios import ScenarioPlan


@dataclass(frozen=True)
class ScenarioSpec:
    """One scenario item: its name, the process (prefixed name) and the plan."""

    item: str  # scenario[<label>]
    process: str
    plan: ScenarioPlan


def scenario_specs(model: Model) -> list[ScenarioSpec]:
    """Every scenario of the model, processes by IRI, scenarios by label; a label that two
    processes use is told apart by the process's prefixed name."""
    from seams.scenarios import scenario_labels, scenario_plan

    found = [(model.qname(process.iri), label, scenario)
             for process in model.view.processes.values()
             for label, scenario in scenario_labels(process)]
    counts: dict[str, int] = {}
    for _, label, _ in found:
        counts[label] = counts.get(label, 0) + 1
    specs = []
    for process, label, scenario in found:
        name = label if counts[label] == 1 else f"{label} ({process})"
        specs.append(ScenarioSpec(item=f"{SCENARIO.name}[{name}]", process=process,
                                  plan=scenario_plan(model, name, scenario)))
    return specs


def run_scenario(project: Project, model: Model, spec: ScenarioSpec, *,
                 executor_for: Any = None) -> tuple[RunResult | None, list[Finding]]:
    """Run one scenario -> (the run, or None when it could not start; its findings)."""
    from pytest_seams.engine import find_process, run_instance
    from seams.errors import SeamsError
    from seams.findings import Finding
    from seams.scenarios import scenario_problems, user_task_values

    label = f'"{spec.plan.label}": '
    if spec.plan.problem:
        return None, [Finding(SCENARIO.name, spec.process, "seam:scenario", label + spec.plan.problem)]
    try:
        process: Process = find_process(model, spec.process)
        result = run_instance(project, model, process, given=spec.plan.given,
                              user_task_data=user_task_values(spec.plan), replies=spec.plan.replies,
                              executor_for=executor_for)
    except SeamsError as exc:
        return None, [Finding(SCENARIO.name, spec.process, "seam:scenario", label + str(exc).splitlines()[0])]
    return result, [Finding(SCENARIO.name, spec.process, predicate, label + message)
                    for predicate, message in scenario_problems(process, spec.plan, result)]


def scenario_run_findings(project: Project, model: Model) -> list[Finding]:
    """Every scenario's findings, run outside pytest (each run starts and ends its own executor)."""
    return [finding for spec in scenario_specs(model) for finding in run_scenario(project, model, spec)[1]]


class ScenarioItem(GateItem):
    """One scenario: a whole run of its process, held to the scenario's expectations."""

    gate = SCENARIO.name

    def __init__(self, *, spec: ScenarioSpec, **kwargs):
        super().__init__(subject=spec.process, **kwargs)
        self.spec = spec

    def runtest(self) -> None:
        from pytest_seams.acceptance import session_executor
        from pytest_seams.sandbox.channel import Executor

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
        return self.path, None, f"{self.gate}: {self.spec.plan.label} ({self.spec.process})"


def scenario_items(parent: Any, specs: list[ScenarioSpec]) -> list[ScenarioItem]:
    return [ScenarioItem.from_parent(parent, name=spec.item, spec=spec) for spec in specs]

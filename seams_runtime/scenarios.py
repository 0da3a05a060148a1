"""Each scenario of the model, run on the embedded engine, and the ``scenario`` gate.

One run per ``seam:scenario`` of every process (docs/scenarios.md): the
process runs with :func:`seams_runtime.engine.run_instance`, the service
tasks' handlers in an executor (``executor_for``: the pytest session's own,
or one per run), and the run is compared with the scenario
(``seams.scenarios.scenario_problems``). The findings name the first element
where the run left the expected path, the error that stopped it (a handler, a
decision, a form), the end event or the variable that differs.

The gate is registered with the core's gate registry through its hook
(``seams_gates``, entry point group ``seams.gates``), so the core names no
module of this layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from seams.checks.gate_hooks import hookimpl
from seams.checks.registry import Gate, Source

if TYPE_CHECKING:
    from seams.findings import Finding
    from seams.model.loading import Model
    from seams.model.view import Process
    from seams.project.layout import Project
    from seams.runs import RunResult
    from seams.scenarios import ScenarioPlan

SCENARIO = Gate("scenario", Source("seams_runtime.scenarios", "scenario_run_findings", True), ("scenario",),
                item="scenario[<label>]",
                about="one item per seam:scenario: its process runs on the embedded engine; the flows taken, "
                      "the end event and the variables are the scenario's")
"""The scenarios: one item per ``seam:scenario``, collected in every full session after the
tasks' items. They run the handlers (in the sandbox), so ``seams check``, which runs no
drafted code, leaves them to ``pytest`` as it leaves the acceptance items."""


@hookimpl
def seams_gates() -> list[Gate]:
    return [SCENARIO]


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
    from seams.errors import SeamsError
    from seams.findings import Finding
    from seams.scenarios import scenario_problems, user_task_values
    from seams_runtime.engine import find_process, run_instance

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

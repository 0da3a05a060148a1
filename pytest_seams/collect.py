"""``seams.toml`` as a pytest file: its items are the project's gates.

Item names (stable; the session runner and ``expected_items`` rely on them)::

    seams.toml::shapes | ::decisions | ::generate
    seams.toml::<handler>::import | ::example[<label>] | ::contract
    seams.toml::scenario[<label>]                          (one per seam:scenario, docs/scenarios.md)
    seams.toml::generated-stale | ::generated-hand-edited | ::draft-stale | ::draft-hand-edited
                                                                     (only with --seams-check)
    seams.toml::routing | forms                          (only with --seams-suggestion=PATH)

The model is loaded once per file, when it is collected; a project that
cannot load fails the collection with one line. ``--seams-only model`` keeps
only the model gates (shapes, decisions, generate); ``--seams-only TASK``
only the acceptance items of that task. The gates are seams.checks.registry's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from pytest_seams import MODEL_ONLY
from pytest_seams.acceptance import acceptance_items
from pytest_seams.gates import gate_items
from pytest_seams.scenarios import scenario_items
from seams.checks.registry import LOCK_GATES, MODEL_GATES, Gate, Source
from seams.model.loading import load_model
from seams_runtime.scenarios import ScenarioSpec, scenario_specs
from seams_runtime.task_specs import TaskSpec, task_specs


@dataclass(frozen=True)
class Plan:
    """What a seams.toml collects, in order: model gates, tasks, scenarios, lock gates."""

    model_gates: tuple[Gate, ...]
    tasks: list[tuple[str, TaskSpec]]
    lock_gates: tuple[Gate, ...]
    routing: bool = False  # the routing item of --seams-suggestion, after the model gates
    scenarios: tuple[ScenarioSpec, ...] = ()  # only in a full session (no --seams-only)


def plan(project: Any, model: Any, *, only: Any = None, check: bool = False,
         suggestion: bool = False) -> Plan:
    """The one place that decides the items, for the collector and ``expected_items`` alike."""
    model_gates = tuple(g for g in MODEL_GATES if g.applies(project.config.generators))
    if only == MODEL_ONLY:
        return Plan(model_gates, [], (), routing=suggestion)
    if only is not None:
        return Plan((), task_specs(project, model, only), ())
    return Plan(model_gates, task_specs(project, model), LOCK_GATES if check else (), routing=suggestion,
                scenarios=tuple(scenario_specs(model)))


class SeamsFile(pytest.File):
    """The gates of the project whose config this file is."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        from seams.errors import SeamsError
        from seams.project.layout import load_project

        try:
            self.project = load_project(self.path.parent)
            self.model = load_model(self.project)
            suggestion = self.config.getoption("seams_suggestion")
            items = plan(self.project, self.model, only=self.config.getoption("seams_only"),
                         check=self.config.getoption("seams_check"), suggestion=suggestion is not None)
        except SeamsError as exc:
            raise self.CollectError(f"seams: {str(exc).splitlines()[0]}") from None
        self._findings: dict[Source, list] = {}
        yield from gate_items(self, items.model_gates)
        if items.routing:
            from pytest_seams.routing import suggestion_items

            yield from suggestion_items(self, suggestion)
        for name, spec in items.tasks:
            yield TaskNode.from_parent(self, name=name, spec=spec)
        yield from scenario_items(self, list(items.scenarios))
        yield from gate_items(self, items.lock_gates)

    def findings(self, source: Source) -> list:
        """A check function's findings, computed once for all the items that filter them."""
        if source not in self._findings:
            self._findings[source] = source.findings(self.project, self.model)
        return self._findings[source]


class TaskNode(pytest.Collector):
    """One service task: its import, example and contract items."""

    def __init__(self, *, spec: TaskSpec, **kwargs):
        super().__init__(**kwargs)
        self.spec = spec

    def collect(self) -> list[pytest.Item]:
        return [*acceptance_items(self, self.spec)]

    def reportinfo(self):
        return self.path, None, f"{self.spec.subject} ({self.spec.module_file})"

"""What one run of a process on the embedded engine did, as plain data (docs/scenarios.md).

The engine (seams_runtime.engine) fills these in as it runs an instance; the
scenario items compare them with a scenario's expectations
(seams.scenarios), ``seams run`` prints them and the coverage report counts
the flows and rules in them. They live in the core, free of the engine and
its sandbox, so the comparison and the report need neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class FormField:
    """One field of a user task's form: the variable it fills and what the form asks of it."""

    variable: str  # the variable's seam:name
    label: str | None  # sh:name, else the variable's label
    datatype: str | None  # xsd local name: string, integer, decimal, boolean, date
    required: bool  # sh:minCount >= 1
    choices: tuple[Any, ...] | None = None  # sh:in
    default: Any = None  # sh:defaultValue: submitted when an answer leaves the field out (as Tasklist does)


@dataclass(frozen=True)
class UserTaskInfo:
    """A user task waiting for its data: ``user_task_data`` gets one and returns the submitted values."""

    element_id: str  # the BPMN id
    name: str | None  # the BPMN name
    subject: str | None  # the model's task, as a prefixed name (None: not in the model)
    form: str | None  # the form shape, as a prefixed name
    fields: tuple[FormField, ...]  # in sh:order
    variables: dict[str, Any]  # the instance's variables when the task is reached (a copy)


@dataclass(frozen=True)
class Step:
    """One element the engine ran, in order: what a CLI prints as it runs."""

    element_id: str
    name: str | None
    kind: str  # BPMN local name: startEvent, userTask, serviceTask, businessRuleTask, exclusiveGateway, ...
    flow: str | None = None  # the sequence flow the token arrived by (None: the start event)
    outputs: dict[str, Any] = field(default_factory=dict)  # what the element wrote (submitted, returned, decided)
    rules: tuple[str, ...] = ()  # a business-rule task: the rules as its hit policy applied them
    decision: str | None = None  # a business-rule task: the DMN decision id
    hit_policy: str | None = None  # a business-rule task: its table's hit policy


@dataclass
class RunResult:
    """The whole run. ``error`` is set (one line) when the run stopped before an end event;
    ``error_element`` then names the BPMN element it stopped at."""

    steps: list[Step] = field(default_factory=list)
    variables: dict[str, Any] = field(default_factory=dict)
    end_event: str | None = None
    error: str | None = None
    error_element: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def elements(self) -> list[str]:
        """The BPMN ids of the elements run, in order."""
        return [step.element_id for step in self.steps]

    @property
    def flows(self) -> list[str]:
        """The sequence flows taken, in the order the token crossed them."""
        return [step.flow for step in self.steps if step.flow is not None]

    @property
    def decisions(self) -> dict[str, list[str]]:
        """DMN decision id -> the rules that matched, over every evaluation, in order."""
        out: dict[str, list[str]] = {}
        for step in self.steps:
            if step.decision is not None:
                out.setdefault(step.decision, []).extend(step.rules)
        return out

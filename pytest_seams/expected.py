"""The item names a session must report as passed, computed before it runs.

Acceptance judges drafted code by its item reports, and the list of items to
look for comes from the real project's model, not from the session: a draft
that deletes examples from the scratch model, skips items or stops the
session early leaves an expected item unreported, and that is a failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_seams import CONFIG_NAME
from pytest_seams.collect import plan
from seams.checks.registry import ROUTING

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.project.layout import Project


def expected_items(project: Project, model: Model, *, task: Any = None,
                   check: bool = False, suggestion: bool = False) -> list[str]:
    """Node ids (relative to the project root) of every item a session over the project
    collects with the same selection: everything (``check`` adds the ``--seams-check``
    items), ``task="model"`` the model gates, or any other ``task`` (a Task, IRI, prefixed
    name, BPMN id or handler name) that task's acceptance items; ``suggestion`` adds the
    routing item of ``--seams-suggestion``."""
    items = plan(project, model, only=task, check=check, suggestion=suggestion)
    names = [f"{CONFIG_NAME}::{gate.name}" for gate in items.model_gates]
    names += [f"{CONFIG_NAME}::{ROUTING.name}"] if items.routing else []
    for node, spec in items.tasks:
        names += [f"{CONFIG_NAME}::{node}::{item}" for item in spec.item_names()]
    names += [f"{CONFIG_NAME}::{scenario.item}" for scenario in items.scenarios]
    return names + [f"{CONFIG_NAME}::{gate.name}" for gate in items.lock_gates]

"""Turning what a person types for TASK into one service task of the model.

People name a task the way they last saw it: the IRI from the TriG, a
prefixed name, the id in the BPMN modeler, or the handler module they are
about to write. All four are accepted, and a name that fits more than one
task is refused rather than guessed, so a draft never lands on the wrong task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seams import vocab as V
from seams.errors import ResolutionError

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.view import Task


def _names_of(model: Model, task: Task) -> set[str]:
    """Every spelling that names ``task``: IRI, ``<IRI>``, prefixed names, BPMN id, handler."""
    iri = str(task.iri)
    names = {iri, f"<{iri}>"}
    for prefix, namespace_iri in model.dataset.namespaces():
        namespace = str(namespace_iri)
        if iri.startswith(namespace) and len(iri) > len(namespace):
            names.add(f"{prefix}:{iri[len(namespace):]}")
    if task.element_id:
        names.add(task.element_id)
    if task.handler:
        names.add(task.handler)
    return names


def describe(model: Model, task: Task) -> str:
    """How a candidate is listed: prefixed name, then handler and BPMN id when known."""
    extra = ", ".join(x for x in (task.handler, task.element_id) if x)
    return f"{model.qname(task.iri)} ({extra})" if extra else model.qname(task.iri)


def resolve_task(model: Model, text: str) -> Task:
    """The one service task ``text`` names; a ResolutionError lists candidates otherwise."""
    text = text.strip()
    service = model.view.service_tasks()
    matches = [t for t in service if text in _names_of(model, t)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ResolutionError(f"{text}: names more than one service task",
                              sorted(describe(model, t) for t in matches))
    others = [t for t in model.view.tasks.values()
              if t.kind != V.ServiceTask and text in _names_of(model, t)]
    if others:
        raise ResolutionError(f"{text}: {model.qname(others[0].iri)} is not a service task",
                              sorted(describe(model, t) for t in service))
    raise ResolutionError(f"{text}: no service task has this IRI, prefixed name, BPMN id or handler",
                          sorted(describe(model, t) for t in service))

"""What each binding answers in a run that is not a scenario (``seams run``, the
``seams_run`` fixture): the replies given by name, else the reply of the first shown
example (by label) of the first service task (by IRI) of the process that gives one.

A held-out example is never used: it judges drafts and is never shown, and a
run prints the replies it takes (docs/cli.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from seams.errors import ProjectError


@dataclass(frozen=True)
class DefaultReply:
    """A reply taken from an example: which binding, the value, the example and its task."""

    binding: str
    reply: Any
    example: str | None
    task: str  # prefixed name


def binding_replies(model: Any, process: Any, replies: Mapping[str, Any] | None,
                    *, option: str = "--replies") -> tuple[dict[str, Any], list[DefaultReply]]:
    """(reply by binding name, the defaults taken from examples); a name that is no binding
    of the process's service tasks is a ProjectError naming ``option``."""
    view = model.view
    tasks = sorted((t for t in view.service_tasks() if t.process == process.iri), key=lambda t: str(t.iri))
    names: dict[str, tuple[Any, Any]] = {}  # binding name -> (task, binding)
    for task in tasks:
        for iri in task.uses:
            binding = view.bindings.get(iri)
            if binding is not None and binding.name:
                names.setdefault(binding.name, (task, binding))
    chosen: dict[str, Any] = {}
    for name in sorted(replies or {}):
        if name not in names:
            raise ProjectError(f"{option}: {name!r} is no binding of a service task of "
                               f"{process.element_id} (bindings: {', '.join(sorted(names)) or 'none'})")
        chosen[name] = (replies or {})[name]
    defaults = []
    for name in sorted(set(names) - set(chosen)):
        for task in tasks:
            example = next((e for e in task.examples
                            if not e.held_out and isinstance(e.replies, dict) and name in e.replies), None)
            if example is not None:
                chosen[name] = example.replies[name]
                defaults.append(DefaultReply(name, chosen[name], example.label, model.qname(task.iri)))
                break
    return chosen, defaults

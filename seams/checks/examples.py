"""Examples against the types of the variables they name.

An example that contradicts the model (``"covered": "yes"`` for a boolean,
a score of 180 where the shape allows 0-100) makes every correct handler
fail its acceptance items, and the failure reads as the handler's fault. So
``seam:given`` is checked against the datatype and shape fields of what the
task reads, ``seam:expect`` against those of what it writes, with the very
functions the plugin's contract item uses (seams.lang.field_values).

``seam:replies`` may be left out of an example of a task that uses no
binding (the acceptance items then answer with no replies); a task that
uses a binding needs it. Keys that name no read, write or used binding are
the shapes check's (seams.checks.shapes).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rdflib import Literal

from seams.checks.types import VariableType, variable_types
from seams.findings import Finding
from seams.model.view import Example, Task

if TYPE_CHECKING:
    from seams.model.loading import Model

KIND = "shape"
REPLIES_NEEDED = ("an example needs exactly one seam:replies, an rdf:JSON object of binding replies "
                  "by binding name")


def example_findings(model: Model) -> list[Finding]:
    """Every example value that its variable's datatype or shape fields refuse; missing replies."""
    types = variable_types(model)
    found: set[Finding] = set()
    for task in model.view.service_tasks():
        parts = {part: {types[v].name: types[v] for v in variables if v in types and types[v].name}
                 for part, variables in (("given", task.reads), ("expect", task.writes))}
        for example in task.examples:
            found.update(_value_findings(model, parts, task, example))
            if example.replies is None and task.uses:
                found.add(Finding(KIND, model.qname(task.iri), "seam:example",
                                  f"{_prefix(example)}{REPLIES_NEEDED} (the task uses "
                                  f"{', '.join(sorted(model.qname(b) for b in task.uses))})"))
    return sorted(found)


def _prefix(example: Example) -> str:
    if example.label:
        return f'"{example.label}": '
    return f"{example.node.n3()}: " if isinstance(example.node, Literal) else ""


def _value_findings(model: Model, parts: dict[str, dict[str | None, VariableType]], task: Task,
                    example: Example) -> Iterable[Finding]:
    for part, by_name in parts.items():
        values = getattr(example, part)
        if not isinstance(values, dict):
            continue  # not JSON, or not an object: the shapes check reports it
        for name in sorted(values):
            vtype = by_name.get(name)
            if vtype is None:
                continue  # a key that names no such variable: the shapes check reports it
            if vtype.allows(values[name]):
                continue
            for predicate, message in vtype.problems(values[name]):
                yield Finding(KIND, model.qname(task.iri), "seam:example",
                              f'{_prefix(example)}seam:{part} "{name}": {message} '
                              f"[{predicate} of {model.qname(vtype.iri)}]")

"""A service task's acceptance, read from the model into plain data (docs/architecture.md,
D-handler-contract).

The model says what a handler may read (``seam:reads``), call (``seam:uses``)
and must return (``seam:writes``, each of its datatype and inside every form
field on that variable), and gives examples. A :class:`TaskSpec` holds all of
that for one task, so the acceptance items (``pytest_seams.acceptance``), the
embedded engine (``seams_runtime.engine``) and the prompt's test source
(``seams_runtime.acceptance_source``) judge a handler by the same facts.
"""

from __future__ import annotations

import dataclasses
import keyword
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.view import Task
    from seams.project.layout import Project


@dataclass(frozen=True)
class ExampleSpec:
    label: str
    item: str  # the item name: example[<label>]
    data: tuple  # (label, given, replies, expect) as the runtime takes it
    problem: str | None  # why the example cannot run (its JSON is not an object, say)
    held_out: bool = False  # judged like the others, never rendered into a prompt


@dataclass(frozen=True)
class TaskSpec:
    """Everything acceptance needs about one service task, in plain data."""

    subject: str  # prefixed name of the task
    label: str | None
    handler: str
    module: str  # handlers.check_balance
    module_file: str  # handlers/check_balance.py, relative to the project root
    handlers_parent: Path  # goes on sys.path while the handler runs
    reads: tuple[str, ...]
    bindings: tuple[str, ...]
    outputs: dict[str, tuple[str | None, tuple[dict, ...]]]
    examples: tuple[ExampleSpec, ...]
    problem: str | None  # a handler name that is no module name
    # read input -> (datatype, constraints of every form field on that variable): what inputs are generated from
    inputs: dict[str, tuple[str | None, tuple[dict, ...]]] = dataclasses.field(default_factory=dict)
    # binding -> ((parameter, the read input it must be or None), ...), for bindings that declare parameters
    signatures: dict[str, tuple[tuple[str, str | None], ...]] = dataclasses.field(default_factory=dict)
    # binding -> ("value", datatype, rules) | ("object", ((field, datatype, rules), ...)): its declared seam:result
    results: dict[str, tuple] = dataclasses.field(default_factory=dict)
    generated_cases: int = 0  # inputs the contract item generates ([acceptance] generated_cases)

    def item_names(self) -> list[str]:
        return ["import", *(e.item for e in self.examples), "contract"]

    def runnable_examples(self) -> list[tuple]:
        return [e.data for e in self.examples if e.problem is None]


def task_specs(project: Project, model: Model, select: Any = None) -> list[tuple[str, TaskSpec]]:
    """(collector name, spec) of every service task with a handler, or of those ``select``
    names (a Task, an IRI, a prefixed name, a BPMN id or a handler name)."""
    from seams.errors import ResolutionError

    tasks = [t for t in model.view.service_tasks() if t.handler]
    counts: dict[str, int] = {}
    for task in tasks:
        counts[task.handler or ""] = counts.get(task.handler or "", 0) + 1
    named = [((t.handler or "") if counts[t.handler or ""] == 1 else f"{t.handler}[{model.qname(t.iri)}]", t)
             for t in tasks]
    if select is not None:
        wanted = str(getattr(select, "iri", select))
        named = [(n, t) for n, t in named
                 if wanted in (str(t.iri), model.qname(t.iri), t.element_id, t.handler)]
        if not named:
            raise ResolutionError(f"no service task with a handler matches {wanted!r}",
                                  [model.qname(t.iri) for t in tasks])
    return [(name, task_spec(project, model, task)) for name, task in named]


def _variable_type(model: Model, iri: Any) -> tuple[str | None, tuple[dict, ...]]:
    """A variable's datatype (xsd local name) and the constraints of every form field on it."""
    from seams.checks.types import field_rule, local_datatype

    view = model.view
    variable = view.variables.get(iri)
    rules = tuple(field_rule(model, form.iri, f) for form in view.forms.values()
                  for f in form.fields if f.path == iri)
    return (local_datatype(variable.datatype) if variable is not None else None), rules


def _binding_signatures(model: Model, task: Task) -> tuple[dict, dict]:
    """(signatures, results) of the bindings ``task`` uses that declare them (see TaskSpec)."""
    from seams.checks.types import local_datatype

    view = model.view
    read = {iri: view.variable_name(iri) for iri in task.reads}
    signatures: dict[str, tuple[tuple[str, str | None], ...]] = {}
    results: dict[str, tuple] = {}
    for iri in task.uses:
        binding = view.bindings.get(iri)
        if binding is None or not binding.name:
            continue
        if binding.parameters is not None and all(p.name for p in binding.parameters):
            signatures[binding.name] = tuple((p.name or "", read.get(p.variable) if p.variable else None)
                                             for p in binding.parameters)
        result = binding.result
        if result is None:
            continue
        if result.variable is not None:
            results[binding.name] = ("value", *_variable_type(model, result.variable))
        elif result.fields:
            results[binding.name] = ("object", tuple(
                (f.name, *(_variable_type(model, f.variable) if f.variable else (local_datatype(f.datatype), ())))
                for f in result.fields if f.name))
        else:
            results[binding.name] = ("value", local_datatype(result.datatype), ())
    return dict(sorted(signatures.items())), dict(sorted(results.items()))


def task_spec(project: Project, model: Model, task: Task) -> TaskSpec:
    view = model.view
    handlers = project.handlers_dir
    module = f"{handlers.name}.{task.handler}"
    problem = None
    if not all(part.isidentifier() and not keyword.iskeyword(part) for part in module.split(".")):
        problem = (f"{module!r} is not a Python module name (project.handlers {handlers.name!r}, "
                   f"seam:handler {task.handler!r} of {model.qname(task.iri)})")
    outputs = {}
    for iri in task.writes:
        variable = view.variables.get(iri)
        if variable is not None and variable.name:
            outputs[variable.name] = _variable_type(model, iri)
    inputs = {}
    for iri in task.reads:
        variable = view.variables.get(iri)
        if variable is not None and variable.name:
            inputs[variable.name] = _variable_type(model, iri)
    signatures, results = _binding_signatures(model, task)
    return TaskSpec(
        subject=model.qname(task.iri), label=task.label, handler=task.handler or "", module=module,
        module_file=project.relative(handlers / f"{task.handler}.py"), handlers_parent=handlers.parent,
        reads=tuple(sorted(n for n in map(view.variable_name, task.reads) if n)),
        bindings=tuple(sorted(name for b in task.uses if b in view.bindings
                              for name in [view.bindings[b].name] if name)),
        outputs=dict(sorted(outputs.items())), examples=_examples(task), problem=problem,
        inputs=dict(sorted(inputs.items())), signatures=signatures, results=results,
        generated_cases=project.config.generated_cases)


def _examples(task: Task) -> tuple[ExampleSpec, ...]:
    """Examples by label, then content: blank-node ids differ from parse to parse, and
    every xdist worker must name the items alike."""
    examples = sorted(task.examples, key=lambda e: (e.label or "", repr((e.given, e.replies, e.expect))))
    labels = [e.label or f"example {i}" for i, e in enumerate(examples, 1)]
    counts: dict[str, int] = {}
    specs = []
    for label, example in zip(labels, examples):
        counts[label] = counts.get(label, 0) + 1
        label = label if counts[label] == 1 else f"{label} ({counts[label]})"
        parts = {"seam:given": example.given if example.given is not None else {},
                 "seam:replies": example.replies if example.replies is not None else {},
                 "seam:expect": example.expect}
        bad = [p for p, v in parts.items() if not isinstance(v, dict)]
        problem = f"example {label!r}: {bad[0]} is missing or not a JSON object" if bad else None
        specs.append(ExampleSpec(label=label, item=f"example[{label}]", problem=problem,
                                 data=(label, *parts.values()), held_out=example.held_out))
    return tuple(specs)

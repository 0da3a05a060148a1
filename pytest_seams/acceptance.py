"""A service task's acceptance items, and the same tests as plain pytest source
(docs/architecture.md, D-handler-contract).

The model says what a handler may read (``seam:reads``), call (``seam:uses``)
and must return (``seam:writes``, each of its datatype and inside every form
field on that variable), and gives examples. Three kinds of item judge a
handler against it: ``import``, one ``example[<label>]`` per example, and
``contract``.

The judging is done by the standard-library-only functions and classes in
:mod:`pytest_seams.handler_checks`, in this (the judge's) process; the handler
itself runs in an executor process in a sandbox (:mod:`pytest_seams.sandbox`),
imported and called over a pipe, so what it returns is plain data by the time
it is compared. :func:`acceptance_source` copies the same functions' source
text into a self-contained pytest module, so "the acceptance tests" an LLM reads in the
propose prompt are the checks that judge its draft.
"""

from __future__ import annotations

import dataclasses
import inspect
import keyword
import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_seams.handler_checks import RUNTIME, contract_problems, example_problems
from pytest_seams.items import GateItem

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.view import Task
    from seams.project.layout import Project


# ---------------------------------------------------------------- what the model says


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


def task_spec(project: Project, model: Model, task: Task) -> TaskSpec:
    from seams.checks.types import field_rule, local_datatype

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
            rules = tuple(field_rule(model, form.iri, f) for form in view.forms.values()
                          for f in form.fields if f.path == iri)
            outputs[variable.name] = (local_datatype(variable.datatype), rules)
    return TaskSpec(
        subject=model.qname(task.iri), label=task.label, handler=task.handler or "", module=module,
        module_file=project.relative(handlers / f"{task.handler}.py"), handlers_parent=handlers.parent,
        reads=tuple(sorted(n for n in map(view.variable_name, task.reads) if n)),
        bindings=tuple(sorted(name for b in task.uses if b in view.bindings
                              for name in [view.bindings[b].name] if name)),
        outputs=dict(sorted(outputs.items())), examples=_examples(task), problem=problem)


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


# ---------------------------------------------------------------- the items


class AcceptanceItem(GateItem):
    """Runs the handler in an executor process (a sandbox, :mod:`pytest_seams.sandbox`)
    and judges what comes back as plain data; nothing of the handler runs in this process."""

    def __init__(self, *, spec: TaskSpec, **kwargs):
        super().__init__(subject=spec.subject, **kwargs)
        self.spec = spec
        self.binding_calls: list[dict] = []  # every binding request the handler made, as answered

    def check(self, problems: list[tuple[str, str]]) -> None:
        from seams.findings import Finding

        if problems:
            self.fail_with([Finding(self.gate, self.subject, p, m) for p, m in problems])

    def handle(self, executor: Any):
        handle, problems = executor.import_handler(self.spec.module, self.spec.module_file)
        self.check(problems)
        return handle

    def runtest(self) -> None:
        from pytest_seams.sandbox import SandboxUnavailable
        from pytest_seams.sandbox.channel import Executor, ExecutorGone

        self.check([("seam:handler", self.spec.problem)] if self.spec.problem else [])
        try:
            executor = self.executor(Executor)
            first_call = len(executor.calls)
            try:
                self.run_checks(executor)
            finally:
                self.binding_calls = executor.calls[first_call:]
        except (ExecutorGone, SandboxUnavailable) as exc:
            self.drop_executor()
            self.check([("seam:handler", str(exc))])

    def executor(self, start: Any) -> Any:
        """The session's executor for this handlers package (:func:`session_executor`)."""
        return session_executor(self.session, self.spec, start)

    def drop_executor(self) -> None:
        drop_session_executor(self.session, self.spec)

    def run_checks(self, executor: Any) -> None:
        self.handle(executor)

    def reportinfo(self):
        parent = self.parent.name if self.parent is not None else ""
        return self.path, None, f"{parent}::{self.name} ({self.subject})"

    def as_pytest_source(self) -> str:
        """This item as a pytest test function (its helpers: :func:`acceptance_source`)."""
        return item_source(self.spec, self.name)


def _executors(session: Any) -> dict:
    executors = getattr(session, "_seams_executors", None)
    if executors is None:
        executors = {}
        setattr(session, "_seams_executors", executors)  # noqa: B010 (a pytest Session has no such field)

        def close_all() -> None:
            for executor in executors.values():
                executor.close()
            executors.clear()

        session.addfinalizer(close_all)
    return executors


def session_executor(session: Any, spec: TaskSpec, start: Any) -> Any:
    """The session's executor for ``spec``'s handlers package, shared by the acceptance and
    scenario items (each import takes the module afresh: its modules are dropped first); a
    new one (``start(code)``) when the last has ended. It ends with the session, and with it
    everything the handlers started."""
    executors = _executors(session)
    package = spec.module.partition(".")[0]
    source = spec.handlers_parent / package
    executor = executors.get(source)
    if executor is None or not executor.alive():
        drop_session_executor(session, spec)
        executor = executors[source] = start([(source, package)])
    return executor


def drop_session_executor(session: Any, spec: TaskSpec) -> None:
    package = spec.module.partition(".")[0]
    executor = _executors(session).pop(spec.handlers_parent / package, None)
    if executor is not None:
        executor.close()


class ImportItem(AcceptanceItem):
    gate = "import"


class ExampleItem(AcceptanceItem):
    gate = "example"

    def __init__(self, *, example: ExampleSpec, **kwargs):
        super().__init__(**kwargs)
        self.example = example

    def run_checks(self, executor: Any) -> None:
        self.check([("seam:example", self.example.problem)] if self.example.problem else [])
        handle = self.handle(executor)
        self.check(example_problems(handle, self.spec.reads, self.spec.bindings, self.example.data))


class ContractItem(AcceptanceItem):
    gate = "contract"

    def run_checks(self, executor: Any) -> None:
        handle = self.handle(executor)
        self.check(contract_problems(handle, self.spec.reads, self.spec.bindings, self.spec.outputs,
                                     self.spec.runnable_examples()))


def acceptance_items(parent: Any, spec: TaskSpec) -> list[AcceptanceItem]:
    """The items of one task, in their fixed order: import, examples, contract."""
    return [ImportItem.from_parent(parent, name="import", spec=spec),
            *(ExampleItem.from_parent(parent, name=e.item, spec=spec, example=e) for e in spec.examples),
            ContractItem.from_parent(parent, name="contract", spec=spec)]


# ---------------------------------------------------------------- the items as pytest source

_HEADER = '''"""C2 acceptance tests of {subject}{label}: handler module {module}.

Generated by seams from the model; the same checks the seams pytest plugin runs.
Put this file in {where} and run pytest on it.
"""

from __future__ import annotations

import copy
import importlib
import os
import re
import sys
import traceback
from collections.abc import Mapping
from datetime import date
from decimal import Decimal

import pytest

MODULE = {module!r}
MODULE_FILE = {module_file!r}
READS = {reads}
BINDINGS = {bindings}
# output name -> (datatype, constraints of every form field on that variable)
OUTPUTS = {outputs}
EXAMPLES = {examples}
'''


def acceptance_source(project: Project, model: Model, task: Any) -> str:
    """A self-contained pytest module with the acceptance tests of one task (deterministic),
    as the propose prompt shows them: held-out examples are left out (they still judge the draft)."""
    (_, spec), = task_specs(project, model, task)
    spec = dataclasses.replace(spec, examples=tuple(e for e in spec.examples if not e.held_out))
    parent_rel = project.relative(spec.handlers_parent)
    header = _HEADER.format(
        subject=spec.subject, label=f" ({spec.label})" if spec.label else "", module=spec.module,
        where="the project root" if parent_rel == "." else f"{parent_rel}/",
        module_file=spec.module_file, reads=_literal(spec.reads), bindings=_literal(spec.bindings),
        outputs=_block(spec.outputs), examples=_block(spec.runnable_examples()))
    runtime = "\n\n\n".join(inspect.getsource(part).rstrip() for part in RUNTIME)
    functions: list[str] = []
    for name in spec.item_names():
        function = _test_name(name)
        while function in functions:
            function += "_"
        functions.append(function)
    tests = "\n\n".join(item_source(spec, name, f) for name, f in zip(spec.item_names(), functions))
    return f"{header}\n\n{runtime}\n\n\n{tests}"


def item_source(spec: TaskSpec, item: str, function: str | None = None) -> str:
    """One item of ``spec`` as a pytest test function over the module's helpers."""
    load = "    handle = load_handle(MODULE, MODULE_FILE)"
    examples = {e.item: e for e in spec.examples}
    if item == "import":
        doc = f"{spec.module_file} imports and defines handle(inputs, bindings)."
        body = ["    load_handle(MODULE, MODULE_FILE)"]
    elif item == "contract":
        doc = "Every example: only READS read, only BINDINGS used, exactly OUTPUTS returned, each valid."
        body = [load, "    problems = contract_problems(handle, READS, BINDINGS, OUTPUTS, EXAMPLES)",
                "    assert not problems, report(problems)"]
    else:
        example = examples[item]
        doc = f"Example {example.label!r}: given inputs and binding replies, the expected outputs."
        body = ([f"    pytest.fail({example.problem!r})"] if example.problem else
                [load, f"    example = {_literal(example.data)}",
                 "    problems = example_problems(handle, READS, BINDINGS, example)",
                 "    assert not problems, report(problems)"])
    return f'def {function or _test_name(item)}():\n    """{_docstring(doc)}"""\n' + "\n".join(body) + "\n"


def _test_name(item: str) -> str:
    return "test_" + re.sub(r"\W+", "_", item).strip("_").lower()


def _docstring(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _block(value: dict | list) -> str:
    """A dict or list literal with one entry per line."""
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    if isinstance(value, dict):
        lines = [f"    {_literal(k)}: {_literal(v)}," for k, v in value.items()]
        return "{\n" + "\n".join(lines) + "\n}"
    return "[\n" + "\n".join(f"    {_literal(v)}," for v in value) + "\n]"


def _literal(value: Any) -> str:
    """Deterministic Python source for the JSON-like values and constraints of a spec."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_literal(v) for v in value)
        if isinstance(value, list):
            return f"[{inner}]"
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, Decimal):
        return f"Decimal({str(value)!r})"
    if type(value) is date:
        return f"date({value.year}, {value.month}, {value.day})"
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    raise ValueError(f"no literal for {value!r}")

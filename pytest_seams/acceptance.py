"""C2: a service task's acceptance items, and the same tests as plain pytest source.

The model says what a handler may read (``seam:reads``), call (``seam:uses``)
and must return (``seam:writes``, each of its datatype and inside every form
field on that variable), and gives examples. Three kinds of item judge a
handler against it: ``import``, one ``example[<label>]`` per example, and
``contract``.

The judging is done by the standard-library-only functions and classes in the
"runtime" part below. The items call them in-process, and
:func:`acceptance_source` copies their source text into a self-contained pytest
module, so "the C2 tests" an LLM reads in the propose prompt are exactly the
code that judges its draft.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import keyword
import os
import re
import sys
import traceback
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from .items import GateItem

if TYPE_CHECKING:
    from seams.model import Model
    from seams.project import Project
    from seams.view import Task

# ---------------------------------------------------------------- runtime (copied into the source)


def same(actual, expected):
    """JSON-like equality: numbers compare by value across int, float and Decimal; a bool
    is not a number; a date equals its ISO string; mappings and lists item by item."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return isinstance(actual, bool) and isinstance(expected, bool) and actual == expected
    if is_number(actual) and is_number(expected):
        return as_decimal(actual) == as_decimal(expected)
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        return set(actual) == set(expected) and all(same(actual[k], expected[k]) for k in expected)
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        return len(actual) == len(expected) and all(map(same, actual, expected))
    if type(actual) is date or type(expected) is date:
        return as_date(actual) is not None and as_date(actual) == as_date(expected)
    if isinstance(actual, str) and isinstance(expected, str):
        return actual == expected
    return actual is None and expected is None


def is_number(value):
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def as_decimal(value):
    """The exact decimal a number means; a float by its shortest repr (12.5, not 12.4999...)."""
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def as_date(value):
    """A ``datetime.date``, or an ISO ``YYYY-MM-DD`` string read as one; None otherwise."""
    if type(value) is date:
        return value
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None


def show(value):
    """A value as a message shows it: 0.5 and 2024-01-31, not Decimal('0.5')."""
    if isinstance(value, Decimal) or type(value) is date:
        return str(value)
    return repr(value)


def datatype_problem(value, datatype):
    """Why ``value`` is not an ``xsd:<datatype>`` value of the process, or None."""
    checks = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "decimal": lambda v: is_number(v) and as_decimal(v).is_finite(),
        "boolean": lambda v: isinstance(v, bool),
        "date": lambda v: as_date(v) is not None,
    }
    if datatype not in checks or checks[datatype](value):
        return None
    return f"{show(value)} is not an xsd:{datatype}"


def constraint_problems(value, rule):
    """Why ``value`` breaks one form field (sh:datatype, sh:in, bounds, sh:pattern, lengths)."""
    where = f"(sh:property of {rule['shape']})"
    problems = []
    if datatype_problem(value, rule.get("datatype")):
        problems.append(("sh:datatype", f"{datatype_problem(value, rule['datatype'])} {where}"))
    if "in" in rule and not any(same(value, allowed) for allowed in rule["in"]):
        shown = ", ".join(show(v) for v in rule["in"])
        problems.append(("sh:in", f"{show(value)} is not one of {shown} {where}"))
    bounds = {"minInclusive": lambda a, b: a >= b, "maxInclusive": lambda a, b: a <= b,
              "minExclusive": lambda a, b: a > b, "maxExclusive": lambda a, b: a < b}
    for key, holds in bounds.items():
        if key in rule:
            a, b = ordered(value), ordered(rule[key])
            if a is None or b is None or a[0] != b[0] or not holds(a[1], b[1]):
                problems.append((f"sh:{key}", f"{show(value)} breaks sh:{key} {show(rule[key])} {where}"))
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if "pattern" in rule and not re.search(rule["pattern"], text):
        problems.append(("sh:pattern", f"{show(value)} does not match {rule['pattern']!r} {where}"))
    if "minLength" in rule and len(text) < rule["minLength"]:
        problems.append(("sh:minLength", f"{show(value)} is shorter than {rule['minLength']} {where}"))
    if "maxLength" in rule and len(text) > rule["maxLength"]:
        problems.append(("sh:maxLength", f"{show(value)} is longer than {rule['maxLength']} {where}"))
    return problems


def ordered(value):
    """(kind, comparable) for bounds: numbers, dates and strings only meet their own kind."""
    if is_number(value):
        return ("number", as_decimal(value))
    if as_date(value) is not None:
        return ("date", as_date(value))
    return ("string", value) if isinstance(value, str) else None


class Inputs(Mapping):
    """The task's declared inputs, read-only. Touching any other name is recorded in
    ``undeclared`` (a contract failure) and raises KeyError."""

    def __init__(self, values, declared):
        self._declared = tuple(declared)
        self._values = {k: copy.deepcopy(values[k]) for k in self._declared if k in values}
        self.undeclared = []

    def _allowed(self, key):
        if key not in self._declared:
            self.undeclared.append(key)
            return False
        return True

    def __getitem__(self, key):
        if not self._allowed(key):
            raise KeyError(f"{key!r} is not an input of this task (declared: "
                           f"{', '.join(self._declared) or 'none'})")
        return self._values[key]

    def __contains__(self, key):
        return self._allowed(key) and key in self._values

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def __repr__(self):
        return f"Inputs({self._values!r})"


class Bindings:
    """One callable attribute per declared binding, answering with the example's reply.
    Any other name is recorded in ``undeclared`` (a contract failure) and raises AttributeError."""

    def __init__(self, declared, replies):
        self._declared = tuple(declared)
        self._replies = dict(replies)
        self.undeclared = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in self._declared:
            self.undeclared.append(name)
            raise AttributeError(f"{name!r} is not a binding of this task (declared: "
                                 f"{', '.join(self._declared) or 'none'})")

        def call(*args, **kwargs):
            if name not in self._replies:
                raise LookupError(f"the example gives no reply for binding {name!r}")
            return copy.deepcopy(self._replies[name])

        return call


def describe(exc):
    """``Type: message (file.py:line)``, the line in the innermost frame outside this file."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__]
    where = f" ({os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def import_handler(module, where):
    """Import the handler module fresh (never a stale copy) -> (handle, problems)."""
    package = module.partition(".")[0]
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name in (module, package):
            return None, [("seam:handler", f"handler module {module} not found ({where})")]
        return None, [("seam:handler", f"importing {module} failed: {describe(exc)}")]
    except (Exception, SystemExit) as exc:
        return None, [("seam:handler", f"importing {module} failed: {describe(exc)}")]
    if not callable(getattr(loaded, "handle", None)):
        return None, [("seam:handler", f"{where} defines no handle(inputs, bindings)")]
    return loaded.handle, []


def call_handle(handle, reads, bindings, given, replies):
    """Call ``handle`` as the process would -> (result, error, inputs, bindings)."""
    inputs, fakes = Inputs(given, reads), Bindings(bindings, replies)
    try:
        return handle(inputs, fakes), None, inputs, fakes
    except Exception as exc:
        return None, describe(exc), inputs, fakes


def example_problems(handle, reads, bindings, example):
    """Given the example's inputs and binding replies, does ``handle`` return its outputs?"""
    label, given, replies, expect = example
    result, error, _, _ = call_handle(handle, reads, bindings, given, replies)
    if error:
        return [("seam:example", f"example {label!r}: handle raised {error}")]
    if not isinstance(result, Mapping):
        return [("seam:writes", f"example {label!r}: handle returned {type(result).__name__}, "
                                "not a mapping of outputs")]
    return [("seam:expect", f"example {label!r}: output {name!r} is "
                            f"{show(result[name]) if name in result else 'missing'}, expected {show(want)}")
            for name, want in expect.items() if name not in result or not same(result[name], want)]


def contract_problems(handle, reads, bindings, outputs, examples):
    """Over every example: only declared inputs read, only declared bindings used, exactly
    the declared outputs returned, each of its datatype and inside its form fields."""
    if not examples:
        return [("seam:example", "the task has no example to run the contract over")]
    problems = []
    for label, given, replies, _ in examples:
        at = f"example {label!r}"
        result, error, inputs, fakes = call_handle(handle, reads, bindings, given, replies)
        problems += [("seam:reads", f"{at}: read input {name!r}, which the task does not declare")
                     for name in dict.fromkeys(map(str, inputs.undeclared))]
        problems += [("seam:uses", f"{at}: used binding {name!r}, which the task does not declare")
                     for name in dict.fromkeys(fakes.undeclared)]
        if error or not isinstance(result, Mapping):
            got = f"raised {error}" if error else f"returned {type(result).__name__}, not a mapping"
            problems.append(("seam:writes", f"{at}: handle {got}"))
            continue
        missing = [name for name in outputs if name not in result]
        extra = [str(name) for name in result if name not in outputs]
        if missing:
            problems.append(("seam:writes", f"{at}: declared output(s) missing: {', '.join(missing)}"))
        if extra:
            problems.append(("seam:writes", f"{at}: undeclared output(s) returned: {', '.join(extra)}"))
        for name, (datatype, rules) in outputs.items():
            if name in result:
                value = result[name]
                wrong = datatype_problem(value, datatype)
                found = [("seam:datatype", wrong)] if wrong else []
                for rule in rules:
                    found += constraint_problems(value, rule)
                problems += [(p, f"{at}: output {name!r}: {m}") for p, m in found]
    return list(dict.fromkeys(problems))


def report(problems):
    return "\n".join(f"{predicate}: {message}" for predicate, message in problems)


def load_handle(module, where):
    handle, problems = import_handler(module, where)
    assert not problems, report(problems)
    return handle


RUNTIME = (same, is_number, as_decimal, as_date, show, datatype_problem, constraint_problems, ordered,
           Inputs, Bindings, describe, import_handler, call_handle, example_problems,
           contract_problems, report, load_handle)

# ---------------------------------------------------------------- what the model says


@dataclass(frozen=True)
class ExampleSpec:
    label: str
    item: str  # the item name: example[<label>]
    data: tuple  # (label, given, replies, expect) as the runtime takes it
    problem: str | None  # why the example cannot run (its JSON is not an object, say)


@dataclass(frozen=True)
class TaskSpec:
    """Everything C2 needs about one service task, in plain data."""

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


def task_specs(project: "Project", model: "Model", select: Any = None) -> list[tuple[str, TaskSpec]]:
    """(collector name, spec) of every service task with a handler, or of those ``select``
    names (a Task, an IRI, a prefixed name, a BPMN id or a handler name)."""
    from seams.errors import ResolutionError

    tasks = [t for t in model.view.service_tasks() if t.handler]
    counts: dict[str, int] = {}
    for task in tasks:
        counts[task.handler] = counts.get(task.handler, 0) + 1
    named = [(t.handler if counts[t.handler] == 1 else f"{t.handler}[{model.qname(t.iri)}]", t)
             for t in tasks]
    if select is not None:
        wanted = str(getattr(select, "iri", select))
        named = [(n, t) for n, t in named
                 if wanted in (str(t.iri), model.qname(t.iri), t.element_id, t.handler)]
        if not named:
            raise ResolutionError(f"no service task with a handler matches {wanted!r}",
                                  [model.qname(t.iri) for t in tasks])
    return [(name, task_spec(project, model, task)) for name, task in named]


def task_spec(project: "Project", model: "Model", task: "Task") -> TaskSpec:
    view = model.view
    handlers = project.handlers_dir
    module = f"{handlers.name}.{task.handler}"
    problem = None
    if not all(part.isidentifier() and not keyword.iskeyword(part) for part in module.split(".")):
        problem = f"seam:handler {task.handler!r} of {model.qname(task.iri)} is not a Python module name"
    outputs = {}
    for iri in task.writes:
        variable = view.variables.get(iri)
        if variable is not None and variable.name:
            rules = tuple(_rule(model, form.iri, f) for form in view.forms.values()
                          for f in form.fields if f.path == iri)
            outputs[variable.name] = (_local(variable.datatype), rules)
    return TaskSpec(
        subject=model.qname(task.iri), label=task.label, handler=task.handler, module=module,
        module_file=project.relative(handlers / f"{task.handler}.py"), handlers_parent=handlers.parent,
        reads=tuple(sorted(n for n in map(view.variable_name, task.reads) if n)),
        bindings=tuple(sorted(view.bindings[b].name for b in task.uses
                              if b in view.bindings and view.bindings[b].name)),
        outputs=dict(sorted(outputs.items())), examples=_examples(task), problem=problem)


def _examples(task: "Task") -> tuple[ExampleSpec, ...]:
    labels = [e.label or f"example {i}" for i, e in enumerate(task.examples, 1)]
    counts: dict[str, int] = {}
    specs = []
    for label, example in zip(labels, task.examples):
        counts[label] = counts.get(label, 0) + 1
        label = label if counts[label] == 1 else f"{label} ({counts[label]})"
        parts = {"seam:given": example.given if example.given is not None else {},
                 "seam:replies": example.replies if example.replies is not None else {},
                 "seam:expect": example.expect}
        bad = [p for p, v in parts.items() if not isinstance(v, dict)]
        problem = f"example {label!r}: {bad[0]} is missing or not a JSON object" if bad else None
        specs.append(ExampleSpec(label=label, item=f"example[{label}]", problem=problem,
                                 data=(label, *parts.values())))
    return tuple(specs)


def _local(datatype: Any) -> str | None:
    from rdflib.namespace import XSD

    if datatype is None:
        return None
    return str(datatype)[len(str(XSD)):] if str(datatype).startswith(str(XSD)) else str(datatype)


def _rule(model: "Model", shape: Any, field: Any) -> dict:
    """One form field's constraints as plain data, keys in a fixed order."""
    rule: dict[str, Any] = {"shape": model.qname(shape)}
    if field.datatype is not None:
        rule["datatype"] = _local(field.datatype)
    if field.in_values is not None:
        rule["in"] = tuple(str(v) if isinstance(v, str) else v for v in field.in_values)
    for key, value in (("minInclusive", field.min_inclusive), ("maxInclusive", field.max_inclusive),
                       ("minExclusive", field.min_exclusive), ("maxExclusive", field.max_exclusive),
                       ("pattern", field.pattern), ("minLength", field.min_length),
                       ("maxLength", field.max_length)):
        if value is not None:
            rule[key] = str(value) if isinstance(value, str) else value
    return rule


# ---------------------------------------------------------------- the items


@contextmanager
def handler_context(spec: TaskSpec) -> Iterator[None]:
    """The handlers package's parent on sys.path and no bytecode written, only while
    the handler is imported and called."""
    parent, dont_write = str(spec.handlers_parent), sys.dont_write_bytecode
    sys.path.insert(0, parent)
    sys.dont_write_bytecode = True
    try:
        yield
    finally:
        sys.dont_write_bytecode = dont_write
        if parent in sys.path:
            sys.path.remove(parent)


class AcceptanceItem(GateItem):
    def __init__(self, *, spec: TaskSpec, **kwargs):
        super().__init__(subject=spec.subject, **kwargs)
        self.spec = spec

    def check(self, problems: list[tuple[str, str]]) -> None:
        from seams.findings import Finding

        if problems:
            self.fail_with([Finding(self.gate, self.subject, p, m) for p, m in problems])

    def handle(self):
        self.check([("seam:handler", self.spec.problem)] if self.spec.problem else [])
        handle, problems = import_handler(self.spec.module, self.spec.module_file)
        self.check(problems)
        return handle

    def runtest(self) -> None:
        with handler_context(self.spec):
            self.run_checks()

    def run_checks(self) -> None:
        self.handle()

    def reportinfo(self):
        return self.path, None, f"{self.parent.name}::{self.name} ({self.subject})"

    def as_pytest_source(self) -> str:
        """This item as a pytest test function (its helpers: :func:`acceptance_source`)."""
        return item_source(self.spec, self.name)


class ImportItem(AcceptanceItem):
    gate = "import"


class ExampleItem(AcceptanceItem):
    gate = "example"

    def __init__(self, *, example: ExampleSpec, **kwargs):
        super().__init__(**kwargs)
        self.example = example

    def run_checks(self) -> None:
        handle = self.handle()
        self.check([("seam:example", self.example.problem)] if self.example.problem else [])
        self.check(example_problems(handle, self.spec.reads, self.spec.bindings, self.example.data))


class ContractItem(AcceptanceItem):
    gate = "contract"

    def run_checks(self) -> None:
        handle = self.handle()
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


def acceptance_source(project: "Project", model: "Model", task: Any) -> str:
    """A self-contained pytest module with the C2 tests of one task (deterministic)."""
    (_, spec), = task_specs(project, model, task)
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
        doc = ("Over every example: reads only READS, calls only BINDINGS, returns exactly "
               "OUTPUTS, each of its datatype and inside its form fields.")
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

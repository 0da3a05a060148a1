"""The acceptance items' judging: the checks the acceptance items run, in the standard library only.

An item calls these in-process, and :func:`pytest_seams.acceptance.acceptance_source`
copies their source text (``inspect.getsource`` of everything in :data:`RUNTIME`)
into a self-contained pytest module, so "the acceptance tests" an LLM reads in the propose
prompt are exactly the code that judges its draft. Hence the rules for this module:
standard library only, and no name the rendered module's header does not import.
"""

from __future__ import annotations

import copy
import importlib
import os
import sys
import traceback
from collections.abc import Mapping

from seams.lang.field_values import (  # noqa: F401  (re-exported: tests and RUNTIME use them)
    as_date,
    as_decimal,
    constraint_problems,
    datatype_problem,
    is_number,
    ordered,
    same,
    show,
)


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
    """``Type: message (file.py:line)``, the line in the innermost frame outside this file
    (an error raised in a sandboxed handler comes already described)."""
    if isinstance(getattr(exc, "seams_description", None), str):
        return exc.seams_description
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__]
    where = f" ({os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def _missing(module, where):
    """The handler module is missing: say so, and how to get one."""
    handler = module.rpartition(".")[2]
    return (f"handler module {module} not found ({where}); run seams propose {handler}, "
            f"or write it from its stub (stubs/{handler}.py in the generated directory)")


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
            return None, [("seam:handler", _missing(module, where))]
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
           Inputs, Bindings, describe, _missing, import_handler, call_handle, example_problems,
           contract_problems, report, load_handle)

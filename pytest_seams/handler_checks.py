"""C2's judging: the checks the acceptance items run, in the standard library only.

An item calls these in-process, and :func:`pytest_seams.acceptance.acceptance_source`
copies their source text (``inspect.getsource`` of everything in :data:`RUNTIME`)
into a self-contained pytest module, so "the C2 tests" an LLM reads in the propose
prompt are exactly the code that judges its draft. Hence the rules for this module:
standard library only, and no name the rendered module's header does not import.
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
    """``Type: message (file.py:line)``, the line in the innermost frame outside this file
    (an error raised in a sandboxed handler comes already described)."""
    if isinstance(getattr(exc, "seams_description", None), str):
        return exc.seams_description
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

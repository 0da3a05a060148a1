"""The acceptance items' judging: the checks the acceptance items run, in the standard library only.

An item calls these in-process, and :func:`seams_runtime.acceptance_source.acceptance_source`
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
from seams.lang.replies import bind_arguments, reply_entries


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
    """One callable attribute per declared binding, answering from the example's ``seam:replies``.
    Any other name is recorded in ``undeclared`` (a contract failure) and raises AttributeError.

    A binding's reply is one value (what every call gets) or a list of entries
    ``{"args": [...], "kwargs": {...}, "reply": ...}`` (a call gets the reply of the entry
    its arguments match; every entry must be used). ``signatures`` gives, for each binding
    that declares its parameters, ``(parameter, input)`` pairs in call order: ``input``
    names the task input whose value that argument must be (None: any value). A call the
    example does not expect is recorded in ``wrong_calls`` (an example failure) and
    raises LookupError; :meth:`unused` names the entries no call matched."""

    def __init__(self, declared, replies, signatures=None, given=None):
        self._declared = tuple(declared)
        self._replies = dict(replies)
        self._signatures = dict(signatures or {})
        self._given = dict(given or {})
        self._used = set()
        self.undeclared = []
        self.wrong_calls = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in self._declared:
            self.undeclared.append(name)
            raise AttributeError(f"{name!r} is not a binding of this task (declared: "
                                 f"{', '.join(self._declared) or 'none'})")

        def call(*args, **kwargs):
            return copy.deepcopy(self.answer(name, list(args), dict(kwargs)))

        return call

    def answer(self, name, args, kwargs):
        """The reply to one call, or LookupError (recorded) when the example does not expect it."""
        shown = show_call(name, args, kwargs)
        if name not in self._replies:
            return self._refuse(f"called {shown}, which the example's seam:replies does not mention")
        parameters = self._signatures.get(name)
        named = {}
        if parameters is not None:
            bound = bind_arguments([p for p, _ in parameters], args, kwargs)
            if bound is None:
                takes = ", ".join(p for p, _ in parameters)
                return self._refuse(f"called {shown}, but {name} takes ({takes})")
            named = bound
        entries = reply_entries(self._replies[name])
        if entries is None:
            for parameter, source in parameters or ():
                if source is None or source not in self._given:
                    continue
                want = self._given[source]
                if parameter not in named:
                    return self._refuse(f"called {shown} without {parameter} (expected {show(want)}, "
                                        f"the input {source!r})")
                if not same(named[parameter], want):
                    return self._refuse(f"called {shown}: {parameter} is {show(named[parameter])}, "
                                        f"expected {show(want)} (the input {source!r})")
            return self._replies[name]
        for index, entry in enumerate(entries):
            if call_matches(entry, args, kwargs, parameters, named):
                self._used.add((name, index))
                return entry["reply"]
        expected = "; ".join(show_call(name, e.get("args", []), e.get("kwargs", {})) for e in entries)
        return self._refuse(f"called {shown}, which no entry of seam:replies expects (expected: {expected})")

    def _refuse(self, message):
        self.wrong_calls.append(message)
        raise LookupError(message)

    def unused(self):
        """``name(args)`` of every reply entry no call matched, in the example's order."""
        return [show_call(name, entry.get("args", []), entry.get("kwargs", {}))
                for name, reply in self._replies.items() for index, entry in enumerate(reply_entries(reply) or ())
                if (name, index) not in self._used]


def call_matches(entry, args, kwargs, parameters, named):
    """Does a call pass exactly the arguments one reply entry expects? With a declared signature
    positional and keyword arguments are the same thing; without one they are compared as written."""
    want_args, want_kwargs = list(entry.get("args", [])), dict(entry.get("kwargs", {}))
    if parameters is not None:
        want = bind_arguments([p for p, _ in parameters], want_args, want_kwargs)
        return want is not None and same(named, want)
    return same(args, want_args) and same(kwargs, want_kwargs)


def show_call(name, args, kwargs):
    """``calendar('ana', 'annual', days=3)``: a binding call as a message shows it."""
    shown = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(shown)})"


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


def call_handle(handle, reads, bindings, given, replies, signatures=None):
    """Call ``handle`` as the process would -> (result, error, inputs, bindings)."""
    inputs, fakes = Inputs(given, reads), Bindings(bindings, replies, signatures, given)
    try:
        return handle(inputs, fakes), None, inputs, fakes
    except Exception as exc:
        return None, describe(exc), inputs, fakes


def example_problems(handle, reads, bindings, example, signatures=None):
    """Given the example's inputs and binding replies, does ``handle`` make the calls the
    example expects and return its outputs?"""
    label, given, replies, expect = example
    result, error, _, fakes = call_handle(handle, reads, bindings, given, replies, signatures)
    at = f"example {label!r}"
    problems = [("seam:replies", f"{at}: {message}") for message in dict.fromkeys(fakes.wrong_calls)]
    problems += [("seam:replies", f"{at}: never called {call}, which seam:replies expects")
                 for call in fakes.unused()]
    if error:
        return problems + [("seam:example", f"{at}: handle raised {error}")]
    if not isinstance(result, Mapping):
        return problems + [("seam:writes", f"{at}: handle returned {type(result).__name__}, "
                                           "not a mapping of outputs")]
    return problems + [("seam:expect", f"{at}: output {name!r} is "
                                       f"{show(result[name]) if name in result else 'missing'}, "
                                       f"expected {show(want)}")
                       for name, want in expect.items() if name not in result or not same(result[name], want)]


def contract_problems(handle, reads, bindings, outputs, examples, signatures=None):
    """Over every example: only declared inputs read, only declared bindings used, exactly
    the declared outputs returned, each of its datatype and inside its form fields."""
    if not examples:
        return [("seam:example", "the task has no example to run the contract over")]
    problems = []
    for label, given, replies, _ in examples:
        problems += call_problems(f"example {label!r}", handle, reads, bindings, outputs, given, replies,
                                  signatures)
    return list(dict.fromkeys(problems))


def generated_problems(handle, reads, bindings, outputs, given, replies, signatures=None):
    """The contract on one generated input (the acceptance item generates them from the form
    fields and datatypes of what the task reads, and the declared results of its bindings):
    no exception, each call passing the inputs its binding's parameters name, and exactly
    the declared outputs, each of its datatype and inside its form fields."""
    at = f"generated input ({show_case(given, replies)})"
    return list(dict.fromkeys(call_problems(at, handle, reads, bindings, outputs, given, replies, signatures,
                                            calls=True)))


def show_case(given, replies):
    """``employee='a', days=1; replies calendar='BK-0'``: a generated input, short."""
    shown = ", ".join(f"{k}={show(v)}" for k, v in given.items())
    if replies:
        shown += "; replies " + ", ".join(f"{k}={show(v)}" for k, v in replies.items())
    return shown


def call_problems(at, handle, reads, bindings, outputs, given, replies, signatures=None, calls=False):
    """One call of ``handle``: undeclared reads and bindings, then (``calls``) the binding calls
    the fakes refused, then what it returned against ``outputs``."""
    result, error, inputs, fakes = call_handle(handle, reads, bindings, given, replies, signatures)
    problems = [("seam:reads", f"{at}: read input {name!r}, which the task does not declare")
                for name in dict.fromkeys(map(str, inputs.undeclared))]
    problems += [("seam:uses", f"{at}: used binding {name!r}, which the task does not declare")
                 for name in dict.fromkeys(fakes.undeclared)]
    if calls:
        problems += [("seam:replies", f"{at}: {message}") for message in dict.fromkeys(fakes.wrong_calls)]
    if error or not isinstance(result, Mapping):
        got = f"raised {error}" if error else f"returned {type(result).__name__}, not a mapping"
        return problems + [("seam:writes", f"{at}: handle {got}")]
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
    return problems


def report(problems):
    return "\n".join(f"{predicate}: {message}" for predicate, message in problems)


def load_handle(module, where):
    handle, problems = import_handler(module, where)
    assert not problems, report(problems)
    return handle


RUNTIME = (same, is_number, as_decimal, as_date, show, datatype_problem, constraint_problems, ordered,
           Inputs, Bindings, reply_entries, bind_arguments, call_matches, show_call, describe, _missing,
           import_handler, call_handle, example_problems, contract_problems, generated_problems, show_case,
           call_problems, report, load_handle)

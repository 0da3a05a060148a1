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
the shapes check's (seams.checks.shapes). A binding's reply in the list form
(reply entries, seams.lang.replies) is checked here: each entry's ``args``
an array and ``kwargs`` an object that fit the binding's declared parameters,
no two entries expecting the same call, and a list that looks like entries
but has another key is named (it would be taken as one reply, a list).

What the task assumes (``seam:assumes``, conditions in seams' language over
its inputs and binding replies) must hold for every example (the values as a
handler is given them, one type per datatype), and name only its inputs and
bindings; an example's ``seam:expectError`` must be one of the task's
``seam:raises``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rdflib import Literal

from seams.checks.types import VariableType, local_datatype, variable_types
from seams.errors import ExpressionError
from seams.findings import Finding
from seams.lang.field_values import handler_values, same
from seams.lang.replies import bind_arguments, reply_entries
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
            found.update(_reply_findings(model, task, example))
            if example.replies is None and task.uses:
                found.add(Finding(KIND, model.qname(task.iri), "seam:example",
                                  f"{_prefix(example)}{REPLIES_NEEDED} (the task uses "
                                  f"{', '.join(sorted(model.qname(b) for b in task.uses))})"))
            if example.expect_error and example.expect_error not in task.raises:
                found.add(Finding(KIND, model.qname(task.iri), "seam:expectError",
                                  f"{_prefix(example)}seam:expectError {example.expect_error!r} is not one of the "
                                  f"task's seam:raises ({', '.join(map(repr, task.raises)) or 'none'})"))
        found.update(_assumption_findings(model, task, types))
    return sorted(found)


def _input_datatypes(model: Model, task: Task, types: dict) -> tuple[dict, dict]:
    """(input name -> datatype, binding name -> its result's datatype or field -> datatype)."""
    view = model.view
    inputs = {types[v].name: types[v].datatype for v in task.reads if v in types and types[v].name}
    results: dict = {}
    for iri in task.uses:
        binding = view.bindings.get(iri)
        if binding is None or not binding.name or binding.result is None:
            continue
        result = binding.result
        if result.variable is not None and result.variable in types:
            results[binding.name] = types[result.variable].datatype
        elif result.fields:
            results[binding.name] = {f.name: (types[f.variable].datatype if f.variable in types
                                              else local_datatype(f.datatype)) for f in result.fields if f.name}
        else:
            results[binding.name] = local_datatype(result.datatype)
    return inputs, results


def _assumption_findings(model: Model, task: Task, types: dict) -> Iterable[Finding]:
    """Each seam:assumes parses, names only inputs and bindings, and holds for every example."""
    from seams.lang.condition import parse_condition

    subject = model.qname(task.iri)
    inputs, results = _input_datatypes(model, task, types)
    bindings = {b.name for b in (model.view.bindings.get(i) for i in task.uses) if b is not None and b.name}
    for text in task.assumes:
        try:
            condition = parse_condition(text, where=f"seam:assumes {text!r}")
        except ExpressionError as exc:
            yield Finding(KIND, subject, "seam:assumes", str(exc))
            continue
        unknown = sorted(condition.names - set(inputs) - bindings)
        if unknown:
            yield Finding(KIND, subject, "seam:assumes",
                          f"seam:assumes {text!r} names {', '.join(unknown)}, which is neither an input "
                          "(seam:reads) nor a binding (seam:uses) of the task")
            continue
        for example in task.examples:
            if not isinstance(example.given, dict) or not isinstance(example.replies or {}, dict):
                continue
            replies = {k: v for k, v in (example.replies or {}).items() if reply_entries(v) is None}
            env = {**handler_values(replies, results), **handler_values(example.given, inputs)}
            if not condition.names <= set(env):
                continue  # an input the example leaves out, or a reply given per call
            try:
                holds = condition.evaluate(env)
            except ExpressionError:
                holds = False
            if not holds:
                shown = ", ".join(f"{name}={env[name]}" for name in sorted(condition.names))
                yield Finding(KIND, subject, "seam:assumes",
                              f"{_prefix(example)}seam:assumes {text!r} does not hold ({shown}): the example "
                              "is one the handler may assume never happens")


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


def _reply_findings(model: Model, task: Task, example: Example) -> Iterable[Finding]:
    """The list form of each binding's reply: well-formed entries that fit the signature."""
    if not isinstance(example.replies, dict):
        return
    view = model.view
    parameters = {b.name: b.parameters for b in (view.bindings.get(i) for i in task.uses) if b is not None}
    for name in sorted(example.replies):
        reply = example.replies[name]
        where = f'{_prefix(example)}seam:replies "{name}"'
        entries = reply_entries(reply)
        if entries is None:
            if (isinstance(reply, list) and reply and all(isinstance(e, dict) and "reply" in e for e in reply)):
                extra = sorted({k for e in reply for k in e} - {"args", "kwargs", "reply"})
                yield _finding(model, task, f"{where}: an entry has {', '.join(map(repr, extra))}; a reply entry "
                                            "has only args, kwargs and reply (as it is, the list is one reply)")
            continue
        calls: list[dict] = []
        for index, entry in enumerate(entries, 1):
            args, kwargs = entry.get("args", []), entry.get("kwargs", {})
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                yield _finding(model, task, f"{where}: entry {index}: args must be a JSON array and kwargs "
                                            "a JSON object")
                continue
            declared = parameters.get(name)
            call = {"args": args, "kwargs": kwargs}
            if declared is not None:
                names = [p.name or "" for p in declared]
                bound = bind_arguments(names, args, kwargs)
                if bound is None:
                    yield _finding(model, task, f"{where}: entry {index}: its arguments do not fit "
                                                f"{name}({', '.join(names)})")
                    continue
                call = bound
            if any(same(call, other) for other in calls):
                yield _finding(model, task, f"{where}: entry {index} expects the same call as an earlier one")
            calls.append(call)


def _finding(model: Model, task: Task, message: str) -> Finding:
    return Finding(KIND, model.qname(task.iri), "seam:example", message)

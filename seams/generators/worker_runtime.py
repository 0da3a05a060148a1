"""The engine-independent part of every generated workers module, as real code.

The ``zeebe`` and ``camunda7`` generators copy the source text of
:data:`RUNTIME` (these functions and the value checks of
``seams.lang.field_values``) into the module they write, so a worker judges a
handler's outputs with the same datatype rules as the ``contract`` item of
acceptance (docs/plugin.md) and the generated module needs nothing of seams
at run time. Hence: standard library only, and no name beyond the imports
below and ``BINDINGS_MODULE``, which the generated module defines.

A task is described by a dict the generator writes: ``where`` (job type or
topic, task and BPMN element, for messages), ``module`` (the handler's
module), ``reads`` (variable names), ``uses`` (binding names) and ``writes``
(output name -> xsd local datatype).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from seams.lang.field_values import as_date, as_decimal, datatype_problem, is_number, show

BINDINGS_MODULE = "workers_bindings"  # the generated module defines its own copy


class WorkerError(Exception):
    """The job cannot run or its outputs break the contract: the message says why, whole."""


_BINDINGS: list[Any] = []


def load_bindings(task: Mapping[str, Any]) -> Any:
    """The object ``workers_bindings.bindings()`` returns, made once per process; an empty
    namespace for a task that uses no binding (it needs no bindings module)."""
    if not task["uses"]:
        return SimpleNamespace()
    if not _BINDINGS:
        try:
            module = importlib.import_module(BINDINGS_MODULE)
        except ModuleNotFoundError as exc:
            if exc.name != BINDINGS_MODULE:
                raise
            raise WorkerError(f"{task['where']}: no module {BINDINGS_MODULE}; write {BINDINGS_MODULE}.py "
                              f"with a bindings() factory in the project's root (docs/generators.md)") from None
        _BINDINGS.append(module.bindings())
    bindings = _BINDINGS[0]
    missing = [name for name in task["uses"] if not callable(getattr(bindings, name, None))]
    if missing:
        raise WorkerError(f"{task['where']}: {BINDINGS_MODULE}.bindings() has no method "
                          f"{', '.join(missing)} (seam:uses)")
    return bindings


def contract_problems(outputs: Any, writes: Mapping[str, str]) -> list[str]:
    """Why ``outputs`` are not exactly the task's seam:writes, each of its datatype."""
    if not isinstance(outputs, Mapping):
        return [f"returned {type(outputs).__name__}, not a mapping"]
    problems = []
    missing = [name for name in writes if name not in outputs]
    extra = sorted(str(name) for name in outputs if name not in writes)
    if missing:
        problems.append(f"declared output(s) missing: {', '.join(missing)}")
    if extra:
        problems.append(f"undeclared output(s) returned: {', '.join(extra)}")
    for name, datatype in writes.items():
        if name in outputs:
            wrong = datatype_problem(outputs[name], datatype)
            if wrong:
                problems.append(f"output {name!r}: {wrong}")
    return problems


def json_value(value: Any) -> Any:
    """A contract-checked output as the engine stores it: a Decimal as an int when whole,
    else a float; a date as its ISO text."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if type(value) is date:
        return value.isoformat()
    return value


def run_handler(task: Mapping[str, Any], variables: Mapping[str, Any]) -> dict[str, Any]:
    """Call the task's handler with exactly its reads and return its checked outputs.

    A missing variable, bindings module or handler, and outputs that break the
    contract, raise WorkerError; whatever the handler raises passes through."""
    missing = [name for name in task["reads"] if name not in variables]
    if missing:
        raise WorkerError(f"{task['where']}: variable(s) not set: {', '.join(missing)} (seam:reads)")
    inputs = {name: variables[name] for name in task["reads"]}
    bindings = load_bindings(task)
    try:
        handler = importlib.import_module(task["module"])
    except ModuleNotFoundError as exc:
        if exc.name is None or not (task["module"] == exc.name or task["module"].startswith(exc.name + ".")):
            raise
        raise WorkerError(f"{task['where']}: no handler module {task['module']}") from None
    outputs = handler.handle(inputs, bindings)
    problems = contract_problems(outputs, task["writes"])
    if problems:
        raise WorkerError(f"{task['where']}: {task['module']}.handle broke the contract: {'; '.join(problems)}")
    return {name: json_value(outputs[name]) for name in task["writes"]}


def failure_message(task: Mapping[str, Any], exc: BaseException) -> str:
    """What the engine shows for a failed job: a WorkerError's own text, else what the handler raised."""
    if isinstance(exc, WorkerError):
        return str(exc)
    return f"{task['where']}: {task['module']}.handle raised {type(exc).__name__}: {exc}"


def error_code(exc: BaseException) -> str | None:
    """The BPMN error code a handler's exception carries (a non-empty str ``error_code``), or None."""
    code = getattr(exc, "error_code", None)
    return code if isinstance(code, str) and code else None


RUNTIME = (is_number, as_decimal, as_date, show, datatype_problem, WorkerError, load_bindings,
           contract_problems, json_value, run_handler, failure_message, error_code)
"""What every generated workers module holds, in this order (its source text, copied)."""
RUNTIME_IMPORTS = ("import importlib", "import re", "from collections.abc import Mapping",
                   "from datetime import date", "from decimal import Decimal", "from types import SimpleNamespace",
                   "from typing import Any")
"""The standard-library imports :data:`RUNTIME` needs (``re``: the copied value checks)."""

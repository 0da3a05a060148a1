"""A user task's form as the engine asks it and judges what is submitted (docs/scenarios.md).

The fields come from the task's ``seam:form`` shape, in ``sh:order``; what
a user task submits is judged field by field with the variables' types
(seams.checks.types: datatype, ``sh:in``, bounds, pattern, length, as the
seam shapes and the contract items judge values), plus what only a form
says: a field with ``sh:minCount 1`` is required, and a key that is no field
of the form is refused. ``seams run`` asks with :func:`form_fields` and
re-asks with :func:`form_problems`; the engine refuses a run's data with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from seams.runs import FormField, UserTaskInfo

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.view import FormShape, Task


def task_form(model: Model, task: Task | None) -> FormShape | None:
    """The form shape of a user task (None: the task has none, or is not in the model)."""
    if task is None or task.form is None:
        return None
    return model.view.forms.get(task.form)


def form_fields(model: Model, task: Task | None) -> tuple[FormField, ...]:
    """The fields of the task's form that name a variable, in ``sh:order``."""
    from seams.checks.types import local_datatype

    view = model.view
    fields = []
    form = task_form(model, task)
    for each in form.fields if form is not None else ():
        variable = view.variables.get(each.path) if each.path is not None else None
        if variable is None or not variable.name:
            continue
        fields.append(FormField(variable=variable.name, label=each.name or variable.label,
                                datatype=local_datatype(each.datatype or variable.datatype),
                                required=(each.min_count or 0) >= 1, choices=each.in_values,
                                default=each.default))
    return tuple(fields)


def with_defaults(fields: tuple[FormField, ...], values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` with each field's default for a field they leave out: what Tasklist submits
    for a form whose field was left as it is (docs/scenarios.md, "Form defaults")."""
    out = dict(values)
    for field in fields:
        if field.default is not None and field.variable not in out:
            out[field.variable] = field.default
    return out


def form_problems(model: Model, task: Task | None, values: Mapping[str, Any]) -> list[str]:
    """Why the form refuses ``values`` (one message per problem; empty: accepted). A task with
    no form accepts anything."""
    from seams.checks.types import variable_types

    form = task_form(model, task)
    if form is None:
        return []
    view = model.view
    shown = model.qname(form.iri)
    by_name = {}
    for each in form.fields:
        variable = view.variables.get(each.path) if each.path is not None else None
        if variable is not None and variable.name:
            by_name[variable.name] = each
    types = variable_types(model)
    problems = [f"{name!r} is no field of form {shown}" for name in values if name not in by_name]
    for name, each in by_name.items():
        if name not in values:
            if (each.min_count or 0) >= 1:
                problems.append(f"{name!r} is required by form {shown} and missing")
            continue
        vtype = types.get(each.path) if each.path is not None else None
        if vtype is not None:
            problems += [f"{name!r}: {message}" for _, message in vtype.problems(values[name])]
    return problems


def submitted_problems(model: Model, info: UserTaskInfo, values: Mapping[str, Any]) -> list[str]:
    """:func:`form_problems` for the user task ``info`` describes (what ``user_task_data`` gets)."""
    task = next((t for t in model.view.tasks.values()
                 if t.element_id == info.element_id and model.qname(t.iri) == info.subject), None)
    return form_problems(model, task, values)


def submitted(model: Model, task: Task | None, fields: tuple[FormField, ...], data: Any,
              where: str) -> dict[str, Any]:
    """A JSON object of field values judged by the form: the values as the process holds them
    (a date field's ``"2024-05-02"`` a date), or a ValueError of one line starting ``where``."""
    from seams.checks.types import runtime_value

    if not isinstance(data, Mapping):
        raise ValueError(f"{where}: expected a JSON object of field values by variable name")
    problems = form_problems(model, task, data)
    if problems:
        raise ValueError(f"{where}: {problems[0]}")
    datatypes = {f.variable: f.datatype for f in fields}
    return {name: runtime_value(value, datatypes.get(name)) for name, value in data.items()}

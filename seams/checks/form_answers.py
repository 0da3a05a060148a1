"""A user task's form as questions, and an answer judged against the form's SHACL fields.

``seams run`` asks a user task's fields at the terminal or reads them from a
file (docs/cli.md, "seams run"); both go through here, so a typed answer and
a file's value are judged alike, and judged by the functions ``seams check``
and the acceptance items use (seams.lang.field_values via
seams.checks.types.field_rule): an answer is valid exactly when the form's
``sh:datatype``, ``sh:in``, bounds, ``sh:pattern`` and lengths admit it, and
a field with ``sh:minCount 1`` must be answered.

Values come back as the process holds them (seams.checks.types.runtime_value):
a date field's answer is a ``datetime.date``, a decimal one a ``Decimal``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from rdflib import URIRef

from seams.checks.types import field_rule, local_datatype, runtime_value
from seams.lang.field_values import as_date, constraint_problems, datatype_problem, show

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.view import Task

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
_TRUE, _FALSE = ("true", "yes", "y"), ("false", "no", "n")


@dataclass(frozen=True)
class Question:
    """One field of a form: the variable it sets and what it admits."""

    name: str  # the variable's seam:name: the key of the answer
    label: str  # the field's sh:name, else the variable's label, else its name
    datatype: str | None  # xsd local name (the field's sh:datatype, else the variable's)
    allowed: tuple[Any, ...] | None  # sh:in, as the process holds the values
    required: bool  # sh:minCount 1 or more
    rule: Mapping[str, Any]  # the field as seams.lang.field_values reads it

    def prompt(self) -> str:
        """``Days (integer, required)``, ``Leave type (one of annual, sick, unpaid, required)``."""
        kind = (f"one of {', '.join(show(v) if not isinstance(v, str) else v for v in self.allowed)}"
                if self.allowed is not None else (self.datatype or "text"))
        if self.datatype == "date" and self.allowed is None:
            kind = "date YYYY-MM-DD"
        return f"{self.label} ({kind}, {'required' if self.required else 'optional, empty to skip'})"

    def problems(self, value: Any) -> list[str]:
        """Why ``value`` (JSON-like, or as the process holds it) is no answer to this field."""
        wrong = datatype_problem(value, self.datatype)
        if wrong:
            return [wrong]
        return [message for _, message in constraint_problems(value, dict(self.rule))]


def form_questions(model: Model, task: Task) -> list[Question]:
    """The questions of a user task's form (``seam:form``), in ``sh:order``; none without a form."""
    view = model.view
    form = view.forms.get(task.form) if task.form is not None else None
    questions: list[Question] = []
    if form is None:
        return questions
    for each in form.fields:
        variable = view.variables.get(each.path) if isinstance(each.path, URIRef) else None
        if variable is None or not variable.name:
            continue  # the seam shapes report a field on no variable
        datatype = local_datatype(each.datatype or variable.datatype)
        rule = {**field_rule(model, form.iri, each)}
        if datatype is not None:
            rule.setdefault("datatype", datatype)
        allowed = (tuple(runtime_value(v, datatype) for v in rule["in"]) if "in" in rule else None)
        questions.append(Question(name=variable.name, label=each.name or variable.label or variable.name,
                                  datatype=datatype, allowed=allowed,
                                  required=(each.min_count or 0) >= 1, rule=rule))
    return questions


def read_typed(text: str, question: Question) -> tuple[Any, str | None]:
    """A typed answer as a value of the field's datatype: ``(value, None)`` or ``(None, reason)``."""
    text = text.strip()
    datatype = question.datatype
    if datatype == "integer":
        return (int(text), None) if _INTEGER.fullmatch(text) else (None, f"{text!r} is not an xsd:integer")
    if datatype == "decimal":
        try:
            number = Decimal(text) if _DECIMAL.fullmatch(text) else None
        except InvalidOperation:
            number = None
        return (number, None) if number is not None and number.is_finite() else \
            (None, f"{text!r} is not an xsd:decimal")
    if datatype == "boolean":
        if text.lower() in _TRUE:
            return True, None
        if text.lower() in _FALSE:
            return False, None
        return None, f"{text!r} is not an xsd:boolean (true or false)"
    if datatype == "date":
        day = as_date(text)
        return (day, None) if day is not None else (None, f"{text!r} is not an xsd:date (YYYY-MM-DD)")
    return text, None


def answer(text: str, question: Question) -> tuple[Any, str | None]:
    """One typed answer judged: ``(value, None)``; ``(None, None)`` for an optional field left
    empty; ``(None, reason)`` when it must be asked again."""
    if not text.strip():
        return (None, "required") if question.required else (None, None)
    value, reason = read_typed(text, question)
    if reason is not None:
        return None, reason
    problems = question.problems(value)
    return (None, problems[0]) if problems else (value, None)


def form_data(questions: list[Question], data: Any, where: str) -> dict[str, Any]:
    """A JSON object of answers (field name -> value) checked against the form: the values as
    the process holds them, or a ValueError of one line naming ``where`` and the field."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{where}: expected a JSON object of field values, got {json.dumps(data)[:60]}")
    known = {q.name: q for q in questions}
    for key in sorted(data):
        if key not in known:
            fields = ", ".join(known) or "none"
            raise ValueError(f"{where}: {key!r} is no field of the task's form (fields: {fields})")
    out: dict[str, Any] = {}
    for question in questions:
        if question.name not in data or data[question.name] is None:
            if question.required:
                raise ValueError(f"{where}: field {question.name!r} is required")
            continue
        problems = question.problems(data[question.name])
        if problems:
            raise ValueError(f"{where}: field {question.name!r}: {problems[0]}")
        out[question.name] = runtime_value(data[question.name], question.datatype)
    return out

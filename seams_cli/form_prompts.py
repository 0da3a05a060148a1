"""A user task's form at the terminal: one prompt per field, a typed answer read and judged.

``seams run`` asks each field of a user task's form (docs/cli.md, "seams
run"). What is asked comes from seams.forms.form_fields and every answer is
judged by seams.forms.form_problems, the check the engine applies to what a
user task submits, so the terminal accepts exactly what the run accepts.
This module only adds what a terminal needs: the prompt text, and reading
typed text as a value of the field's datatype (``3`` an integer, ``yes`` a
boolean, ``2024-05-02`` a date).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from seams.forms import form_problems
from seams.lang.field_values import as_date, show

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.view import Task
    from seams.runs import FormField

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
_TRUE, _FALSE = ("true", "yes", "y"), ("false", "no", "n")


def prompt(field: FormField) -> str:
    """``Days (integer, required)``, ``Leave type (one of annual, sick, unpaid, required)``."""
    if field.choices is not None:
        kind = "one of " + ", ".join(v if isinstance(v, str) else show(v) for v in field.choices)
    elif field.datatype == "date":
        kind = "date YYYY-MM-DD"
    else:
        kind = field.datatype or "text"
    if field.default is not None:
        shown = ("true" if field.default else "false") if isinstance(field.default, bool) else \
            field.default if isinstance(field.default, str) else show(field.default)
        return f"{field.label or field.variable} ({kind}, default {shown}, empty to take it)"
    return f"{field.label or field.variable} ({kind}, {'required' if field.required else 'optional, empty to skip'})"


def read_typed(text: str, datatype: str | None) -> tuple[Any, str | None]:
    """Typed text as a value of ``datatype`` (an xsd local name): ``(value, None)`` or
    ``(None, reason)``. Text of any other datatype is taken as it is."""
    text = text.strip()
    if datatype == "integer":
        return (int(text), None) if _INTEGER.fullmatch(text) else (None, f"{text!r} is not an xsd:integer")
    if datatype == "decimal":
        try:
            number = Decimal(text) if _DECIMAL.fullmatch(text) else None
        except InvalidOperation:
            number = None
        if number is None or not number.is_finite():
            return None, f"{text!r} is not an xsd:decimal"
        return number, None
    if datatype == "boolean":
        if text.lower() in _TRUE:
            return True, None
        if text.lower() in _FALSE:
            return False, None
        return None, f"{text!r} is not an xsd:boolean (true/false, yes/no or y/n)"
    if datatype == "date":
        day = as_date(text)
        return (day, None) if day is not None else (None, f"{text!r} is not an xsd:date (YYYY-MM-DD)")
    return text, None


def answer(model: Model, task: Task | None, field: FormField, text: str) -> tuple[Any, str | None]:
    """One typed answer judged: ``(value, None)``; ``(None, None)`` for an optional field left
    empty; ``(None, reason)`` when it must be asked again."""
    if not text.strip():
        if field.default is not None:
            return field.default, None
        return (None, "required") if field.required else (None, None)
    value, reason = read_typed(text, field.datatype)
    if reason is not None:
        return None, reason
    mine = f"{field.variable!r}: "
    problems = [p[len(mine):] for p in form_problems(model, task, {field.variable: value}) if p.startswith(mine)]
    return (None, problems[0]) if problems else (value, None)

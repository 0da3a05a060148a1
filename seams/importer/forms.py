"""Form fields from the two ways Camunda writes them, as one neutral spec.

* Camunda 7 generated task forms: ``camunda:formData`` / ``camunda:formField``
  (``type`` string, long, boolean, date, enum with ``camunda:value``s;
  ``camunda:validation`` constraints required, min, max, minlength,
  maxlength).
* Camunda 8 (and 7.15+) Camunda Forms: a JSON document (``*.form`` file or an
  embedded ``zeebe:userTaskForm``) whose ``components`` carry ``key``,
  ``label``, ``type`` and ``validate``.

A checklist or taglist holds a list of strings (its variable gets ``seam:list
true``). A field whose type has no seams datatype (a custom C7 type, a
date-time) keeps its name and label but no datatype: the variable's
``seam:datatype`` is then the user's to fill in (docs/init.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from lxml import etree

from seams import vocab as V
from seams.errors import ProjectError
from seams.importer.names import IDENTIFIER
from seams.lang.field_values import DATATYPES

MAX_FORM_BYTES = 2_000_000
MAX_DEPTH = 20

_C7_TYPES = {kind: name for name, row in DATATYPES.items() for kind in row["camunda_form_types"]}
_CAMUNDA = f"{{{V.CAMUNDA_NS}}}"


@dataclass(frozen=True)
class FieldSpec:
    """One form field: the variable it sets and the constraints on its value."""

    key: str
    label: str | None = None
    datatype: str | None = None  # xsd local name: string, integer, decimal, boolean, date
    required: bool = False
    values: tuple[str, ...] | None = None
    minimum: Decimal | None = None
    maximum: Decimal | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    default: object = None  # the value Tasklist submits when the field is left as it is (defaultValue)
    many: bool = False  # a list of values of the datatype (a checklist or taglist)


def _number(text: str | None) -> Decimal | None:
    if text is None:
        return None
    try:
        value = Decimal(str(text).strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _count(value: object) -> int | None:
    number = _number(None if value is None else str(value))
    if number is None or number != number.to_integral_value() or number < 0:
        return None
    return int(number)


EXAMPLE_DATA = "camundaModeler:exampleOutputJson"
_JSON_KINDS = ((bool, "boolean"), (int, "integer"), (float, "decimal"), (str, "string"))


def example_data_fields(element: etree._Element) -> tuple[FieldSpec, ...] | None:
    """The start variables a Camunda 8 start event's example data shows (the Camunda Modeler's
    ``zeebe:property name="camundaModeler:exampleOutputJson"``, a JSON object): one optional field
    per top-level key, typed from its example value (an object is ``JSON``, a list a list of its
    first item's type); None when the
    event has no such object. The values are examples, not defaults: nothing is kept of them."""
    import json

    for prop in element.iter(f"{{{V.ZEEBE_NS}}}property"):
        if prop.get("name") != EXAMPLE_DATA:
            continue
        try:
            data = json.loads(prop.get("value") or "")
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        fields = []
        for key, value in data.items():
            if not isinstance(key, str) or not IDENTIFIER.fullmatch(key):
                continue
            many = isinstance(value, list)
            sample = value[0] if many and value else value
            datatype = "JSON" if isinstance(sample, dict) else \
                next((kind for python, kind in _JSON_KINDS if type(sample) is python), None)
            fields.append(FieldSpec(key=key, datatype=datatype, many=many))
        return tuple(fields) or None
    return None


def camunda7_fields(element: etree._Element) -> tuple[FieldSpec, ...] | None:
    """The ``camunda:formData`` fields of a user task or start event; None when it has none."""
    form = element.find(f"{{{V.BPMN_NS}}}extensionElements/{_CAMUNDA}formData")
    if form is None:
        return None
    fields = []
    for field in form.findall(f"{_CAMUNDA}formField"):
        key = (field.get("id") or "").strip()
        if not key:
            continue
        kind = (field.get("type") or "").strip()
        constraints = {(c.get("name") or "").strip(): c.get("config")
                       for c in field.findall(f"{_CAMUNDA}validation/{_CAMUNDA}constraint")}
        values = None
        if kind == "enum":
            values = tuple((v.get("id") or "") for v in field.findall(f"{_CAMUNDA}value") if v.get("id"))
        fields.append(FieldSpec(
            key=key, label=(field.get("label") or "").strip() or None, datatype=_C7_TYPES.get(kind),
            required="required" in constraints, values=values or None,
            minimum=_number(constraints.get("min")) if kind == "long" else None,
            maximum=_number(constraints.get("max")) if kind == "long" else None,
            min_length=_count(constraints.get("minlength")),
            max_length=_count(constraints.get("maxlength")),
            default=_checkbox_default(_default(field.get("defaultValue"), _C7_TYPES.get(kind)), kind == "boolean"),
        ))
    return tuple(fields)


def read_form_json(data: bytes, *, source: str) -> tuple[str | None, dict]:
    """A Camunda Forms document: its ``id`` and the parsed object; one-line errors."""
    if len(data) > MAX_FORM_BYTES:
        raise ProjectError(f"{source}: a form file larger than {MAX_FORM_BYTES} bytes is refused")
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProjectError(f"{source}: not a Camunda Forms JSON document ({exc})") from None
    except RecursionError:
        raise ProjectError(f"{source}: a form nested too deeply; refused") from None
    if not isinstance(document, dict) or not isinstance(document.get("components"), list):
        raise ProjectError(f"{source}: not a Camunda Forms JSON document (no components list)")
    form_id = document.get("id")
    return (form_id if isinstance(form_id, str) else None), document


_FORM_TYPES = {"textfield": "string", "textarea": "string", "checkbox": "boolean",
               "select": "string", "radio": "string"}
_LAYOUT = {"text", "button", "spacer", "separator", "image", "html", "iframe", "table",
           "expression", "documentPreview", "filepicker", "dynamiclist"}


def camunda_form_fields(document: dict) -> tuple[tuple[FieldSpec, ...], list[str]]:
    """The input fields of a Camunda Forms document, and what was skipped (with why)."""
    fields: list[FieldSpec] = []
    skipped: list[str] = []
    _components(document.get("components", []), fields, skipped, 0)
    return tuple(fields), skipped


def _components(components: object, fields: list[FieldSpec], skipped: list[str], depth: int) -> None:
    if not isinstance(components, list) or depth > MAX_DEPTH:
        return
    for component in components:
        if not isinstance(component, dict):
            continue
        kind = component.get("type")
        if kind == "group":
            _components(component.get("components"), fields, skipped, depth + 1)
            continue
        key = component.get("key")
        if kind in _LAYOUT or not isinstance(key, str) or not key:
            continue
        if not IDENTIFIER.fullmatch(key):
            skipped.append(f'field "{key}" (not a plain variable name)')
            continue
        field = _form_field(component, key, str(kind))
        if field is None:
            skipped.append(f'field "{key}" (a {kind} holds a list, which no seams datatype fits)')
            continue
        fields.append(field)


def _form_field(component: dict, key: str, kind: str) -> FieldSpec | None:
    many = kind in ("checklist", "taglist")  # a list of strings (seam:list true)
    found = component.get("validate")
    validate: dict = found if isinstance(found, dict) else {}
    datatype = _FORM_TYPES.get(kind)
    if kind == "number":
        datatype = "integer" if component.get("decimalDigits") == 0 else "decimal"
    elif kind == "datetime":
        datatype = "date" if component.get("subtype") == "date" else None
    values = None
    if many:
        datatype = "string"
    if kind in ("select", "radio", "checklist", "taglist") and isinstance(component.get("values"), list):
        values = tuple(str(v["value"]) for v in component["values"]
                       if isinstance(v, dict) and isinstance(v.get("value"), str)) or None
    label = component.get("label")
    pattern = validate.get("pattern")
    return FieldSpec(
        key=key, label=label.strip() if isinstance(label, str) and label.strip() else None,
        datatype=datatype, required=validate.get("required") is True, values=values,
        minimum=_number(_scalar(validate.get("min"))) if kind == "number" else None,
        maximum=_number(_scalar(validate.get("max"))) if kind == "number" else None,
        min_length=_count(_scalar(validate.get("minLength"))),
        max_length=_count(_scalar(validate.get("maxLength"))),
        pattern=pattern if isinstance(pattern, str) and pattern else None, many=many,
        default=_checkbox_default(_default(component.get("defaultValue"), datatype, many), kind == "checkbox"),
    )


def _checkbox_default(default: object, checkbox: bool) -> object:
    """A checkbox left as it is submits ``false`` (Camunda Forms' checkbox, a Camunda 7 ``boolean``
    form field): so its default is false when the form states none (docs/scenarios.md)."""
    return False if checkbox and default is None else default


def _default(value: object, datatype: str | None, many: bool = False) -> object:
    """A ``defaultValue`` as the field's datatype holds it, or None when it is none of it (a
    Camunda Forms default is JSON; a Camunda 7 ``defaultValue`` attribute text)."""
    if value is None or many:
        return None
    if datatype == "boolean":
        if isinstance(value, bool):
            return value
        return {"true": True, "false": False}.get(str(value).strip().lower())
    if datatype in ("integer", "decimal"):
        number = _number(_scalar(value))
        if number is None:
            return None
        return int(number) if datatype == "integer" and number == number.to_integral_value() else number
    if datatype in ("string", "date", None) and isinstance(value, str) and value:
        return value
    return None


def _scalar(value: object) -> str | None:
    return str(value) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else None

"""Camunda 7 embedded HTML forms (``camunda:formKey="embedded:app:forms/x.html"``) as form fields.

Camunda's Tasklist submits the inputs, selects and text areas that carry a
``cam-variable-name``; ``cam-variable-type`` gives the variable's type
(``String``, ``Double``, ``Long``, ``Integer``, ``Short``, ``Boolean``,
``Date``, ``Json``; ``File`` is an upload seams cannot carry). HTML's own
``required``, ``min``/``max``, ``minlength``/``maxlength`` and ``pattern``
become the field's constraints and a ``select``'s options its ``sh:in``
list. A ``readonly`` (or ``disabled``) input is shown, not submitted: it is
left out of the fields. What cannot be carried over (a file, a form script)
is returned as a note (docs/init.md).

The document is parsed with lxml's HTML parser with network access off; it
is never rendered and its scripts never run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from seams.errors import ProjectError
from seams.importer.forms import FieldSpec, _count, _number
from seams.importer.names import IDENTIFIER

MAX_HTML_BYTES = 2_000_000

_TYPES = {"string": "string", "double": "decimal", "long": "integer", "integer": "integer",
          "short": "integer", "boolean": "boolean", "date": "date", "json": "JSON"}
_NUMERIC = ("decimal", "integer")


@dataclass(frozen=True)
class HtmlForm:
    """The fields of one embedded form and what it holds that seams does not carry."""

    fields: tuple[FieldSpec, ...]
    notes: tuple[str, ...] = field(default=())


def form_key_path(form_key: str | None) -> str | None:
    """``embedded:app:forms/a.html`` -> ``forms/a.html`` (also ``embedded:deployment:`` and
    ``app:``); None for a key that names no HTML file (a Camunda Forms or external key)."""
    key = (form_key or "").strip()
    for prefix in ("embedded:app:", "embedded:deployment:", "embedded:", "app:", "deployment:"):
        if key.startswith(prefix):
            path = key[len(prefix):].lstrip("/")
            return path if path.endswith((".html", ".htm")) and ".." not in path.split("/") else None
    return None


def read_html_form(data: bytes, *, source: str) -> HtmlForm:
    """The submitted fields of an embedded form, in document order; one-line errors."""
    if len(data) > MAX_HTML_BYTES:
        raise ProjectError(f"{source}: a form file larger than {MAX_HTML_BYTES} bytes is refused")
    parser = etree.HTMLParser(no_network=True, remove_comments=True, remove_pis=True, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except (etree.ParserError, ValueError) as exc:
        raise ProjectError(f"{source}: not an HTML form ({exc})") from None
    if root is None:
        return HtmlForm(())
    labels = {(el.get("for") or "").strip(): " ".join("".join(el.itertext()).split())
              for el in root.iter("label") if el.get("for")}
    fields: list[FieldSpec] = []
    notes: list[str] = []
    seen: set[str] = set()
    for element in root.iter("input", "select", "textarea"):
        name = (element.get("cam-variable-name") or "").strip()
        if not name:
            continue
        kind = (element.get("cam-variable-type") or "").strip().lower()
        if kind == "file" or (element.get("type") or "").lower() == "file":
            notes.append(f'file field "{name}" (a File variable seams cannot carry)')
            continue
        if element.get("readonly") is not None or element.get("disabled") is not None:
            continue  # shown, not submitted
        if not IDENTIFIER.fullmatch(name) or name in seen:
            continue
        seen.add(name)
        datatype = _TYPES.get(kind)
        if datatype is None and (element.get("type") or "").lower() == "checkbox":
            datatype = "boolean"
        values = None
        if element.tag == "select":
            values = tuple(v for v in ((o.get("value") if o.get("value") is not None
                                        else " ".join("".join(o.itertext()).split()))
                                       for o in element.iter("option")) if v) or None
            datatype = datatype or "string"
        numeric = datatype in _NUMERIC
        label = labels.get((element.get("id") or "").strip())
        # the forms SDK submits a checkbox's state, false when left unchecked: that is its default
        checkbox = (element.get("type") or "").lower() == "checkbox" and datatype == "boolean"
        fields.append(FieldSpec(
            key=name, label=label or None, datatype=datatype,
            required=element.get("required") is not None, values=values,
            minimum=_number(element.get("min")) if numeric else None,
            maximum=_number(element.get("max")) if numeric else None,
            min_length=_count(element.get("minlength")), max_length=_count(element.get("maxlength")),
            pattern=_anchored(element.get("pattern")),
            default=(element.get("checked") is not None) if checkbox else None,
        ))
    if any(script.get("cam-script") is not None for script in root.iter("script")):
        notes.append("a form script (cam-script) seams does not run")
    return HtmlForm(tuple(fields), tuple(notes))


def _anchored(pattern: str | None) -> str | None:
    """HTML matches ``pattern`` against the whole value; SHACL searches: anchor it."""
    text = (pattern or "").strip()
    return f"^(?:{text})$" if text else None

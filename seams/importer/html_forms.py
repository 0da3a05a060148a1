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

import re
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
    scripts = [script for script in root.iter("script") if script.get("cam-script") is not None]
    for script in scripts:
        for name, kind, default in declared_variables(script.text or ""):
            if kind == "file":
                notes.append(f'file field "{name}" (a File variable seams cannot carry)')
                continue
            if name in seen or not IDENTIFIER.fullmatch(name):
                continue
            seen.add(name)
            datatype = _TYPES.get(kind)
            fields.append(FieldSpec(key=name, datatype=datatype,
                                    default=default if datatype in (_LITERAL_KINDS.get(type(default)),) else None))
    if scripts:
        notes.append("a form script (cam-script) seams does not run")
    return HtmlForm(tuple(fields), tuple(notes))


_CREATE = re.compile(r"\.\s*createVariable\s*\(\s*\{")
_KEY = r"(?:^|[{,\s])['\"]?KEY['\"]?\s*:\s*"
_STRING = r"(?:'([^'\\\n]*)'|\"([^\"\\\n]*)\")"
_LITERAL_KINDS = {bool: "boolean", str: "string", int: "integer", float: "decimal"}
MAX_DECLARATIONS = 500


def declared_variables(script: str) -> list[tuple[str, str, object]]:
    """The variables a form script declares with ``camForm.variableManager.createVariable({name:
    'x', type: 'Boolean', value: false})``, as ``(name, type in lower case, value or None)``: read
    only where the name and type are plain string literals (a value only where it is a plain
    literal: a string, number, ``true`` or ``false``); the script is matched as text, never run."""
    found: list[tuple[str, str, object]] = []
    for match in _CREATE.finditer(script):
        body = _object_literal(script, match.end() - 1)
        if body is None:
            continue
        name = re.search(_KEY.replace("KEY", "name") + _STRING, body)
        kind = re.search(_KEY.replace("KEY", "type") + _STRING, body)
        if name is None or kind is None:
            continue
        value = re.search(_KEY.replace("KEY", "value") + r"(?:" + _STRING + r"|(true|false)|(-?\d+(?:\.\d+)?))\s*[,}]",
                          body)
        default: object = None
        if value is not None:
            if value.group(1) is not None or value.group(2) is not None:
                default = value.group(1) if value.group(1) is not None else value.group(2)
            elif value.group(3) is not None:
                default = value.group(3) == "true"
            elif value.group(4) is not None:
                default = float(value.group(4)) if "." in value.group(4) else int(value.group(4))
        found.append(((name.group(1) or name.group(2) or "").strip(),
                      (kind.group(1) or kind.group(2) or "").strip().lower(), default))
        if len(found) >= MAX_DECLARATIONS:
            break
    return found


def _object_literal(text: str, start: int) -> str | None:
    """The object literal opening at ``text[start]`` (``{``) up to its closing brace, strings
    skipped; None when it does not close within 10,000 characters."""
    depth, quote, index = 0, "", start
    end = min(len(text), start + 10_000)
    while index < end:
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start:index + 1]
        index += 1
    return None


def _anchored(pattern: str | None) -> str | None:
    """HTML matches ``pattern`` against the whole value; SHACL searches: anchor it."""
    text = (pattern or "").strip()
    return f"^(?:{text})$" if text else None

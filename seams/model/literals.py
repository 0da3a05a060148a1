"""How an ``rdf:JSON`` literal is written into TriG: as a long string, so JSON needs no escaping.

``"{\\"employee\\": \\"ana\\"}"^^rdf:JSON`` is what a short string makes of a
JSON object: every quote escaped, the slowest and most error-prone thing to
type in a model. A Turtle long string (``\"\"\"…\"\"\"``) holds quotes as they are,
so every writer of seams (the import, seams_edit's patches, ``seams example``,
``seams run --save-scenario``) writes JSON as ``\"\"\"{"employee": "ana"}\"\"\"^^rdf:JSON``
(docs/model.md). Only backslashes, which Turtle reads as escapes in long
strings too, are doubled; a text a long string cannot hold (one that has
three quotes in a row, or ends with a quote) is left to the short form.
"""

from __future__ import annotations

import re

_LONG_ESCAPES = re.compile(r'[\\\x00-\x08\x0b\x0c\x0e-\x1f\x7f]')


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    return "\\\\" if char == "\\" else f"\\u{ord(char):04X}"


def long_string(lexical: str) -> str | None:
    """``lexical`` as a Turtle long string (quotes included), or None when it cannot be one."""
    body = _LONG_ESCAPES.sub(_escaped, lexical).replace("\r", "\\r")
    if '"""' in body or body.endswith('"'):
        return None
    return f'"""{body}"""'

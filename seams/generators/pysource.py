"""Python source pieces the built-in generators share.

Model text (labels, comments, examples) ends up inside generated Python, so
everything here is about one promise: whatever the model says, the generated
module parses, and a docstring's value is the model's text.
"""

from __future__ import annotations

import keyword
import re

from seams.errors import GeneratorError

_NON_WORD = re.compile(r"\W+")
_RISKY_QUOTES = re.compile(r'"{3,}|"+$')


def is_identifier(name: str | None) -> bool:
    return name is not None and name.isidentifier() and not keyword.iskeyword(name)


def require_identifier(name: str | None, *, subject: str, predicate: str) -> str:
    """``name`` if it can be a Python name in generated code, else a GeneratorError."""
    if name is None or not is_identifier(name):
        shown = "missing" if name is None else repr(name)
        raise GeneratorError(f"{subject} {predicate}: {shown} is not a Python identifier")
    return name


def snake_name(text: str) -> str:
    """A readable identifier from a label: ``"Approval level"`` -> ``approval_level``."""
    name = _NON_WORD.sub("_", text.strip().lower()).strip("_")
    if not name or not name[0].isalpha() and name[0] != "_":
        name = f"decision_{name}".rstrip("_")
    return f"{name}_" if keyword.iskeyword(name) else name


def _escape_char(ch: str) -> str:
    if ch == "\\":
        return "\\\\"
    if ch == "\n" or ch.isprintable():
        return ch
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def docstring(text: str, indent: str = "") -> str:
    """A triple-quoted literal whose value is ``text``, subsequent lines indented.

    Backslashes, unprintable characters, runs of three or more quotes and
    the quotes that end the text are escaped; nothing else, so the source
    still reads as prose.
    """
    lines = text.split("\n")
    body = "\n".join([lines[0], *[f"{indent}{line}" if line else "" for line in lines[1:]]])
    if "\\" in body or not body.replace("\n", "").isprintable():
        body = "".join(_escape_char(ch) for ch in body)  # per character only when one needs it
    escaped = _RISKY_QUOTES.sub(lambda run: '\\"' * len(run.group()), body)
    closing = f"\n{indent}" if "\n" in text else ""
    return f'"""{escaped}{closing}"""'

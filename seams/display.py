"""Model text made safe to show: one line, no control characters.

Labels, ids and scenario names are written by someone else (a modeler, a
provider, a repository seams was pointed at). A BPMN name often holds a
newline (Camunda Modeler writes ``&#10;`` for a two-line label), which cut a
one-line error short, and a label can hold a terminal escape (ESC, an OSC 52
clipboard write) that a terminal would act on. So text from the model is
passed through :func:`one_line` wherever it becomes part of a line seams
prints or a pytest item name, and every line the CLI prints goes through
:func:`terminal_safe` (docs/cli.md, "Output").
"""

from __future__ import annotations

import re

_LINE_BREAKS = re.compile(r"[\r\n\t\v\f\u0085\u2028\u2029]+")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    point = ord(match.group())
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def one_line(text: str) -> str:
    """``text`` on one line: runs of line breaks and tabs become one space, every other
    control or bidirectional character a visible escape (``\\x1b``)."""
    return _CONTROLS.sub(_escaped, _LINE_BREAKS.sub(" ", text))


def terminal_safe(text: str) -> str:
    """``text`` with its newlines and tabs kept and every other control character escaped,
    so nothing printed can drive the terminal."""
    return _CONTROLS.sub(_escaped, text.replace("\r\n", "\n"))

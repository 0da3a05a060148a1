"""Model text made safe to show: cleaned of controls, escaped, and wrapped to a width.

A name in a BPMN or DMN file is untrusted (it may come from a provider's answer): a control,
bidirectional or zero-width character is dropped (seams.checks.clean_text says which are), and
every text is escaped for XML/HTML where it is written, never interpolated raw.
"""

from __future__ import annotations

import re
from html import escape

from seams.checks.clean_text import unclean

_UNCLEAN = re.compile("[" + "".join(re.escape(chr(point)) for point in [*range(0xA0), *range(0x2000, 0x2070),
                                                                         0x061C, 0xFEFF] if unclean(chr(point))) + "]")
"""Every character ``unclean`` names (all below U+00A0, in U+2000..U+206F, U+061C or U+FEFF; a test
holds the two to the same set), as one character class."""

MAX_TEXT = 2000
"""Most characters of one text shown; a longer name is cut (with an ellipsis), not drawn whole."""
CHAR_WIDTH = 0.52
"""The average advance of a sans-serif character, in ems: enough to wrap about where bpmn-js does."""


def clean(text: str | None) -> str:
    """``text`` without unclean characters (newlines and tabs become spaces except in ``lines``)."""
    if not text:
        return ""
    kept = _UNCLEAN.sub("", text)
    return kept if len(kept) <= MAX_TEXT else kept[:MAX_TEXT - 1] + "\u2026"


def esc(text: object) -> str:
    """Escaped for an XML or HTML text node or a quoted attribute."""
    return escape(clean(str(text)), quote=True)


def wrap(text: str, width: float, size: float = 12) -> list[str]:
    """``text`` (cleaned) in lines of at most ``width`` units at font ``size``, breaking at spaces and at
    explicit newlines; a word longer than a line stands alone on its line."""
    per_line = max(1, int(width // (CHAR_WIDTH * size)))
    lines: list[str] = []
    for paragraph in clean(text).replace("\t", " ").split("\n"):
        line = ""
        for word in paragraph.split():
            if line and len(line) + 1 + len(word) > per_line:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        if line:
            lines.append(line)
    return lines

"""Accepted drafted text is clean text: what a reviewer reads is what runs.

A bidirectional override can make code display in another order than
Python reads it ("Trojan Source"), a zero-width character can make two
names look alike, and a control character can hide text from a terminal.
None of them belongs in a handler module or a generator's extract step, so
an accepted draft holding one is refused, naming the line and code point.
Tab and newline are the only controls allowed.
"""

from __future__ import annotations

import unicodedata

BIDI = frozenset([0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
ZERO_WIDTH = frozenset([0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF])
_ALLOWED_CONTROLS = frozenset([0x09, 0x0A])


def unclean(char: str) -> str | None:
    """What kind of unclean character ``char`` is, or None."""
    point = ord(char)
    if point in BIDI:
        return "a bidirectional control"
    if point in ZERO_WIDTH:
        return "a zero-width character"
    if (point < 0x20 or 0x7F <= point <= 0x9F) and point not in _ALLOWED_CONTROLS:
        return "a control character"
    return None


def clean_text_problem(text: str) -> str | None:
    """``line N: U+XXXX NAME is <kind>`` for the first unclean character, or None."""
    for number, line in enumerate(text.split("\n"), start=1):
        for char in line:
            kind = unclean(char)
            if kind:
                name = unicodedata.name(char, "")
                shown = f"U+{ord(char):04X}" + (f" {name}" if name else "")
                return f"line {number}: {shown} is {kind}, not allowed in accepted text"
    return None

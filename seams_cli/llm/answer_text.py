"""Cleaning a provider's answer text: terminal escapes out, one wrapping fence off.

Some local runners print escape codes even into a pipe, and many models wrap
the whole answer in a markdown fence; the commands and the verdict mapper
read answers and provider messages through these two functions.
"""

from __future__ import annotations

import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), and two-byte escapes
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_FENCE_OPEN = re.compile(r"^(`{3,}|~{3,})[^`\n]*$")


def strip_escapes(text: str) -> str:
    """Remove terminal escape codes some local runners print even into a pipe."""
    return _ESCAPES.sub("", text)


def strip_fence(text: str) -> str:
    """The inside of one fenced block wrapping the whole answer; other text unchanged.

    Only a fence on the first and last non-blank lines counts: a fence
    further in may be part of the answer (a docstring showing markdown).
    """
    lines = text.strip().split("\n")
    if len(lines) < 2:
        return text
    opening = _FENCE_OPEN.match(lines[0].rstrip())
    if not opening:
        return text
    fence = opening.group(1)
    closing = lines[-1].strip()
    if not closing or closing.strip(fence[0]) or len(closing) < len(fence):
        return text
    return "\n".join(lines[1:-1])

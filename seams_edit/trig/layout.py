"""Where text goes and what goes away: line-aware positions and the final splice.

Edits are (start, end, replacement) on the original text. A deleted
statement takes its whole lines when it owns them, and one neighbouring blank
line so two blank lines never meet; new statements go at the start of the
line after their anchor. Everything else is left byte for byte.
"""

from __future__ import annotations

import re

from seams.errors import EditError
from seams.model.trig_scan import Block, Statement

Edit = tuple[int, int, str]

_REST_OF_LINE = re.compile(r"[ \t]*(?:#[^\n]*)?\r?\n?")


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _line_end(text: str, offset: int) -> int:
    """Offset just after the newline ending the line that holds ``offset`` (or the text's end)."""
    newline = text.find("\n", offset)
    return len(text) if newline < 0 else newline + 1


def _owns_lines(text: str, start: int, end: int) -> bool:
    before = text[_line_start(text, start) : start]
    after = text[end : _line_end(text, end)]
    return not before.strip() and _REST_OF_LINE.fullmatch(after) is not None


def deletions(text: str, statements: list[Statement]) -> list[Edit]:
    """Edits removing ``statements`` with their lines, and a blank line that would be left doubled
    or at a block's edge."""
    spans: list[list[int]] = []
    for statement in sorted(statements, key=lambda s: s.start):
        if spans and not text[spans[-1][1] : statement.start].strip():
            spans[-1][1] = statement.end  # neighbours with only white space between go together
        else:
            spans.append([statement.start, statement.end])
    edits: list[Edit] = []
    for start, end in spans:
        if not _owns_lines(text, start, end):
            edits.append(_inline_deletion(text, start, end))
            continue
        start, end = _line_start(text, start), _line_end(text, end)
        following_end = _line_end(text, end)
        following = text[end:following_end]
        previous_start = _line_start(text, start - 1) if start else 0
        previous = text[previous_start:start]
        if end < len(text) and not following.strip() and (not previous.strip() or previous.rstrip().endswith("{")):
            end = following_end  # no blank line doubled, none left at a block's start
        elif start and not previous.strip() and (following.lstrip().startswith("}") or end == len(text)):
            start = previous_start  # none left at a block's end
        edits.append((start, end, ""))
    return edits


def _inline_deletion(text: str, start: int, end: int) -> Edit:
    """Statements sharing their line with others: take them and the spaces on one side."""
    cut_start, cut_end = start, end
    while cut_end < len(text) and text[cut_end] in " \t":
        cut_end += 1
    if cut_end == len(text) or text[cut_end] in "\r\n":
        cut_end = end
        while cut_start and text[cut_start - 1] in " \t":
            cut_start -= 1
    return cut_start, cut_end, ""


def insert_after(text: str, statement: Statement, body: str) -> list[Edit]:
    """Put ``body`` (whole lines) on the line after ``statement``."""
    edits: list[Edit] = []
    if not statement.terminated:
        edits.append((statement.end, statement.end, " ."))
    line_end = _line_end(text, statement.end)
    rest = text[statement.end : line_end]
    if _REST_OF_LINE.fullmatch(rest):
        prefix = "" if rest.endswith("\n") else "\n"
        edits.append((line_end, line_end, prefix + body))
    else:
        edits.append((statement.end, statement.end, "\n" + body))
    return edits


def insert_at_block_start(text: str, block: Block, body: str) -> list[Edit]:
    """Put ``body`` (whole lines) first in ``block``."""
    line_end = _line_end(text, block.open)
    if _REST_OF_LINE.fullmatch(text[block.open + 1 : line_end]) and text[line_end - 1 : line_end] == "\n":
        return [(line_end, line_end, body)]
    return [(block.open + 1, block.open + 1, "\n" + body)]


def splice(text: str, edits: list[Edit], source: str) -> str:
    """Apply non-overlapping edits; insertions at one offset keep their order."""
    parts: list[str] = []
    position = 0
    for start, end, replacement in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        if start < position:
            raise EditError(f"{source}: overlapping edits at offset {start}")
        parts.append(text[position:start])
        parts.append(replacement)
        position = end
    parts.append(text[position:])
    return "".join(parts)

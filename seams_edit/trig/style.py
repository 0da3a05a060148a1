"""The file's own layout, read off its first statements, for text the editor must invent.

New statements, predicates and objects should look like their neighbours:
same indentation, subject alone on its line or not, `` ;`` or ``;``, ``, `` or
`` , ``, blank lines between statements or not. Each is the most common
choice among the first statements of the file's graph blocks (ties: the one
seen first), with a plain default when the file shows no example.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from seams.model.trig_scan import Document, Statement
from seams_edit.trig.statement import parse_shape

_SAMPLE = 64
_INLINE_COMMA = re.compile(r"[ \t]*,[ \t]*")


@dataclass(frozen=True)
class Style:
    indent: str = "  "  # a statement's indentation inside its block
    continuation: str = "    "  # a predicate line's indentation beyond its statement's
    subject_alone: bool = False  # the subject on a line of its own
    semicolon: str = " ;"
    comma: str = ", "
    blank_line: bool = True  # a blank line between statements


def line_indent(text: str, offset: int) -> str:
    """The whitespace that starts the line holding ``offset``."""
    start = text.rfind("\n", 0, offset) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def starts_line(text: str, offset: int) -> bool:
    start = text.rfind("\n", 0, offset) + 1
    return not text[start:offset].strip()


def detect_style(document: Document) -> Style:
    text = document.text
    sample = _sample(document)
    sampled = set(sample)
    votes: dict[str, Counter] = {key: Counter() for key in Style.__dataclass_fields__}
    for statement in sample:
        if starts_line(text, statement.start):
            votes["indent"][line_indent(text, statement.start)] += 1
        _vote_groups(document, statement, votes)
    for block in document.blocks:
        for before, after in zip(block.statements, block.statements[1:]):
            if after in sampled:
                votes["blank_line"][text.count("\n", before.end, after.start) > 1] += 1
    defaults = Style()
    chosen = {
        key: counter.most_common(1)[0][0] if counter else getattr(defaults, key)
        for key, counter in votes.items()
    }
    return Style(**chosen)


def _sample(document: Document) -> list[Statement]:
    sample: list[Statement] = []
    for block in document.blocks:
        for statement in block.statements:
            if block.name is not None and statement.subject is not None:
                sample.append(statement)
                if len(sample) == _SAMPLE:
                    return sample
    return sample


def _vote_groups(document: Document, statement: Statement, votes: dict[str, Counter]) -> None:
    text = document.text
    groups = parse_shape(document, statement).groups
    own_indent = line_indent(text, statement.start)
    if len(groups) > 1:
        votes["subject_alone"][starts_line(text, groups[0].start)] += 1
    for group, following in zip(groups, groups[1:]):
        separator = text[group.end : following.start]
        before_semicolon = separator[: separator.find(";")]
        if "\n" in separator and "#" not in separator and before_semicolon in ("", " "):
            votes["semicolon"][before_semicolon + ";"] += 1
        indent = line_indent(text, following.start)
        if starts_line(text, following.start) and indent.startswith(own_indent) and indent != own_indent:
            votes["continuation"][indent[len(own_indent) :]] += 1
    for group in groups:
        for obj, next_object in zip(group.objects, group.objects[1:]):
            separator = text[obj.end : next_object.start]
            if _INLINE_COMMA.fullmatch(separator):
                votes["comma"][separator] += 1

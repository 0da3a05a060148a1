"""Rewriting one existing statement: cut what the patch removes, append what it adds.

Kept predicates and objects are copied from the file with the separators
that followed them, so comments, alignment and literal spellings survive;
new objects join their predicate's list with the separator it already uses,
new predicates follow the last one with the statement's own separator.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from rdflib.term import Identifier, URIRef

from seams_edit.trig.statement import Group, Shape
from seams_edit.trig.style import line_indent
from seams_edit.trig.writing import Writing

_COMMENT = re.compile(r"[ \t]*#[^\n]*")


@dataclass
class Additions:
    """Where the patch's new triples go inside existing statements."""

    to_groups: dict[Group, list[Identifier]] = field(default_factory=lambda: defaultdict(list))
    new_groups: dict[Shape, dict[URIRef, list[Identifier]]] = field(default_factory=lambda: defaultdict(dict))

    def touch(self, shape: Shape) -> bool:
        """Whether ``shape`` changes at all (removals are marked on its objects)."""
        return shape in self.new_groups or any(
            group in self.to_groups or any(obj.removed for obj in group.objects) for group in shape.groups
        )


def rewrite(writing: Writing, shape: Shape, graph: URIRef, additions: Additions) -> str | None:
    """The statement's new text (it stands in ``graph``), or None when nothing is left of it.

    A comment on a predicate's own line stays with that predicate; comment
    lines before a predicate go with it (they are usually about it).
    """
    text, groups, statement = writing.text, shape.groups, shape.statement
    kept = [g for g in groups if g in additions.to_groups or any(not o.removed for o in g.objects)]
    new = additions.new_groups.get(shape, {})
    if not kept and not new:
        return None
    separators = [text[a.end : b.start] for a, b in zip(groups, groups[1:])]
    positions = [groups.index(g) for g in kept]
    parts = [text[statement.start : groups[0].start]]
    for index, group in enumerate(kept):
        parts.append(_group_text(writing, group, additions.to_groups.get(group, []), graph))
        if index < len(kept) - 1:
            parts.append(_join(separators[positions[index]], separators[positions[index + 1] - 1]))
    # what followed the last kept predicate on its line, when the predicates after it went
    orphan = _own_line(separators[positions[-1]]) if kept and positions[-1] < len(groups) - 1 else ""
    comment = _COMMENT.search(orphan)
    if new:
        writer = writing.writer(statement.start)
        separator = _group_separator(writing, shape)
        first = separator
        if comment and orphan.endswith("\n") and "\n" in separator:
            first, comment = orphan + _next_lines(separator), None
        indent = separator.rsplit("\n", 1)[1] if "\n" in separator else line_indent(text, statement.start)
        description = writing.description(graph)
        for index, predicate in enumerate(writer.ordered_predicates(list(new))):
            if kept or index:
                parts.append(separator if index else first)
            parts.append(writer.predicate_objects(predicate, new[predicate], description, indent))
    parts.append(text[groups[-1].end : statement.end])
    if comment:
        parts.append(comment.group())
    return "".join(parts)


def _own_line(separator: str) -> str:
    """The part of a separator on the line of the predicate before it (line break included)."""
    cut = separator.find("\n")
    return separator if cut < 0 else separator[: cut + 1]


def _next_lines(separator: str) -> str:
    """The part of a separator on the lines of the predicate after it."""
    cut = separator.find("\n")
    return "" if cut < 0 else separator[cut + 1 :]


def _join(after_first: str, before_second: str) -> str:
    """Between two kept predicates with removed ones between: the first one's line end,
    the second one's leading lines."""
    if "\n" in after_first and "\n" in before_second:
        return _own_line(after_first) + _next_lines(before_second)
    return after_first


def _group_text(writing: Writing, group: Group, added: list[Identifier], graph: URIRef) -> str:
    text, objects = writing.text, group.objects
    kept = [o for o in objects if not o.removed]
    parts = [text[group.start : objects[0].start]]
    for index, obj in enumerate(kept):
        parts.append(text[obj.start : obj.end])
        if index < len(kept) - 1:
            parts.append(text[obj.end : objects[objects.index(obj) + 1].start])
    if added:
        writer = writing.writer(group.start)
        separator = text[objects[-2].end : objects[-1].start] if len(objects) > 1 else ""
        if not separator or "#" in separator:
            separator = writing.style.comma
        description = writing.description(graph)
        # a nested [ ... ] indents from the line its '[' lands on
        indent = separator.rsplit("\n", 1)[1] if "\n" in separator else line_indent(text, objects[-1].start)
        for index, term in enumerate(added):
            if kept or index:
                parts.append(separator)
            parts.append(writer.term(term, description, indent))
    return "".join(parts)


def _group_separator(writing: Writing, shape: Shape) -> str:
    """How this statement separates predicates: its last clean separator, else the file's."""
    text, groups = writing.text, shape.groups
    separators = [text[a.end : b.start] for a, b in zip(groups, groups[1:])]
    clean = [s for s in separators if "#" not in s]
    multiline = [s for s in clean if "\n" in s]
    if multiline or clean:
        return (multiline or clean)[-1]
    style = writing.style
    return f"{style.semicolon}\n{line_indent(text, shape.statement.start)}{style.continuation}"

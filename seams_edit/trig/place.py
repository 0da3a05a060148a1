"""Where a new subject's statement goes, and how it is written.

Like with like: after the last statement in its graph's block that has one
of its rdf:types (written like that neighbour: on one line if it is, its
predicate order and nested-node layout, see ``trig_mimic``), else at the end
of the block, else in a new block at the end of the file, headed the way the
file's last block is (``GRAPH``, ``<IRI>`` or a prefixed name).
"""

from __future__ import annotations

from collections import defaultdict

from rdflib.namespace import RDF
from rdflib.term import Identifier, URIRef

from seams.model.trig_scan import Block, Statement, resolve_text
from seams_edit.trig.layout import Edit, insert_after, insert_at_block_start
from seams_edit.trig.mimic import Layout, read_layout
from seams_edit.trig.statement import parse_shape
from seams_edit.trig.style import line_indent
from seams_edit.trig.terms import iri_ref
from seams_edit.trig.writing import Writing

NewSubjects = dict[tuple[URIRef, URIRef], dict[URIRef, list[Identifier]]]
"""(graph, subject) -> predicate -> objects, for subjects with no statement in that graph."""


def new_statement_edits(writing: Writing, new_subjects: NewSubjects, deleted: set[Statement]) -> list[Edit]:
    """Edits adding the statements of new subjects (in IRI order, so the bytes are stable)."""
    text, style = writing.text, writing.style
    at_anchor: dict[Statement, list[str]] = defaultdict(list)
    at_block_start: dict[Block, list[str]] = defaultdict(list)
    new_blocks: dict[URIRef, list[str]] = defaultdict(list)
    for graph, subject in sorted(new_subjects, key=lambda key: (str(key[0]), str(key[1]))):
        predicates = new_subjects[(graph, subject)]
        blocks = writing.document.blocks_named(graph)
        anchor, same_type = _anchor(writing, blocks, predicates.get(RDF.type, []), deleted)
        if anchor is not None:
            one_line = same_type and "\n" not in text[anchor.start : anchor.end]
            indent = line_indent(text, anchor.start)
            layout = _layout(writing, anchor) if same_type else Layout()
            chunk = _statement(writing, subject, predicates, graph, anchor.end, indent, one_line, layout)
            at_anchor[anchor].append(chunk)
        else:
            offset = blocks[-1].open if blocks else len(text)
            chunk = _statement(writing, subject, predicates, graph, offset, style.indent, False, Layout())
            (at_block_start[blocks[-1]] if blocks else new_blocks[graph]).append(chunk)
    edits: list[Edit] = []
    for anchor, chunks in at_anchor.items():
        blank = "\n" if _blank_before(writing, anchor) else ""
        edits += insert_after(text, anchor, "".join(blank + chunk + "\n" for chunk in chunks))
    separator = "\n\n" if style.blank_line else "\n"
    for block, chunks in at_block_start.items():
        edits += insert_at_block_start(text, block, separator.join(chunks) + "\n")
    if new_blocks:
        edits.append((len(text), len(text), _blocks(writing, new_blocks, separator)))
    return edits


def _anchor(
    writing: Writing, blocks: list[Block], types: list[Identifier], deleted: set[Statement]
) -> tuple[Statement | None, bool]:
    """The last statement with one of ``types`` (and True), else the last one, in ``blocks``."""
    statements = [s for block in blocks for s in block.statements if s not in deleted]
    wanted = {str(t) for t in types}
    spellings = _spellings(writing, types)
    for statement in reversed(statements if wanted else []):
        body = writing.text[statement.start : statement.end]
        if statement.subject is not None and any(spelling in body for spelling in spellings):
            if wanted & _types_of(writing, statement):
                return statement, True
    return (statements[-1] if statements else None), False


def _spellings(writing: Writing, types: list[Identifier]) -> set[str]:
    """How a type may be written: a cheap substring test before a statement is parsed."""
    document = writing.document
    _, prefixes = document.namespaces_at(len(document.directives))
    spellings = {f"<{t}>" for t in types}
    for t in types:
        spellings.update(f"{p}:{t[len(ns):]}" for p, ns in prefixes.items() if t.startswith(ns))
    return spellings


def _types_of(writing: Writing, statement: Statement) -> set[str]:
    document = writing.document
    namespaces = document.namespaces_at(document.context_at(statement.start))
    found: set[str] = set()
    for group in parse_shape(document, statement).groups:
        if group.predicate_text == "a" or resolve_text(group.predicate_text, *namespaces) == str(RDF.type):
            for obj in group.objects:
                iri = resolve_text(writing.text[obj.start : obj.end], *namespaces)
                if iri is not None:
                    found.add(iri)
    return found


def _layout(writing: Writing, anchor: Statement) -> Layout:
    """How the neighbour of the same rdf:type writes its predicates (parsed once per anchor)."""
    if anchor not in writing.layouts:
        groups = parse_shape(writing.document, anchor).groups
        writing.layouts[anchor] = read_layout(writing.document, groups, anchor.start)
    return writing.layouts[anchor]


def _blank_before(writing: Writing, anchor: Statement) -> bool:
    """Whether a blank line separates ``anchor`` from the statement before it."""
    statements = anchor.block.statements
    index = statements.index(anchor)
    if index == 0:
        return writing.style.blank_line
    return writing.text.count("\n", statements[index - 1].end, anchor.start) > 1


def _statement(
    writing: Writing,
    subject: URIRef,
    predicates: dict[URIRef, list[Identifier]],
    graph: URIRef,
    offset: int,
    indent: str,
    one_line: bool,
    layout: Layout,
) -> str:
    """A new subject's statement: one line like its anchor, else one predicate a line;
    predicates, objects and nested nodes as its same-typed anchor's ``layout`` writes them."""
    writer, style = writing.writer(offset), writing.style
    inner = indent + style.continuation
    description = writing.description(graph)
    lines = [
        writer.predicate_objects(p, predicates[p], description, inner, layout)
        for p in writer.ordered_predicates(list(predicates), layout)
    ]
    head = f"{indent}{writer.iri(subject)}"
    if one_line and not any("\n" in line for line in lines):
        return f"{head} " + f"{style.semicolon} ".join(lines) + " ."
    if len(lines) == 1:
        return f"{head} {lines[0]} ."
    head += f"\n{inner}" if style.subject_alone else " "
    return head + f"{style.semicolon}\n{inner}".join(lines) + " ."


def _blocks(writing: Writing, new_blocks: dict[URIRef, list[str]], separator: str) -> str:
    """New graph blocks at the end of the file, headed like the file's last block."""
    text = writing.text
    named = [b for b in writing.document.blocks if b.name_text is not None]
    model_name = (named[-1].name_text or "") if named else ""
    keyword = "GRAPH " if named and named[-1].keyword else ""
    writer = writing.writer(len(text))
    blocks = []
    for graph, chunks in new_blocks.items():
        if model_name.startswith("<"):
            name = iri_ref(graph)
        else:
            name = writer.iri(graph, escape_slash="\\" in model_name)
        blocks.append(f"{keyword}{name} {{\n{separator.join(chunks)}\n}}\n")
    lead = "" if not text else "\n" if text.endswith("\n") else "\n\n"
    return lead + "\n".join(blocks)

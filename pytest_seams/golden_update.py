"""Golden files that follow the model: ``pytest --seams-update-golden``.

When the model changes on purpose (a suggestion accepted, a variable
added), a generator package's golden file no longer matches what the
package renders. Like syrupy's ``--snapshot-update`` or pytest-regressions'
``--force-regen``, this rewrites the golden file from the rendering, then
fails the item, so the change shows up in ``git diff`` for a person to
review before the next run passes.

Markers are kept where a line still comes from the same place: lines the
old golden file already had keep their marker; a changed line that takes
the place of an old one keeps that line's marker; a new line next to
``[graph: <subject> <predicates>]`` lines gets the same predicates and the
subject of the model whose values for them all appear in the line (a new
table row names its variable), else ``[graph: ? <predicates>]`` for the
reviewer to fill in; a new line elsewhere is ``[fixed]``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

from seams.generators.golden_text import MARKER

GRAPH_MARKER = re.compile(r"^\[graph: (\S+) ([^\]\n]+)\]$")
SubjectFinder = Callable[[str, list[str]], str | None]


def split_golden(golden: str) -> list[tuple[str | None, str]]:
    """(marker, text) per line; the marker without its trailing space, None on a bare line."""
    out: list[tuple[str | None, str]] = []
    for line in golden.split("\n"):
        found = MARKER.match(line)
        out.append((found.group(0).rstrip(" "), line[found.end():]) if found else (None, line))
    return out


def updated_golden(golden: str, output: str, find_subject: SubjectFinder) -> str:
    """The golden text for ``output``, markers carried over from ``golden`` (see the module doc)."""
    old = split_golden(golden)
    new_lines = output.split("\n")
    markers: list[str | None] = [None] * len(new_lines)
    matcher = difflib.SequenceMatcher(a=[text for _, text in old], b=new_lines, autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and a1 - a0 == b1 - b0):
            for offset in range(b1 - b0):
                markers[b0 + offset] = old[a0 + offset][0]
    for index, line in enumerate(new_lines):
        if line and markers[index] is None:
            markers[index] = _new_marker(line, _neighbour_marker(markers, index), find_subject)
    return "\n".join(f"{marker} {line}" if line and marker else line
                     for marker, line in zip(markers, new_lines))


def _neighbour_marker(markers: list[str | None], index: int) -> str | None:
    """The nearest marker above the line, else below it."""
    above = next((m for m in reversed(markers[:index]) if m), None)
    return above or next((m for m in markers[index + 1:] if m), None)


def _new_marker(line: str, neighbour: str | None, find_subject: SubjectFinder) -> str:
    found = GRAPH_MARKER.match(neighbour or "")
    if not found:
        return "[fixed]"
    predicates = [p.strip() for p in found.group(2).split(",") if p.strip()]
    subject = find_subject(line, predicates)
    return f"[graph: {subject or '?'} {', '.join(predicates)}]"


def model_subject_finder(trig) -> SubjectFinder:
    """Find, in the model at ``trig``, the one subject whose values for the given
    (prefixed) predicates all appear in a line as whole words."""
    from rdflib import URIRef

    from seams.model import parse_trig

    graph = parse_trig(trig.read_bytes(), source=str(trig))
    union = graph  # a Dataset: triples() over the default union of its graphs
    namespaces = dict(union.namespace_manager.namespaces())

    def expand(name: str) -> URIRef | None:
        prefix, _, local = name.partition(":")
        base = namespaces.get(prefix)
        return URIRef(f"{base}{local}") if base is not None and local else None

    def spellings(value) -> list[str]:
        """A literal as written; an IRI in full and as a prefixed name (``xsd:string``)."""
        if not isinstance(value, URIRef):
            return [str(value)]
        try:
            return [str(value), union.namespace_manager.normalizeUri(value)]
        except Exception:  # no prefix fits
            return [str(value)]

    def find(line: str, predicates: list[str]) -> str | None:
        iris = [expand(p) for p in predicates]
        if not iris or any(iri is None for iri in iris):
            return None
        found = set()
        for subject in {s for s, _, _ in union.triples((None, iris[0], None))}:
            if all(any(_appears(shown, line) for value in union.objects(subject, iri) for shown in spellings(value))
                   for iri in iris):
                found.add(subject)
        if len(found) != 1:
            return None
        (subject,) = found
        try:
            return union.namespace_manager.normalizeUri(str(subject))
        except Exception:  # no prefix fits: the full IRI
            return f"<{subject}>"
    return find


def _appears(value: str, line: str) -> bool:
    return bool(value) and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", line) is not None

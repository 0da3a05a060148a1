"""What every piece of new text needs: the file's style, the prefixes in force where
the text goes, and what the patch says about each new blank node."""

from __future__ import annotations

from rdflib.term import BNode, Identifier, URIRef

from seams.model.trig_scan import Document, Statement
from seams_edit.trig.mimic import Layout
from seams_edit.trig.style import Style, detect_style
from seams_edit.trig.terms import Description, TermWriter

Pairs = dict[tuple[URIRef, BNode], list[tuple[URIRef, Identifier]]]
"""(graph, blank node) -> the (predicate, object) pairs a patch gives that node."""


class Writing:
    """Shared by the statement rewriter and the placer of new statements.

    The style is detected only when some text must be invented, so a patch
    that only removes never reads the file's layout.
    """

    def __init__(self, document: Document, add_pairs: Pairs):
        self.document = document
        self.text = document.text
        self._add_pairs = add_pairs
        self._style: Style | None = None
        self._writers: dict[int, TermWriter] = {}
        self.layouts: dict[Statement, Layout] = {}  # the same-typed anchors' layouts, read once

    @property
    def style(self) -> Style:
        if self._style is None:
            self._style = detect_style(self.document)
        return self._style

    def writer(self, offset: int) -> TermWriter:
        """A term writer for the prefixes declared before ``offset``."""
        context = self.document.context_at(offset)
        if context not in self._writers:
            _, prefixes = self.document.namespaces_at(context)
            self._writers[context] = TermWriter(prefixes, self.style.continuation, self.style.comma)
        return self._writers[context]

    def description(self, graph: URIRef) -> Description:
        return {node: pairs for (g, node), pairs in self._add_pairs.items() if g == graph}

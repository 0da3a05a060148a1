"""Layout-keeping TriG edits: apply a Patch to a file's text, touching only its subjects.

rdflib's serializer rewrites a whole file in its own order, which would make
every model change a full-file diff; so this is an editor, not a serializer.
The file is scanned (``trig_scan``), the statements of the patched subjects
are parsed (``trig_statement``), and only they are rewritten: removed objects
and predicates are cut with their separators, kept ones keep their bytes, new
ones are appended in the file's style (``trig_style``). A new subject's
statement goes after the last statement in its graph's block with the same
rdf:type, else at the end of the block, else into a new block at the end of
the file; placed after one of its type, it copies that statement's layout
(``trig_mimic``).

Blank nodes: a new blank-node object is written nested (``[ ... ]``, or
``( ... )`` for a well-formed RDF list) from the patch's triples about it,
which must form a tree under an IRI subject. A removed blank-node object
matches structurally: the file's ``[ ... ]``/``( ... )`` whose nested triples
are isomorphic to the patch's triples about that node, which must therefore
list the whole subtree. Labelled blank nodes (``_:b``) are never matched.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import cast

from rdflib import Graph
from rdflib.compare import isomorphic
from rdflib.term import BNode, Identifier, URIRef

from seams.errors import EditError
from seams.model.trig_scan import Document, Statement, resolve_text, scan
from seams_edit.patch import Patch, Quad
from seams_edit.trig.layout import Edit, deletions, splice
from seams_edit.trig.place import NewSubjects, new_statement_edits
from seams_edit.trig.rewrite import Additions, rewrite
from seams_edit.trig.statement import FileObject, Shape, Triple, attach_terms, parse_shape
from seams_edit.trig.writing import Pairs, Writing

_ANCHOR = URIRef("urn:seams-edit:anchor")


def apply_patch(text: str, patch: Patch, *, source: str) -> str:
    """The text with ``patch`` applied; ``source`` names the file in errors.

    A file written with CRLF throughout is edited as LF and written back as
    CRLF, so new lines match the old ones.
    """
    if patch.is_empty:
        return text
    if "\r\n" in text and text.count("\r\n") == text.count("\n"):
        return apply_patch(text.replace("\r\n", "\n"), patch, source=source).replace("\n", "\r\n")
    return _Edit(scan(text, source=source), patch).result()


IriQuad = tuple[URIRef, URIRef, Identifier, URIRef]
"""(subject, predicate, object, graph) of a quad about an IRI subject."""


def _split(quads: tuple[Quad, ...]) -> tuple[list[IriQuad], Pairs]:
    """Quads about IRI subjects, and the (predicate, object) pairs of each blank node.
    A patch's predicates and graph names are IRIs (``seams_edit.patch`` builds them so)."""
    top: list[IriQuad] = []
    described: Pairs = defaultdict(list)
    for subject, predicate, obj, graph in quads:
        iri_predicate, iri_graph = cast(URIRef, predicate), cast(URIRef, graph)
        if isinstance(subject, BNode):
            described[(iri_graph, subject)].append((iri_predicate, obj))
        else:
            top.append((cast(URIRef, subject), iri_predicate, obj, iri_graph))
    return top, described


class _Edit:
    """One application of a patch to one scanned file."""

    def __init__(self, document: Document, patch: Patch):
        self.document = document
        self.text = document.text
        self.source = document.source
        self.added, self.add_pairs = _split(patch.add)
        self.removed, self.remove_pairs = _split(patch.remove)
        self.shapes = self._touched_shapes()
        attach_terms(document, [shape for shapes in self.shapes.values() for shape in shapes])
        self.additions = Additions()
        self.new_subjects: NewSubjects = defaultdict(dict)

    def _touched_shapes(self) -> dict[tuple[URIRef, URIRef], list[Shape]]:
        """The statements of every patched (graph, subject), in file order."""
        wanted: dict[URIRef, set[str]] = defaultdict(set)
        for subject, _, _, graph in self.added + self.removed:
            wanted[graph].add(str(subject))
        found: dict[tuple[URIRef, URIRef], list[Shape]] = defaultdict(list)
        namespaces: dict[int, tuple[str | None, dict[str, str]]] = {}
        for graph in sorted(wanted):
            for block in self.document.blocks_named(graph):
                for statement in block.statements:
                    if statement.subject is None:
                        continue
                    context = self.document.context_at(statement.start)
                    if context not in namespaces:
                        namespaces[context] = self.document.namespaces_at(context)
                    iri = resolve_text(statement.subject, *namespaces[context])
                    if iri in wanted[graph]:
                        shape = parse_shape(self.document, statement)
                        if not shape.groups:
                            raise EditError(f"{self.source}: statement of {iri} has no predicate")
                        found[(graph, URIRef(iri))].append(shape)
        return found

    def _objects(self, subject: URIRef, predicate: URIRef, graph: URIRef) -> list[FileObject]:
        return [
            obj
            for shape in self.shapes.get((graph, subject), ())
            for group in shape.groups
            if group.predicate == predicate
            for obj in group.objects
        ]

    def _tree(self, node: BNode, graph: URIRef, pairs: Pairs, used: set[tuple[URIRef, BNode]]) -> set[Triple]:
        """The patch's triples under ``node``; marks each described node as used."""
        triples: set[Triple] = set()
        pending = [node]
        while pending:
            current = pending.pop()
            if (graph, current) in used:
                continue
            used.add((graph, current))
            for predicate, obj in pairs.get((graph, current), ()):
                triples.add((current, predicate, obj))
                if isinstance(obj, BNode):
                    pending.append(obj)
        return triples

    def _mark_removals(self) -> None:
        """Mark each removed object; a quad also added is checked but left in place."""
        keep = set(self.added)
        used: set[tuple[URIRef, BNode]] = set()
        for quad in self.removed:
            subject, predicate, obj, graph = quad
            candidates = self._objects(subject, predicate, graph)
            if isinstance(obj, BNode):
                tree = self._tree(obj, graph, self.remove_pairs, used)
                match = next((c for c in candidates if not c.removed and _same_tree(c, obj, tree)), None)
                matches = [match] if match is not None else []
            else:
                matches = [c for c in candidates if c.term == obj]
            if not matches:
                raise EditError(
                    f"{self.source}: cannot remove {subject.n3()} {predicate.n3()} {obj.n3()}: "
                    f"not in graph {graph.n3()}"
                )
            if quad not in keep or isinstance(obj, BNode):
                for match in matches:
                    match.removed = True
        _refuse_unused(self.source, self.remove_pairs, used, "removal")

    def _place_additions(self) -> None:
        """Send each new triple to its predicate's list, its subject's statement, or a new one."""
        self._refuse_shared_nodes()
        used: set[tuple[URIRef, BNode]] = set()
        for subject, predicate, obj, graph in self.added:
            if isinstance(obj, BNode):
                self._tree(obj, graph, self.add_pairs, used)
            elif any(c.term == obj and not c.removed for c in self._objects(subject, predicate, graph)):
                continue  # already there
            shapes = self.shapes.get((graph, subject), [])
            group = next((g for s in shapes for g in s.groups if g.predicate == predicate), None)
            if group is not None:
                self.additions.to_groups[group].append(obj)
            elif shapes:
                self.additions.new_groups[shapes[-1]].setdefault(predicate, []).append(obj)
            else:
                self.new_subjects[(graph, subject)].setdefault(predicate, []).append(obj)
        _refuse_unused(self.source, self.add_pairs, used, "addition")

    def _refuse_shared_nodes(self) -> None:
        """A nested blank node is written once, so it may be the object of one triple only."""
        uses = Counter((graph, obj) for _, _, obj, graph in self.added if isinstance(obj, BNode))
        for (graph, _), pairs in self.add_pairs.items():
            uses.update((graph, obj) for _, obj in pairs if isinstance(obj, BNode))
        for (_, node), count in sorted(uses.items()):
            if count > 1:
                raise EditError(f"{self.source}: blank node {node.n3()} is the object of {count} added triples")

    def result(self) -> str:
        self._mark_removals()
        self._place_additions()
        writing = Writing(self.document, self.add_pairs)
        edits: list[Edit] = []
        deleted: list[Statement] = []
        for (graph, _), shapes in self.shapes.items():
            for shape in shapes:
                if not self.additions.touch(shape):
                    continue
                rewritten = rewrite(writing, shape, graph, self.additions)
                if rewritten is None:
                    deleted.append(shape.statement)
                else:
                    edits.append((shape.statement.start, shape.statement.end, rewritten))
        edits += deletions(self.text, deleted)
        edits += new_statement_edits(writing, self.new_subjects, set(deleted))
        return splice(self.text, edits, self.source)


def _same_tree(candidate: FileObject, node: BNode, tree: set[Triple]) -> bool:
    """Whether a file's nested object has exactly the patch's triples under ``node``."""
    if not candidate.bracketed or not isinstance(candidate.term, BNode) or len(candidate.nested) != len(tree):
        return False
    ours, theirs = Graph(), Graph()
    ours.add((_ANCHOR, _ANCHOR, candidate.term))
    theirs.add((_ANCHOR, _ANCHOR, node))
    for triple in candidate.nested:
        ours.add(triple)
    for triple in tree:
        theirs.add(triple)
    return isomorphic(ours, theirs)


def _refuse_unused(source: str, pairs: Pairs, used: set[tuple[URIRef, BNode]], kind: str) -> None:
    for graph, node in pairs:
        if (graph, node) not in used:
            raise EditError(
                f"{source}: blank node {node.n3()} in the {kind} is not under an IRI subject's triple "
                f"in graph {graph.n3()}"
            )

"""The shapes graph's well-formedness, validated once per distinct structure, says what a
validation of the whole graph says: the same findings, line for line, on random damage."""

from __future__ import annotations

import random

import pytest
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.collection import Collection

from seams import vocab as V
from seams.checks import shapes_wellformed as W
from seams.checks.shape_structures import StructureKeys, parts, terms
from seams.model.loading import load_model
from seams.project.layout import load_project

EX = Namespace("https://example.org/leave/")


@pytest.fixture
def model(example_project):
    return load_model(load_project(str(example_project)))


def shapes_of(model) -> Graph:
    return model.dataset.graph(model.project.graphs["shapes"])


def whole_graph_findings(model) -> list:
    """The check as it was: pyshacl over the whole shapes graph at once."""
    shapes = shapes_of(model)
    found = set(W._report_findings(model, shapes, W._validate(shapes, [list(shapes)])))
    found.update(W._pattern_findings(model, shapes))
    found.update(W._length_findings(model, shapes))
    return sorted(found)


def copy_forms(shapes: Graph, copies: int) -> None:
    """Add renamed copies of every form, as a model with many processes has."""
    original = list(shapes)
    for i in range(copies):
        nodes: dict = {}

        def rename(term, i=i, nodes=nodes):
            if isinstance(term, BNode):
                return nodes.setdefault(term, BNode())
            if isinstance(term, URIRef) and str(term).startswith(str(EX)):
                return URIRef(f"{term}_{i}")
            if isinstance(term, Literal) and term.datatype is None and term.language is None:
                return Literal(f"{term} {i}")
            return term

        for s, p, o in original:
            shapes.add((rename(s), p, rename(o)))


_VALUES = [Literal(-5), Literal("annual"), Literal("7", datatype=V.XSD.integer), Literal("x", datatype=V.XSD.integer),
           Literal(True), Literal("flag", lang="en"), V.SH.IRI, V.XSD.string, EX.Other, V.RDF.nil, BNode()]
_PREDICATES = [V.SH.datatype, V.SH.minCount, V.SH.maxCount, V.SH.path, V.SH["in"], V.SH.nodeKind, V.SH.node,
               V.SH.property, V.SH.targetClass, V.SH.closed, V.SH.message, V.SH.languageIn, V.SH.deactivated,
               V.SH.severity, V.SH["or"], V.RDF.rest, V.RDF.type, V.SH.flags, V.SH.qualifiedValueShape]


def damage(shapes: Graph, rng: random.Random) -> None:
    """One to three random changes: a value replaced, a statement added or removed, a list broken."""
    for _ in range(rng.randint(1, 3)):
        triples = sorted(shapes, key=lambda t: tuple(map(str, t)))
        s, p, o = rng.choice(triples)
        move = rng.randrange(4)
        if move == 0:
            shapes.remove((s, p, o))
            shapes.add((s, p, rng.choice(_VALUES)))
        elif move == 1:
            shapes.add((s, rng.choice(_PREDICATES), rng.choice(_VALUES)))
        elif move == 2:
            shapes.remove((s, p, o))
        else:
            head = BNode()
            Collection(shapes, head, [rng.choice(_VALUES) for _ in range(rng.randint(0, 2))])
            shapes.add((s, rng.choice(_PREDICATES), head))


def test_copies_of_a_form_are_one_structure(model):
    shapes = shapes_of(model)
    copy_forms(shapes, 20)
    keys = StructureKeys()
    found = {keys.key(part) for part in parts(shapes)}
    assert len(parts(shapes)) == 4 * 21  # LeaveForm, ReviewForm, BookingShape, RebookingShape, 21 times
    # BookingShape and its alike RebookingShape (the example's merge-shapes case) are one structure
    assert len(found) == 3


def test_parts_hold_every_statement_once_and_never_share_a_subject(model):
    shapes = shapes_of(model)
    copy_forms(shapes, 3)
    cut = parts(shapes)
    assert sorted(t for part in cut for t in part) == sorted(shapes)
    subjects = [{s for s, _, _ in part} for part in cut]
    assert sum(map(len, subjects)) == len(set().union(*subjects))
    for part in cut:  # closed under following an object to its own statements
        for _, _, o in part:
            assert (o, None, None) not in shapes or o in {s for s, _, _ in part}
    assert all(terms(part) for part in cut)


def test_a_changed_structure_is_a_new_key(model):
    shapes = shapes_of(model)
    keys = StructureKeys()
    before = {keys.key(part) for part in parts(shapes)}
    shapes.add((EX.ReviewForm, V.SH.closed, Literal(True)))
    after = {keys.key(part) for part in parts(shapes)}
    assert len(after - before) == 1


@pytest.mark.parametrize("seed", range(24))
def test_findings_equal_a_whole_graph_validation_on_random_damage(model, seed):
    rng = random.Random(seed)
    shapes = shapes_of(model)
    copy_forms(shapes, rng.randint(0, 3))
    damage(shapes, rng)
    assert W.wellformedness_findings(model) == whole_graph_findings(model)


def test_damage_is_found_in_every_copy(model):
    shapes = shapes_of(model)
    shapes.remove((None, V.SH["in"], None))
    shapes.add((next(shapes.subjects(V.SH.path, EX.leaveType)), V.SH["in"], Literal("annual")))
    copy_forms(shapes, 2)
    found = W.wellformedness_findings(model)
    assert found == whole_graph_findings(model)
    subjects = {f.subject for f in found if "SHACL-SHACL" in f.message}
    assert subjects == {"ex:LeaveForm", "ex:LeaveForm_0", "ex:LeaveForm_1"}

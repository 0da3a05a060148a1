"""seams.model.union_store reads the union from Memory's indexes: the same triples, in the same
order, as rdflib's own ``Memory.triples(pattern, context=None)``, for every pattern shape."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.plugins.stores.memory import Memory

from seams.model.loading import UnionGraph, parse_trig
from seams.model.union_store import IndexedGraph, UnionMemory

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "leave" / "model" / "model.trig"


def _both() -> tuple[Dataset, Dataset]:
    """The example's quads added in one order to rdflib's Memory and to a UnionMemory (the same
    terms, blank nodes included, so the two reads can be compared in order)."""
    source = Dataset()
    source.parse(data=EXAMPLE.read_text(encoding="utf-8"), format="trig")
    quads = list(source.quads((None, None, None, None)))
    plain = Dataset(store=Memory(), default_union=True)
    fast = Dataset(store=UnionMemory(), default_union=True)
    for dataset in (plain, fast):
        for quad in quads:
            dataset.add(quad)
    return plain, fast


def _patterns(dataset: Dataset, count: int) -> list[tuple]:
    """Every shape of pattern (each part given or not), from the dataset's own terms and one it lacks."""
    rng = random.Random(7)
    triples = sorted(dataset.triples((None, None, None)), key=str)
    missing = URIRef("http://example.org/nowhere")
    out = []
    for _ in range(count):
        s, p, o = rng.choice(triples)
        for given in itertools.product((True, False), repeat=3):
            out.append(tuple(term if keep else None for term, keep in zip((s, p, o), given, strict=True)))
        out.append((missing, p, None))
        out.append((s, missing, None))
        out.append((None, p, missing))
    return out


def test_union_reads_match_memory_for_every_pattern_shape() -> None:
    plain, fast = _both()
    assert isinstance(fast.store, UnionMemory)
    for pattern in _patterns(plain, 60):
        expected = [t for t, _ in plain.store.triples(pattern, context=None)]
        assert list(fast.store.union_triples(pattern)) == expected, pattern
        s, p, o = pattern
        if s is not None and p is not None and o is None:
            assert fast.store.union_objects(s, p) == [t[2] for t in expected]


def test_a_parsed_model_reads_its_union_from_the_indexes() -> None:
    dataset = parse_trig(EXAMPLE.read_bytes(), source="model.trig")
    assert isinstance(dataset.store, UnionMemory)
    assert dataset.store.union_objects(URIRef("http://example.org/none"), URIRef("http://example.org/p")) == []
    assert len(list(dataset.store.union_triples((None, None, None)))) == len(dataset) > 100


def test_the_union_graph_reads_what_a_plain_union_reads() -> None:
    plain, fast = _both()
    union = UnionGraph(fast)
    assert len(union) == len(plain)
    assert sorted(union, key=str) == sorted(plain.triples((None, None, None)), key=str)
    for pattern in _patterns(plain, 20):
        s, p, _ = pattern
        if s is not None and p is not None:
            assert list(union.objects(s, p)) == list(plain.objects(s, p))
            assert union.value(s, p) == plain.value(s, p)


def test_removed_and_re_added_statements_read_as_memory_reads_them() -> None:
    plain, fast = _both()
    victims = sorted(plain.triples((None, None, None)), key=str)[::5]
    for dataset in (plain, fast):
        for triple in victims[:20]:
            dataset.remove(triple)  # out of every graph
        for triple in victims[:5]:
            dataset.add(triple)  # back, in the default graph
    for pattern in _patterns(plain, 30):
        assert list(fast.store.union_triples(pattern)) == [t for t, _ in plain.store.triples(pattern, context=None)]


def test_a_quoted_statement_turns_the_direct_read_off() -> None:
    store = UnionMemory()
    graph = Graph(store=store)
    s, p = URIRef("http://example.org/s"), URIRef("http://example.org/p")
    graph.add((s, p, Literal(1)))
    store.add((s, p, Literal(2)), context=Graph(store=store, identifier=BNode()), quoted=True)
    assert store.union_objects(s, p) is None  # the indexes would show the quoted statement too
    assert [t[2] for t in store.union_triples((s, p, None))] == [Literal(1)]


def test_an_indexed_graph_reads_like_a_plain_graph() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    plain = Graph()
    indexed = IndexedGraph()
    for *triple, _ in Dataset().parse(data=text, format="trig").quads((None, None, None, None)):
        plain.add(tuple(triple))
        indexed.add(tuple(triple))
    assert len(indexed) == len(plain)
    for pattern in _patterns(plain, 30):
        assert list(indexed.triples(pattern)) == list(plain.triples(pattern))
        s, p, _ = pattern
        if s is not None and p is not None:
            assert list(indexed.objects(s, p)) == list(plain.objects(s, p))

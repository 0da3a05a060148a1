"""The store a model is parsed into: rdflib's ``Memory`` with a direct read of the union.

rdflib's ``Memory`` store answers every ``triples()`` call with each
matching triple *and* a generator of its contexts, looking the triple's
contexts up to see whether it lies in the requested one. Reading the union
(context ``None``, what every seams reader asks for: docs/architecture.md,
D-model-is-data) never needs the contexts: a triple the store holds lies in
the union unless it was only ever added *quoted* (an N3 formula, which TriG
cannot write). The view, pyshacl over the union and the Python checks ask
the union about a million times on a 400-process model, so this store
answers union reads from its three indexes directly (docs/performance.md).

The indexes are ``Memory``'s own (its name-mangled ``__spo``, ``__pos``,
``__osp``); a store without them, or one that ever held a quoted triple,
reads through ``Memory.triples`` as before. tests/test_union_store.py holds
the direct read to ``Memory``'s own answers for every pattern shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rdflib import Graph
from rdflib.paths import Path as PropertyPath
from rdflib.plugins.stores.memory import Memory

Triple = tuple[Any, Any, Any]
_NOTHING: dict = {}


class UnionMemory(Memory):
    """``Memory`` that can read its union without the per-triple context look-ups."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._quoted = False
        self._indexes = _indexes(self)

    def add(self, triple: Any, context: Any, quoted: bool = False) -> None:
        if quoted:
            self._quoted = True  # a formula's triple is not in the union: stop reading the indexes
        super().add(triple, context, quoted=quoted)

    def union_objects(self, subject: Any, predicate: Any) -> list[Any] | None:
        """The union's objects of ``subject`` and ``predicate`` in ``union_triples``' order;
        None when this store cannot read its indexes directly."""
        if self._quoted or self._indexes is None:
            return None
        objects = self._indexes[0].get(subject, _NOTHING).get(predicate)
        return list(objects) if objects else []

    def union_triples(self, pattern: Triple) -> Iterator[Triple]:
        """The union's triples matching ``pattern`` (``None`` a wildcard), as
        ``Memory.triples(pattern, context=None)`` finds them, without their contexts."""
        if self._quoted or self._indexes is None:
            for triple, _ in self.triples(pattern, context=None):
                yield triple
            return
        spo, pos, osp, by_context = self._indexes
        s, p, o = pattern
        if s is not None:
            by_predicate = spo.get(s)
            if by_predicate is None:
                return
            if p is not None:
                objects = by_predicate.get(p)
                if objects is None:
                    return
                if o is not None:
                    if o in objects:
                        yield s, p, o
                    return
                for each in list(objects):
                    yield s, p, each
                return
            for predicate in list(by_predicate):
                objects = by_predicate[predicate]
                if o is not None:
                    if o in objects:
                        yield s, predicate, o
                    continue
                for each in list(objects):
                    yield s, predicate, each
            return
        if p is not None:
            by_object = pos.get(p)
            if by_object is None:
                return
            if o is not None:
                for subject in list(by_object.get(o, ())):
                    yield subject, p, o
                return
            for each in list(by_object):
                for subject in list(by_object[each]):
                    yield subject, p, each
            return
        if o is not None:
            by_subject = osp.get(o)
            if by_subject is None:
                return
            for subject in list(by_subject):
                for predicate in list(by_subject[subject]):
                    yield subject, predicate, o
            return
        yield from by_context[None].copy()  # Memory's own order for a whole read: its union's set


def _indexes(store: Memory) -> tuple[dict, dict, dict, dict] | None:
    """``Memory``'s subject, predicate and object indexes and its triples by context (the union's
    under ``None``), or None where this rdflib keeps others."""
    spo, pos, osp, by_context = (getattr(store, f"_Memory__{name}", None)
                                 for name in ("spo", "pos", "osp", "contextTriples"))
    if not (isinstance(spo, dict) and isinstance(pos, dict) and isinstance(osp, dict)
            and isinstance(by_context, dict) and isinstance(by_context.get(None), set)):
        return None
    return spo, pos, osp, by_context


def read_union(graph: Graph, triple: Triple) -> Iterator[Triple]:
    """``graph.triples(triple)`` for a graph that reads its store's whole union (a property
    path evaluated over ``graph`` as rdflib's ``Graph.triples`` does)."""
    s, p, o = triple
    if isinstance(p, PropertyPath):
        for s_, o_ in p.eval(graph, s, o):
            yield s_, p, o_
        return
    read = getattr(graph.store, "union_triples", None)
    if read is not None:
        yield from read((s, p, o))
        return
    for found, _ in graph.store.triples((s, p, o), context=None):
        yield found


class UnionReads(Graph):
    """A graph that reads its store's whole union from the indexes, ``objects(s, p)`` (and so
    ``value``) without a generator per statement: the view and pyshacl ask it most."""

    def triples(self, triple):
        return read_union(self, triple)

    def objects(self, subject=None, predicate=None, unique=False):
        if subject is not None and predicate is not None and not isinstance(predicate, PropertyPath):
            read = getattr(self.store, "union_objects", None)
            found = read(subject, predicate) if read is not None else None
            if found is not None:
                return iter(found)
        return super().objects(subject, predicate, unique)


class IndexedGraph(UnionReads):
    """A graph alone in its own ``UnionMemory``, so its statements are its store's union and
    are read from the indexes: the shapes graph pyshacl reads once per focus node and shape."""

    def __init__(self, **kwargs: Any):
        super().__init__(store=UnionMemory(), **kwargs)

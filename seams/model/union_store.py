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

from rdflib.plugins.stores.memory import Memory

Triple = tuple[Any, Any, Any]


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

"""Re-checking only what an edit touched: the model's components, checked apart (issue 29).

A check that loads the whole model costs a parse and every gate over all of
it, however small the edit. seams.model.components splits the model where
nothing is named across (statements joined by the model's own IRIs and the
keys the checks compare, payloads by the ids they declare and name); every
gate's findings on the whole model are the union of its findings on each
component's *sub-model* (the component's statements, the shared ones, its
payloads). So a check keeps, per component, what it derived, in one *record*
under ``.seams/component-cache/``, and the next check after an edit
re-derives only the components whose statements or payloads changed:

* the record is used only when everything but the TriG and the payloads is
  as it was (seams itself, the generators, the config, ``SEAMS_*``: the
  *settings*) and every generator composes (seams.generators.hookspecs:
  ``seams_generate_parts``/``seams_assemble``); the lock, the generated
  files and the handlers are read afresh by the gates that read them;
* a statement no component held is parsed alone; its IRIs and keys say which
  components it joins; those, the components that lost a statement and those
  whose payload bytes changed are re-checked together (split again, since an
  edit may cut a link), each as a sub-model through the same gate functions;
  a name one of them now reads of the model by name, or gives that another
  read, draws that component in too (until nothing more is drawn);
* the verdict is composed as the whole check orders it: each component gate's
  findings merged, sorted and without duplicates (each gate's own contract),
  the generators' parts assembled and the generated files judged against the
  lock and the disk, the drafts judged by each drafted task's context hash.

Whatever the record cannot answer for sure (a changed shared statement, a
settings change, a generator that failed or does not compose, a part two
components produce, a statement that does not split or parse alone, a
finding of the whole check no component can be named for) makes the check a
whole one, which writes a new record. The record is an optimisation only:
deleting it, a corrupt or foreign one, or two checks at once never change a
verdict (``tests/test_incremental_check.py`` compares the two on random
edits).
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rdflib import Graph, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

from seams import cache_json
from seams import vocab as V
from seams.errors import SeamsError
from seams.findings import Finding
from seams.fs import atomic_write
from seams.model.components import PayloadNames, StatementFacts, partition, payload_names, statement_facts
from seams.project.limits import LimitError, read_regular_file

if TYPE_CHECKING:
    from seams.checks.registry import Source
    from seams.generators.generate import Generation
    from seams.model.loading import Model
    from seams.model.statement_cache import StatementPack
    from seams.project.check_cache import Verdict
    from seams.project.layout import Project

FORMAT = 1
DIRECTORY = ".seams/component-cache"
RECORD = "record.json"
PAYLOADS = "payloads"
LAYOUT = "layout.json"
TEXT = "model.trig"
MAX_RECORD_BYTES = 256 << 20


@dataclass
class Unit:
    """One component as the record keeps it."""

    statements: list[str]  # statement keys, in document order
    iris: list[str]  # the IRIs it links through
    keys: list[str]  # its literal keys (seams.model.components.statement_keys)
    stands_for: list[str]  # the payload names its statements stand for
    gives: list[str]  # the seam:name values it gives
    reads: list[str]  # the names it reads of the model by name alone
    payloads: dict[str, dict[str, Any]]  # payload IRI -> path, sha256, declared, referred, computed
    findings: dict[str, list[list[Any]]]  # check function -> its findings on the sub-model
    notes: list[str]
    drafts: dict[str, str | None]  # drafted task IRI -> its context hash here (None: no service task)

    def as_json(self) -> dict[str, Any]:
        return self.__dict__


def settings_digest(project: Project) -> str:
    """Everything a component's findings depend on besides its statements and payloads."""
    from seams.generators.hookspecs import ENTRY_POINT_GROUP
    from seams.project import check_cache

    return check_cache.settings_key(project, ENTRY_POINT_GROUP)


def record_path(project: Project) -> Path:
    return project.root / DIRECTORY / RECORD


def component_sources() -> list[Source]:
    """The check functions run per component: every one of ``seams check`` but generation and drafts."""
    from seams.checks import registry

    return [s for s in registry.sources(registry.CHECK_GATES) if s.qualname not in _WHOLE]


_GENERATE = "seams.generators.generate.generate_findings"
_GENERATED = "seams.generators.generate.generated_findings"
_DRAFTS = "seams.checks.handler_drafts.draft_findings"
_WHOLE = (_GENERATE, _GENERATED, _DRAFTS)


# --- building a record from a whole check ------------------------------------------------------

def record_whole(project: Project, model: Model, verdict: Verdict, prepare: Callable[[Path], None]) -> None:
    """Keep the record of a whole check of ``model`` whose verdict is ``verdict`` (remove the one
    there when the model was not read statement by statement or the record could not answer for it)."""
    record = None
    if model.statements is not None:
        try:
            record = _whole_record(project, model, verdict)
        except _Unsure:
            record = None
    if record is not None and model.statements is not None:
        _keep_payloads(project, model.payloads.values(), prepare)
        if model.statements.layout is not None:
            _write_layout(project, model.statements.layout, prepare)
    _write(project, record, prepare)


class _Unsure(Exception):
    """The record cannot say for sure: check the whole model."""


def _whole_record(project: Project, model: Model, verdict: Verdict) -> dict[str, Any]:
    """The units of the whole model: partitioned, each finding and note of the whole check given
    to the one unit its subject names; the generators' parts of the whole model."""
    from seams.checks.handler_drafts import draft_context_hash, drafted_tasks

    statements = model.statements
    assert statements is not None
    graphs = _graph_names(model)
    names = {str(iri): payload_names(payload.tree) for iri, payload in model.payloads.items()}
    reads = {str(process): sorted(found) for process, found in model.view.wide_names.items()}
    facts = [statement_facts(quads, frozenset(graphs)) for quads in statements.quads]
    split = partition(facts, {iri: iri for iri in names}, names, reads)
    drafted = drafted_tasks(project)
    units: list[Unit] = []
    for component in split.components:
        unit = _facts(model, [statements.keys[i] for i in component.statements],
                      [facts[i] for i in component.statements],
                      {iri: model.payloads[URIRef(iri)] for iri in component.payloads}, names)
        iris = set(unit.iris)
        unit.reads = sorted({n for iri in iris for n in reads.get(iri, ())})
        unit.drafts = {str(t): draft_context_hash(model, t) for t in drafted if str(t) in iris}
        units.append(unit)
    owned = [(source, f) for source in component_sources() for f in _of_whole(verdict, source)]
    if owned or verdict.notes:
        _give_out(project, model, statements, split, units, owned, list(verdict.notes))
    parts = _parts(project, model, _generators(project))
    return {"format": FORMAT, "settings": settings_digest(project), "graphs": sorted(graphs),
            "shared": [statements.keys[i] for i in split.shared], "units": [u.as_json() for u in units],
            "parts": parts, "conforming": sorted(_conforming(model))}


def _give_out(project: Project, model: Model, statements: Any, split: Any, units: list[Unit],
              owned: list[tuple[Source, Finding]], notes: list[str]) -> None:
    """Give each finding and note of the whole check to the unit that says it: the one unit its
    subject names; where several units' names hold it (a BPMN id two files use alike), those
    units are checked as sub-models and say for themselves. _Unsure when a subject names no
    unit, or the units' findings are not the whole check's, exactly."""
    owners: dict[str, set[int]] = {}
    for number, unit in enumerate(units):
        for token in _subjects(model, unit):
            owners.setdefault(token, set()).add(number)
    subjects = [f.subject for _, f in owned] + [n.split(" ")[1] if n.count(" ") else "" for n in notes]
    if any(not owners.get(subject) for subject in subjects):
        raise _Unsure  # said of something no unit holds: a shared statement, or no statement at all
    exact = sorted({n for subject in subjects if len(owners[subject]) > 1 for n in owners[subject]})
    generators = _generators(project) if exact else None
    shared = [statements.quads[i] for i in split.shared]
    for number in exact:
        component = split.components[number]
        sub = submodel(project, model, shared + [statements.quads[i] for i in component.statements],
                       component.payloads)
        _checked(project, sub, units[number], generators, _conforming(model))

    def sole(subject: str) -> int | None:
        found = owners[subject]
        return next(iter(found)) if len(found) == 1 and not found & set(exact) else None

    for source, finding in owned:
        if (owner := sole(finding.subject)) is not None:
            units[owner].findings.setdefault(source.qualname, []).append(_raw(finding))
    for note, subject in zip(notes, subjects[len(owned):], strict=True):
        if (owner := sole(subject)) is not None:
            units[owner].notes.append(note)
    for source in component_sources():
        given = {tuple(f) for unit in units for f in unit.findings.get(source.qualname, ())}
        if given != {tuple(_raw(f)) for s, f in owned if s == source}:
            raise _Unsure  # the units do not say what the whole check said
    if {n for unit in units for n in unit.notes} != set(notes):
        raise _Unsure


def _conforming(model: Model) -> set[str]:
    from seams.checks.shapes_wellformed import CONFORMING

    found: set[str] = model.memo.setdefault(CONFORMING, set())
    return found


def _of_whole(verdict: Verdict, source: Source) -> list[Finding]:
    """The findings of ``source`` in a whole verdict (by kind: each gate's kinds are its own)."""
    from seams.checks import registry

    kinds = {kind for gate in registry.CHECK_GATES if gate.source == source for kind in gate.kinds}
    return [f for f in verdict.findings if f.kind in kinds]


def _subjects(model: Model, unit: Unit) -> set[str]:
    """What a finding of this unit may name as its subject: its IRIs (short or whole), its
    payloads' paths and the ids of their elements."""
    found = {model.qname(URIRef(iri)) for iri in unit.iris} | {f"<{iri}>" for iri in unit.iris}
    for iri, payload in unit.payloads.items():
        found.add(payload["path"])
        tree = model.payloads[URIRef(iri)].tree
        found.update(e.get("id") for e in tree.getroot().iter() if isinstance(e.tag, str) and e.get("id"))
    return found


def _facts(model: Model, keys: list[str], facts: Sequence[StatementFacts], payloads: dict[str, Any],
           names: dict[str, PayloadNames]) -> Unit:
    """A unit's statement facts: its keys, IRIs, literal keys, payloads."""
    iris: set[str] = set()
    linking: set[str] = set()
    stands: set[str] = set()
    gives: set[str] = set()
    for each in facts:
        iris |= each.iris
        linking |= each.keys
        stands |= each.stands_for
        gives |= each.gives
    described = {iri: {"path": p.relpath, "format": p.format, "sha256": hashlib.sha256(p.data).hexdigest(),
                       **_names_json(names.get(iri) or payload_names(p.tree))} for iri, p in payloads.items()}
    return Unit(statements=keys, iris=sorted(iris), keys=sorted(linking), stands_for=sorted(stands),
                gives=sorted(gives), reads=[], payloads=described, findings={}, notes=[], drafts={})


def submodel(project: Project, model: Model, quads: Sequence[Sequence[tuple[Any, Any, Any, Any]]],
             payloads: Iterable[str]) -> Model:
    """The model of these statements' quads (document order) and payloads, prefixes as ``model``'s."""
    from seams.model.loading import Model
    from seams.model.trig_parse import model_dataset

    dataset = model_dataset()
    _add(dataset, quads)
    for prefix, namespace in model.dataset.namespace_manager.namespaces():
        dataset.namespace_manager.bind(prefix, namespace, override=True, replace=True)
    return Model(project, model.trig_path, model.trig_bytes, dataset,
                 {URIRef(iri): model.payloads[URIRef(iri)] for iri in sorted(payloads)})


def _add(dataset: Any, quads: Iterable[Iterable[tuple[Any, Any, Any, Any]]]) -> None:
    """Add statements' quads as the whole parse does (``store.add`` with the statement's graph)."""
    store = dataset.store
    graphs: dict[Any, Graph] = {DATASET_DEFAULT_GRAPH_ID: dataset.default_graph}
    for statement in quads:
        for g, s, p, o in statement:
            graph = graphs.get(g)
            if graph is None:
                graph = graphs[g] = Graph(store, g)
            store.add((s, p, o), graph, quoted=False)


def _checked(project: Project, sub: Model, unit: Unit, generators: Any, conforming: set[str]) -> Parts:
    """Run every component gate on a unit's sub-model and keep what the record needs of it in
    ``unit``; its generators' parts. ``conforming``: the shape structures known to conform
    (seams.checks.shapes_wellformed), grown by what this check finds."""
    from seams.checks.advice import advice
    from seams.checks.handler_drafts import draft_context_hash, drafted_tasks
    from seams.checks.shapes_wellformed import CONFORMING

    sub.memo[CONFORMING] = conforming
    unit.findings = {source.qualname: [_raw(f) for f in source.findings(project, sub)]
                     for source in component_sources()}
    for listed in unit.findings.values():
        if [tuple(f) for f in listed] != sorted({tuple(f) for f in listed}, key=_order):
            raise _Unsure  # a gate that does not sort its findings: its merge is not known
    unit.notes = list(advice(sub))
    unit.drafts = {str(t): draft_context_hash(sub, t) for t in drafted_tasks(project) if t in sub.view.tasks}
    unit.reads = sorted({n for found in sub.view.wide_names.values() for n in found})
    return _parts(project, sub, generators)


def _graph_names(model: Model) -> set[str]:
    return {str(getattr(g, "identifier", g)) for g in model.dataset.graphs()}


def _names_json(found: PayloadNames) -> dict[str, Any]:
    return {"declared": sorted(found.declared), "referred": sorted(found.referred), "computed": found.computed}


def _raw(finding: Finding) -> list[Any]:
    return [finding.kind, finding.subject, finding.predicate, finding.message]


def _generators(project: Project) -> Any:
    """The configured generators, loaded once; _Unsure when one does not compose."""
    from seams.generators import registry

    generators = registry.Generators(registry.selected_names(project.config.generators),
                                     source=project.relative(project.config_path))
    if not all(generators.composable(name) for name in generators.names):
        raise _Unsure
    return generators


Parts = dict[str, dict[str, dict[str, str]]]
"""Generator -> path -> part key -> the part's text (seams.generators.hookspecs)."""


def _parts(project: Project, sub: Model, generators: Any) -> Parts:
    """Each configured generator's parts on a (sub-)model; _Unsure when one fails."""
    out: Parts = {}
    for outcome in generators.parts(sub, project.generated_dir):
        if outcome.problem is not None:
            raise _Unsure  # a generator that fails here reports its first problem of the whole model
        try:
            out[outcome.name] = {path: {key: data.decode("utf-8") for key, data in parts.items()}
                                 for path, parts in outcome.parts.items()}
        except UnicodeDecodeError:
            raise _Unsure from None
    return out


# --- the verdict composed from the units -------------------------------------------------------

def _verdict(project: Project, qname: Callable[[URIRef], str], units: Sequence[dict[str, Any]],
             parts: Parts, generators: Any, digests: dict[str, str] | None = None) -> Verdict | None:
    """The whole check's verdict from its units' and the whole model's parts (None when they
    do not assemble)."""
    from seams.checks import registry
    from seams.checks.handler_drafts import draft_findings_with
    from seams.generators.generate import findings_of_generation
    from seams.project.check_cache import Verdict

    model_dir = project.model_path.parent
    payloads = [model_dir / p["path"] for unit in units for p in unit["payloads"].values()]
    generation = _composed_generation(project, parts, payloads, generators)
    if generation is None or generation.problems:
        return None
    hashes: dict[str, str | None] = {}
    iris: set[str] = set()
    for unit in units:
        hashes.update(unit["drafts"])
        iris.update(unit["iris"])

    def context_hash(task: URIRef) -> str | None:
        if str(task) not in hashes and str(task) in iris:
            raise _Unsure  # a draft recorded since this unit was checked: its hash is not kept
        return hashes.get(str(task))

    found: list[Finding] = []
    for source in registry.sources(registry.CHECK_GATES):
        if source.qualname == _GENERATE:
            continue  # no generator failed (a failing one makes the check a whole one)
        if source.qualname == _GENERATED:
            found += findings_of_generation(project, generation, digests)
        elif source.qualname == _DRAFTS:
            found += draft_findings_with(project, context_hash, qname)
        else:
            merged = {tuple(f) for unit in units for f in unit["findings"].get(source.qualname, ())}
            found += [Finding(*f) for f in sorted(merged, key=_order)]
    return Verdict(tuple(found), tuple(sorted({n for unit in units for n in unit["notes"]})))


def _order(raw: tuple[Any, ...] | list[Any]) -> tuple[Any, ...]:
    return Finding(*raw)._order()


def _composed_generation(project: Project, parts: Parts, payloads: list[Path], generators: Any) -> Generation | None:
    """The generation of the whole model, assembled from its parts (None when assembling fails:
    only the whole model can say then)."""
    from seams.errors import GeneratorError
    from seams.generators.generate import placed_generation, protected_paths
    from seams.generators.registry import Outcome

    outcomes = []
    try:
        for name in generators.names:
            outcomes.append(Outcome(name, {path: generators.assemble(name, path, {k: t.encode("utf-8")
                                                                                 for k, t in found.items()})
                                           for path, found in sorted(parts.get(name, {}).items())}))
    except GeneratorError:
        return None
    return placed_generation(project, outcomes, protected_paths(project, project.model_path, payloads))


def _take(parts: Parts, taken: Parts) -> None:
    """Take ``taken`` out of ``parts`` (each taken part must be there, as it is: else _Unsure)."""
    for name, paths in taken.items():
        for path, found in paths.items():
            into = parts.get(name, {}).get(path)
            for key, text in found.items():
                if into is None or into.get(key) != text:
                    raise _Unsure  # the whole model's parts are not what its components give
                del into[key]


def _put(parts: Parts, added: Parts) -> None:
    """Put ``added`` into ``parts`` (a key both hold: two components give one part: _Unsure). A
    path is kept with no parts: the generator writes it all the same (decisions.py without decisions)."""
    for name, paths in added.items():
        for path, found in paths.items():
            into = parts.setdefault(name, {}).setdefault(path, {})
            for key, text in found.items():
                if key in into:
                    raise _Unsure
                into[key] = text


# --- re-checking after an edit -----------------------------------------------------------------

def recheck(project: Project, pack: StatementPack, prepare: Callable[[Path], None],
            digests: dict[str, str] | None = None) -> Verdict | None:
    """The verdict of a check of the project as it is now, re-checking only the components an
    edit touched; None when the record cannot say for sure (the caller checks the whole model,
    which keeps a new record). ``digests``: files' ``<size>:<sha256>`` as the check cache's
    key just read them (seams.project.check_cache.check_key), so payloads are not hashed twice."""
    record = _read(project)
    if record is None or record.get("settings") != settings_digest(project):
        return None
    try:
        return _Recheck(project, pack, record, digests or {}).run(prepare)
    except (_Unsure, KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None


class _Recheck:
    """One re-check: the document split, what changed since the record, the units re-derived."""

    def __init__(self, project: Project, pack: StatementPack, record: dict[str, Any], digests: dict[str, str]):
        from seams.model.statement_cache import KeptStatements, layout_of, split_after_edit, split_statements

        self.project, self.record, self.digests = project, record, digests
        self.data = project.model_path.read_bytes()
        source, base = project.relative(project.model_path), project.config.base
        before = _read_layout(project)
        layout = split_after_edit(self.data, before, source=source, base=base) if before is not None else None
        if layout is None:
            split = split_statements(self.data, source=source, base=base)
            if split is None:
                raise _Unsure
            layout = layout_of(*split)
        self.layout = layout
        self.document, self.pieces = layout.document, list(layout.pieces)
        self.units: list[dict[str, Any]] = list(record["units"])
        self.shared: list[str] = list(record["shared"])
        self.graphs = frozenset(record["graphs"])
        self.conforming: set[str] = {k for k in record.get("conforming", ()) if isinstance(k, str)}
        self.kept = KeptStatements(pack, len(self.data))
        self.generators = _generators(project)

    def run(self, prepare: Callable[[Path], None]) -> Verdict | None:
        from seams.model.statement_cache import parse_statements

        now = Counter(p.key for p in self.pieces)
        before = Counter(self.shared) + Counter(k for u in self.units for k in u["statements"])
        shared = set(self.shared)
        if Counter({k: n for k, n in now.items() if k in shared}) != Counter(self.shared):
            return None  # a shared statement changed: every component reads it
        added = [p for p in self.pieces if p.key not in before]
        fresh = parse_statements(self.document, added, self.project.config.base)
        if fresh is None:
            return None
        self.fresh: dict[str, list[Any]] = fresh
        touched = self._touched(before - now, added)
        for _ in range(len(self.units) + 1):  # each round draws in at least one more unit, or ends
            units, drawn, new_parts, payloads = self._rederive(touched)
            if not drawn - touched:
                break
            touched |= drawn
        else:
            return None
        parts: Parts = self.record["parts"]  # read for this re-check alone: changed in place
        for number in sorted(touched):
            _take(parts, self._old_parts(self.units[number]))
        _put(parts, new_parts)
        qname = self._model([]).qname  # the whole model's short names (its prefixes)
        composed = _verdict(self.project, qname, units, parts, self.generators, self.digests)
        if composed is None:
            return None
        _keep_payloads(self.project, payloads, prepare)
        _write(self.project, {**self.record, "units": units, "parts": parts,
                              "conforming": sorted(self.conforming)}, prepare)
        _write_layout(self.project, self.layout, prepare)
        self.kept.keep([p.key for p in self.pieces], self.fresh)
        return composed

    def _old_parts(self, unit: dict[str, Any]) -> Parts:
        """What the generators gave for a unit as the record keeps it (its statements from the
        pack as it was, its payloads as they were, from the payload store)."""
        from seams.model.payloads import PayloadFile, parse_xml

        quads = []
        for key in [*self.shared, *unit["statements"]]:
            found = self.kept.quads(key)
            if found is None:
                raise _Unsure
            quads.append(found)
        model = self._model(quads)
        model_dir = self.project.model_path.parent.resolve()
        for iri, payload in unit["payloads"].items():
            data = _kept_payload(self.project, payload["sha256"])
            if data is None:
                raise _Unsure
            model.payloads[URIRef(iri)] = PayloadFile(
                iri=URIRef(iri), relpath=payload["path"], path=(model_dir / payload["path"]).resolve(),
                format=payload["format"], data=data, tree=parse_xml(data, source=payload["path"]))
        return _parts(self.project, model, self.generators)

    def _touched(self, removed: Counter, added: Sequence[Any]) -> set[int]:
        """The units an edit touched: those that lost a statement, those a new statement links
        to (IRIs, keys, payload names) and those whose payload bytes changed."""
        owner = {key: number for number, unit in enumerate(self.units) for key in unit["statements"]}
        touched = {owner[key] for key in removed}
        iris: set[str] = set()
        keys: set[str] = set()
        names: set[str] = set()
        for piece in added:
            quads = self.fresh[piece.key]
            facts = statement_facts(quads, self.graphs)
            if not facts.iris or any(str(g) not in self.graphs for g, *_ in quads):
                raise _Unsure  # a new shared statement or a new graph: the whole model
            iris |= facts.iris
            keys |= facts.keys
            names |= facts.stands_for
        if iris or keys or names:
            for number, unit in enumerate(self.units):
                if any(i in iris for i in unit["iris"]) or any(k in keys for k in unit["keys"]) \
                        or any(n in names for n in unit["stands_for"]) \
                        or any(n in names for p in unit["payloads"].values() for n in p["declared"] + p["referred"]):
                    touched.add(number)
        model_dir = self.project.model_path.parent
        for number, unit in enumerate(self.units):
            if any(self._sha256(model_dir, p["path"]) != p["sha256"] for p in unit["payloads"].values()):
                touched.add(number)
        return touched

    def _sha256(self, model_dir: Path, relpath: str) -> str | None:
        """A payload's sha256: as the check cache's key read it (by its path as text: a
        re-check looks up every payload), else read now."""
        from seams.project.check_cache import size_and_sha256

        known = size_and_sha256(self.digests.get(os.path.join(model_dir, relpath)))
        return known[1] if known is not None else _sha256(model_dir / relpath, self.project)

    def _rederive(self, touched: set[int]) -> tuple[list[dict[str, Any]], set[int], Parts, list[Any]]:
        """Every unit after re-checking the ``touched`` ones (split again), and the units a name
        draws in: one reading a name a re-checked unit gives (or gave), or giving one it reads."""
        from seams.model.loading import read_payload

        old = Counter(self.shared) + Counter(k for u in self.units for k in u["statements"])
        again = Counter(k for n in touched for k in self.units[n]["statements"])
        chosen = [i for i, p in enumerate(self.pieces) if p.key in again or p.key not in old]
        shared_at = [i for i, p in enumerate(self.pieces) if p.key in set(self.shared)]
        quads: dict[int, list[Any]] = {}
        for index in sorted({*chosen, *shared_at}):
            key = self.pieces[index].key
            found = self.fresh.get(key) if key in self.fresh else self.kept.quads(key)
            if found is None:
                raise _Unsure
            quads[index] = found
        whole = self._model([quads[i] for i in sorted({*chosen, *shared_at})])
        payloads = {}
        model_dir = self.project.model_path.parent.resolve()
        display = self.project.relative(self.project.model_path)
        for iri in sorted({s for s in whole.dataset.subjects(V.RDF.type, V.Payload) if isinstance(s, URIRef)}):
            payloads[iri] = read_payload(whole.dataset, iri, model_dir, display, self.project)
        whole.payloads = payloads
        names = {str(iri): payload_names(p.tree) for iri, p in payloads.items()}
        facts = {i: statement_facts(quads[i], self.graphs) for i in chosen}
        reads: dict[str, set[str]] = {}
        new_units: list[dict[str, Any]] = []
        new_parts: Parts = {}
        for _ in range(len(chosen) + 1):  # split again until no unit reads a name another gives
            split = partition([facts[i] for i in chosen], {i: i for i in names}, names,
                              {iri: sorted(found) for iri, found in reads.items()})
            new_units, reads_now, new_parts = [], {}, {}
            for component in split.components:
                members = [chosen[i] for i in component.statements]
                unit = _facts(whole, [self.pieces[i].key for i in members], [facts[i] for i in members],
                              {iri: payloads[URIRef(iri)] for iri in component.payloads}, names)
                sub = submodel(self.project, whole, [quads[i] for i in sorted({*members, *shared_at})],
                               component.payloads)
                _put(new_parts, _checked(self.project, sub, unit, self.generators, self.conforming))
                new_units.append(unit.as_json())
                if unit.reads and unit.iris:
                    reads_now[unit.iris[0]] = set(unit.reads)
            gives = [set(u["gives"]) for u in new_units]
            crossing = any(set(u["reads"]) & gives[j] for i, u in enumerate(new_units)
                           for j in range(len(new_units)) if j != i)
            if not crossing:
                break
            reads = {**reads, **reads_now}
        else:
            raise _Unsure
        drawn = set(touched)
        gave = {n for t in touched for n in self.units[t]["gives"]} | {n for u in new_units for n in u["gives"]}
        read = {n for u in new_units for n in u["reads"]}
        for number, kept in enumerate(self.units):
            if number not in touched and (set(kept["gives"]) & read or set(kept["reads"]) & gave):
                drawn.add(number)
        everything = [u for n, u in enumerate(self.units) if n not in touched] + new_units
        first = {p.key: i for i, p in reversed(list(enumerate(self.pieces)))}
        everything.sort(key=lambda u: first.get(u["statements"][0], -1) if u["statements"] else -1)
        return everything, drawn, new_parts, list(payloads.values())

    def _model(self, quads: Sequence[Sequence[Any]]) -> Model:
        """A model of some statements (made as the whole parse makes it), its payloads read after."""
        from seams.model.loading import Model
        from seams.model.trig_parse import model_dataset, quiet_parse

        dataset = model_dataset()
        _add(dataset, quads)
        directives = "\n".join(self.document.text[d.offset:d.end] for d in self.document.directives)
        quiet_parse(dataset, directives, self.project.config.base)
        return Model(self.project, self.project.model_path, self.data, dataset, {})


def _sha256(path: Path, project: Project) -> str | None:
    try:
        return hashlib.sha256(read_regular_file(path, max_bytes=project.config.payload_bytes)).hexdigest()
    except (OSError, LimitError):
        return None


# --- the record on disk -------------------------------------------------------------------------

def _write_layout(project: Project, layout: Any, prepare: Callable[[Path], None]) -> None:
    """Keep the TriG text a record was made from and where its statements lie (what the next
    re-check splits an edit of it from)."""
    from seams.model.statement_cache import layout_json

    directory = project.root / DIRECTORY
    try:
        prepare(directory)
        text = layout.text.encode("utf-8")
        atomic_write(directory / TEXT, text)
        kept = {**layout_json(layout), "sha256": hashlib.sha256(text).hexdigest()}
        atomic_write(directory / LAYOUT, cache_json.dumps(kept))
    except (SeamsError, OSError, ValueError):
        return


def _read_layout(project: Project) -> Any:
    from seams.model.statement_cache import layout_from_json

    directory = project.root / DIRECTORY
    try:
        raw = read_regular_file(directory / TEXT, max_bytes=MAX_RECORD_BYTES)
        data = cache_json.loads(read_regular_file(directory / LAYOUT, max_bytes=MAX_RECORD_BYTES))
        if not isinstance(data, dict) or data.get("sha256") != hashlib.sha256(raw).hexdigest():
            return None  # a text and a layout of two checks at once: not each other's
        return layout_from_json(raw.decode("utf-8"), data)
    except (OSError, LimitError, ValueError, AttributeError):
        return None


def _keep_payloads(project: Project, payloads: Iterable[Any], prepare: Callable[[Path], None]) -> None:
    """Keep each payload's bytes by their sha256 (what a re-check needs of a unit as it was)."""
    store = project.root / DIRECTORY / PAYLOADS
    try:
        prepare(store)
        for payload in payloads:
            path = store / hashlib.sha256(payload.data).hexdigest()
            if not path.is_file():
                atomic_write(path, payload.data)
    except (SeamsError, OSError):
        return


def _kept_payload(project: Project, sha256: str) -> bytes | None:
    if not isinstance(sha256, str) or len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
        return None
    try:
        data = read_regular_file(project.root / DIRECTORY / PAYLOADS / sha256,
                                 max_bytes=project.config.payload_bytes)
    except (OSError, LimitError):
        return None
    return data if hashlib.sha256(data).hexdigest() == sha256 else None

def _read(project: Project) -> dict[str, Any] | None:
    from seams.project.check_cache import tool_digest

    try:
        raw = read_regular_file(record_path(project), max_bytes=MAX_RECORD_BYTES)
        record = cache_json.loads(raw)
    except (OSError, LimitError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") != FORMAT or record.get("tool") != tool_digest():
        return None
    return record


def _write(project: Project, record: dict[str, Any] | None, prepare: Callable[[Path], None]) -> None:
    """Store the record whole (None: remove the one there, which no longer answers for the project)."""
    from seams.project.check_cache import tool_digest

    path = record_path(project)
    try:
        if record is None:
            if path.is_file():
                path.unlink()
            return
        prepare(path.parent)
        atomic_write(path, cache_json.dumps({**record, "tool": tool_digest()}, sort_keys=True))
        kept = {p["sha256"] for unit in record["units"] for p in unit["payloads"].values()}
        store = path.parent / PAYLOADS
        for old in store.iterdir() if store.is_dir() else ():
            if old.name not in kept:  # a payload as it was before the units now kept
                old.unlink()
    except (SeamsError, OSError, ValueError):
        return

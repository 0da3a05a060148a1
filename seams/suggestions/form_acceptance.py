"""Does every merged form accept and refuse exactly what it did? (the ``forms`` gate)

Shapes, decision checks and generation pass a merge that changes what a form
lets through: a merged shape on a class another shape already targets picks
up that shape's constraints too (SHACL applies every shape that targets a
node's class). So a ``merge-shapes`` suggestion is also run: for sample
records built at each constraint's boundaries, each old shape's verdict
(pyshacl, the model's whole shapes graph, the sample typed as the shape's
target class) is compared with the merged shape's verdict in the changed
model. Any sample accepted on one side and refused on the other is a finding
naming the shape and the sample.

Samples (one property varied at a time from a base record, as the routing
check varies the inputs of a condition at its literals): absent and
present; a value of another datatype; each ``sh:in`` value and one outside
the list; each numeric or date bound and the values one step either side;
(the base record takes, per property, a value its constraints likely accept:
the first listed value, the value just inside a bound, a string the
pattern matches, so a varied property is what a refusal is about);
strings one character shorter than, as long as and one longer than each
length bound; a few strings of the shapes a pattern tells apart; two values
when ``sh:maxCount`` is set.

The verdicts before the change are computed from the original model and
kept in the suggestion record (``forms_before``), since the changed model no
longer has the old shapes; ``seams suggest --accept`` computes them again
from the current model rather than trusting the record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from pyshacl import validate
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node
from rdflib.util import from_n3

from seams import vocab as V
from seams.errors import SeamsError
from seams.findings import Finding
from seams.model.loading import Model

KIND = "forms"
FORMS_BEFORE = "forms_before"
MAX_SAMPLES = 2000
"""Most sample records per shape; a form has a handful of fields with a few bounds each."""
MAX_FINDINGS = 10
_SAMPLE = "urn:seams:sample:"
_INTEGERS = {V.XSD.integer, V.XSD.int, V.XSD.long, V.XSD.short, V.XSD.nonNegativeInteger,
             V.XSD.positiveInteger, V.XSD.unsignedInt}
_NUMBERS = _INTEGERS | {V.XSD.decimal, V.XSD.double, V.XSD.float}
_BOUNDS = (V.SH.minInclusive, V.SH.maxInclusive, V.SH.minExclusive, V.SH.maxExclusive)
_PATTERN_PROBES = ("", "a", "Z", "abc", "a_1", "A b", "BK-1", "1", "x@y.z", "-")


Sample = tuple[tuple[URIRef, tuple[Literal, ...]], ...]
"""One record: each property path with its values (none: absent)."""


@dataclass(frozen=True)
class FormsResult:
    samples: int
    findings: list[Finding]


def samples_of(model: Model, shape: URIRef) -> list[Sample]:
    """The sample records for ``shape``'s property shapes (IRI paths), in a fixed order."""
    graph = model.union
    fields = []
    for prop in graph.objects(shape, V.SH.property):
        path = graph.value(prop, V.SH.path)
        if isinstance(path, URIRef):
            fields.append((path, _values(graph, prop)))
    fields.sort(key=lambda field: str(field[0]))
    base = {path: values[0] for path, values in fields}
    samples: list[Sample] = [_record(base)]
    for path, values in fields:
        for value in values[1:]:
            sample = _record({**base, path: value})
            if sample not in samples:
                samples.append(sample)
    return samples[:MAX_SAMPLES]


def _record(values: Mapping[URIRef, tuple[Literal, ...]]) -> Sample:
    return tuple(sorted(values.items(), key=lambda item: str(item[0])))


def _values(graph: Graph, prop: Node) -> list[tuple[Literal, ...]]:
    """The values one property takes across the samples; the first is the base record's."""
    datatype = graph.value(prop, V.SH.datatype)
    listed = _listed(graph, graph.value(prop, V.SH["in"]))
    singles: list[Literal] = list(listed)
    if isinstance(datatype, URIRef) and datatype in _NUMBERS:
        singles += _number_values(graph, prop, datatype)
    elif datatype == V.XSD.boolean:
        singles += [Literal(True), Literal(False)]
    elif datatype == V.XSD.date:
        singles += _date_values(graph, prop)
    else:
        singles += _string_values(graph, prop, datatype)
    if listed:
        singles.append(Literal("not-listed", datatype=datatype if isinstance(datatype, URIRef) else None))
    singles.append(Literal("not a value") if datatype not in (None, V.XSD.string) else Literal(7))
    unique = list(dict.fromkeys(singles))
    values: list[tuple[Literal, ...]] = [(value,) for value in unique]
    values.append(())  # absent
    if graph.value(prop, V.SH.maxCount) is not None and len(unique) > 1:
        values.append((unique[0], unique[1]))
    return values


def _listed(graph: Graph, head: Node | None) -> list[Literal]:
    found: list[Literal] = []
    while isinstance(head, BNode) and len(found) < 200:
        item = graph.value(head, V.RDF.first)
        if isinstance(item, Literal):
            found.append(item)
        head = graph.value(head, V.RDF.rest)
    return found


def _number_values(graph: Graph, prop: Node, datatype: URIRef) -> list[Literal]:
    integer = datatype in _INTEGERS
    step = Decimal(1) if integer else Decimal("0.5")
    found = []
    for predicate in _BOUNDS:
        bound = graph.value(prop, predicate)
        try:
            number = Decimal(str(bound)) if isinstance(bound, Literal) else None
        except ArithmeticError:
            number = None
        if number is not None and number.is_finite():
            inside = {V.SH.minExclusive: number + step, V.SH.maxExclusive: number - step}.get(predicate, number)
            found += [inside, number - step, number, number + step]
    found = found or [Decimal(0), Decimal(1)]
    found = list(dict.fromkeys(found))
    return [Literal(int(n) if integer else n, datatype=datatype) for n in found if not integer or n == int(n)]


def _date_values(graph: Graph, prop: Node) -> list[Literal]:
    found: list[date] = []
    for predicate in _BOUNDS:
        bound = graph.value(prop, predicate)
        value = bound.toPython() if isinstance(bound, Literal) else None
        if isinstance(value, date):
            found += [value, value - timedelta(days=1), value + timedelta(days=1)]
    return [Literal(d, datatype=V.XSD.date) for d in (found or [date(2026, 1, 1)])]


def _string_values(graph: Graph, prop: Node, datatype: Node | None) -> list[Literal]:
    typed = datatype if isinstance(datatype, URIRef) else None
    found = []
    for predicate in (V.SH.minLength, V.SH.maxLength):
        bound = graph.value(prop, predicate)
        length = bound.toPython() if isinstance(bound, Literal) else None
        if isinstance(length, int) and 0 <= length <= 10_000:
            found += ["a" * length, "a" * max(length - 1, 0), "a" * (length + 1)]
    pattern = graph.value(prop, V.SH.pattern)
    if pattern is not None:
        found += sorted(_PATTERN_PROBES, key=lambda probe: not _matches(str(pattern), probe))
    return [Literal(text, datatype=typed) for text in (found or ["a", ""])]


def _matches(pattern: str, text: str) -> bool:
    """Whether ``text`` matches a SHACL pattern as Python reads it: only to pick a base value the
    form likely accepts (the verdicts are pyshacl's)."""
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


def refused(model_graph: Graph, shapes: Graph, shape: URIRef, target: URIRef | None,
            samples: list[Sample]) -> set[int]:
    """Indices of the samples that ``shape`` (and every other shape targeting them) refuses."""
    data = Graph()
    for triple in model_graph.triples((None, V.RDFS.subClassOf, None)):
        data.add(triple)
    checking = Graph()
    for triple in shapes:
        checking.add(triple)
    for number, sample in enumerate(samples):
        node = URIRef(f"{_SAMPLE}{number}")
        checking.add((shape, V.SH.targetNode, node))
        if target is not None:
            data.add((node, V.RDF.type, target))
        for path, values in sample:
            for value in values:
                data.add((node, path, value))
    conforms, report, _ = validate(data, shacl_graph=checking, inference="none", advanced=False, js=False,
                                   meta_shacl=False, abort_on_first=False, allow_infos=True, allow_warnings=True)
    if conforms:
        return set()
    found = set()
    for focus in report.objects(None, V.SH.focusNode):
        text = str(focus)
        if text.startswith(_SAMPLE) and text[len(_SAMPLE):].isdigit():
            found.add(int(text[len(_SAMPLE):]))
    return found


def forms_before(model: Model, shapes: tuple[URIRef, ...]) -> list[dict[str, Any]]:
    """What the record keeps of each old shape: its samples and the ones it refused."""
    graph = model.dataset.graph(model.project.graphs["shapes"])
    kept = []
    for shape in shapes:
        samples = samples_of(model, shape)
        target = model.union.value(shape, V.SH.targetClass)
        no = refused(model.union, graph, shape, target if isinstance(target, URIRef) else None, samples)
        kept.append({"shape": str(shape), "samples": [_sample_json(s) for s in samples], "refused": sorted(no)})
    return kept


def _sample_json(sample: Sample) -> list[list[Any]]:
    return [[str(path), [value.n3() for value in values]] for path, values in sample]


def _sample_from_json(data: Any) -> Sample:
    if not isinstance(data, list):
        raise SeamsError(f"the suggestion record's {FORMS_BEFORE}: a sample is not a list")
    record: list[tuple[URIRef, tuple[Literal, ...]]] = []
    for entry in data:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                and isinstance(entry[1], list) and all(isinstance(v, str) for v in entry[1])):
            raise SeamsError(f"the suggestion record's {FORMS_BEFORE}: a sample value is not [path, [terms]]")
        values = []
        for text in entry[1]:
            value = from_n3(text)
            if not isinstance(value, Literal):
                raise SeamsError(f"the suggestion record's {FORMS_BEFORE}: a sample value is not a literal")
            values.append(value)
        record.append((URIRef(entry[0]), tuple(values)))
    return tuple(record)


def describe(model: Model, sample: Sample) -> str:
    """A sample as JSON keyed by variable name (or prefixed path); long strings shortened."""
    names = {v.iri: v.name for v in model.view.variables.values() if v.name}
    out: dict[str, Any] = {}
    for path, values in sample:
        shown = [_shown(value) for value in values]
        out[names.get(path) or model.qname(path)] = None if not shown else shown[0] if len(shown) == 1 else shown
    return json.dumps(out, ensure_ascii=False, default=str)


def _shown(value: Literal) -> Any:
    python = value.toPython()
    if isinstance(python, bool) or isinstance(python, int):
        return python
    text = str(value)
    return text if len(text) <= 24 else f"{text[:8]}... ({len(text)} characters)"


def forms_of_record(model: Model, record: Mapping[str, object]) -> FormsResult:
    """The forms gate of a pending merge-shapes suggestion, run in the model it changed."""
    suggestion = record.get("suggestion")
    before = record.get(FORMS_BEFORE)
    if not isinstance(suggestion, Mapping) or not isinstance(before, list):
        raise SeamsError(f"the suggestion record has no {FORMS_BEFORE}; run seams suggest again")
    shape_data, class_data = suggestion.get("shape"), suggestion.get("class")
    merged = shape_data.get("iri") if isinstance(shape_data, Mapping) else None
    cls = class_data.get("iri") if isinstance(class_data, Mapping) else None
    if not isinstance(merged, str) or not isinstance(cls, str):
        raise SeamsError("the suggestion record names no merged shape and class")
    shape = URIRef(merged)
    graph = model.dataset.graph(model.project.graphs["shapes"])
    if (shape, V.SH.property, None) not in graph:
        raise SeamsError(f"{model.qname(shape)}: not a shape with sh:property in the changed model")
    findings: list[Finding] = []
    total = 0
    for entry in before:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("shape"), str) \
                or not isinstance(entry.get("samples"), list) or not isinstance(entry.get("refused"), list):
            raise SeamsError(f"the suggestion record's {FORMS_BEFORE}: an entry is not shape, samples, refused")
        samples = [_sample_from_json(s) for s in entry["samples"]][:MAX_SAMPLES]
        total += len(samples)
        old_refused = {n for n in entry["refused"] if isinstance(n, int)}
        new_refused = refused(model.union, graph, shape, URIRef(cls), samples)
        old_name = model.qname(URIRef(entry["shape"]))
        for number in sorted(old_refused ^ new_refused):
            if len(findings) >= MAX_FINDINGS:
                break
            was, now = ("refused", "accepted") if number in old_refused else ("accepted", "refused")
            findings.append(Finding(KIND, old_name, None,
                                    f"{describe(model, samples[number])} was {was} before, {now} by "
                                    f"{model.qname(shape)} after"))
    return FormsResult(total, findings)

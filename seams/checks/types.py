"""The type of every variable, written once: datatype, value kind, DMN typeRefs, form rules.

A variable's ``seam:datatype`` (an xsd name) fixes the kind of value the
rule languages see (seams.lang.values) and the DMN ``typeRef`` names that may
stand for it; every form or data shape field whose ``sh:path`` is the
variable adds constraints. The pairs are read from the one datatype table,
``seams.lang.field_values.DATATYPES``; docs/model.md ("Types") shows it.

Values are judged with seams.lang.field_values, the functions the plugin's
contract item runs, so ``seams check`` and the acceptance items never
disagree about whether a value is valid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from rdflib import URIRef

from seams import vocab as V
from seams.lang.field_values import DATATYPES as TABLE
from seams.lang.field_values import constraint_problems, datatype_problem, handler_value, show
from seams.lang.values import BOOLEAN, DATE, NUMBER, STRING

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.view import Field

# xsd local name -> (value kind, DMN typeRefs that may stand for it), read from the one table
DATATYPES: dict[str, tuple[str, frozenset[str]]] = {
    name: (row["kind"], frozenset(row["type_refs"])) for name, row in TABLE.items()}
"""Each supported ``seam:datatype`` with its value kind and typeRefs (seams.lang.field_values.DATATYPES).

A typeRef is compared after dropping a ``feel:`` prefix and lower-casing it
(DMN 1.3 writes ``number``, Camunda 7 ``integer``/``long``/``double``)."""

MAX_SAMPLES = 4096
"""Most combinations of sample values a condition is evaluated on; beyond, it is not judged."""


def local_datatype(datatype: Any) -> str | None:
    """``xsd:decimal`` -> ``"decimal"``, ``rdf:JSON`` -> ``"JSON"``; another IRI as written; None for none."""
    if datatype is None:
        return None
    text, xsd = str(datatype), str(V.XSD)
    if text == str(V.RDF.JSON):
        return "JSON"
    return text[len(xsd):] if text.startswith(xsd) else text


def value_problems(value: Any, datatype: str | None, rules: tuple[dict, ...] = (),
                   shape_name: Callable[[Any], str] = str) -> list[tuple[str, str]]:
    """(predicate, message) for each way ``value`` is not of ``datatype`` and its fields' ``rules``:
    seams.lang.field_values' judgement, with two datatypes it leaves to this module:
    ``list:<datatype>`` (a variable with ``seam:list true``: a list, each item judged alone) and
    ``JSON`` (``rdf:JSON``: a JSON object)."""
    if datatype is not None and datatype.startswith("list:"):
        if not isinstance(value, (list, tuple)):
            return [("seam:datatype", f"{show(value)} is not a list")]
        item = datatype[5:]
        for each in value:
            wrong_item = value_problems(each, None if item == "any" else item, rules, shape_name)
            if wrong_item:
                return [(predicate, f"item {message}") for predicate, message in wrong_item]
        return []
    if datatype == "JSON":
        return [] if isinstance(value, dict) else [("seam:datatype", f"{show(value)} is not a JSON object")]
    wrong = datatype_problem(value, datatype)
    if wrong:
        return [("seam:datatype", wrong)]
    found: list[tuple[str, str]] = []
    for rule in rules:
        found += constraint_problems(value, {**rule, "shape": shape_name(rule["shape"])})
    return list(dict.fromkeys(found))


def variable_datatype(variable: Any) -> str | None:
    """A variable's datatype as values are judged by it: ``list:string`` for one that holds a list
    (``seam:list true``), else its local datatype (seams.lang.field_values.datatype_problem)."""
    if variable is None:
        return None
    datatype = local_datatype(variable.datatype)
    return f"list:{datatype or 'any'}" if getattr(variable, "many", False) else datatype


def type_ref_name(type_ref: str) -> str:
    """A DMN typeRef as the table compares it: no ``feel:`` prefix, lower case."""
    name = type_ref.strip()
    return (name[5:] if name.startswith("feel:") else name).lower()


def field_rule(model: Model, shape: Any, field: Field, shape_name: Any = None) -> dict:
    """One form field's constraints as plain data, keys in a fixed order (see seams.lang.field_values).

    ``shape_name`` replaces the shape's prefixed name (``variable_types`` keeps the IRI and
    names it only for a message)."""
    rule: dict[str, Any] = {"shape": shape_name if shape_name is not None else model.qname(shape)}
    if field.datatype is not None:
        rule["datatype"] = local_datatype(field.datatype)
    if field.in_values is not None:
        rule["in"] = tuple(str(v) if isinstance(v, str) else v for v in field.in_values)
    for key, value in (("minInclusive", field.min_inclusive), ("maxInclusive", field.max_inclusive),
                       ("minExclusive", field.min_exclusive), ("maxExclusive", field.max_exclusive),
                       ("pattern", field.pattern), ("minLength", field.min_length),
                       ("maxLength", field.max_length)):
        if value is not None:
            rule[key] = str(value) if isinstance(value, str) else value
    return rule


@dataclass(frozen=True)
class VariableType:
    """What a variable may hold: its datatype (xsd local name), kind and field rules."""

    iri: URIRef
    name: str | None
    datatype: str | None
    rules: tuple[dict, ...]
    shape_name: Callable[[Any], str] = field(default=str, compare=False, repr=False)
    """Names a rule's ``shape`` (kept as its IRI) for a message; qnames cost, so only on demand."""

    def item_type(self) -> VariableType:
        """The type of one item of a list variable (itself for any other)."""
        if not (self.datatype or "").startswith("list:"):
            return self
        item = (self.datatype or "")[5:]
        return VariableType(iri=self.iri, name=self.name, datatype=None if item == "any" else item,
                            rules=self.rules, shape_name=self.shape_name)

    @property
    def kind(self) -> str | None:
        """The value kind of the datatype, or None for a datatype the table does not know."""
        entry = DATATYPES.get(self.datatype or "")
        return entry[0] if entry else None

    def problems(self, value: Any) -> list[tuple[str, str]]:
        """(predicate, message) for each way ``value`` is not a value of this variable.

        A value not of the datatype gets that one problem: its fields' bounds
        and patterns would only repeat it in other words."""
        return value_problems(value, self.datatype, self.rules, self.shape_name)

    def allows(self, value: Any) -> bool:
        """``problems(value)`` is empty; memoized by the domain, as most values repeat."""
        try:
            return _allows(self.domain_key, value_key(value))
        except TypeError:  # an unhashable value (a JSON list or object)
            return not self.problems(value)

    @cached_property
    def domain_key(self) -> tuple:
        """The datatype and rules without the shapes' names: what decides which values are allowed.

        Domain questions are memoized by this key, so variables constrained
        alike (a process copied many times, one field reused) are reasoned
        about once per run."""
        return (self.datatype, tuple(tuple((k, value_key(v)) for k, v in rule.items() if k != "shape")
                                     for rule in self.rules))

    def finite_domain(self) -> tuple[Any, ...] | None:
        """Every value the variable may hold, when that is a short list (booleans, sh:in)."""
        return _finite_domain(self.domain_key)

    def samples(self, literals: list[Any]) -> list[Any] | None:
        """Values of the variable's domain that tell apart every answer of a test whose literals
        are ``literals``; None when the domain is not known well enough (no datatype)."""
        found = _samples(self.domain_key, tuple(value_key(v) for v in literals))
        return list(found) if found is not None else None


def value_key(value: Any) -> Any:
    """A hashable key that keeps ``True``, ``1`` and ``Decimal(1)`` apart (they hash alike)."""
    if isinstance(value, (tuple, list)):
        return ("tuple", tuple(value_key(v) for v in value))
    return (type(value).__name__, value)


def key_value(key: Any) -> Any:
    kind, value = key
    return tuple(key_value(v) for v in value) if kind == "tuple" else value


_NO_IRI = URIRef("urn:seams:domain")


def from_domain_key(domain_key: tuple) -> VariableType:
    """A nameless variable type of this domain (for memoized reasoning about values only)."""
    datatype, rules = domain_key
    return VariableType(iri=_NO_IRI, name=None, datatype=datatype,
                        rules=tuple({"shape": "", **{k: key_value(v) for k, v in rule}} for rule in rules))


@lru_cache(maxsize=8192)
def _allows(domain_key: tuple, value_key: tuple) -> bool:
    return not from_domain_key(domain_key).problems(value_key[1])


@lru_cache(maxsize=1024)
def _finite_domain(domain_key: tuple) -> tuple[Any, ...] | None:
    vtype = from_domain_key(domain_key)
    if vtype.kind == BOOLEAN:
        return (False, True)
    for rule in vtype.rules:
        if "in" in rule:
            return tuple(runtime_value(v, vtype.datatype) for v in rule["in"] if not vtype.problems(v))
    return None


@lru_cache(maxsize=4096)
def _samples(domain_key: tuple, literal_keys: tuple) -> tuple[Any, ...] | None:
    finite = _finite_domain(domain_key)
    if finite is not None:
        return finite
    vtype = from_domain_key(domain_key)
    kind, datatype = vtype.kind, vtype.datatype
    if kind is None:
        return None
    points = [v for v in map(key_value, literal_keys) if _kind_fits(v, kind)]
    for rule in vtype.rules:
        points += [rule[k] for k in BOUNDS if k in rule and _kind_fits(runtime_value(rule[k], datatype), kind)]
    candidates = _around([runtime_value(p, datatype) for p in points], kind, datatype)
    return tuple(key[1] for key in dict.fromkeys(value_key(c) for c in candidates) if not vtype.problems(key[1]))


def _kind_fits(value: Any, kind: str) -> bool:
    from seams.lang.values import kind_of

    return kind_of(value) == kind


def _around(points: list[Any], kind: str, datatype: str | None) -> list[Any]:
    """Each point, a value just below and just above it, and a default when there is none."""
    if kind == NUMBER:
        numbers = [n for n in (Decimal(str(p)) for p in points) if n.is_finite()] or [Decimal(0)]
        if datatype == "integer":
            return [int(v) for p in numbers for v in (p.to_integral_value(rounding=ROUND_FLOOR) - 1,
                                                       p.to_integral_value(rounding=ROUND_FLOOR),
                                                       p.to_integral_value(rounding=ROUND_CEILING),
                                                       p.to_integral_value(rounding=ROUND_CEILING) + 1)]
        step = Decimal("0.001")
        return [v for p in numbers for v in (p - step, p, p + step)]
    if kind == DATE:
        days = [p for p in points if type(p) is date]
        return [d for p in days for d in _day_neighbours(p)] or [date(2000, 1, 1)]
    if kind == STRING:
        return [*points, *(p + "\0" for p in points), "", "seams-sample"]
    return list(points)


def _day_neighbours(day: date) -> list[date]:
    out = [day]
    if day > date.min:
        out.append(day - timedelta(days=1))
    if day < date.max:
        out.append(day + timedelta(days=1))
    return out


def runtime_value(value: Any, datatype: str | None) -> Any:
    """A JSON or RDF value as the process holds it and a handler is given it (one type per
    datatype: seams.lang.field_values.handler_value)."""
    return handler_value(value, datatype)


def variable_types(model: Model) -> dict[URIRef, VariableType]:
    """Every variable's type, with the rules of every shape field on it (built once per check).

    A field that contradicts its variable's datatype (its ``sh:datatype``, or a
    bound of another kind) is left out: seams.checks.field_types reports the
    field once, instead of every example and table cell reporting it again."""
    cached = _TYPES.get(model)
    if cached is not None:
        return cached
    view = model.view
    rules: dict[URIRef, list[dict]] = {}
    for form in view.forms.values():
        for each in form.fields:
            if each.path is not None:
                rules.setdefault(each.path, []).append(field_rule(model, form.iri, each, form.iri))
    out = {}
    for iri, variable in view.variables.items():
        datatype = variable_datatype(variable)
        kept = tuple(rule for rule in rules.get(iri, ())
                     if not rule_contradicts(rule, local_datatype(variable.datatype)))
        out[iri] = VariableType(iri=iri, name=variable.name, datatype=datatype, rules=kept,
                                shape_name=model.qname)
    _TYPES[model] = out
    return out


_TYPES: WeakKeyDictionary = WeakKeyDictionary()
"""Each loaded model's variable types, built once for all the checks that read them."""


BOUNDS = ("minInclusive", "maxInclusive", "minExclusive", "maxExclusive")


def rule_contradicts(rule: dict, datatype: str | None) -> str | None:
    """Why a field's rule cannot hold for a variable of ``datatype`` (None if it can): another
    ``sh:datatype``, or a bound of another kind than the datatype's values."""
    if datatype not in DATATYPES:
        return None
    if rule.get("datatype") not in (None, datatype):
        return f"sh:datatype xsd:{rule['datatype']}"
    kind = DATATYPES[datatype][0]
    for key in BOUNDS:
        if key in rule and (kind not in (NUMBER, DATE, STRING)
                            or not _kind_fits(runtime_value(rule[key], datatype), kind)):
            return f"sh:{key}"
    return None


def describe_type(vtype: VariableType) -> str:
    """``ex:days (xsd:integer)`` for messages."""
    return f"xsd:{vtype.datatype}" if vtype.datatype else "no seam:datatype"


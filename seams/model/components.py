"""The model split into components that can be checked apart (docs/performance.md, "Re-checking a component").

A re-check after a one-line edit should cost what the edit touched, not a
whole check (issue 29). Every gate reads a subject together with what it
names: a task with its process, variables, form and payload; a decision
with its table. So the model is split where nothing is named across:

* a TriG statement *links* through every IRI it mentions that is neither
  vocabulary (``seam:``, ``dec:``, ``sh:``, gist and the W3C namespaces,
  :data:`VOCABULARY`) nor a graph name; statements that share such an IRI
  are in one component, and so are the payload files their ``seam:Payload``
  subjects name;
* a statement that mentions no linking IRI at all (a statement about the
  vocabulary itself, or about a named graph) is *shared*: every component's
  sub-model holds it, and a change to one re-checks everything;
* a few literals are keys the checks compare across the model: statements
  giving the same ``seam:handler`` (case aside: a worker's job type) or the
  same ``seam:path`` are linked; a ``seam:payloadElement`` or
  ``dec:payloadElement`` links its statement with the payloads declaring or
  naming that process or decision id; a handler links with the payloads
  whose job type (``zeebe:taskDefinition type``, ``camunda:topic``) it is;
* a name a process reads of the model by name alone (no variable of its own
  has it: seams.model.view.View.wide_names, kept by the checks as they
  run) links the process with every statement giving a ``seam:name`` of
  that name;
* payload files link through the names one declares and another refers to
  (:func:`payload_names`): a call activity's ``calledElement`` and the
  process of that id, a business rule task's ``decisionRef`` and the
  decision, a DMN import and the definitions of that namespace, a message,
  signal, error or escalation thrown in one and caught in another; two
  payloads declaring the same id are linked too (a clash is a finding of
  both; DMN namespaces aside, which modelers give every file alike), and a
  reference the engine computes at run time (``${...}``, ``=...``) links its
  payload to every other.

The partition only decides what may be re-checked alone; whether a gate's
findings on the whole model are the union of its findings on the
components is what ``tests/test_incremental_check.py`` holds for random edits.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lxml import etree
from rdflib import Literal, URIRef

from seams import vocab as V

VOCABULARY: tuple[str, ...] = (
    "https://w3id.org/seams/",
    "https://w3id.org/semanticarts/ns/ontology/gist/",
    "http://www.w3.org/",  # rdf, rdfs, owl, xsd, shacl, skos, prov, time, ...
    "http://purl.org/dc/",
    "http://xmlns.com/foaf/",
    "https://schema.org/",
    "http://schema.org/",
)
"""IRIs under these are vocabulary: a class or property every component may use links none of them."""

_DECLARING = {  # element local name -> attributes whose values other payloads may refer to
    "process": ("id",), "decision": ("id",), "businessKnowledgeModel": ("id",), "decisionService": ("id",),
    "inputData": ("id",), "definitions": ("namespace",), "message": ("name", "id"), "signal": ("name", "id"),
    "error": ("errorCode", "id"), "escalation": ("escalationCode", "id"),
    "taskDefinition": ("type",),
}
_KEYED = frozenset((V.handler, V.path, V.payloadElement, V.dec_payloadElement, V.name))
_JOB = "jobtype"  # a job type or external task topic: a worker's key, compared without case
_REFERRING = ("calledElement", "processId", "decisionRef", "decisionId", "namespace", "messageRef",
              "signalRef", "errorRef", "escalationRef", "href", "errorCode", "escalationCode")
_COMPUTED = ("${", "#{", "=")


@dataclass(frozen=True)
class PayloadNames:
    """What one payload file declares that others may name, what it names, and whether it names
    something only the engine knows (a computed reference: it may be any payload's)."""

    declared: frozenset[str]
    referred: frozenset[str]
    computed: bool


@dataclass(frozen=True)
class Component:
    """One component: its statements (indexes into the document's statements, in order) and
    the IRIs of the payloads they name."""

    statements: tuple[int, ...]
    payloads: tuple[str, ...]


@dataclass(frozen=True)
class Partition:
    shared: tuple[int, ...]
    components: tuple[Component, ...]


def linking_iris(quads: Iterable[tuple[Any, Any, Any, Any]], graphs: frozenset[str]) -> set[str]:
    """The IRIs a statement links through: in subject, predicate or object, neither vocabulary nor a graph name."""
    terms = {term for _, s, p, o in quads for term in (s, p, o)}
    return {str(term) for term in terms if isinstance(term, URIRef) and term not in graphs
            and not str.startswith(term, VOCABULARY)}  # rdflib's own startswith takes no tuple


@dataclass(frozen=True)
class StatementFacts:
    """What links one statement: its IRIs (none: a shared statement) and literal keys
    (:func:`statement_keys`)."""

    iris: frozenset[str]
    keys: frozenset[str]
    stands_for: frozenset[str]
    gives: frozenset[str]


def statement_facts(quads: Sequence[tuple[Any, Any, Any, Any]], graphs: frozenset[str]) -> StatementFacts:
    keys, stands, gives = statement_keys(quads)
    return StatementFacts(frozenset(linking_iris(quads, graphs)), frozenset(keys), frozenset(stands),
                          frozenset(gives))


def payload_names(tree: etree._ElementTree) -> PayloadNames:
    """The names a BPMN or DMN document declares and refers to (see the module's docstring)."""
    declared: set[str] = set()
    referred: set[str] = set()
    computed = False
    for element in tree.getroot().iter(etree.Element):
        local = etree.QName(element).localname
        for attribute, value in element.attrib.items():
            name = etree.QName(attribute).localname
            if name in _DECLARING.get(local, ()):
                declared.add(f"{_JOB}:{value.strip().lower()}" if local == "taskDefinition" else f"{local}:{value}")
            if name == "topic" and value.strip():  # camunda:topic of an external task
                declared.add(f"{_JOB}:{value.strip().lower()}")
            if name in _REFERRING and (name != "namespace" or local == "import"):
                referred.update(_referred_forms(name, value))
                if name in ("calledElement", "processId", "decisionRef", "decisionId") and (
                        value.strip().startswith(_COMPUTED) or "${" in value or "#{" in value):
                    computed = True
        if local in ("messageRef", "signalRef", "errorRef", "calledElement") and element.text:
            referred.update(_referred_forms(local, element.text.strip()))
    return PayloadNames(frozenset(declared), frozenset(referred), computed)


def _referred_forms(attribute: str, value: str) -> set[str]:
    """A reference in every declared form it may match: ids and names of any declaring kind
    (a ``messageRef`` names a message's id, ``decisionRef`` a decision's id, an ``href`` a
    ``#id`` or ``namespace#id``, a ``namespace`` a definitions' namespace)."""
    text = value.strip()
    candidates = {text}
    if "#" in text:
        before, _, after = text.rpartition("#")
        candidates |= {after, before}
    return {f"{local}:{candidate}" for candidate in candidates if candidate for local in _DECLARING}


def statement_keys(quads: Iterable[tuple[Any, Any, Any, Any]]) -> tuple[set[str], set[str], set[str]]:
    """A statement's literal keys: those that link statements (handler, path), the payload
    names it stands for (a process or decision id, a job type), and the variable names it gives."""
    linking: set[str] = set()
    payload_names_: set[str] = set()
    declared: set[str] = set()
    for _, _, predicate, value in quads:
        if predicate not in _KEYED or not isinstance(value, Literal):
            continue
        text = str(value).strip()
        if predicate == V.handler:
            linking.add(f"handler:{text.lower()}")
            payload_names_.add(f"{_JOB}:{text.lower()}")
        elif predicate == V.path:
            linking.add(f"path:{posixpath.normpath(text)}")
        elif predicate == V.payloadElement or predicate == V.dec_payloadElement:
            payload_names_.update(_referred_forms("payloadElement", text))
        elif predicate == V.name:
            declared.add(text)
    return linking, payload_names_, declared


def partition(statements: Sequence[StatementFacts], payload_of: Mapping[str, str],
              names: Mapping[str, PayloadNames], reads_by_name: Mapping[str, Iterable[str]] | None = None) -> Partition:
    """Split the statements (each its :func:`statement_facts`, in document order) into components.

    ``payload_of``: payload IRI -> the IRI it is named by in the statements (itself); ``names``:
    payload IRI -> what its file declares and refers to; ``reads_by_name``: process IRI -> the
    names it reads of the model by name alone (View.wide_names)."""
    parent: dict[Any, Any] = {}

    def find(node: Any) -> Any:
        root = node
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(node, node) != root:
            parent[node], node = root, parent[node]
        return root

    def union(a: Any, b: Any) -> None:  # which root stays does not matter: components are sets
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra

    shared: list[int] = []
    linked: list[int] = []
    standing: dict[str, list[Any]] = {}  # a payload name -> the statements standing for it
    giving: dict[str, list[Any]] = {}  # a variable name -> the statements giving it
    for index, facts in enumerate(statements):
        node: tuple[str, Any] = ("statement", index)
        if not facts.iris:
            shared.append(index)
            continue
        linked.append(index)
        parent.setdefault(node, node)
        for each in [*(("iri", iri) for iri in facts.iris), *(("key", key) for key in facts.keys)]:
            parent.setdefault(each, each)
            union(node, each)
        for name in facts.stands_for:
            standing.setdefault(name, []).append(node)
        for name in facts.gives:
            giving.setdefault(name, []).append(node)
    _link_payloads(names, union, parent)
    for iri, found in sorted(names.items()):
        for name in sorted(found.declared | found.referred):
            for node in standing.get(name, ()):
                union(("iri", iri), node)
    for process, read in sorted((reads_by_name or {}).items()):
        if ("iri", process) in parent:
            for name in sorted(set(read)):
                for node in giving.get(name, ()):
                    union(("iri", process), node)
    groups: dict[Any, list[int]] = {}
    for index in linked:
        groups.setdefault(find(("statement", index)), []).append(index)
    payloads_in: dict[Any, list[str]] = {}
    for iri in sorted(payload_of):
        if ("iri", iri) in parent:
            payloads_in.setdefault(find(("iri", iri)), []).append(iri)
    components = tuple(Component(tuple(members), tuple(payloads_in.get(root, ())))
                       for root, members in sorted(groups.items(), key=lambda item: item[1][0]))
    return Partition(tuple(shared), components)


def _shared_names(declared: frozenset[str]) -> set[str]:
    """Names many payloads declare alike without clashing: a DMN definitions' namespace (modelers
    give every new file the same one); only an import of it links."""
    return {name for name in declared if name.startswith("definitions:")}


def _link_payloads(names: Mapping[str, PayloadNames], union: Any, parent: dict[Any, Any]) -> None:
    """Join the payloads (by their IRIs' nodes) that name one another or clash."""
    owners: dict[str, list[str]] = {}
    for iri, found in names.items():
        for name in found.declared:
            owners.setdefault(name, []).append(iri)
    everyone = sorted(names)
    for iri in everyone:
        parent.setdefault(("iri", iri), ("iri", iri))
    for iri, found in sorted(names.items()):
        if found.computed:
            for other in everyone:
                union(("iri", iri), ("iri", other))
            continue
        for name in found.referred | (found.declared - _shared_names(found.declared)):
            for other in owners.get(name, ()):
                union(("iri", iri), ("iri", other))

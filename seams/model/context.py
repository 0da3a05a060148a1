"""The context (docs/architecture.md, D-handler-contract): the facts a service task's body depends on, and their hash.

The context hash decides when a draft must be looked at again (``draft-stale``)
and keys the provider cache, so it must move with every fact the body could
depend on and with nothing else. The manifest is therefore built from graph
facts, not TriG text (layout and triple order cannot move it), with lists
sorted wherever their order carries no meaning, and the task's BPMN element
canonicalized (exclusive C14N, whitespace-only text dropped) so a modeler
re-saving the file with other indentation or attribute order changes nothing.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from lxml import etree
from rdflib import URIRef

from seams import vocab as V
from seams.errors import ResolutionError
from seams.model.view import Field, JsonError, Parameter

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.model.view import Task, View

# sh: constraints of a form field, as manifest keys (Field attribute -> sh: name)
_CONSTRAINTS = {
    "datatype": "datatype", "min_count": "minCount", "max_count": "maxCount", "in_values": "in",
    "min_inclusive": "minInclusive", "max_inclusive": "maxInclusive",
    "min_exclusive": "minExclusive", "max_exclusive": "maxExclusive",
    "pattern": "pattern", "min_length": "minLength", "max_length": "maxLength",
}


@dataclass(frozen=True)
class Context:
    manifest: dict
    hash: str


def canonical_json(value: Any) -> str:
    """The one JSON spelling of a value: sorted keys, no spaces, non-ASCII kept."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def context_for(model: Model, task: Task | URIRef | str) -> Context:
    """The manifest of a service task (a Task or its IRI) and the sha256 of its canonical JSON."""
    view = model.view
    iri = URIRef(str(getattr(task, "iri", task)))
    found = view.tasks.get(iri)
    if found is None or found.kind != V.ServiceTask:
        raise ResolutionError(f"{model.qname(iri)}: not a service task of the model")
    process = view.processes.get(found.process) if found.process is not None else None
    manifest = {
        "task": str(found.iri),
        "label": found.label,
        "comment": found.comment,
        "process": process.label if process else None,
        "handler": found.handler,
        "reads": variable_facts(view, found.reads),
        "writes": variable_facts(view, found.writes),
        "bindings": _bindings(view, found),
        "examples": _sorted_json([_example(e) for e in found.examples], by="label"),
        "bpmn": _bpmn_fragment(model, found),
    }
    if found.assumes:  # only when stated, so the hash of every task that states none is unchanged
        manifest["assumes"] = list(found.assumes)
    if found.raises:
        manifest["raises"] = list(found.raises)
    digest = hashlib.sha256(canonical_json(manifest).encode("utf-8")).hexdigest()
    return Context(manifest=manifest, hash=digest)


def _sorted_json(items: list, by: str | None = None) -> list:
    """Items in one order whatever the graph's: by ``by`` (a name, for people), then by JSON."""
    return sorted(items, key=lambda item: (str(item.get(by) or "") if by else "", canonical_json(item)))


def _plain(value: Any) -> Any:
    """A JSON value for a constraint value; Decimals that are whole become ints."""
    if isinstance(value, URIRef):
        return str(value)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return _sorted_json([_plain(v) for v in value])
    return value


def _constraints(field: Field) -> dict:
    found = {}
    for attr, key in _CONSTRAINTS.items():
        value = getattr(field, attr)
        if value is not None:
            found[key] = _plain(value)
    return found


def variable_facts(view: View, iris: tuple[URIRef, ...]) -> list[dict]:
    """Name, label, datatype and the constraints of every form field on each variable,
    sorted by name: a task's reads and writes here, and the variables the suggest prompt shows."""
    out = []
    for iri in iris:
        var = view.variables.get(iri)
        fields = view.fields_on(iri)
        out.append({
            "name": var.name if var else None,
            "label": var.label if var else None,
            "datatype": str(var.datatype) if var and var.datatype is not None else None,
            "constraints": _sorted_json([_constraints(f) for f in fields]),
        })
    return _sorted_json(out, by="name")


def _bindings(view: View, task: Task) -> list[dict]:
    """Name, label, comment and the declared signature: a binding has no value to leak.
    The signature keys are there only when the model declares them, so the context of a
    binding without one (and the hash of every draft written before signatures) is unchanged."""
    out = []
    for iri in task.uses:
        binding = view.bindings.get(iri)
        facts: dict[str, Any] = {
            "name": binding.name if binding else None,
            "label": binding.label if binding else None,
            "comment": binding.comment if binding else None,
        }
        if binding is not None and binding.parameters is not None:
            facts["parameters"] = [_parameter_facts(p) for p in binding.parameters]
        if binding is not None and binding.result is not None:
            facts["result"] = {"datatype": _plain(binding.result.datatype),
                               "fields": [_parameter_facts(f) for f in binding.result.fields]}
            if binding.result.variable is not None:
                facts["result"]["variable"] = str(binding.result.variable)
        out.append(facts)
    return _sorted_json(out, by="name")


def _parameter_facts(parameter: Parameter) -> dict:
    facts = {"name": parameter.name, "datatype": _plain(parameter.datatype)}
    if parameter.variable is not None:
        facts["variable"] = str(parameter.variable)
    return facts


def _example_value(value: Any) -> Any:
    return {"not_json": value.text} if isinstance(value, JsonError) else value


def _example(example) -> dict:
    facts = {
        "label": example.label,
        "given": _example_value(example.given),
        "replies": _example_value(example.replies),
        "expect": _example_value(example.expect),
    }
    if example.held_out:  # part of the hash; only when set, so other examples hash as before
        facts["held_out"] = True
    if example.expect_error:
        facts["expect_error"] = example.expect_error
    return facts


def shown_facts(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest as a prompt may show it: no BPMN (it has a block of its own) and no
    held-out example, which judges a draft without ever being shown to whoever writes it."""
    shown = {key: value for key, value in manifest.items() if key != "bpmn"}
    shown["examples"] = [e for e in manifest.get("examples", []) if not e.get("held_out")]
    return shown


def _bpmn_fragment(model: Model, task: Task) -> str | None:
    """The task's BPMN element as exclusive C14N text, whitespace-only text removed."""
    process = model.view.processes.get(task.process) if task.process is not None else None
    payload = model.payloads.get(process.payload) if process and process.payload is not None else None
    if payload is None or not task.element_id:
        return None
    element = next((el for el in payload.tree.getroot().iter(f"{{{V.BPMN_NS}}}*")
                    if el.get("id") == task.element_id), None)
    if element is None:
        return None
    element = copy.deepcopy(element)
    element.tail = None
    for node in element.iter():
        if node.text is not None and not node.text.strip():
            node.text = None
        if node is not element and node.tail is not None and not node.tail.strip():
            node.tail = None
    return etree.tostring(element, method="c14n", exclusive=True, with_comments=False).decode("utf-8")

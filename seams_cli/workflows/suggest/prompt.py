"""Filling ``prompts/suggest-v3.txt`` from the model, the same bytes for the same model.

Every piece of model text (labels, conditions, BPMN and DMN elements) goes
into a DATA block (seams_cli.prompting.quote); JSON is written with sorted
keys and everything is listed in a fixed order, so the prompt, and with it
the provider's cache entry, depends only on the model.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from lxml import etree

from seams.lang.condition_tree import DIALECT_NAMES
from seams.model.context import variable_facts
from seams.model.loading import Model, PayloadFile
from seams.suggestions.candidates import Candidate
from seams_cli.llm.prompting import fill, load_template, quote

TEMPLATE = "suggest-v3.txt"
FOLLOW_UP = "suggest-followup-v1.txt"


def build_prompt(model: Model, candidates: list[Candidate]) -> str:
    return fill(load_template(TEMPLATE), prompt_values(model, candidates))


def build_follow_up(values: dict[str, str], *, previous: str, failures: list[str], previous_try: int,
                    tries: int) -> str:
    """The suggest-followup-v1 prompt: the blocks of the first, the rejected answer and its lines."""
    return fill(load_template(FOLLOW_UP), {
        **values, "previous_try": str(previous_try), "tries": str(tries),
        "previous": quote(previous, label="previous answer"),
        "failures": quote("\n".join(failures), label="failed lines"),
    })


def prompt_values(model: Model, candidates: list[Candidate]) -> dict[str, str]:
    """The DATA blocks of the suggest prompts (the first and the follow-up)."""
    view = model.view
    gateways = [{
        "gateway": c.element_id,
        "label": c.gateway.label,
        "process": c.process.label,
        "outgoing": [{"flow": f.id, "name": f.name, "condition": f.condition} for f in c.flows],
        "dialect": DIALECT_NAMES[c.dialect],
        "default": c.default,
        "known": sorted(c.known),
    } for c in candidates]
    bpmn = []
    for c in candidates:
        payload = model.payloads.get(c.process.payload) if c.process.payload is not None else None
        flows = [*c.process.incoming(c.element_id), *c.flows]
        bpmn += [fragment(payload, i) for i in (c.element_id, *(f.id for f in flows))] if payload else []
    known = sorted({iri for c in candidates for iri in c.known.values()}, key=str)
    decisions = [view.decisions[iri] for iri in sorted(view.decisions, key=str)]
    facts = [{
        "id": d.element_id,
        "name": d.label,
        "inputs": [{"variable": i.variable, "from": view.variable_name(i.from_path) if i.from_path else None}
                   for i in d.inputs],
        "outputs": [{"variable": o.variable,
                     "sets": view.variable_name(o.process_variable) if o.process_variable else None}
                    for o in d.outputs],
    } for d in decisions]
    dmn = [fragment(model.payloads.get(d.payload), d.element_id) for d in decisions
           if d.payload in model.payloads and d.element_id]
    return {
        "gateways": quote(_json(gateways), label="gateways"),
        "bpmn": quote("\n".join(x for x in bpmn if x) or "(none)", label="bpmn elements"),
        "variables": quote(_json(variable_facts(view, tuple(known))), label="variables"),
        "decisions": quote(_json(facts), label="decisions"),
        "dmn": quote("\n".join(x for x in dmn if x) or "(none)", label="dmn decisions"),
    }


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def fragment(payload: PayloadFile | None, element_id: str) -> str | None:
    """One element of a payload as written (exclusive C14N, its indentation removed)."""
    if payload is None:
        return None
    element = next((el for el in payload.tree.getroot().iter() if el.get("id") == element_id), None)
    if element is None:
        return None
    text = etree.tostring(element, method="c14n", exclusive=True, with_comments=False).decode("utf-8")
    first, _, rest = text.partition("\n")
    return first + ("\n" + textwrap.dedent(rest) if rest else "")

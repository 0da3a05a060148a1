"""The DMN payload edits a condition-to-dmn suggestion needs.

A new decision is written the way dmn-js (Camunda Modeler) writes one: the
DMN namespace as the default namespace, a ``decisionTable`` with ``input``s,
one ``output`` and ``rule``s, and a ``DMNShape`` in the DMNDI diagram so the
decision shows up when the modeler opens the file. A file drawn without a
DMNDI diagram stays without one: a diagram holding only the new decision
would hide every other decision from dmn-js' DRD view. Ids are derived from
the decision id, so the same suggestion always gives the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lxml import etree

from seams.errors import EditError
from seams.payloads import parse_xml
from seams.vocab import DMN_NS, DMNDI_NS

from .xml import Payload, attribute_text, check_characters, coordinate_text, ensure_namespace, insert_child

DMN_DC_NS = "http://www.omg.org/spec/DMN/20180521/DC/"
HIT_POLICIES = ("UNIQUE", "FIRST", "PRIORITY", "ANY", "COLLECT", "RULE ORDER", "OUTPUT ORDER")
DECISION_WIDTH, DECISION_HEIGHT = 180, 80  # the size dmn-js gives a decision
FIRST_POSITION = (160, 100)  # where dmn-js puts the first decision of a new diagram
GAP = 50

_D, _DMNDI, _DC = (f"{{{ns}}}" for ns in (DMN_NS, DMNDI_NS, DMN_DC_NS))
_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_DRG_ELEMENTS = {f"{_D}{kind}" for kind in (
    "import", "itemDefinition", "decision", "businessKnowledgeModel", "inputData", "knowledgeSource", "decisionService",
)}


def new_dmn_payload(*, definitions_id: str, name: str, namespace: str) -> bytes:
    """A DMN 1.3 document with no decision yet and an empty DMNDI diagram."""
    if not _ID.match(definitions_id):
        raise EditError(f"new DMN payload: {definitions_id!r} is not a valid id")
    check_characters("new DMN payload", definitions_id, [name, namespace])
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<definitions xmlns="{DMN_NS}" xmlns:dmndi="{DMNDI_NS}" xmlns:dc="{DMN_DC_NS}" '
        f'id="{definitions_id}" name="{attribute_text(name)}" namespace="{attribute_text(namespace)}">\n'
        "  <dmndi:DMNDI>\n"
        "    <dmndi:DMNDiagram />\n"
        "  </dmndi:DMNDI>\n"
        "</definitions>\n"
    )
    data = text.encode("utf-8")
    parse_xml(data, source=f"new DMN payload {definitions_id}")
    return data


def add_decision(
    payload: Payload,
    *,
    decision_id: str,
    name: str,
    hit_policy: str,
    inputs: Sequence[tuple[str, str, str]],
    output: tuple[str, str],
    rules: Sequence[tuple[Sequence[str], str]],
) -> None:
    """Add a decision table after the last decision, and its shape to the diagram.

    ``inputs`` are (label, input expression, typeRef), ``output`` is
    (name, typeRef), each rule is (input entry texts, output entry text).
    Entry texts are FEEL as written: ``"travel"`` keeps its quotes.
    """
    source = payload.source
    definitions = payload.root
    if definitions.tag != f"{_D}definitions":
        raise EditError(f"{source}: not a DMN 1.3 document (root is {definitions.tag})")
    if hit_policy not in HIT_POLICIES:
        raise EditError(f"{source}: {decision_id}: unknown hit policy {hit_policy!r}")
    if not inputs:
        raise EditError(f"{source}: {decision_id}: a decision table needs at least one input")
    for number, (entries, _) in enumerate(rules, 1):
        if len(entries) != len(inputs):
            raise EditError(f"{source}: {decision_id}: rule {number} has {len(entries)} input entries "
                            f"for {len(inputs)} inputs")
    check_characters(payload.source, decision_id, [name, *output, *(t for clause in inputs for t in clause),
                                            *(t for entries, result in rules for t in (*entries, result))])
    decision = etree.Element(f"{_D}decision", {"id": decision_id, "name": name})
    table = etree.SubElement(decision, f"{_D}decisionTable", {"id": f"DecisionTable_{decision_id}"})
    if hit_policy != "UNIQUE":  # UNIQUE is the default; dmn-js leaves it out
        table.set("hitPolicy", hit_policy)
    _add_clauses(table, decision_id, inputs, output)
    _add_rules(table, decision_id, rules)
    existing = {e.get("id") for e in definitions.iter() if e.get("id") is not None}
    for new_id in [e.get("id") for e in decision.iter() if e.get("id") is not None] + [f"DMNShape_{decision_id}"]:
        if not _ID.match(new_id) or new_id in existing:
            problem = "already exists" if new_id in existing else "is not a valid id"
            raise EditError(f"{source}: {decision_id}: id {new_id} {problem}")

    diagram = _diagram(payload)
    position = _shape_position(payload, decision_id) if diagram is not None else None
    decisions = list(definitions.iterchildren(f"{_D}decision"))
    drg = [e for e in definitions if e.tag in _DRG_ELEMENTS]
    after = decisions[-1] if decisions else (drg[-1] if drg else None)
    insert_child(definitions, decision, definitions.index(after) + 1 if after is not None else 0)
    if position is not None:
        _add_shape(payload, decision_id, position)


def _add_clauses(
    table: etree._Element, decision_id: str, inputs: Sequence[tuple[str, str, str]], output: tuple[str, str]
) -> None:
    for number, (label, expression, type_ref) in enumerate(inputs, 1):
        clause = etree.SubElement(table, f"{_D}input", {"id": f"InputClause_{decision_id}_{number}", "label": label})
        _text(clause, "inputExpression", f"InputExpression_{decision_id}_{number}", expression, typeRef=type_ref)
    output_name, output_type = output
    etree.SubElement(table, f"{_D}output",
                     {"id": f"OutputClause_{decision_id}", "name": output_name, "typeRef": output_type})


def _add_rules(table: etree._Element, decision_id: str, rules: Sequence[tuple[Sequence[str], str]]) -> None:
    for number, (entries, result) in enumerate(rules, 1):
        rule = etree.SubElement(table, f"{_D}rule", {"id": f"DecisionRule_{decision_id}_{number}"})
        for column, entry in enumerate(entries, 1):
            _text(rule, "inputEntry", f"UnaryTests_{decision_id}_{number}_{column}", entry)
        _text(rule, "outputEntry", f"LiteralExpression_{decision_id}_{number}", result)


def _text(parent: etree._Element, tag: str, element_id: str, text: str, **attributes: str) -> None:
    holder = etree.SubElement(parent, f"{_D}{tag}", {"id": element_id, **attributes})
    etree.SubElement(holder, f"{_D}text").text = text


def _shape_position(payload: Payload, decision_id: str) -> tuple[float, float]:
    """Right of the rightmost shape of the first diagram, or where dmn-js puts a first one."""
    diagram = payload.root.find(f"{_DMNDI}DMNDI/{_DMNDI}DMNDiagram")
    corners = []
    for bounds in diagram.iterfind(f"{_DMNDI}DMNShape/{_DC}Bounds") if diagram is not None else ():
        try:
            corners.append((float(bounds.get("x")) + float(bounds.get("width")), float(bounds.get("y"))))
        except (TypeError, ValueError):
            raise EditError(f"{payload.source}: {decision_id}: a DMNShape has bounds that are not numbers") from None
    if not corners:
        return FIRST_POSITION
    right, top = max(corners, key=lambda corner: corner[0])
    return right + GAP, top


def _diagram(payload: Payload) -> etree._Element | None:
    """The file's first DMNDI diagram, or None when it is drawn without one."""
    return payload.root.find(f"{_DMNDI}DMNDI/{_DMNDI}DMNDiagram")


def _add_shape(payload: Payload, decision_id: str, position: tuple[float, float]) -> None:
    ensure_namespace(payload, "dc", DMN_DC_NS)
    diagram = _diagram(payload)
    x, y = position
    shape = etree.Element(f"{_DMNDI}DMNShape", {"id": f"DMNShape_{decision_id}", "dmnElementRef": decision_id})
    etree.SubElement(shape, f"{_DC}Bounds", {"height": str(DECISION_HEIGHT), "width": str(DECISION_WIDTH),
                                             "x": coordinate_text(x), "y": coordinate_text(y)})
    insert_child(diagram, shape)

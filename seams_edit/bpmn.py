"""The BPMN payload edits a condition-to-dmn suggestion needs.

A modeler reviews the diff and then opens the file in Camunda Modeler, so an
edit keeps both halves of the payload in step: the semantic half
(``sourceRef``/``targetRef``, the ``incoming``/``outgoing`` refs and the lanes'
``flowNodeRef``s) and the diagram half (a shape for the new task inside its
target's pool, lanes and sub-process, edges that still meet their shapes,
downstream shapes moved along the flow when there is no room; the rules are
in ``bpmn_layout``). Nothing else changes.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from lxml import etree

from seams.errors import EditError
from seams.vocab import BPMN_NS, BPMNDI_NS, CAMUNDA_NS, DC_NS, DI_NS, ZEEBE_NS
from seams_edit.bpmn_layout import (
    TASK_HEIGHT,
    TASK_WIDTH,
    Box,
    Diagram,
    flows_top_down,
    place_before,
    reroute_end,
    straight_edge,
)
from seams_edit.xml import Payload, check_characters, coordinate_text, ensure_namespace, insert_child, remove_child

XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
CONVENTIONAL_PREFIXES = {CAMUNDA_NS: "camunda", ZEEBE_NS: "zeebe", XSI_NS: "xsi"}

_B, _BPMNDI, _DC, _DI = (f"{{{ns}}}" for ns in (BPMN_NS, BPMNDI_NS, DC_NS, DI_NS))
_FLOW_NODE_CONTAINERS = {f"{_B}process", f"{_B}subProcess", f"{_B}transaction", f"{_B}adHocSubProcess"}
_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class InsertResult:
    """What ``insert_task_before`` created and changed."""

    task_id: str
    flow_id: str
    redirected_flow_ids: tuple[str, ...]
    shape_id: str | None  # None when the target has no diagram shape
    edge_id: str | None
    shift: float  # how far everything from the target on was moved right


def insert_task_before(
    payload: Payload,
    target_id: str,
    *,
    tag: str,
    task_id: str,
    name: str,
    attributes: Mapping[str, str] = MappingProxyType({}),
    flow_id: str | None = None,
    children: Sequence[etree._Element] = (),
) -> InsertResult:
    """Put a new ``tag`` flow node between ``target_id`` and everything flowing into it.

    Attribute keys may be Clark names (``{ns}local``); their namespace is
    declared once on the root under its conventional prefix. ``children``
    (an ``extensionElements`` for ``zeebe:calledDecision``, say) are copied in.
    """
    target = _element(payload, target_id)
    process = target.getparent()
    if process is None or process.tag not in _FLOW_NODE_CONTAINERS:
        raise EditError(f"{payload.source}: {target_id} is not a flow node of a process")
    if not _ID.match(tag):
        raise EditError(f"{payload.source}: {tag!r} is not a BPMN element name")
    ids = _ids(payload)
    _claim_id(payload, task_id, ids)
    flow_id = _unique_id(f"Flow_{task_id}", ids) if flow_id is None else _claim_id(payload, flow_id, ids)
    incoming = [f for f in process.iterchildren(f"{_B}sequenceFlow") if f.get("targetRef") == target_id]
    if not incoming:
        raise EditError(f"{payload.source}: {target_id} has no incoming sequence flow to insert into")
    redirected = tuple(f.get("id") for f in incoming)
    check_characters(payload.source, task_id, [name, *attributes.values()])
    undeclared = [(uri, prefix) for uri in sorted(_namespaces_used(attributes, children))
                  if (prefix := _prefix_to_declare(payload, uri))]
    _check_diagram_numbers(payload)
    for uri, prefix in undeclared:
        ensure_namespace(payload, prefix, uri)

    task = etree.Element(f"{_B}{tag}", {"id": task_id, **({"name": name} if name else {})})
    for key, value in attributes.items():
        task.set(key, value)
    for child in children:
        task.append(copy.deepcopy(child))
    for ref in redirected:
        etree.SubElement(task, f"{_B}incoming").text = ref
    etree.SubElement(task, f"{_B}outgoing").text = flow_id
    insert_child(process, task, process.index(target))

    _join_lanes(payload, target_id, task_id)
    for flow in incoming:
        flow.set("targetRef", task_id)
    _point_incoming_refs(target, redirected, flow_id)
    flow = etree.Element(f"{_B}sequenceFlow", {"id": flow_id, "sourceRef": task_id, "targetRef": target_id})
    last_flow = list(process.iterchildren(f"{_B}sequenceFlow"))[-1]
    insert_child(process, flow, process.index(last_flow) + 1)

    return _place_in_diagram(payload, target_id, task_id, flow_id, redirected, ids)


def set_condition(payload: Payload, flow_id: str, text: str, *, name: str | None = None) -> None:
    """Rewrite (or create) a sequence flow's condition, keeping its element and style.

    ``name`` renames a flow that has a name: its old name described the old
    condition, and a label must not restate a rule that now lives elsewhere
    (the caller passes None for a name that does not restate it, see `restates`).
    The old name is kept as the flow's documentation when it has none, and an
    edge label's bounds are re-estimated for the new text and kept clear of
    shapes where one of a few spots near the old label is (docs/edit.md).
    """
    flow = _element(payload, flow_id)
    if flow.tag != f"{_B}sequenceFlow":
        raise EditError(f"{payload.source}: {flow_id} is a {etree.QName(flow).localname}, not a sequenceFlow")
    check_characters(payload.source, flow_id, [text, name or ""])
    if name is not None and (flow.get("name") or "").strip() and flow.get("name") != name:
        _rename_flow(payload, flow, name)
    condition = flow.find(f"{_B}conditionExpression")
    if condition is not None:
        condition.text = text
        return
    prefix = _prefix_to_declare(payload, XSI_NS)
    if prefix:
        ensure_namespace(payload, prefix, XSI_NS)
    expression_type = f"{flow.prefix}:tFormalExpression" if flow.prefix else "tFormalExpression"
    condition = etree.Element(f"{_B}conditionExpression", {f"{{{XSI_NS}}}type": expression_type})
    condition.text = text
    insert_child(flow, condition)


_TESTED_VALUE = re.compile(
    r"""^\s*(?:[$#]\{\s*)?=?\s*(?P<name>[A-Za-z_][\w.]*)\s*(?:==|=|\beq\b)\s*
        (?:"(?P<dq>[^"\\]*)"|'(?P<sq>[^'\\]*)'|(?P<bare>-?\d+(?:\.\d+)?|true|false|True|False))\s*\}?\s*$""",
    re.X,
)


def outcome_name(condition: str, variable: str) -> str:
    """The name a flow gets when its condition becomes ``condition`` on a decision's output ``variable``.

    A test of one value (``escalation == "hr"``, JUEL ``${escalation == 'hr'}``,
    FEEL ``=escalation = "hr"``) names the flow by that value, as flows leaving
    a decision-driven gateway are named in Camunda examples; any other
    condition names it by its own text.
    """
    match = _TESTED_VALUE.match(condition)
    if match and match.group("name") == variable:
        return next(v for v in (match.group("dq"), match.group("sq"), match.group("bare")) if v is not None)
    return condition.strip()


_WORD = re.compile(r"[^\W_]+")


def _words(text: str) -> set[str]:
    """Lower-case words of a text, ``leave_type`` and ``leaveType`` giving ``leave`` and ``type``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return {word.lower() for word in _WORD.findall(spaced) if len(word) > 2 or word.isdigit()}


def restates(name: str, terms: Iterable[str]) -> bool:
    """Whether a flow's ``name`` restates its old condition: it shares a word with ``terms``
    (what the condition tests: its variables' names and labels, the values it compares
    with). ``long or unpaid`` restates ``days > 20 or leave_type == "unpaid"`` and is
    renamed when the rule moves into a decision; ``otherwise`` says where the flow goes,
    not why, and stays true of the new condition, so it is kept (docs/edit.md)."""
    return bool(_words(name) & {word for term in terms for word in _words(term)})


def _rename_flow(payload: Payload, flow: etree._Element, name: str) -> None:
    old = flow.get("name") or ""
    flow.set("name", name)
    if flow.find(f"{_B}documentation") is None:
        documentation = etree.Element(f"{_B}documentation")
        documentation.text = old
        insert_child(flow, documentation, 0)
    edge = _di_of(payload.root, f"{_BPMNDI}BPMNEdge", flow.get("id"))
    if edge is None or edge.find(f"{_BPMNDI}BPMNLabel/{_DC}Bounds") is None:
        return
    bounds = edge.find(f"{_BPMNDI}BPMNLabel/{_DC}Bounds")
    try:
        x, y, width, height = (float(bounds.get(k)) for k in ("x", "y", "width", "height"))
    except (TypeError, ValueError):
        raise EditError(f"{payload.source}: {flow.get('id')}: its label has bounds that are not numbers") from None
    new_width, new_height = label_size(name)
    kinds = {e.get("id"): e for e in payload.root.iter() if e.get("id") is not None}
    diagram = Diagram(edge.getparent(), kinds, vertical=False)
    shapes = [diagram.box(shape) for shape in diagram.shapes if not diagram.is_frame(shape)]
    middle, right, low = x + (width - new_width) / 2, x + width - new_width, y + height - new_height
    rows = (y, low, y - new_height - 4, y + height + 4)  # in place, bottom-aligned, above, below
    candidates = [(column, row) for row in rows for column in (middle, x, right)]
    free = [(cx, cy) for cx, cy in candidates if not any(_overlaps((cx, cy, new_width, new_height), b) for b in shapes)]
    new_x, new_y = (free or candidates)[0]  # the first spot clear of every shape, else the centred one
    for key, value in (("x", new_x), ("y", new_y), ("width", new_width), ("height", new_height)):
        if float(bounds.get(key)) != round(value):
            bounds.set(key, coordinate_text(round(value)))


def _overlaps(rect: tuple[float, float, float, float], box: Box) -> bool:
    x, y, width, height = rect
    return x < box.u_end and box.u < x + width and y < box.v_end and box.v < y + height


def label_size(text: str) -> tuple[int, int]:
    """An estimate of the box bpmn-js gives an external label: 11px text, wrapped at 90px, 14px a line."""
    per_line = 15  # characters of about 6px in a 90px line
    lines = max(1, math.ceil(len(text) / per_line))
    return min(90, max(6, len(text) * 6)), 14 * lines


# -- semantic half ------------------------------------------------------------------


def _element(payload: Payload, element_id: str) -> etree._Element:
    for element in payload.root.iter():
        if element.get("id") == element_id:
            return element
    raise EditError(f"{payload.source}: no element with id {element_id}")


def _ids(payload: Payload) -> set[str]:
    return {e.get("id") for e in payload.root.iter() if e.get("id") is not None}


def _claim_id(payload: Payload, new_id: str, ids: set[str]) -> str:
    if not _ID.match(new_id):
        raise EditError(f"{payload.source}: {new_id!r} is not a valid id")
    if new_id in ids:
        raise EditError(f"{payload.source}: id {new_id} already exists")
    ids.add(new_id)
    return new_id


def _unique_id(base: str, ids: set[str]) -> str:
    candidate, n = base, 2
    while candidate in ids:
        candidate, n = f"{base}_{n}", n + 1
    ids.add(candidate)
    return candidate


def _namespaces_used(attributes: Mapping[str, str], children: Sequence[etree._Element]) -> set[str]:
    names = list(attributes)
    for child in children:
        for element in child.iter(tag=etree.Element):
            names += [element.tag, *element.attrib]
    return {etree.QName(n).namespace for n in names} - {None, BPMN_NS}


def _prefix_to_declare(payload: Payload, uri: str) -> str | None:
    """The conventional prefix ``uri`` still needs on the root, or None when it is bound."""
    if any(prefix is not None and bound == uri for prefix, bound in payload.root.nsmap.items()):
        return None
    prefix = CONVENTIONAL_PREFIXES.get(uri)
    if prefix is None:
        raise EditError(f"{payload.source}: namespace {uri} is not declared and has no conventional prefix")
    return prefix


def _check_diagram_numbers(payload: Payload) -> None:
    """Refuse a diagram with a coordinate that is not a number before anything is edited."""
    for element in payload.root.iter(f"{_DC}Bounds", f"{_DI}waypoint"):
        for key, value in element.attrib.items():
            if key not in ("x", "y", "width", "height"):
                continue
            try:
                float(value)
            except ValueError:
                owner = element.getparent().get("id") or element.getparent().getparent().get("id")
                raise EditError(f"{payload.source}: {owner}: {key}={value!r} is not a number") from None


def _point_incoming_refs(target: etree._Element, redirected: tuple[str, ...], flow_id: str) -> None:
    """The target's ``incoming`` refs now name only the new flow."""
    refs = [r for r in target.iterchildren(f"{_B}incoming") if (r.text or "").strip() in redirected]
    if refs:
        refs[0].text = flow_id
        for ref in refs[1:]:
            remove_child(ref)
        return
    ref = etree.Element(f"{_B}incoming")
    ref.text = flow_id
    leading = [c for c in target if c.tag in (f"{_B}documentation", f"{_B}extensionElements", f"{_B}incoming")]
    insert_child(target, ref, target.index(leading[-1]) + 1 if leading else 0)


def _join_lanes(payload: Payload, target_id: str, task_id: str) -> None:
    """The new node joins every lane its target is in, at every nesting level, listed right after it."""
    for ref in list(payload.root.iter(f"{_B}flowNodeRef")):
        if (ref.text or "").strip() == target_id:
            new = etree.Element(f"{_B}flowNodeRef")
            new.text = task_id
            lane = ref.getparent()
            insert_child(lane, new, lane.index(ref) + 1)


# -- diagram half -------------------------------------------------------------------


def _place_in_diagram(
    payload: Payload, target_id: str, task_id: str, flow_id: str, redirected: tuple[str, ...], ids: set[str]
) -> InsertResult:
    root = payload.root
    target_shape = _di_of(root, f"{_BPMNDI}BPMNShape", target_id)
    if target_shape is None:
        return InsertResult(task_id, flow_id, redirected, None, None, 0)
    plane = target_shape.getparent()
    kinds = {e.get("id"): e for e in root.iter() if e.get("id") is not None}
    diagram = Diagram(plane, kinds, vertical=flows_top_down(plane, kinds, target_shape))
    incoming = [e for ref in redirected if (e := _di_of(plane, f"{_BPMNDI}BPMNEdge", ref)) is not None]
    placement = place_before(diagram, target_shape, (TASK_WIDTH, TASK_HEIGHT), incoming)
    box = placement.box

    shape_id = _unique_id(f"{task_id}_di", ids)
    shape = etree.Element(f"{_BPMNDI}BPMNShape", {"id": shape_id, "bpmnElement": task_id})
    x, y, width, height = diagram.physical(box)
    etree.SubElement(shape, f"{_DC}Bounds", {"x": coordinate_text(x), "y": coordinate_text(y),
                                             "width": coordinate_text(width), "height": coordinate_text(height)})
    insert_child(plane, shape, plane.index(target_shape))
    names_shapes = False  # older modelers also name an edge's shapes (sourceElement/targetElement)
    for ref in redirected:
        edge = _di_of(plane, f"{_BPMNDI}BPMNEdge", ref)
        if edge is not None:
            reroute_end(diagram, edge, box)
            if edge.get("targetElement") is not None:
                edge.set("targetElement", shape_id)
                names_shapes = True

    edge_id = _unique_id(f"{flow_id}_di", ids)
    edge = etree.Element(f"{_BPMNDI}BPMNEdge", {"id": edge_id, "bpmnElement": flow_id})
    if names_shapes and target_shape.get("id") is not None:
        edge.set("sourceElement", shape_id)
        edge.set("targetElement", target_shape.get("id"))
    straight_edge(diagram, edge, [(box.u_end, placement.line_v), (placement.target.u, placement.line_v)])
    edges = list(plane.iterchildren(f"{_BPMNDI}BPMNEdge"))
    insert_child(plane, edge, plane.index(edges[-1]) + 1 if edges else None)
    return InsertResult(task_id, flow_id, redirected, shape_id, edge_id, placement.shift)


def _di_of(scope: etree._Element, tag: str, element_id: str) -> etree._Element | None:
    return next((e for e in scope.iter(tag) if e.get("bpmnElement") == element_id), None)

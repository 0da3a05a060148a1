"""The BPMN payload edits a condition-to-dmn suggestion needs.

A modeler reviews the diff and then opens the file in Camunda Modeler, so an
edit keeps both halves of the payload in step: the semantic half
(``sourceRef``/``targetRef`` and the ``incoming``/``outgoing`` refs) and the
diagram half (a shape for the new task, edges that still meet their shapes,
downstream shapes moved right when there is no room). Nothing else changes.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from lxml import etree

from seams.errors import EditError
from seams.vocab import BPMN_NS, BPMNDI_NS, CAMUNDA_NS, DC_NS, DI_NS, ZEEBE_NS
from seams_edit.xml import Payload, check_characters, coordinate_text, ensure_namespace, insert_child, remove_child

XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
CONVENTIONAL_PREFIXES = {CAMUNDA_NS: "camunda", ZEEBE_NS: "zeebe", XSI_NS: "xsi"}
TASK_WIDTH, TASK_HEIGHT = 100, 80  # the size Camunda Modeler gives a task
GAP = 50  # the horizontal distance Camunda Modeler keeps between elements

_B, _BPMNDI, _DC, _DI = (f"{{{ns}}}" for ns in (BPMN_NS, BPMNDI_NS, DC_NS, DI_NS))
_CONTAINERS = {"participant", "lane", "group"}
_EXPANDABLE = {"subProcess", "transaction", "adHocSubProcess"}  # containers only when drawn expanded
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

    for flow in incoming:
        flow.set("targetRef", task_id)
    _point_incoming_refs(target, redirected, flow_id)
    flow = etree.Element(f"{_B}sequenceFlow", {"id": flow_id, "sourceRef": task_id, "targetRef": target_id})
    last_flow = list(process.iterchildren(f"{_B}sequenceFlow"))[-1]
    insert_child(process, flow, process.index(last_flow) + 1)

    return _place_in_diagram(payload, target_id, task_id, flow_id, redirected, ids)


def set_condition(payload: Payload, flow_id: str, text: str) -> None:
    """Rewrite (or create) a sequence flow's condition, keeping its element and style."""
    flow = _element(payload, flow_id)
    if flow.tag != f"{_B}sequenceFlow":
        raise EditError(f"{payload.source}: {flow_id} is a {etree.QName(flow).localname}, not a sequenceFlow")
    check_characters(payload.source, flow_id, [text])
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
    tx, ty, _, th = _bounds(target_shape)
    middle = ty + th / 2
    top = middle - TASK_HEIGHT / 2
    left = _obstacle_edge(plane, target_shape, tx, top, kinds)
    shift = 0 if left is None else max(0, math.ceil(TASK_WIDTH + 2 * GAP - (tx - left)))
    if shift:
        _shift_right(plane, tx, shift, kinds)
    tx += shift
    task_x = tx - GAP - TASK_WIDTH if left is None else left + (tx - left - TASK_WIDTH) // 2

    shape_id = _unique_id(f"{task_id}_di", ids)
    shape = etree.Element(f"{_BPMNDI}BPMNShape", {"id": shape_id, "bpmnElement": task_id})
    etree.SubElement(shape, f"{_DC}Bounds", {"x": coordinate_text(task_x), "y": coordinate_text(top),
                                             "width": str(TASK_WIDTH), "height": str(TASK_HEIGHT)})
    insert_child(plane, shape, plane.index(target_shape))
    names_shapes = False  # older modelers also name an edge's shapes (sourceElement/targetElement)
    for ref in redirected:
        edge = _di_of(plane, f"{_BPMNDI}BPMNEdge", ref)
        if edge is not None:
            _reroute_end(edge, task_x, top, middle)
            if edge.get("targetElement") is not None:
                edge.set("targetElement", shape_id)
                names_shapes = True

    edge_id = _unique_id(f"{flow_id}_di", ids)
    edge = etree.Element(f"{_BPMNDI}BPMNEdge", {"id": edge_id, "bpmnElement": flow_id})
    if names_shapes and target_shape.get("id") is not None:
        edge.set("sourceElement", shape_id)
        edge.set("targetElement", target_shape.get("id"))
    for x in (task_x + TASK_WIDTH, tx):
        etree.SubElement(edge, f"{_DI}waypoint", {"x": coordinate_text(x), "y": coordinate_text(middle)})
    edges = list(plane.iterchildren(f"{_BPMNDI}BPMNEdge"))
    insert_child(plane, edge, plane.index(edges[-1]) + 1 if edges else None)
    return InsertResult(task_id, flow_id, redirected, shape_id, edge_id, shift)


def _di_of(scope: etree._Element, tag: str, element_id: str) -> etree._Element | None:
    return next((e for e in scope.iter(tag) if e.get("bpmnElement") == element_id), None)


def _bounds(shape: etree._Element) -> tuple[float, float, float, float]:
    bounds = shape.find(f"{_DC}Bounds")
    x, y, width, height = (float(bounds.get(k, "0")) for k in ("x", "y", "width", "height"))
    return x, y, width, height


def _is_container(shape: etree._Element, kinds: dict[str, etree._Element]) -> bool:
    element = kinds.get(shape.get("bpmnElement"))
    kind = etree.QName(element).localname if element is not None else None
    return kind in _CONTAINERS or (kind in _EXPANDABLE and shape.get("isExpanded") == "true")


def _obstacle_edge(
    plane: etree._Element, target_shape: etree._Element, tx: float, top: float, kinds: dict[str, etree._Element]
) -> float | None:
    """The right edge of the nearest shape left of the target in the new task's row."""
    edges = []
    for shape in plane.iterchildren(f"{_BPMNDI}BPMNShape"):
        if shape is target_shape or shape.find(f"{_DC}Bounds") is None or _is_container(shape, kinds):
            continue
        x, y, width, height = _bounds(shape)
        if x + width <= tx and y < top + TASK_HEIGHT and y + height > top:
            edges.append(x + width)
    return max(edges, default=None)


def _shift_right(plane: etree._Element, from_x: float, shift: float, kinds: dict[str, etree._Element]) -> None:
    """Move everything at or right of ``from_x`` right; widen the pools and lanes it sits in."""
    for shape in plane.iterchildren(f"{_BPMNDI}BPMNShape"):
        if shape.find(f"{_DC}Bounds") is None:
            continue
        x, _, width, _ = _bounds(shape)
        if x >= from_x:
            for bounds in shape.iter(f"{_DC}Bounds"):
                bounds.set("x", coordinate_text(float(bounds.get("x")) + shift))
        elif x + width > from_x and _is_container(shape, kinds):
            shape.find(f"{_DC}Bounds").set("width", coordinate_text(width + shift))
    for edge in plane.iterchildren(f"{_BPMNDI}BPMNEdge"):
        for point in [*edge.iterchildren(f"{_DI}waypoint"), *edge.iter(f"{_DC}Bounds")]:
            if float(point.get("x")) >= from_x:
                point.set("x", coordinate_text(float(point.get("x")) + shift))


def _reroute_end(edge: etree._Element, task_x: float, top: float, middle: float) -> None:
    """End an edge at the new task with right-angled segments, keeping its start."""
    points = list(edge.iterchildren(f"{_DI}waypoint"))
    if not points:
        return
    coords = [(float(p.get("x")), float(p.get("y"))) for p in points]
    kept = []
    for x, y in coords:
        if x >= task_x:
            break
        kept.append((x, y))
    kept = kept or coords[:1]
    px, py = kept[-1]
    if px < task_x:
        bend = px + (task_x - px) // 2
        tail = [(task_x, middle)] if py == middle else [(bend, py), (bend, middle), (task_x, middle)]
    else:  # the flow comes from above or below: enter the task's top or bottom
        centre, entry = task_x + TASK_WIDTH / 2, top if py < middle else top + TASK_HEIGHT
        bend = py + (entry - py) // 2
        tail = [(px, bend), (centre, bend), (centre, entry)]
    route: list[tuple[float, float]] = []
    for point in kept + tail:
        if not route or route[-1] != point:
            route.append(point)
    for element, (x, y) in zip(points, route):
        for key, value in (("x", x), ("y", y)):
            if float(element.get(key)) != value:
                element.set(key, coordinate_text(value))
    for element in points[len(route):]:
        remove_child(element)
    for x, y in route[len(points):]:
        point = etree.Element(f"{_DI}waypoint", {"x": coordinate_text(x), "y": coordinate_text(y)})
        insert_child(edge, point, edge.index(list(edge.iterchildren(f"{_DI}waypoint"))[-1]) + 1)


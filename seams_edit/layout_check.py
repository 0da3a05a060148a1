"""A layout checker for BPMN and DMN diagrams: what an edit must not break.

Real diagrams are not perfect (a label drawn over a task, a diagonal edge),
so an edit is judged by the problems it *adds*: ``new_problems(before,
after)``. Each problem is one line naming the element ids, never a
coordinate, so a problem that only moved is not new. See docs/edit.md.

BPMN, per plane:

* two shapes overlap (pools, lanes, expanded sub-processes and groups are
  frames, not shapes here; a boundary event may overlap its host);
* a label overlaps a shape other than its owner (only labels bpmn-js
  draws count: a named event's, gateway's, data reference's or flow's);
* a boundary event's centre is not on its host's border;
* an edge does not start on its source's shape or end on its target's;
* a flow node is not inside its lanes, its expanded sub-process or its pool;
* an edge has a segment that is neither horizontal nor vertical.

DMN, per diagram: two shapes overlap; a decision, input data, business
knowledge model or knowledge source has no shape although the file has a
DMNDI (a partial diagram hides elements in dmn-js' DRD view).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from lxml import etree

from seams.vocab import BPMN_NS, BPMNDI_NS, DC_NS, DI_NS

from .bpmn_layout import draws_external_label, is_expanded

TOLERANCE = 1.0  # modelers round docking points; a pixel is not a problem

_B, _BPMNDI, _DC, _DI = (f"{{{ns}}}" for ns in (BPMN_NS, BPMNDI_NS, DC_NS, DI_NS))
_FRAMES = {"participant", "lane", "group"}
_FLOW_NODE_PARENTS = {"process", "subProcess", "transaction", "adHocSubProcess"}
_ACTIVITIES = {"task", "subProcess", "transaction", "adHocSubProcess", "callActivity"}
_DRG = ("decision", "inputData", "businessKnowledgeModel", "knowledgeSource")

Rect = tuple[float, float, float, float]


def new_problems(before: etree._Element, after: etree._Element) -> list[str]:
    """The problems ``after`` has that ``before`` had not (both BPMN or both DMN roots)."""
    old = set(problems(before))
    return [p for p in problems(after) if p not in old]


def problems(root: etree._Element) -> list[str]:
    """Every layout problem of a BPMN or DMN document, sorted."""
    if root.tag.startswith(_B):
        return sorted(set(_bpmn_problems(root)))
    return sorted(set(_dmn_problems(root)))


# -- BPMN ---------------------------------------------------------------------------


def _bpmn_problems(root: etree._Element) -> Iterator[str]:
    elements = {e.get("id"): e for e in root.iter() if e.get("id") is not None}
    for plane in root.iter(f"{_BPMNDI}BPMNPlane"):
        shapes: dict[str, Rect] = {}
        frames: dict[str, Rect] = {}
        labels: list[tuple[str, Rect]] = []
        for shape in plane.iter(f"{_BPMNDI}BPMNShape"):
            ref, rect = shape.get("bpmnElement"), _rect(shape.find(f"{_DC}Bounds"))
            if rect is None or ref is None:
                continue
            element = elements.get(ref)
            kind = _local(element)
            if kind in _FRAMES or is_expanded(shape, element):
                frames[ref] = rect
            else:
                shapes[ref] = rect
            labels += _drawn_labels(shape, element)
        for edge in plane.iter(f"{_BPMNDI}BPMNEdge"):
            labels += _drawn_labels(edge, elements.get(edge.get("bpmnElement")))
        hosts = {ref: elements[ref].get("attachedToRef") for ref in shapes
                 if _local(elements.get(ref)) == "boundaryEvent"}
        yield from _overlaps(shapes, hosts)
        for owner, rect in labels:
            for ref, other in shapes.items():
                if ref != owner and _overlap(rect, other):
                    yield f"label of {owner} overlaps {ref}"
        for ref, host in hosts.items():
            if host in shapes or host in frames:
                if not _on_border(_centre(shapes[ref]), shapes.get(host) or frames[host]):
                    yield f"boundary event {ref} is not on the border of {host}"
        every = {**frames, **shapes}
        yield from _edge_problems(plane, elements, every)
        yield from _containment(root, elements, shapes, frames)


def _drawn_labels(owner: etree._Element, element: etree._Element | None) -> list[tuple[str, Rect]]:
    """Label bounds bpmn-js draws (a named event, gateway, data reference or flow), whatever the DI keeps."""
    if element is None or not draws_external_label(element):
        return []
    rects = (_rect(b) for b in owner.iterfind(f"{_BPMNDI}BPMNLabel/{_DC}Bounds"))
    return [(element.get("id"), r) for r in rects if r is not None]


def _overlaps(shapes: dict[str, Rect], hosts: dict[str, str | None]) -> Iterator[str]:
    for (a, ra), (b, rb) in combinations(sorted(shapes.items()), 2):
        if hosts.get(a) == b or hosts.get(b) == a:
            continue
        if _overlap(ra, rb):
            yield f"shapes {a} and {b} overlap"


def _edge_problems(plane: etree._Element, elements: dict[str, etree._Element], every: dict[str, Rect]) -> Iterator[str]:
    for edge in plane.iter(f"{_BPMNDI}BPMNEdge"):
        ref = edge.get("bpmnElement")
        points = []
        for waypoint in edge.iterchildren(f"{_DI}waypoint"):
            try:
                points.append((float(waypoint.get("x")), float(waypoint.get("y"))))
            except (TypeError, ValueError):
                yield f"edge {ref} has a waypoint that is not a number"
        if not points:
            continue
        for (x1, y1), (x2, y2) in zip(points, points[1:]):
            if abs(x1 - x2) > TOLERANCE and abs(y1 - y2) > TOLERANCE:
                yield f"edge {ref} has a slanted segment"
                break
        flow = elements.get(ref)
        for end, point, word in (("sourceRef", points[0], "start on"), ("targetRef", points[-1], "end on")):
            other = flow.get(end) if flow is not None else None
            if other in every and not _inside_point(point, every[other]):
                yield f"edge {ref} does not {word} {other}"


def _containment(
    root: etree._Element, elements: dict[str, etree._Element], shapes: dict[str, Rect], frames: dict[str, Rect]
) -> Iterator[str]:
    pools = {p.get("processRef"): p.get("id") for p in root.iter(f"{_B}participant") if p.get("processRef")}
    lanes_of: dict[str, list[str]] = {}
    for ref in root.iter(f"{_B}flowNodeRef"):
        lanes_of.setdefault((ref.text or "").strip(), []).append(ref.getparent().get("id"))
    for node_id, rect in shapes.items():
        element = elements.get(node_id)
        parent = element.getparent() if element is not None else None
        if parent is None or _local(parent) not in _FLOW_NODE_PARENTS or not _is_flow_node(element):
            continue
        around: list[str | None] = list(lanes_of.get(node_id, []))
        around.append(parent.get("id") if _local(parent) != "process" else pools.get(parent.get("id")))
        for frame in around:
            if frame in frames and not _inside(rect, frames[frame]):
                yield f"{node_id} is not inside {frame}"


def _is_flow_node(element: etree._Element | None) -> bool:
    """An event, gateway or activity that a lane or container holds (not an artifact, not a boundary event)."""
    kind = _local(element) or ""
    if kind == "boundaryEvent":
        return False
    return kind.endswith(("Event", "Gateway", "Task")) or kind in _ACTIVITIES


# -- DMN ----------------------------------------------------------------------------


def _dmn_problems(root: etree._Element) -> Iterator[str]:
    """Read by local name, so every DMN version's namespaces are checked alike."""
    dmndi = next((e for e in root if _local(e) == "DMNDI"), None)
    if dmndi is None:
        return
    drawn = set()
    for diagram in (e for e in dmndi if _local(e) == "DMNDiagram"):
        shapes = {}
        for shape in (e for e in diagram if _local(e) == "DMNShape"):
            ref = shape.get("dmnElementRef")
            if ref is None:
                continue
            drawn.add(ref)
            rect = _rect(next((c for c in shape if _local(c) == "Bounds"), None))
            if rect is not None:
                shapes[ref] = rect
        yield from _overlaps(shapes, {})
    for element in root:
        if _local(element) in _DRG and element.get("id") not in drawn:
            yield f"{_local(element)} {element.get('id')} has no shape in the DMNDI"


# -- geometry -----------------------------------------------------------------------


def _local(element: etree._Element | None) -> str | None:
    return etree.QName(element).localname if element is not None and isinstance(element.tag, str) else None


def _rect(bounds: etree._Element | None) -> Rect | None:
    if bounds is None:
        return None
    try:
        x, y, w, h = (float(bounds.get(k)) for k in ("x", "y", "width", "height"))
    except (TypeError, ValueError):
        return None
    return x, y, w, h


def _overlap(a: Rect, b: Rect) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return (ax + TOLERANCE < bx + bw and bx + TOLERANCE < ax + aw
            and ay + TOLERANCE < by + bh and by + TOLERANCE < ay + ah)


def _inside(inner: Rect, outer: Rect) -> bool:
    ix, iy, iw, ih = inner
    ox, oy, ow, oh = outer
    return (ox - TOLERANCE <= ix and oy - TOLERANCE <= iy
            and ix + iw <= ox + ow + TOLERANCE and iy + ih <= oy + oh + TOLERANCE)


def _inside_point(point: tuple[float, float], rect: Rect) -> bool:
    return _inside((point[0], point[1], 0, 0), rect)


def _centre(rect: Rect) -> tuple[float, float]:
    x, y, w, h = rect
    return x + w / 2, y + h / 2


def _on_border(point: tuple[float, float], rect: Rect) -> bool:
    x, y = point
    rx, ry, rw, rh = rect
    near = TOLERANCE + 0.5
    on_vertical = min(abs(x - rx), abs(x - rx - rw)) <= near and ry - near <= y <= ry + rh + near
    on_horizontal = min(abs(y - ry), abs(y - ry - rh)) <= near and rx - near <= x <= rx + rw + near
    return on_vertical or on_horizontal

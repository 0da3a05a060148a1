"""Where an inserted flow node goes in a BPMN diagram, and what moves to make room.

A modeler opens the edited file in Camunda Modeler (bpmn-js), so the new
shape is placed the way they would place it by hand (docs/edit.md):

* The flow direction is read from the diagram: a pool or lane drawn
  ``isHorizontal="false"`` or sequence flows that mostly run downward mean a
  top-down diagram. All geometry below works in *flow coordinates*: ``u``
  along the flow (x, or y when top-down), ``v`` across it.
* The new shape goes before its target, centred on the target's row and kept
  inside the target's pool, lanes and expanded sub-process (a container too
  small across the flow is grown, pushing what lies beyond it).
* When there is no room before the target, everything from the target on is
  moved along the flow, as bpmn-js's space tool does: shapes that start at or
  past the line move, pools, lanes, groups and expanded sub-processes that the
  line crosses grow, boundary events and labels move with their owners,
  and edges keep meeting their shapes with right-angled segments.
* External labels (an event's name) and boundary events are obstacles like
  any shape; the target's own ones stay clear of the new shape.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from lxml import etree

from seams.vocab import BPMN_NS, BPMNDI_NS, DC_NS, DI_NS

from .xml import coordinate_text, insert_child, remove_child

TASK_WIDTH, TASK_HEIGHT = 100, 80  # the size Camunda Modeler gives a task
GAP = 50  # the distance Camunda Modeler keeps between elements along the flow
HEADER = 30  # the band a pool or lane draws its name in
PADDING = 10  # the least distance kept between a new shape and its container's border

_B, _BPMNDI, _DC, _DI = (f"{{{ns}}}" for ns in (BPMN_NS, BPMNDI_NS, DC_NS, DI_NS))
_POOLS = {"participant", "lane"}
_EXPANDABLE = {"subProcess", "transaction", "adHocSubProcess"}
_MOVED, _GROWN, _STATIC = "moved", "grown", "static"
_EXTERNAL_LABELS = {"dataStoreReference", "dataObjectReference", "dataInput", "dataOutput",
                    "sequenceFlow", "messageFlow"}


@dataclass(frozen=True)
class Box:
    """A rectangle in flow coordinates."""

    u: float
    v: float
    du: float
    dv: float

    @property
    def u_end(self) -> float:
        return self.u + self.du

    @property
    def v_end(self) -> float:
        return self.v + self.dv

    def start(self, axis: int) -> float:
        return self.u if axis == 0 else self.v

    def size(self, axis: int) -> float:
        return self.du if axis == 0 else self.dv

    def crosses_band(self, low: float, high: float) -> bool:
        return self.v < high and self.v_end > low


def is_expanded(shape: etree._Element, element: etree._Element | None) -> bool:
    """Whether a sub-process shape is drawn expanded (a container of its children).

    ``isExpanded`` decides when present; a legacy file without it draws an
    expanded sub-process larger than a task.
    """
    if element is None or etree.QName(element).localname not in _EXPANDABLE:
        return False
    flag = shape.get("isExpanded")
    if flag is not None:
        return flag == "true"
    bounds = shape.find(f"{_DC}Bounds")
    if bounds is None:
        return False
    return float(bounds.get("width", "0")) > TASK_WIDTH or float(bounds.get("height", "0")) > TASK_HEIGHT


def draws_external_label(element: etree._Element | None) -> bool:
    """Whether bpmn-js draws this element's DI label: a named event, gateway, data reference or flow.

    A task's or sub-process's name is drawn inside it, and an element
    without a name shows no label, whatever bounds its DI keeps.
    """
    if element is None or not (element.get("name") or "").strip():
        return False
    kind = etree.QName(element).localname
    return kind.endswith(("Event", "Gateway")) or kind in _EXTERNAL_LABELS


def is_horizontal_pool(shape: etree._Element) -> bool:
    """bpmn-js reads a pool or lane without ``isHorizontal`` as horizontal."""
    return shape.get("isHorizontal") != "false"


class Diagram:
    """One BPMN plane, read and written in flow coordinates."""

    def __init__(self, plane: etree._Element, kinds: dict[str, etree._Element], vertical: bool) -> None:
        self.plane = plane
        self.kinds = kinds
        self.vertical = vertical
        self.shapes = [s for s in plane.iterchildren(f"{_BPMNDI}BPMNShape") if s.find(f"{_DC}Bounds") is not None]
        self.edges = list(plane.iterchildren(f"{_BPMNDI}BPMNEdge"))
        self.by_element = {s.get("bpmnElement"): s for s in self.shapes}
        self.by_id = {s.get("id"): s for s in self.shapes if s.get("id") is not None}

    # -- reading and writing coordinates

    def box(self, shape_or_bounds: etree._Element) -> Box:
        bounds = shape_or_bounds if shape_or_bounds.tag == f"{_DC}Bounds" else shape_or_bounds.find(f"{_DC}Bounds")
        x, y, w, h = (float(bounds.get(k, "0")) for k in ("x", "y", "width", "height"))
        return Box(y, x, h, w) if self.vertical else Box(x, y, w, h)

    def write_box(self, bounds: etree._Element, box: Box) -> None:
        for key, value in zip(("x", "y", "width", "height"), self.physical(box)):
            if float(bounds.get(key, "nan")) != value:
                bounds.set(key, coordinate_text(value))

    def physical(self, box: Box) -> tuple[float, float, float, float]:
        return (box.v, box.u, box.dv, box.du) if self.vertical else (box.u, box.v, box.du, box.dv)

    def point(self, waypoint: etree._Element) -> tuple[float, float]:
        x, y = float(waypoint.get("x")), float(waypoint.get("y"))
        return (y, x) if self.vertical else (x, y)

    def write_point(self, waypoint: etree._Element, u: float, v: float) -> None:
        for key, value in zip(("x", "y"), (v, u) if self.vertical else (u, v)):
            if float(waypoint.get(key)) != value:
                waypoint.set(key, coordinate_text(value))

    def new_waypoint(self, u: float, v: float) -> etree._Element:
        x, y = (v, u) if self.vertical else (u, v)
        return etree.Element(f"{_DI}waypoint", {"x": coordinate_text(x), "y": coordinate_text(y)})

    # -- what a shape is

    def kind(self, shape: etree._Element) -> str | None:
        element = self.kinds.get(shape.get("bpmnElement"))
        return etree.QName(element).localname if element is not None else None

    def is_container(self, shape: etree._Element) -> bool:
        """A pool, lane or expanded sub-process: flow nodes are drawn inside it."""
        return self.kind(shape) in _POOLS or is_expanded(shape, self.kinds.get(shape.get("bpmnElement")))

    def is_frame(self, shape: etree._Element) -> bool:
        """A shape that grows when the space line crosses it (containers and groups)."""
        return self.is_container(shape) or self.kind(shape) == "group"

    def host(self, shape: etree._Element) -> etree._Element | None:
        """The shape a boundary event is attached to."""
        element = self.kinds.get(shape.get("bpmnElement"))
        if element is None or etree.QName(element).localname != "boundaryEvent":
            return None
        return self.by_element.get(element.get("attachedToRef"))

    def content(self, shape: etree._Element) -> Box:
        """The part of a container where flow nodes go (a pool's or lane's name band left out)."""
        box = self.box(shape)
        if self.kind(shape) not in _POOLS:
            return box
        header_on_u = is_horizontal_pool(shape) != self.vertical
        if header_on_u:
            return Box(box.u + HEADER, box.v, box.du - HEADER, box.dv)
        return Box(box.u, box.v + HEADER, box.du, box.dv - HEADER)

    def containers_of(self, shape: etree._Element) -> list[etree._Element]:
        """The containers drawn around ``shape``, outermost first."""
        inner = self.box(shape)
        found = []
        for other in self.shapes:
            if other is shape or not self.is_container(other):
                continue
            outer = self.box(other)
            if outer.u <= inner.u and outer.v <= inner.v and inner.u_end <= outer.u_end and inner.v_end <= outer.v_end:
                found.append(other)
        return sorted(found, key=lambda s: -self.box(s).du * self.box(s).dv)

    def labels(self, owner: etree._Element) -> list[etree._Element]:
        """The label bounds of a shape or edge, drawn or not (they move with their owner)."""
        return list(owner.iterfind(f"{_BPMNDI}BPMNLabel/{_DC}Bounds"))

    def drawn_labels(self, owner: etree._Element) -> list[etree._Element]:
        """The label bounds bpmn-js draws outside their owner (see ``draws_external_label``)."""
        return self.labels(owner) if draws_external_label(self.kinds.get(owner.get("bpmnElement"))) else []

    def attached_to(self, host: etree._Element) -> list[etree._Element]:
        return [s for s in self.shapes if self.host(s) is host]

    def edge_ends(self, edge: etree._Element) -> tuple[etree._Element | None, etree._Element | None]:
        """The shapes an edge starts and ends at (by its flow's refs, else by sourceElement/targetElement)."""
        flow = self.kinds.get(edge.get("bpmnElement"))
        ends = []
        for ref, attribute in (("sourceRef", "sourceElement"), ("targetRef", "targetElement")):
            shape = self.by_element.get(flow.get(ref)) if flow is not None and flow.get(ref) else None
            ends.append(shape if shape is not None else self.by_id.get(edge.get(attribute) or ""))
        return ends[0], ends[1]

    def obstacles(self, skip: set[etree._Element]) -> Iterator[Box]:
        """Every shape that is not a frame, and every drawn label, except those in ``skip``."""
        for shape in self.shapes:
            if shape not in skip and not self.is_frame(shape):
                yield self.box(shape)
            if shape not in skip:
                yield from (self.box(b) for b in self.drawn_labels(shape))
        for edge in self.edges:
            yield from (self.box(b) for b in self.drawn_labels(edge))

    # -- making space

    def make_space(self, axis: int, line: float, delta: float) -> None:
        """Move everything at or past ``line`` on ``axis`` by ``delta``, growing the frames it crosses."""
        if delta <= 0:
            return
        status: dict[etree._Element, str] = {}
        for shape in self.shapes:
            if self.host(shape) is not None:
                continue
            box = self.box(shape)
            start, end = box.start(axis), box.start(axis) + box.size(axis)
            if start >= line:
                status[shape] = _MOVED
            elif end > line and self.is_frame(shape):
                status[shape] = _GROWN
            else:
                status[shape] = _STATIC
        for shape in self.shapes:
            host = self.host(shape)
            if host is not None:
                host_status = status.get(host, _STATIC)
                if host_status == _GROWN:  # on the far side or past the line on a stretched side
                    box = self.box(shape)
                    host_status = _MOVED if box.start(axis) + box.size(axis) / 2 >= line else _STATIC
                status[shape] = host_status
        for shape, state in status.items():
            if state == _MOVED:
                for bounds in [shape.find(f"{_DC}Bounds"), *self.labels(shape)]:
                    self._shift_box(bounds, axis, delta)
            elif state == _GROWN:
                bounds = shape.find(f"{_DC}Bounds")
                box = self.box(bounds)
                self.write_box(bounds, Box(box.u, box.v, box.du + delta, box.dv) if axis == 0
                               else Box(box.u, box.v, box.du, box.dv + delta))
        for edge in self.edges:
            self._shift_edge(edge, axis, line, delta, status)

    def _shift_box(self, bounds: etree._Element, axis: int, delta: float) -> None:
        box = self.box(bounds)
        self.write_box(bounds, Box(box.u + delta, box.v, box.du, box.dv) if axis == 0
                       else Box(box.u, box.v + delta, box.du, box.dv))

    def _shift_edge(
        self, edge: etree._Element, axis: int, line: float, delta: float, status: dict[etree._Element, str]
    ) -> None:
        points = list(edge.iterchildren(f"{_DI}waypoint"))
        coords = [self.point(p) for p in points]
        moving = [c[axis] >= line for c in coords]
        source, target = self.edge_ends(edge)
        wants = []  # an edge end follows its shape
        for end, index, step in ((source, 0, 1), (target, len(coords) - 1, -1)):
            want = {_MOVED: True, _STATIC: False}.get(status.get(end, "")) if end is not None else None
            if want is not None and coords:
                moving[index] = want
                wants.append((index, step, want))
        pinned = {index for index, _, _ in wants}  # an end's point is not undone by the other end
        for index, step, want in wants:
            j = index + step
            while (0 <= j < len(coords) and j not in pinned and _across(coords[j], coords[j - step], axis)
                   and moving[j] != want):
                moving[j] = want  # a segment across the axis keeps its right angle
                pinned.add(j)
                j += step
        for point, (u, v), move in zip(points, coords, moving):
            if move:
                self.write_point(point, u + delta if axis == 0 else u, v + delta if axis == 1 else v)
        for index in reversed(range(len(coords) - 1)):
            (u1, v1), (u2, v2) = coords[index], coords[index + 1]
            if _across((u1, v1), (u2, v2), axis) and moving[index] != moving[index + 1]:
                self._jog(points[index], points[index + 1], axis)
        for bounds in self.labels(edge):
            box = self.box(bounds)
            if all(moving) or (any(moving) and box.start(axis) + box.size(axis) / 2 >= line):
                self._shift_box(bounds, axis, delta)

    def _jog(self, first: etree._Element, second: etree._Element, axis: int) -> None:
        """Split a segment whose two ends moved apart into three right-angled ones."""
        (u1, v1), (u2, v2) = self.point(first), self.point(second)
        edge = first.getparent()
        if axis == 0:
            middle = v1 + (v2 - v1) // 2
            bends = [(u1, middle), (u2, middle)]
        else:
            middle = u1 + (u2 - u1) // 2
            bends = [(middle, v1), (middle, v2)]
        for offset, (u, v) in enumerate(bends, 1):
            insert_child(edge, self.new_waypoint(u, v), edge.index(first) + offset)


def _across(a: tuple[float, float], b: tuple[float, float], axis: int) -> bool:
    """Whether a segment runs across ``axis`` (modelers leave a pixel of skew in such segments)."""
    return abs(a[axis] - b[axis]) <= 1


def flows_top_down(plane: etree._Element, kinds: dict[str, etree._Element], target_shape: etree._Element) -> bool:
    """Whether the diagram around the target is drawn top-down.

    A pool or lane around the target says so with ``isHorizontal``; without
    one, the sequence flows decide: top-down when more of them go down from
    their source than go right.
    """
    diagram = Diagram(plane, kinds, vertical=False)
    pools = [s for s in diagram.containers_of(target_shape) if diagram.kind(s) in _POOLS]
    if pools:
        return not is_horizontal_pool(pools[-1])
    right = down = 0
    for element in kinds.values():
        if element.tag != f"{_B}sequenceFlow":
            continue
        source, target = (diagram.by_element.get(element.get(r)) for r in ("sourceRef", "targetRef"))
        if source is None or target is None:
            continue
        a, b = diagram.box(source), diagram.box(target)
        right += b.u >= a.u_end
        down += b.v >= a.v_end
    return down > right


@dataclass(frozen=True)
class Placement:
    """The new shape's box and how far the target moved along the flow."""

    box: Box
    shift: float
    target: Box
    line_v: float  # where the edge from the new shape meets the target


def place_before(
    diagram: Diagram, target_shape: etree._Element, size: tuple[float, float], incoming: Iterable[etree._Element] = ()
) -> Placement:
    """Make room before ``target_shape`` for a shape of ``size`` (physical width, height) and say where it goes.

    The labels of the ``incoming`` edges (those that will end at the new
    shape) are obstacles wherever they are: they stay beside their flow.
    """
    du, dv = (size[1], size[0]) if diagram.vertical else size
    band = _band(diagram, target_shape, dv)
    target = diagram.box(target_shape)
    own = {target_shape, *diagram.attached_to(target_shape)}
    own_boxes = [diagram.box(s) for s in own] + [diagram.box(b) for s in own for b in diagram.drawn_labels(s)]
    ahead = min([target.u] + [b.u for b in own_boxes if b.crosses_band(*band)])
    blocking = [b.u_end for b in diagram.obstacles(own) if b.crosses_band(*band) and b.u < ahead]
    blocking += [b.u_end for edge in incoming for b in map(diagram.box, diagram.drawn_labels(edge))
                 if b.crosses_band(*band)]
    containers = diagram.containers_of(target_shape)
    content_start = max((diagram.content(c).u for c in containers), default=None)
    obstacle = max(blocking, default=None)
    if obstacle is not None and (content_start is None or obstacle + GAP >= content_start + PADDING):
        shift = max(0, math.ceil(du + 2 * GAP - (ahead - obstacle)))
        diagram.make_space(0, target.u, shift)
        u = obstacle + (ahead + shift - obstacle - du) // 2
    elif content_start is not None:
        shift = max(0, math.ceil(du + GAP - (ahead - content_start - PADDING)))
        diagram.make_space(0, target.u, shift)
        u = ahead + shift - GAP - du
    else:
        shift, u = 0, ahead - GAP - du
    target = diagram.box(target_shape)
    low, high = band
    line_v = min(max(target.v + target.dv / 2, max(low, target.v)), min(high, target.v_end))
    return Placement(Box(u, low, du, dv), shift, target, line_v)


def _band(diagram: Diagram, target_shape: etree._Element, dv: float) -> tuple[float, float]:
    """The new shape's extent across the flow: on the target's row, inside its containers."""
    containers = diagram.containers_of(target_shape)
    if containers:
        inner = diagram.content(containers[-1])
        room = inner.dv - 2 * PADDING
        if room < dv:  # grow the innermost container across the flow, as bpmn-js's auto-resize would
            # the line just inside its far border: it and the containers around it grow, what follows moves
            diagram.make_space(1, diagram.box(containers[-1]).v_end - 0.5, math.ceil(dv - room))
    target = diagram.box(target_shape)
    middle = target.v + target.dv / 2
    low = middle - dv / 2
    for container in containers:
        inner = diagram.content(container)
        low = min(max(low, inner.v + PADDING), inner.v_end - PADDING - dv)
    return low, low + dv


def reroute_end(diagram: Diagram, edge: etree._Element, box: Box) -> None:
    """End an edge at the new shape's near side with right-angled segments, keeping its start."""
    points = list(edge.iterchildren(f"{_DI}waypoint"))
    if not points:
        return
    middle = box.v + box.dv / 2
    coords = [diagram.point(p) for p in points]
    kept = []
    for u, v in coords:
        if u >= box.u:
            break
        kept.append((u, v))
    kept = kept or coords[:1]
    pu, pv = kept[-1]
    if pu < box.u:
        bend = pu + (box.u - pu) // 2
        tail = [(box.u, middle)] if pv == middle else [(bend, pv), (bend, middle), (box.u, middle)]
    else:  # the flow comes from across the flow: enter the shape's near long side
        centre, entry = box.u + box.du / 2, box.v if pv < middle else box.v_end
        bend = pv + (entry - pv) // 2
        tail = [(pu, bend), (centre, bend), (centre, entry)]
    route: list[tuple[float, float]] = []
    for point in kept + tail:
        if not route or route[-1] != point:
            route.append(point)
    for element, (u, v) in zip(points, route):
        diagram.write_point(element, u, v)
    for element in points[len(route):]:
        remove_child(element)
    for u, v in route[len(points):]:
        last = list(edge.iterchildren(f"{_DI}waypoint"))[-1]
        insert_child(edge, diagram.new_waypoint(u, v), edge.index(last) + 1)


def straight_edge(diagram: Diagram, edge: etree._Element, points: Iterable[tuple[float, float]]) -> None:
    """Give a new edge its waypoints (flow coordinates)."""
    for u, v in points:
        edge.append(diagram.new_waypoint(u, v))

"""A BPMN diagram drawn as SVG from its diagram interchange (DI), as Camunda Modeler lays it out.

Every shape and edge is drawn where the file's first ``BPMNDiagram`` puts it: pools and lanes
(with their name bands), tasks by kind (with the kind's icon and loop markers), sub-processes
(expanded with their content, collapsed with the ``+`` marker, event and transaction
sub-processes), events with their definitions, gateways with their markers, data objects and
stores, text annotations and groups; sequence flows (default and conditional markers), message
flows and associations along their waypoints, and every label in its DI bounds, or where bpmn-js
puts a label that has none (below an event or gateway, at the middle of a flow). A flow or shape
can be *marked* (``MARKS``): the page says what a colour means.

Each drawn element is a ``<g data-element-id=...>`` whose first child is its outline, so a test
can read the drawing back and compare it with what bpmn-js draws (tests/test_render_svg.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from math import cos, pi, sin

from lxml import etree

from seams.render.text import esc, wrap
from seams.vocab import BPMN_NS, BPMNDI_NS, DC_NS, DI_NS

B, BDI, DC, DI = (f"{{{ns}}}" for ns in (BPMN_NS, BPMNDI_NS, DC_NS, DI_NS))

INK, PAPER = "#22242a", "#ffffff"
MARKS: dict[str, tuple[str, str]] = {
    "added": ("#2e7d32", "#e8f5e9"),
    "removed": ("#c62828", "#ffebee"),
    "changed": ("#e65100", "#fff3e0"),
    "taken": ("#1565c0", "#e3f2fd"),
    "not-covered": ("#ad1457", "#fce4ec"),
    "stopped": ("#b71c1c", "#ffcdd2"),
}
"""A mark's stroke and fill colours, by name."""
MARGIN = 20
FONT = "Arial, Helvetica, sans-serif"
LABEL_SIZE = (90.0, 20.0)  # bpmn-js' DEFAULT_LABEL_SIZE: where a label without DI bounds goes

TASKS = frozenset({"task", "userTask", "serviceTask", "scriptTask", "businessRuleTask", "sendTask",
                   "receiveTask", "manualTask", "callActivity"})
SUB_PROCESSES = frozenset({"subProcess", "transaction", "adHocSubProcess"})
EVENTS = frozenset({"startEvent", "endEvent", "intermediateCatchEvent", "intermediateThrowEvent",
                    "boundaryEvent"})
GATEWAYS = frozenset({"exclusiveGateway", "parallelGateway", "inclusiveGateway", "eventBasedGateway",
                      "complexGateway"})
EXTERNAL_LABELS = EVENTS | GATEWAYS | {"dataObjectReference", "dataStoreReference", "dataInput", "dataOutput",
                                        "group"}


@dataclass(frozen=True)
class Bounds:
    x: float
    y: float
    width: float
    height: float

    @property
    def cx(self) -> float:
        return self.x + self.width / 2

    @property
    def cy(self) -> float:
        return self.y + self.height / 2


@dataclass(frozen=True)
class Shape:
    id: str
    kind: str  # the semantic element's local name ("" when the DI names no element)
    element: etree._Element | None
    bounds: Bounds
    label: Bounds | None
    expanded: bool
    horizontal: bool
    marker_visible: bool = False


@dataclass(frozen=True)
class Edge:
    id: str
    kind: str
    element: etree._Element | None
    points: tuple[tuple[float, float], ...]
    label: Bounds | None


def render_bpmn(source: etree._Element | etree._ElementTree, marks: Mapping[str, str] | None = None) -> str:
    """The SVG of the first diagram of a BPMN ``definitions`` tree; ``marks`` maps element ids to a
    name of ``MARKS`` (unknown names and ids are ignored). An empty ``<svg>`` when there is no DI."""
    root = source.getroot() if isinstance(source, etree._ElementTree) else source
    shapes, edges = read_diagram(root)
    marks = {key: value for key, value in (marks or {}).items() if value in MARKS}
    box = _extent(shapes, edges)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="bpmn-diagram" viewBox="{_n(box.x)} {_n(box.y)} '
           f'{_n(box.width)} {_n(box.height)}" width="{_n(box.width)}" height="{_n(box.height)}" '
           f'font-family="{FONT}">', _defs()]
    defaults = {el.get("default") for el in root.iter() if isinstance(el.tag, str) and el.get("default")}
    gateways = {el.get("id") for el in root.iter() if isinstance(el.tag, str)
                and etree.QName(el).localname in GATEWAYS}
    for shape in _z_order(shapes):
        out.append(_shape(shape, marks.get(shape.id)))
    for edge in edges:
        out.append(_edge(edge, marks.get(edge.id), edge.id in defaults, gateways))
    for shape in shapes:
        out.append(_external_label(shape, marks.get(shape.id)))
    for edge in edges:
        out.append(_edge_label(edge, marks.get(edge.id)))
    out.append("</svg>")
    return "\n".join(part for part in out if part)


def read_diagram(root: etree._Element) -> tuple[list[Shape], list[Edge]]:
    """The shapes and edges of the first ``BPMNPlane``, in document order, with their elements."""
    plane = next(root.iter(f"{BDI}BPMNPlane"), None)
    if plane is None:
        return [], []
    elements = {el.get("id"): el for el in root.iter() if isinstance(el.tag, str) and el.get("id")}
    shapes, edges = [], []
    for di in plane:
        if not isinstance(di.tag, str):
            continue
        ref = di.get("bpmnElement") or ""
        element = elements.get(ref)
        kind = etree.QName(element).localname if element is not None else ""
        label = _bounds(di.find(f"{BDI}BPMNLabel/{DC}Bounds"))
        if di.tag == f"{BDI}BPMNShape":
            bounds = _bounds(di.find(f"{DC}Bounds"))
            if bounds is None:
                continue
            expanded = di.get("isExpanded") == "true" or (kind in SUB_PROCESSES and di.get("isExpanded") is None
                                                          and bounds.width > 150)
            shapes.append(Shape(ref, kind, element, bounds, label, expanded, di.get("isHorizontal") != "false",
                                marker_visible=di.get("isMarkerVisible") == "true"))
        elif di.tag == f"{BDI}BPMNEdge":
            points = tuple((_f(p.get("x")), _f(p.get("y"))) for p in di.iter(f"{DI}waypoint"))
            if len(points) >= 2:
                edges.append(Edge(ref, kind, element, points, label))
    return shapes, edges


def shape_label_bounds(shape: Shape) -> Bounds:
    """Where the external label of an event, gateway or data element goes: its DI bounds, else
    centred under the shape as bpmn-js places it."""
    if shape.label is not None:
        return shape.label
    mid_x, mid_y = shape.bounds.cx, shape.bounds.y + shape.bounds.height + LABEL_SIZE[1] / 2
    return Bounds(mid_x - LABEL_SIZE[0] / 2, mid_y - LABEL_SIZE[1] / 2, *LABEL_SIZE)


FLOW_LABEL_INDENT = 15


def edge_label_bounds(edge: Edge) -> Bounds:
    """A flow's label: its DI bounds, else beside the middle of its waypoints, above the middle segment
    or right of it when it is vertical (bpmn-js' getFlowLabelPosition)."""
    if edge.label is not None:
        return edge.label
    mid = len(edge.points) / 2 - 1
    first, second = edge.points[int(mid // 1)], edge.points[int(-(-(mid + 0.01) // 1))]
    x, y = first[0] + (second[0] - first[0]) / 2, first[1] + (second[1] - first[1]) / 2
    if second[0] != first[0]:  # bpmn-js: |atan(dy / dx)| < pi / 2, true for any segment but a vertical one
        y -= FLOW_LABEL_INDENT
    else:
        x += FLOW_LABEL_INDENT
    return Bounds(x - LABEL_SIZE[0] / 2, y - LABEL_SIZE[1] / 2, *LABEL_SIZE)


def _f(text: str | None) -> float:
    try:
        value = float(text or 0)
    except ValueError:
        return 0.0
    return value if abs(value) < 1e7 else 0.0  # a hostile coordinate must not make a giant picture


def _bounds(element: etree._Element | None) -> Bounds | None:
    if element is None:
        return None
    width, height = max(_f(element.get("width")), 0.0), max(_f(element.get("height")), 0.0)
    return Bounds(_f(element.get("x")), _f(element.get("y")), width, height)


def _n(value: float) -> str:
    """A coordinate as short, stable text."""
    return f"{value:.2f}".rstrip("0").rstrip(".") if value % 1 else str(int(value))


def _extent(shapes: list[Shape], edges: list[Edge]) -> Bounds:
    xs, ys = [], []
    for shape in shapes:
        boxes = [shape.bounds] + ([shape_label_bounds(shape)] if _name(shape.element) else [])
        for b in boxes:
            xs += [b.x, b.x + b.width]
            ys += [b.y, b.y + b.height]
    for edge in edges:
        xs += [p[0] for p in edge.points]
        ys += [p[1] for p in edge.points]
        if _name(edge.element):
            b = edge_label_bounds(edge)
            xs += [b.x, b.x + b.width]
            ys += [b.y, b.y + b.height]
    if not xs:
        return Bounds(0, 0, 2 * MARGIN, 2 * MARGIN)
    return Bounds(min(xs) - MARGIN, min(ys) - MARGIN, max(xs) - min(xs) + 2 * MARGIN,
                  max(ys) - min(ys) + 2 * MARGIN)


def _z_order(shapes: list[Shape]) -> list[Shape]:
    """Pools, then lanes, then expanded containers largest first, then the rest in file order."""
    def rank(item: tuple[int, Shape]) -> tuple[int, float, int]:
        index, shape = item
        if shape.kind == "participant":
            return (0, 0.0, index)
        if shape.kind == "lane":
            return (1, 0.0, index)
        if shape.kind in SUB_PROCESSES and shape.expanded:
            return (2, -shape.bounds.width * shape.bounds.height, index)
        return (3, 0.0, index)
    return [shape for _, shape in sorted(enumerate(shapes), key=rank)]


def _name(element: etree._Element | None) -> str:
    if element is None:
        return ""
    if etree.QName(element).localname == "textAnnotation":
        text = element.find(f"{B}text")
        return (text.text or "") if text is not None else ""
    if etree.QName(element).localname == "group":  # a group shows its category value
        ref = element.get("categoryValueRef")
        for value in element.getroottree().getroot().iter(f"{B}categoryValue"):
            if ref and value.get("id") == ref:
                return value.get("value") or ""
        return ""
    return element.get("name") or ""


def _colours(mark: str | None) -> tuple[str, str]:
    return MARKS[mark] if mark else (INK, PAPER)


def _open(kind: str, ident: str, mark: str | None, what: str) -> str:
    marked = f' data-mark="{mark}" class="{what} mark-{mark}"' if mark else f' class="{what}"'
    return f'<g data-element-id="{esc(ident)}" data-kind="{esc(kind)}"{marked}>'


def _text_lines(lines: list[str], x: float, top: float, size: float, colour: str, *,
                anchor: str = "middle", transform: str = "") -> str:
    if not lines:
        return ""
    step = size * 1.2
    spans = "".join(f'<tspan x="{_n(x)}" y="{_n(top + size + i * step)}">{esc(line)}</tspan>'
                    for i, line in enumerate(lines))
    rotate = f' transform="{transform}"' if transform else ""
    return f'<text font-size="{_n(size)}" fill="{colour}" text-anchor="{anchor}"{rotate}>{spans}</text>'


def _centred_text(text: str, box: Bounds, size: float, colour: str, *, padding: float = 5) -> str:
    lines = wrap(text, box.width - 2 * padding)
    height = len(lines) * size * 1.2
    return _text_lines(lines, box.cx, box.cy - height / 2 - size * 0.1, size, colour)


# ---------------------------------------------------------------------------------------- shapes


def _shape(shape: Shape, mark: str | None) -> str:
    stroke, fill = _colours(mark)
    kind, b = shape.kind, shape.bounds
    if kind in TASKS:
        body = _task(shape, stroke, fill)
    elif kind in SUB_PROCESSES:
        body = _sub_process(shape, stroke, fill)
    elif kind in EVENTS:
        body = _event(shape, stroke, fill)
    elif kind in GATEWAYS:
        body = _gateway(shape, stroke, fill)
    elif kind in ("participant", "lane"):
        body = _pool(shape, stroke, fill if mark else "none" if kind == "lane" else PAPER)
    elif kind == "dataObjectReference" or kind in ("dataInput", "dataOutput"):
        body = _hit_area(b) + _data_object(b, stroke, fill)
    elif kind == "dataStoreReference":
        body = _hit_area(b) + _data_store(b, stroke, fill)
    elif kind == "textAnnotation":
        body = (_hit_area(b) + f'<path d="M{_n(b.x + 10)},{_n(b.y)} H{_n(b.x)} V{_n(b.y + b.height)} '
                f'H{_n(b.x + 10)}" fill="none" stroke="{stroke}" stroke-width="1"/>'
                + _text_lines(wrap(_name(shape.element), b.width - 10), b.x + 5, b.y + 3, 12, stroke, anchor="start"))
    elif kind == "group":
        body = (f'<rect x="{_n(b.x)}" y="{_n(b.y)}" width="{_n(b.width)}" height="{_n(b.height)}" rx="10" '
                f'fill="none" stroke="{stroke}" stroke-width="1" stroke-dasharray="10,6,1,6"/>')
    else:  # an element seams does not know: its bounds, so nothing in the file goes missing
        body = (f'<rect x="{_n(b.x)}" y="{_n(b.y)}" width="{_n(b.width)}" height="{_n(b.height)}" '
                f'fill="{fill}" stroke="{stroke}" stroke-dasharray="4,2"/>')
    return _open(kind, shape.id, mark, "bpmn-shape") + body + "</g>"


def _hit_area(b: Bounds) -> str:
    """An invisible rectangle of the DI bounds, first in a shape whose outline is not one (as bpmn-js' hit box)."""
    return (f'<rect class="bounds" x="{_n(b.x)}" y="{_n(b.y)}" width="{_n(b.width)}" height="{_n(b.height)}" '
            f'fill="none" stroke="none"/>')


def _rect(b: Bounds, stroke: str, fill: str, width: float, *, rx: float = 10, dash: str = "") -> str:
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<rect x="{_n(b.x)}" y="{_n(b.y)}" width="{_n(b.width)}" height="{_n(b.height)}" rx="{_n(rx)}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{_n(width)}"{dashed}/>')


def _task(shape: Shape, stroke: str, fill: str) -> str:
    b = shape.bounds
    parts = [_rect(b, stroke, fill, 5 if shape.kind == "callActivity" else 2),
             _task_icon(shape.kind, b.x, b.y, stroke, fill),
             _centred_text(_name(shape.element), b, 12, stroke),
             _loop_marker(shape.element, b.cx, b.y + b.height - 14, stroke)]
    return "".join(parts)


def _sub_process(shape: Shape, stroke: str, fill: str) -> str:
    b, element = shape.bounds, shape.element
    event = element is not None and element.get("triggeredByEvent") == "true"
    parts = [_rect(b, stroke, fill, 2, dash="4,2" if event else "")]
    if shape.kind == "transaction":
        inner = Bounds(b.x + 3, b.y + 3, b.width - 6, b.height - 6)
        parts.append(_rect(inner, stroke, "none", 1.5, rx=7))
    name = _name(element)
    if shape.expanded:
        parts.append(_text_lines(wrap(name, b.width - 10), b.x + 10, b.y + 5, 12, stroke, anchor="start"))
    else:
        parts.append(_centred_text(name, b, 12, stroke))
        cx, bottom = b.cx, b.y + b.height - 4
        parts.append(f'<rect x="{_n(cx - 7)}" y="{_n(bottom - 14)}" width="14" height="14" fill="none" '
                     f'stroke="{stroke}"/><path d="M{_n(cx - 4)},{_n(bottom - 7)} h8 M{_n(cx)},{_n(bottom - 11)} v8" '
                     f'stroke="{stroke}" stroke-width="1.5"/>')
    parts.append(_loop_marker(element, b.cx + (18 if not shape.expanded else 0), b.y + b.height - 14, stroke))
    return "".join(parts)


def _loop_marker(element: etree._Element | None, cx: float, top: float, stroke: str) -> str:
    if element is None:
        return ""
    multi = element.find(f"{B}multiInstanceLoopCharacteristics")
    if multi is not None:
        if multi.get("isSequential") == "true":
            return "".join(f'<path d="M{_n(cx - 6)},{_n(top + 2 + 4 * i)} h12" stroke="{stroke}" stroke-width="2"/>'
                           for i in range(3))
        return "".join(f'<path d="M{_n(cx - 4 + 4 * i)},{_n(top)} v11" stroke="{stroke}" stroke-width="2"/>'
                       for i in range(3))
    if element.find(f"{B}standardLoopCharacteristics") is not None:
        return (f'<path d="M{_n(cx - 3)},{_n(top + 11)} A6,6 0 1 1 {_n(cx + 3)},{_n(top + 11)}" fill="none" '
                f'stroke="{stroke}" stroke-width="1.5"/>')
    return ""


def _task_icon(kind: str, x: float, y: float, stroke: str, fill: str) -> str:
    """A small glyph in the top left corner saying the task's kind, drawn where bpmn-js draws its icon."""
    if kind == "userTask":
        return (f'<circle cx="{_n(x + 15)}" cy="{_n(y + 12)}" r="4" fill="{fill}" stroke="{stroke}"/>'
                f'<path d="M{_n(x + 7)},{_n(y + 25)} a8,7 0 0 1 16,0 z" fill="{fill}" stroke="{stroke}"/>')
    if kind == "serviceTask":
        teeth = "".join(f'<path d="M{_n(x + 15 + 5 * cos(a))},{_n(y + 15 + 5 * sin(a))} '
                        f'L{_n(x + 15 + 8 * cos(a))},{_n(y + 15 + 8 * sin(a))}" stroke="{stroke}" stroke-width="2.5"/>'
                        for a in (i * pi / 4 for i in range(8)))
        return (teeth + f'<circle cx="{_n(x + 15)}" cy="{_n(y + 15)}" r="5.5" fill="{fill}" stroke="{stroke}"/>'
                f'<circle cx="{_n(x + 15)}" cy="{_n(y + 15)}" r="2" fill="none" stroke="{stroke}"/>')
    if kind == "businessRuleTask":
        return (f'<rect x="{_n(x + 8)}" y="{_n(y + 8)}" width="18" height="13" fill="{fill}" stroke="{stroke}"/>'
                f'<rect x="{_n(x + 8)}" y="{_n(y + 8)}" width="18" height="4" fill="{stroke}"/>'
                f'<path d="M{_n(x + 8)},{_n(y + 16.5)} h18 M{_n(x + 13)},{_n(y + 12)} v9" stroke="{stroke}"/>')
    if kind == "scriptTask":
        return (f'<path d="M{_n(x + 10)},{_n(y + 7)} h12 c-5,4 5,8 0,14 h-12 c5,-6 -5,-10 0,-14 z" fill="{fill}" '
                f'stroke="{stroke}"/><path d="M{_n(x + 12)},{_n(y + 11)} h6 M{_n(x + 13)},{_n(y + 15)} h6 '
                f'M{_n(x + 13)},{_n(y + 19)} h6" stroke="{stroke}"/>')
    if kind in ("sendTask", "receiveTask"):
        body, line = (stroke, fill) if kind == "sendTask" else (fill, stroke)
        return _envelope(x + 15, y + 14, body, line)
    if kind == "manualTask":
        return (f'<path d="M{_n(x + 7)},{_n(y + 14)} l5,-5 h12 v3 h-6 h8 v3 h-8 h7 v3 h-7 h5 v3 h-14 z" '
                f'fill="{fill}" stroke="{stroke}"/>')
    return ""


def _envelope(cx: float, cy: float, body: str, line: str) -> str:
    x, y = cx - 9, cy - 6
    return (f'<rect x="{_n(x)}" y="{_n(y)}" width="18" height="12" fill="{body}" '
            f'stroke="{line if body != line else body}"/>'
            f'<path d="M{_n(x)},{_n(y)} l9,6 l9,-6" fill="none" stroke="{line}"/>')


def _event(shape: Shape, stroke: str, fill: str) -> str:
    b, kind, element = shape.bounds, shape.kind, shape.element
    r = min(b.width, b.height) / 2
    cx, cy = b.cx, b.cy
    dash = ""
    if element is not None and (element.get("cancelActivity") == "false" or element.get("isInterrupting") == "false"):
        dash = ' stroke-dasharray="5.5,3"'
    width = 4 if kind == "endEvent" else 2 if kind == "startEvent" else 1.5
    parts = [f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r)}" fill="{fill}" stroke="{stroke}" '
             f'stroke-width="{_n(width)}"{dash}/>']
    if kind in ("intermediateCatchEvent", "intermediateThrowEvent", "boundaryEvent"):
        parts.append(f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(max(r - 3, 1))}" fill="none" stroke="{stroke}" '
                     f'stroke-width="1.5"{dash}/>')
    throw = kind in ("endEvent", "intermediateThrowEvent")
    definitions = [etree.QName(d).localname for d in (element if element is not None else [])
                   if isinstance(d.tag, str) and etree.QName(d).localname.endswith("EventDefinition")]
    if len(definitions) == 1:
        parts.append(_definition_glyph(definitions[0], cx, cy, stroke, fill, throw))
    elif len(definitions) > 1:  # multiple: a pentagon
        parts.append(_polygon(_pentagon(cx, cy, 9), stroke if throw else "none", stroke))
    return "".join(parts)


def _pentagon(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    return [(cx + r * cos(a), cy + r * sin(a)) for a in (-pi / 2 + i * 2 * pi / 5 for i in range(5))]


def _polygon(points: list[tuple[float, float]], fill: str, stroke: str, width: float = 1) -> str:
    text = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
    return f'<polygon points="{text}" fill="{fill}" stroke="{stroke}" stroke-width="{_n(width)}"/>'


def _definition_glyph(definition: str, cx: float, cy: float, stroke: str, fill: str, throw: bool) -> str:
    solid = stroke if throw else "none"
    if definition == "messageEventDefinition":
        return _envelope(cx, cy, stroke if throw else fill, fill if throw else stroke)
    if definition == "timerEventDefinition":
        hands = "".join(f'<path d="M{_n(cx + 8 * cos(a))},{_n(cy + 8 * sin(a))} L{_n(cx + 10 * cos(a))},'
                        f'{_n(cy + 10 * sin(a))}" stroke="{stroke}"/>' for a in (i * pi / 6 for i in range(12)))
        return (f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="11" fill="{fill}" stroke="{stroke}" stroke-width="2"/>'
                + hands + f'<path d="M{_n(cx)},{_n(cy)} L{_n(cx + 5)},{_n(cy - 7)} M{_n(cx)},{_n(cy)} '
                f'L{_n(cx + 6)},{_n(cy + 1)}" stroke="{stroke}" stroke-width="1.5"/>')
    if definition == "signalEventDefinition":
        return _polygon([(cx, cy - 10), (cx + 9, cy + 6), (cx - 9, cy + 6)], solid, stroke, 1.5)
    if definition == "errorEventDefinition":
        return _polygon([(cx - 9, cy + 8), (cx - 4, cy - 8), (cx + 2, cy + 2), (cx + 9, cy - 8), (cx + 4, cy + 8),
                         (cx - 2, cy - 2)], solid, stroke, 1.5)
    if definition == "escalationEventDefinition":
        return _polygon([(cx, cy - 10), (cx + 7, cy + 9), (cx, cy + 1), (cx - 7, cy + 9)], solid, stroke, 1.5)
    if definition == "terminateEventDefinition":
        return f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="10" fill="{stroke}" stroke="{stroke}"/>'
    if definition == "conditionalEventDefinition":
        lines = "".join(f'<path d="M{_n(cx - 5)},{_n(cy - 5 + 3.5 * i)} h10" stroke="{stroke}"/>' for i in range(4))
        return (f'<rect x="{_n(cx - 7)}" y="{_n(cy - 9)}" width="14" height="18" fill="{fill}" '
                f'stroke="{stroke}"/>' + lines)
    if definition == "linkEventDefinition":
        return _polygon([(cx - 8, cy - 3), (cx + 1, cy - 3), (cx + 1, cy - 8), (cx + 9, cy), (cx + 1, cy + 8),
                         (cx + 1, cy + 3), (cx - 8, cy + 3)], solid, stroke, 1.5)
    if definition == "compensateEventDefinition":
        return (_polygon([(cx - 9, cy), (cx, cy - 7), (cx, cy + 7)], solid, stroke, 1.5)
                + _polygon([(cx, cy), (cx + 9, cy - 7), (cx + 9, cy + 7)], solid, stroke, 1.5))
    if definition == "cancelEventDefinition":
        return (f'<path d="M{_n(cx - 7)},{_n(cy - 7)} l14,14 M{_n(cx + 7)},{_n(cy - 7)} l-14,14" '
                f'stroke="{stroke}" stroke-width="3"/>')
    return ""


def _gateway(shape: Shape, stroke: str, fill: str) -> str:
    b, kind = shape.bounds, shape.kind
    cx, cy = b.cx, b.cy
    parts = [_polygon([(cx, b.y), (b.x + b.width, cy), (cx, b.y + b.height), (b.x, cy)], fill, stroke, 2)]
    if kind == "exclusiveGateway" and shape.marker_visible:
        parts.append(f'<path d="M{_n(cx - 8)},{_n(cy - 10)} L{_n(cx + 8)},{_n(cy + 10)} M{_n(cx + 8)},{_n(cy - 10)} '
                     f'L{_n(cx - 8)},{_n(cy + 10)}" stroke="{stroke}" stroke-width="4"/>')
    elif kind == "parallelGateway":
        parts.append(f'<path d="M{_n(cx)},{_n(cy - 13)} v26 M{_n(cx - 13)},{_n(cy)} h26" stroke="{stroke}" '
                     f'stroke-width="4"/>')
    elif kind == "inclusiveGateway":
        parts.append(f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="11" fill="none" stroke="{stroke}" stroke-width="2.5"/>')
    elif kind == "eventBasedGateway":
        parts.append(f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="11" fill="none" stroke="{stroke}"/>'
                     f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="8.5" fill="none" stroke="{stroke}"/>'
                     + _polygon(_pentagon(cx, cy, 6), "none", stroke, 1.5))
    elif kind == "complexGateway":
        parts.append(f'<path d="M{_n(cx)},{_n(cy - 13)} v26 M{_n(cx - 13)},{_n(cy)} h26 M{_n(cx - 9)},{_n(cy - 9)} '
                     f'l18,18 M{_n(cx + 9)},{_n(cy - 9)} l-18,18" stroke="{stroke}" stroke-width="3.5"/>')
    return "".join(parts)


def _pool(shape: Shape, stroke: str, fill: str) -> str:
    b = shape.bounds
    width = 1.5
    parts = [f'<rect x="{_n(b.x)}" y="{_n(b.y)}" width="{_n(b.width)}" height="{_n(b.height)}" fill="{fill}" '
             f'stroke="{stroke}" stroke-width="{_n(width)}"/>']
    name = _name(shape.element)
    band = 30
    if shape.kind == "participant" and shape.element is not None and shape.element.get("processRef") is None \
            and b.width > 0:
        band = 0  # a collapsed (black box) pool: its name is written across it
    if band == 0:
        parts.append(_centred_text(name, b, 12, stroke))
    elif shape.horizontal:
        parts.append(f'<path d="M{_n(b.x + band)},{_n(b.y)} v{_n(b.height)}" stroke="{stroke}" '
                     f'stroke-width="{_n(width)}"/>')
        parts.append(_rotated(wrap(name, b.height - 10), b.x + band / 2, b.cy, stroke))
    else:
        parts.append(f'<path d="M{_n(b.x)},{_n(b.y + band)} h{_n(b.width)}" stroke="{stroke}" '
                     f'stroke-width="{_n(width)}"/>')
        parts.append(_centred_text(name, Bounds(b.x, b.y, b.width, band), 12, stroke))
    return "".join(parts)


def _rotated(lines: list[str], cx: float, cy: float, stroke: str) -> str:
    """Lines centred on (cx, cy), turned to read upwards as a pool's or lane's name band does."""
    if not lines:
        return ""
    height = len(lines) * 12 * 1.2
    spans = "".join(f'<tspan x="{_n(cx)}" y="{_n(cy - height / 2 + 12 * (i + 1) * 1.2 - 2.4)}">{esc(line)}</tspan>'
                    for i, line in enumerate(lines))
    return (f'<text font-size="12" fill="{stroke}" text-anchor="middle" '
            f'transform="rotate(-90 {_n(cx)} {_n(cy)})">{spans}</text>')


def _data_object(b: Bounds, stroke: str, fill: str) -> str:
    fold = min(10.0, b.width / 3)
    x2, y2 = b.x + b.width, b.y + b.height
    return (f'<path d="M{_n(b.x)},{_n(b.y)} H{_n(x2 - fold)} L{_n(x2)},{_n(b.y + fold)} V{_n(y2)} H{_n(b.x)} Z" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="2"/>'
            f'<path d="M{_n(x2 - fold)},{_n(b.y)} V{_n(b.y + fold)} H{_n(x2)}" fill="none" stroke="{stroke}"/>')


def _data_store(b: Bounds, stroke: str, fill: str) -> str:
    ry = min(6.0, b.height / 6)
    x2, y2 = b.x + b.width, b.y + b.height
    rx = b.width / 2
    return (f'<path d="M{_n(b.x)},{_n(b.y + ry)} A{_n(rx)},{_n(ry)} 0 0 1 {_n(x2)},{_n(b.y + ry)} V{_n(y2 - ry)} '
            f'A{_n(rx)},{_n(ry)} 0 0 1 {_n(b.x)},{_n(y2 - ry)} Z" fill="{fill}" stroke="{stroke}" stroke-width="2"/>'
            f'<path d="M{_n(b.x)},{_n(b.y + ry)} A{_n(rx)},{_n(ry)} 0 0 0 {_n(x2)},{_n(b.y + ry)}" fill="none" '
            f'stroke="{stroke}" stroke-width="2"/>')


def _external_label(shape: Shape, mark: str | None) -> str:
    name = _name(shape.element)
    if not name or shape.kind not in EXTERNAL_LABELS:
        return ""
    return _label(shape.id, shape.kind, shape_label_bounds(shape), name, mark)


def _label(ident: str, kind: str, box: Bounds, name: str, mark: str | None) -> str:
    stroke, _ = _colours(mark)
    lines = wrap(name, max(box.width, LABEL_SIZE[0]), 11)
    text = _text_lines(lines, box.cx, box.y - 1, 11, stroke)
    return (f'<g class="bpmn-label" data-label-of="{esc(ident)}" data-kind="{esc(kind)}" data-x="{_n(box.x)}" '
            f'data-y="{_n(box.y)}" data-width="{_n(box.width)}" data-height="{_n(box.height)}">{text}</g>')


# ----------------------------------------------------------------------------------------- edges


def _marker(ident: str, ref: tuple[float, float], size: int, body: str) -> str:
    return (f'<marker id="{ident}" viewBox="0 0 20 20" refX="{_n(ref[0])}" refY="{_n(ref[1])}" '
            f'markerWidth="{size}" markerHeight="{size}" orient="auto" markerUnits="userSpaceOnUse">{body}</marker>')


def _defs() -> str:
    """Arrow heads per colour (a marker does not take its line's colour)."""
    out = ["<defs>"]
    for name, (stroke, _) in [("ink", (INK, PAPER)), *MARKS.items()]:
        out += [_marker(f"seq-{name}", (11, 10), 10,
                        f'<path d="M1,5 L11,10 L1,15 Z" fill="{stroke}" stroke="{stroke}"/>'),
                _marker(f"msg-end-{name}", (8.5, 5), 20,
                        f'<path d="M1,1 L8,5 L1,9 Z" fill="{PAPER}" stroke="{stroke}"/>'),
                _marker(f"msg-start-{name}", (6, 6), 20,
                        f'<circle cx="6" cy="6" r="3.5" fill="{PAPER}" stroke="{stroke}"/>'),
                _marker(f"open-{name}", (11, 10), 10,
                        f'<path d="M1,5 L11,10 L1,15" fill="none" stroke="{stroke}" stroke-width="1.5"/>'),
                _marker(f"default-{name}", (0, 10), 10,
                        f'<path d="M6,4 L10,16" stroke="{stroke}" stroke-width="1.5"/>'),
                _marker(f"cond-{name}", (-1, 10), 10,
                        f'<path d="M0,10 L8,6 L16,10 L8,14 Z" fill="{PAPER}" stroke="{stroke}"/>')]
    out.append("</defs>")
    return "".join(out)


def _edge(edge: Edge, mark: str | None, is_default: bool, gateways: set[str | None]) -> str:
    stroke, _ = _colours(mark)
    name = mark or "ink"
    points = " ".join(f"{_n(x)},{_n(y)}" for x, y in edge.points)
    width = 3 if mark else 1.5
    if edge.kind == "messageFlow":
        style = f'stroke-dasharray="10,11" marker-start="url(#msg-start-{name})" marker-end="url(#msg-end-{name})"'
    elif edge.kind in ("association", "dataInputAssociation", "dataOutputAssociation"):
        arrow = edge.kind != "association" or (edge.element is not None
                                               and edge.element.get("associationDirection") == "One")
        style = 'stroke-dasharray="0.5,5" stroke-linecap="round"'
        style += f' marker-end="url(#open-{name})"' if arrow else ""
    else:
        style = f'marker-end="url(#seq-{name})"'
        if is_default:
            style += f' marker-start="url(#default-{name})"'
        elif edge.element is not None and edge.element.find(f"{B}conditionExpression") is not None \
                and edge.element.get("sourceRef") not in gateways:  # a conditional flow out of an activity
            style += f' marker-start="url(#cond-{name})"'
    if mark == "removed" or mark == "not-covered":
        style += ' stroke-dasharray="8,4"' if "dasharray" not in style else ""
    return (_open(edge.kind, edge.id, mark, "bpmn-edge")
            + f'<polyline points="{points}" fill="none" stroke="{stroke}" stroke-width="{_n(width)}" '
              f'stroke-linejoin="round" {style}/></g>')


def _edge_label(edge: Edge, mark: str | None) -> str:
    name = _name(edge.element)
    if not name:
        return ""
    return _label(edge.id, edge.kind, edge_label_bounds(edge), name, mark)

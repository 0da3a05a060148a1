"""The DMN payload edits a condition-to-dmn suggestion needs.

A new decision is written the way dmn-js (Camunda Modeler) writes one: the
DMN namespace as the default namespace, a ``decisionTable`` with ``input``s,
one ``output`` or several (each named and typed: the table's result is then
a context of them) and ``rule``s, and a ``DMNShape`` in the DMNDI diagram so the
decision shows up when the modeler opens the file. A file drawn without a
DMNDI diagram stays without one: a diagram holding only the new decision
would hide every other decision from dmn-js' DRD view. Ids are derived from
the decision id, so the same suggestion always gives the same bytes.

The edit keeps the file's DMN version (1.1 to 1.5, seams.vocab.DMN_VERSIONS):
the decision is written in the namespaces of the file's root, and a DMN 1.1
file, which has no diagram interchange, gets no shape. A new payload is DMN
1.3 unless the caller asks for the version the project's other DMN files use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lxml import etree

from seams.errors import EditError
from seams.lang.dmn_support import HIT_POLICIES
from seams.model.payloads import dmn_namespaces, parse_xml
from seams.vocab import DMN_DEFAULT_VERSION, DMN_NS, DMN_VERSIONS, DMNDI_NS, DmnNamespaces
from seams_edit.xml import Payload, attribute_text, check_characters, coordinate_text, ensure_namespace, insert_child

DMN_DC_NS = "http://www.omg.org/spec/DMN/20180521/DC/"
BIODI_NS = "http://bpmn.io/schema/dmn/biodi/1.0"  # Camunda Modeler's DMN 1.1 layout
DECISION_WIDTH, DECISION_HEIGHT = 180, 80  # the size dmn-js gives a decision
FIRST_POSITION = (160, 100)  # where dmn-js puts the first decision of a new diagram
GAP = 50

_D, _DMNDI, _DC = (f"{{{ns}}}" for ns in (DMN_NS, DMNDI_NS, DMN_DC_NS))
_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_DRG_ELEMENTS = {f"{_D}{kind}" for kind in (
    "import", "itemDefinition", "decision", "businessKnowledgeModel", "inputData", "knowledgeSource", "decisionService",
)}


def new_dmn_payload(*, definitions_id: str, name: str, namespace: str, version: str = DMN_DEFAULT_VERSION) -> bytes:
    """A DMN document of ``version`` (1.3 by default) with no decision yet and an empty DMNDI
    diagram (none for DMN 1.1, which has no DMNDI)."""
    if not _ID.match(definitions_id):
        raise EditError(f"new DMN payload: {definitions_id!r} is not a valid id")
    if version not in DMN_VERSIONS:
        raise EditError(f"new DMN payload: unknown DMN version {version!r} (known: {', '.join(DMN_VERSIONS)})")
    check_characters("new DMN payload", definitions_id, [name, namespace])
    spaces = DMN_VERSIONS[version]
    diagram = "" if spaces.dmndi is None else "  <dmndi:DMNDI>\n    <dmndi:DMNDiagram />\n  </dmndi:DMNDI>\n"
    declarations = "" if spaces.dmndi is None else f' xmlns:dmndi="{spaces.dmndi}" xmlns:dc="{spaces.dc}"'
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<definitions xmlns="{spaces.model}"{declarations} '
        f'id="{definitions_id}" name="{attribute_text(name)}" namespace="{attribute_text(namespace)}">\n'
        f"{diagram}"
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
    output: tuple[str, str] | None = None,
    rules: Sequence[tuple[Sequence[str], str | Sequence[str]]],
    outputs: Sequence[tuple[str, str]] | None = None,
) -> None:
    """Add a decision table after the last decision, and its shape to the diagram.

    ``inputs`` are (label, input expression, typeRef); ``output`` is the
    one output's (name, typeRef), or ``outputs`` several of them; each rule
    is (input entry texts, output entry text), or (input entry texts, one
    output entry text per output) with ``outputs``. Entry texts are FEEL as
    written: ``"travel"`` keeps its quotes.
    """
    source = payload.source
    if (output is None) == (outputs is None):
        raise EditError(f"{source}: {decision_id}: give the one output or the outputs")
    columns = [output] if output is not None else list(outputs or ())
    if not columns:
        raise EditError(f"{source}: {decision_id}: a decision table needs at least one output")
    if len({name for name, _ in columns}) != len(columns):
        raise EditError(f"{source}: {decision_id}: two outputs have the same name")
    results: list[list[str]] = []
    for number, (_, result) in enumerate(rules, 1):
        texts = [result] if isinstance(result, str) else list(result)
        if (output is not None and not isinstance(result, str)) or len(texts) != len(columns):
            raise EditError(f"{source}: {decision_id}: rule {number} has {len(texts)} output entries "
                            f"for {len(columns)} outputs")
        results.append(texts)
    definitions = payload.root
    spaces = dmn_namespaces(definitions)
    if definitions.tag != f"{{{spaces.model}}}definitions":
        raise EditError(f"{source}: not a DMN 1.1-1.5 document (root is {definitions.tag})")
    if hit_policy not in HIT_POLICIES:
        raise EditError(f"{source}: {decision_id}: unknown hit policy {hit_policy!r}")
    if not inputs:
        raise EditError(f"{source}: {decision_id}: a decision table needs at least one input")
    for number, (entries, _) in enumerate(rules, 1):
        if len(entries) != len(inputs):
            raise EditError(f"{source}: {decision_id}: rule {number} has {len(entries)} input entries "
                            f"for {len(inputs)} inputs")
    check_characters(payload.source, decision_id, [name, *(t for column in columns for t in column),
                                                   *(t for clause in inputs for t in clause),
                                                   *(t for entries, _ in rules for t in entries),
                                                   *(t for texts in results for t in texts)])
    decision = etree.Element(f"{_D}decision", {"id": decision_id, "name": name})
    table = etree.SubElement(decision, f"{_D}decisionTable", {"id": f"DecisionTable_{decision_id}"})
    if hit_policy != "UNIQUE":  # UNIQUE is the default; dmn-js leaves it out
        table.set("hitPolicy", hit_policy)
    _add_clauses(table, decision_id, inputs, columns)
    _add_rules(table, decision_id, [(entries, texts) for (entries, _), texts in zip(rules, results, strict=True)])
    existing = {e.get("id") for e in definitions.iter() if e.get("id") is not None}
    for new_id in [e.get("id") for e in decision.iter() if e.get("id") is not None] + [f"DMNShape_{decision_id}"]:
        if not _ID.match(new_id) or new_id in existing:
            problem = "already exists" if new_id in existing else "is not a valid id"
            raise EditError(f"{source}: {decision_id}: id {new_id} {problem}")

    drawn = spaces.dmndi is not None and _diagram(payload, spaces) is not None
    position = _shape_position(payload, decision_id, spaces) if drawn else None
    for element in decision.iter():  # built in DMN 1.3's namespace: into the file's own
        element.tag = element.tag.replace(_D, f"{{{spaces.model}}}", 1)
    decisions = list(definitions.iterchildren(f"{{{spaces.model}}}decision"))
    drg = [e for e in definitions if e.tag.replace(f"{{{spaces.model}}}", _D, 1) in _DRG_ELEMENTS]
    after = decisions[-1] if decisions else (drg[-1] if drg else None)
    insert_child(definitions, decision, definitions.index(after) + 1 if after is not None else 0)
    etree.cleanup_namespaces(decision)  # the 1.3 namespace it was built in is no longer used
    if position is not None:
        _add_shape(payload, decision_id, position, spaces)
    elif spaces.dmndi is None:  # DMN 1.1: Camunda Modeler's own bounds, where the file keeps them
        _add_biodi_bounds(payload, decision, spaces)


def _add_biodi_bounds(payload: Payload, decision: etree._Element, spaces: DmnNamespaces) -> None:
    """DMN 1.1 has no DMNDI: Camunda Modeler 1-3 kept each decision's place in ``biodi:bounds``
    (which dmn-migrate turns into a DMNShape). A file that does gets them for the new decision
    too, right of the rightmost; a file without any keeps none."""
    corners = []
    for bounds in payload.root.iter(f"{{{BIODI_NS}}}bounds"):
        try:
            corners.append((float(bounds.get("x")) + float(bounds.get("width")), float(bounds.get("y"))))
        except (TypeError, ValueError):
            raise EditError(f"{payload.source}: {decision.get('id')}: a biodi:bounds has bounds that are not "
                            "numbers") from None
    if not corners:
        return
    right, top = max(corners, key=lambda corner: corner[0])
    extension = etree.Element(f"{{{spaces.model}}}extensionElements")
    insert_child(decision, extension, 0)
    insert_child(extension, etree.Element(f"{{{BIODI_NS}}}bounds", {
        "x": coordinate_text(right + GAP), "y": coordinate_text(top),
        "width": str(DECISION_WIDTH), "height": str(DECISION_HEIGHT)}))


def _add_clauses(
    table: etree._Element, decision_id: str, inputs: Sequence[tuple[str, str, str]], outputs: list[tuple[str, str]]
) -> None:
    """Input clauses, then output clauses; one output keeps the id dmn-js-style files of
    seams always had (``OutputClause_<id>``), several are numbered like the inputs."""
    for number, (label, expression, type_ref) in enumerate(inputs, 1):
        clause = etree.SubElement(table, f"{_D}input", {"id": f"InputClause_{decision_id}_{number}", "label": label})
        _text(clause, "inputExpression", f"InputExpression_{decision_id}_{number}", expression, typeRef=type_ref)
    for number, (output_name, output_type) in enumerate(outputs, 1):
        clause_id = f"OutputClause_{decision_id}" + (f"_{number}" if len(outputs) > 1 else "")
        etree.SubElement(table, f"{_D}output", {"id": clause_id, "name": output_name, "typeRef": output_type})


def _add_rules(table: etree._Element, decision_id: str, rules: Sequence[tuple[Sequence[str], list[str]]]) -> None:
    for number, (entries, results) in enumerate(rules, 1):
        rule = etree.SubElement(table, f"{_D}rule", {"id": f"DecisionRule_{decision_id}_{number}"})
        for column, entry in enumerate(entries, 1):
            _text(rule, "inputEntry", f"UnaryTests_{decision_id}_{number}_{column}", entry)
        for column, result in enumerate(results, 1):
            suffix = f"_{column}" if len(results) > 1 else ""
            _text(rule, "outputEntry", f"LiteralExpression_{decision_id}_{number}{suffix}", result)


def _text(parent: etree._Element, tag: str, element_id: str, text: str, **attributes: str) -> None:
    holder = etree.SubElement(parent, f"{_D}{tag}", {"id": element_id, **attributes})
    etree.SubElement(holder, f"{_D}text").text = text


def _shape_position(payload: Payload, decision_id: str, spaces: DmnNamespaces) -> tuple[float, float]:
    """Right of the rightmost shape of the first diagram, or where dmn-js puts a first one."""
    _DMNDI, _DC = f"{{{spaces.dmndi}}}", f"{{{spaces.dc}}}"  # noqa: N806 - the module's names, per version
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


def _diagram(payload: Payload, spaces: DmnNamespaces) -> etree._Element | None:
    """The file's first DMNDI diagram, or None when it is drawn without one."""
    if spaces.dmndi is None:
        return None
    return payload.root.find(f"{{{spaces.dmndi}}}DMNDI/{{{spaces.dmndi}}}DMNDiagram")


def _add_shape(payload: Payload, decision_id: str, position: tuple[float, float], spaces: DmnNamespaces) -> None:
    assert spaces.dmndi is not None and spaces.dc is not None
    _DMNDI, _DC = f"{{{spaces.dmndi}}}", f"{{{spaces.dc}}}"  # noqa: N806 - the module's names, per version
    ensure_namespace(payload, "dmndi", spaces.dmndi)
    ensure_namespace(payload, "dc", spaces.dc)
    definitions = payload.root
    dmndi = definitions.find(f"{_DMNDI}DMNDI")
    if dmndi is None:
        dmndi = etree.Element(f"{_DMNDI}DMNDI")
        insert_child(definitions, dmndi)
    diagram = dmndi.find(f"{_DMNDI}DMNDiagram")
    if diagram is None:
        diagram = etree.Element(f"{_DMNDI}DMNDiagram")
        insert_child(dmndi, diagram)
    x, y = position
    shape = etree.Element(f"{_DMNDI}DMNShape", {"id": f"DMNShape_{decision_id}", "dmnElementRef": decision_id})
    etree.SubElement(shape, f"{_DC}Bounds", {"height": str(DECISION_HEIGHT), "width": str(DECISION_WIDTH),
                                             "x": coordinate_text(x), "y": coordinate_text(y)})
    insert_child(diagram, shape)

"""The decisions of a DMN file, as far as seams binds them: id, name, inputs, output.

Reads DMN 1.1 to 1.5 namespaces alike (the elements it reads did not
change); whether the model then loads a given DMN version is the loader's
call, and ``seams init`` checks that before it writes anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from seams.errors import ProjectError
from seams.importer.bpmn_read import label_text
from seams.lang.dmn_expression import is_expression_decision
from seams.lang.field_values import type_ref_datatypes
from seams.model.payloads import parse_xml

DMN_NAMESPACES = (
    "http://www.omg.org/spec/DMN/20151101/dmn.xsd",
    "http://www.omg.org/spec/DMN/20180521/MODEL/",
    "https://www.omg.org/spec/DMN/20191111/MODEL/",
    "https://www.omg.org/spec/DMN/20211108/MODEL/",
    "https://www.omg.org/spec/DMN/20230324/MODEL/",
)

# DMN/FEEL typeRef (Camunda 7 writes Java-ish names) -> seams datatype (xsd local name), from the one table
TYPE_REFS = type_ref_datatypes()


@dataclass(frozen=True)
class Column:
    text: str  # the inputExpression text, or the output name
    label: str | None
    datatype: str | None


@dataclass(frozen=True)
class DecisionSpec:
    id: str
    label: str
    inputs: tuple[Column, ...]
    outputs: tuple[Column, ...]
    is_table: bool
    requires: tuple[str, ...] = ()  # ids of its required decisions (DRD informationRequirement)
    hit_policy: str = "UNIQUE"
    aggregation: str | None = None


def datatype_of(type_ref: str | None) -> str | None:
    if not type_ref:
        return None
    return TYPE_REFS.get(type_ref.strip().split(":")[-1].lower())


def read_dmn(data: bytes, *, source: str) -> list[DecisionSpec]:
    """Every ``decision`` of a DMN file, in file order; one-line errors."""
    root = parse_xml(data, source=source).getroot()
    namespace = etree.QName(root).namespace
    if namespace not in DMN_NAMESPACES or etree.QName(root).localname != "definitions":
        raise ProjectError(f"{source}: not a DMN document (root element {{{namespace}}}"
                           f"{etree.QName(root).localname}); expected DMN definitions")
    ns = f"{{{namespace}}}"
    decisions = []
    for decision in root.findall(f"{ns}decision"):
        decision_id = decision.get("id")
        if not decision_id:
            continue
        table = decision.find(f"{ns}decisionTable")
        inputs: list[Column] = []
        outputs: list[Column] = []
        if table is not None:
            for column in table.findall(f"{ns}input"):
                expression = column.find(f"{ns}inputExpression")
                text = (expression.findtext(f"{ns}text") or "").strip() if expression is not None else ""
                inputs.append(Column(text, label_text(column.get("label")),
                                     datatype_of(expression.get("typeRef") if expression is not None else None)))
            for column in table.findall(f"{ns}output"):
                outputs.append(Column((column.get("name") or "").strip(), label_text(column.get("label")),
                                      datatype_of(column.get("typeRef"))))
        elif is_expression_decision(decision):  # a literal expression, a boxed context, ...: one output, its name
            inputs, outputs = _expression_columns(root, decision, ns)
        requires = tuple(dict.fromkeys(
            (r.get("href") or "").lstrip("#") for r in decision.iterfind(f"{ns}informationRequirement/"
                                                                         f"{ns}requiredDecision")
            if (r.get("href") or "").lstrip("#")))
        policy = (table.get("hitPolicy") if table is not None else None) or "UNIQUE"
        decisions.append(DecisionSpec(id=decision_id, label=label_text(decision.get("name")) or decision_id,
                                      inputs=tuple(inputs), outputs=tuple(outputs), is_table=table is not None,
                                      requires=requires, hit_policy=policy.strip().upper(),
                                      aggregation=(table.get("aggregation") if table is not None else None)))
    if not decisions:
        raise ProjectError(f"{source}: no decision in the DMN file; expected at least one")
    return decisions


def _expression_columns(root: etree._Element, decision: etree._Element, ns: str) -> tuple[list[Column], list[Column]]:
    """A decision that is no table: its inputs are the input data it requires, its one output its name."""
    by_id = {el.get("id"): el for el in root if isinstance(el.tag, str) and el.get("id")}
    inputs = []
    for required in decision.iterfind(f"{ns}informationRequirement/{ns}requiredInput"):
        data = by_id.get((required.get("href") or "").lstrip("#"))
        if data is not None and data.get("name"):
            variable = data.find(f"{ns}variable")
            inputs.append(Column(" ".join((data.get("name") or "").split()), label_text(data.get("name")),
                                 datatype_of(variable.get("typeRef") if variable is not None else None)))
    variable = decision.find(f"{ns}variable")
    name = " ".join((decision.get("name") or decision.get("id") or "").split())
    output = Column(name, label_text(decision.get("name")),
                    datatype_of(variable.get("typeRef") if variable is not None else None))
    return inputs, [output]

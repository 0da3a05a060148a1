"""A DMN decision table as an HTML table, laid out as Camunda Modeler's table editor shows it.

The hit policy, one column per input (its label over its expression), one per output (its label
over its name), the annotation column (each rule's description), and one row per rule numbered
from 1. Rows can be marked (seams.render.bpmn_svg.MARKS: a rule added, changed, matched by a run,
never matched by a scenario). The table is read from the XML as written: what a reviewer sees is
the file, not seams' reading of it.
"""

from __future__ import annotations

from collections.abc import Mapping

from lxml import etree

from seams.render.bpmn_svg import MARKS
from seams.render.text import esc

HIT_POLICIES = {"UNIQUE": "U", "FIRST": "F", "PRIORITY": "P", "ANY": "A", "COLLECT": "C",
                "RULE ORDER": "R", "OUTPUT ORDER": "O"}
AGGREGATIONS = {"SUM": "+", "MIN": "<", "MAX": ">", "COUNT": "#"}


def find_decision_element(root: etree._Element, decision_id: str) -> etree._Element | None:
    """The ``decision`` element with ``decision_id`` in a DMN tree of any version, or None."""
    for element in root.iter():
        if isinstance(element.tag, str) and etree.QName(element).localname == "decision" \
                and element.get("id") == decision_id:
            return element
    return None


def render_decision_table(decision: etree._Element, marks: Mapping[str, str] | None = None) -> str:
    """The HTML ``<table>`` of a ``decision`` element's decision table; ``marks`` maps rule ids (or the
    decision's id, for the whole table) to a mark. A decision without a table says so in a paragraph."""
    ns = etree.QName(decision).namespace or ""
    q = (lambda local: f"{{{ns}}}{local}") if ns else (lambda local: local)
    marks = dict(marks or {})
    name = decision.get("name") or decision.get("id") or ""
    table = decision.find(q("decisionTable"))
    head = f'<p class="dmn-name"><b>{esc(name)}</b> <code>{esc(decision.get("id") or "")}</code></p>'
    if table is None:
        return head + '<p class="dmn-none">not a decision table</p>'
    inputs = table.findall(q("input"))
    outputs = table.findall(q("output"))
    policy = table.get("hitPolicy") or "UNIQUE"
    shown = HIT_POLICIES.get(policy, policy) + AGGREGATIONS.get(table.get("aggregation") or "", "")
    mark = marks.get(decision.get("id") or "")
    attrs = f' data-decision-id="{esc(decision.get("id") or "")}"' + (f' data-mark="{mark}"' if mark in MARKS else "")
    rows = [f'<table class="dmn-table"{attrs}><thead><tr>'
            f'<th class="dmn-policy" title="hit policy {esc(policy)}">{esc(shown)}</th>']
    for column in inputs:
        expression = column.find(f'{q("inputExpression")}/{q("text")}')
        rows.append(f'<th class="dmn-input">{esc(column.get("label") or "")}'
                    f'<br><code>{esc(expression.text if expression is not None else "")}</code></th>')
    for column in outputs:
        rows.append(f'<th class="dmn-output">{esc(column.get("label") or "")}'
                    f'<br><code>{esc(column.get("name") or "")}</code></th>')
    rows.append('<th class="dmn-annotation">Annotation</th></tr></thead><tbody>')
    for number, rule in enumerate(table.findall(q("rule")), start=1):
        rule_mark = marks.get(rule.get("id") or "")
        style = f' data-mark="{rule_mark}" style="background:{MARKS[rule_mark][1]}"' if rule_mark in MARKS else ""
        cells = [f'<td class="dmn-number">{number}</td>']
        for entry in rule.findall(q("inputEntry")):
            cells.append(f'<td><code>{esc(_text(entry, q))}</code></td>')
        for entry in rule.findall(q("outputEntry")):
            cells.append(f'<td class="dmn-output"><code>{esc(_text(entry, q))}</code></td>')
        description = rule.find(q("description"))
        cells.append(f'<td class="dmn-annotation">{esc(description.text if description is not None else "")}</td>')
        rows.append(f'<tr data-rule-id="{esc(rule.get("id") or "")}"{style}>{"".join(cells)}</tr>')
    rows.append("</tbody></table>")
    return head + "".join(rows)


def _text(entry: etree._Element, q) -> str:
    text = entry.find(q("text"))
    return (text.text or "") if text is not None else ""

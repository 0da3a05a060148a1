"""The pages of a run (``seams run --html``) and of scenario coverage (``--seams-coverage-html``).

Both draw the process from its BPMN DI and mark it: a run marks the elements it ran and the flows
it took (``taken``) and where it stopped (``stopped``); coverage marks the gateway flows some
scenario took (``taken``) and those none took (``not-covered``). Decision tables are drawn with
their rules marked the same way. The data comes from seams.runs (a run's steps) and
seams.suggestions.coverage (the report the terminal prints), so the pages and the lines agree.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from lxml import etree

from seams.model.loading import Model
from seams.model.view import Process
from seams.render.bpmn_svg import render_bpmn
from seams.render.dmn_html import find_decision_element, render_decision_table
from seams.render.page import Section, diagram, html_page, legend, table
from seams.render.text import esc
from seams.runs import RunResult
from seams.suggestions.coverage import Report, Trace

MAX_VALUE = 300
"""Most characters of one variable's JSON shown in a table cell."""


def process_tree(model: Model, process: Process) -> etree._ElementTree | None:
    payload = model.payloads.get(process.payload) if process.payload is not None else None
    return payload.tree if payload is not None and payload.format == "bpmn" else None


def decision_element(model: Model, decision_id: str) -> etree._Element | None:
    for payload in sorted(model.payloads.values(), key=lambda p: p.relpath):
        if payload.format == "dmn":
            found = find_decision_element(payload.tree.getroot(), decision_id)
            if found is not None:
                return found
    return None


def _json(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE - 1] + "\u2026"


def run_page(model: Model, process: Process, result: RunResult, given: Mapping[str, Any] | None = None) -> str:
    """The page of one run: the path on the diagram, each step with the variables after it, and
    each decision evaluated with the rules that matched."""
    marks = {element: "taken" for element in result.elements}
    marks.update({flow: "taken" for flow in result.flows})
    if result.error_element:
        marks[result.error_element] = "stopped"
    tree = process_tree(model, process)
    sections = []
    outcome = (f"ended at {result.end_event}" if result.ok and result.end_event else
               f"stopped at {result.error_element or 'the start'}: {result.error}" if not result.ok else "ended")
    picture = diagram(render_bpmn(tree, marks)) if tree is not None else '<p class="note">no BPMN diagram</p>'
    sections.append(Section("Path", legend(["taken"] + (["stopped"] if result.error_element else [])) + picture))
    variables = dict(given or {})
    rows = []
    for number, step in enumerate(result.steps, start=1):
        variables.update(step.outputs)
        matched = f"{step.decision}: {', '.join(step.rules) or '(no rule matched)'}" if step.decision else ""
        rows.append((number, step.element_id, step.name or "", step.kind, step.flow or "",
                     _json(step.outputs) if step.outputs else "", matched, _json(variables)))
    sections.append(Section("Steps", table(("#", "element", "name", "kind", "arrived by", "wrote",
                                            "rules matched", "variables after"), rows)))
    for decision_id, rules in result.decisions.items():
        element = decision_element(model, decision_id)
        if element is not None:
            sections.append(Section(f"Decision {decision_id}",
                                    render_decision_table(element, {rule: "taken" for rule in rules})))
    final = json.dumps(result.variables, indent=2, sort_keys=True, ensure_ascii=False, default=str)
    sections.append(Section("Variables at the end", f"<pre>{esc(final)}</pre>"))
    return html_page(f"Run of {process.element_id}", f"{process.label or process.element_id}: {outcome}", sections)


def coverage_page(model: Model, report: Report, traces: Iterable[Trace]) -> str:
    """The page of scenario coverage: per process, the flows taken and not taken on its diagram,
    then every decision table with its matched and unmatched rules, then the report's lines."""
    traces = list(traces)
    uncovered = {(u.owner, u.target): u for u in report.uncovered}
    sections = [Section("Legend", legend(["taken", "not-covered"]))]
    for process in sorted(model.view.processes.values(), key=lambda p: p.element_id or ""):
        if not process.found or not process.element_id:
            continue
        names = {process.element_id, model.qname(process.iri), str(process.iri)}
        taken = {f for t in traces if t.process in names for f in t.flows}
        matched = {r for t in traces if t.process in names for r in t.rules}
        marks = {flow: "taken" for flow in taken}
        marks.update({u.target: "not-covered" for u in report.uncovered
                      if u.kind == "flow" and u.process == process.element_id})
        tree = process_tree(model, process)
        if tree is not None:
            sections.append(Section(f"Process {process.element_id}", diagram(render_bpmn(tree, marks))))
        decisions = sorted({u.owner for u in report.uncovered if u.kind == "rule" and u.process == process.element_id}
                           | {d for d, _ in matched})
        for decision_id in decisions:
            element = decision_element(model, decision_id)
            if element is None:
                continue
            rule_marks = {}
            for rule in element.iter():
                rid = rule.get("id") if isinstance(rule.tag, str) and etree.QName(rule).localname == "rule" else None
                if rid:
                    rule_marks[rid] = "taken" if (decision_id, rid) in matched else \
                        "not-covered" if (decision_id, rid) in uncovered else ""
            sections.append(Section(f"Decision {decision_id}", render_decision_table(
                element, {k: v for k, v in rule_marks.items() if v})))
    sections.append(Section("Not covered", "".join(f"<p><code>{esc(u.line())}</code></p>" for u in report.uncovered)
                            or '<p class="note">every gateway flow and decision rule was exercised</p>'))
    return html_page("Scenario coverage", report.lines()[0], sections)

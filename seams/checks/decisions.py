"""The checks SHACL cannot express: the model against its BPMN and DMN payloads.

Each model fact that points into a payload must land on an element of the
right kind; a business-rule task's decision must be the one its BPMN names;
a decision's inputs and output must be its DMN table's; every table entry
must parse, and a UNIQUE table must have no two rules that one input can
match. Conditions and the upstream dataflow live in seams.flow_analysis.

Every payload is indexed once (id -> element), so the checks stay linear in
the size of the model and its payloads; the UNIQUE overlap test sorts and
sweeps (seams.checks.unique_overlaps) and lists at most
``MAX_OVERLAP_FINDINGS`` pairs a table, then how many more there are.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from lxml import etree
from rdflib import URIRef

from seams import vocab as V
from seams.checks.condition_names import condition_name_findings
from seams.checks.flow import KIND, elements_by_id, reason, upstream_findings
from seams.checks.payload_structure import payload_structure_findings
from seams.checks.unique_overlaps import overlapping_pairs
from seams.errors import ExpressionError
from seams.findings import Finding
from seams.lang.feel import UnaryTests, parse_literal, parse_unary_tests
from seams.model.view import Decision, Task

if TYPE_CHECKING:
    from seams.model.loading import Model, PayloadFile

MAX_OVERLAP_FINDINGS = 20
HIT_POLICIES = ("UNIQUE", "FIRST", "PRIORITY", "ANY", "COLLECT")
_DMN = f"{{{V.DMN_NS}}}"
_PREFIX = {V.BPMN_NS: "bpmn", V.BPMNDI_NS: "bpmndi", V.DC_NS: "dc", V.DI_NS: "di",
           V.DMN_NS: "dmn", V.DMNDI_NS: "dmndi"}


def decision_findings(model: Model) -> list[Finding]:
    """Every payload, decision-table and dataflow problem, sorted and without duplicates."""
    ids = {iri: _ids(payload) for iri, payload in model.payloads.items()}
    found: set[Finding] = set()
    found.update(_process_findings(model, ids))
    found.update(_flow_element_findings(model, ids))
    found.update(_business_rule_findings(model, ids))
    for decision in model.view.decisions.values():
        found.update(_decision_findings(model, ids, decision))
    found.update(upstream_findings(model))
    found.update(payload_structure_findings(model))
    found.update(condition_name_findings(model))
    return sorted(found)


def _ids(payload: PayloadFile) -> dict[str, etree._Element]:
    return {el.get("id"): el for el in payload.tree.getroot().iter()
            if isinstance(el.tag, str) and el.get("id")}


def _kind_name(element: etree._Element) -> str:
    name = etree.QName(element)
    return f"{_PREFIX.get(name.namespace, name.namespace)}:{name.localname}"


def _resolve(model: Model, ids: dict, payload_iri, element_id: str, expected: str, ns: str) -> str | None:
    """Why ``element_id`` does not name a ``ns``/``expected`` element of the payload, or None."""
    payload = model.payloads[payload_iri]
    element = ids[payload_iri].get(element_id)
    want = f"{_PREFIX[ns]}:{expected}"
    if element is None:
        return f'no element with id "{element_id}" in {payload.relpath}; expected a {want}'
    if etree.QName(element).namespace != ns or etree.QName(element).localname != expected:
        return f'"{element_id}" in {payload.relpath} is a {_kind_name(element)}; expected a {want}'
    return None


def _payload_of_format(model: Model, subject: URIRef, payload_iri, fmt: str) -> Iterable[Finding]:
    payload = model.payloads.get(payload_iri)
    if payload is not None and payload.format != fmt:
        yield Finding(KIND, model.qname(subject), "seam:payload",
                      f"{payload.relpath} is a {payload.format.upper()} payload; expected a {fmt.upper()} payload")


def _process_findings(model: Model, ids: dict) -> Iterable[Finding]:
    for process in model.view.processes.values():
        payload = model.payloads.get(process.payload)
        if payload is None or process.element_id is None:
            continue  # the shapes report a missing payload or element
        if payload.format != "bpmn":
            yield from _payload_of_format(model, process.iri, process.payload, "bpmn")
            continue
        problem = _resolve(model, ids, process.payload, process.element_id, "process", V.BPMN_NS)
        if problem:
            yield Finding(KIND, model.qname(process.iri), "seam:payloadElement", problem)


def _holding_process(element: etree._Element) -> str | None:
    for ancestor in element.iterancestors(f"{{{V.BPMN_NS}}}process"):
        return ancestor.get("id")
    return None


def _flow_element_findings(model: Model, ids: dict) -> Iterable[Finding]:
    view = model.view
    for (process_iri, element_id), items in sorted(elements_by_id(view).items(), key=lambda kv: str(kv[0])):
        process = view.processes.get(process_iri)
        if process is None or not process.found or model.payloads[process.payload].format != "bpmn":
            continue  # the shapes or _process_findings report the process
        first, *others = sorted(items, key=lambda i: str(i.iri))
        for other in others:
            yield Finding(KIND, model.qname(other.iri), "seam:payloadElement",
                          f'"{element_id}" is also the payload element of {model.qname(first.iri)}; '
                          "expected one model element per BPMN element")
        for item in items:
            kind = item.kind if isinstance(item, Task) else V.Gateway
            problem = _resolve(model, ids, process.payload, element_id, V.BPMN_KIND[kind], V.BPMN_NS)
            if problem:
                yield Finding(KIND, model.qname(item.iri), "seam:payloadElement", problem)
                continue
            holder = _holding_process(ids[process.payload][element_id])
            if holder != process.element_id:
                yield Finding(KIND, model.qname(item.iri), "seam:inProcess",
                              f'"{element_id}" lies in bpmn:process "{holder}", but seam:inProcess '
                              f'{model.qname(process_iri)} is bpmn:process "{process.element_id}"')
            node = process.nodes.get(element_id)
            leaving = {flow.id for flow in process.outgoing(element_id)}
            if node is not None and node.default_flow is not None and node.default_flow not in leaving:
                yield Finding(KIND, element_id, "bpmn:default",
                              f'the default flow "{node.default_flow}" is not a sequence flow leaving '
                              f'"{element_id}" (expected one of: {", ".join(sorted(leaving)) or "none"})')


def _business_rule_findings(model: Model, ids: dict) -> Iterable[Finding]:
    """The BPMN's own decision reference and result variable must agree with the model."""
    view = model.view
    for task in view.tasks.values():
        decision = view.decisions.get(task.decided_by) if task.decided_by is not None else None
        process = view.processes.get(task.process) if task.process is not None else None
        node = process.nodes.get(task.element_id) if process and task.element_id else None
        if decision is None or node is None or node.kind != "businessRuleTask" \
                or not _is_dmn_decision(model, ids, decision):
            continue  # _decision_findings reports a decision that does not resolve
        if node.decision_ref is not None and node.decision_ref != decision.element_id:
            yield Finding(KIND, model.qname(task.iri), "seam:decidedBy",
                          f'BPMN element "{node.id}" calls DMN decision "{node.decision_ref}", but '
                          f'{model.qname(decision.iri)} is DMN decision "{decision.element_id}"')
        names = sorted({view.variable_name(o.process_variable) for o in decision.outputs
                        if isinstance(o.process_variable, URIRef)} - {None})
        if node.result_variable is not None and names and node.result_variable not in names:
            yield Finding(KIND, model.qname(task.iri), "seam:decidedBy",
                          f'BPMN element "{node.id}" stores the result in "{node.result_variable}", but '
                          f"{model.qname(decision.iri)} sets {', '.join(names)} (dec:processVariable)")


def _is_dmn_decision(model: Model, ids: dict, decision: Decision) -> bool:
    payload = model.payloads.get(decision.payload)
    return (payload is not None and payload.format == "dmn" and decision.element_id is not None
            and _resolve(model, ids, decision.payload, decision.element_id, "decision", V.DMN_NS) is None)


def _decision_findings(model: Model, ids: dict, decision: Decision) -> Iterable[Finding]:
    payload = model.payloads.get(decision.payload)
    if payload is None or decision.element_id is None:
        return
    if payload.format != "dmn":
        yield from _payload_of_format(model, decision.iri, decision.payload, "dmn")
        return
    subject = model.qname(decision.iri)
    problem = _resolve(model, ids, decision.payload, decision.element_id, "decision", V.DMN_NS)
    if problem:
        yield Finding(KIND, subject, "dec:payloadElement", problem)
        return
    table = ids[decision.payload][decision.element_id].find(f"{_DMN}decisionTable")
    if table is None:
        yield Finding(KIND, subject, "dec:payloadElement",
                      f'DMN decision "{decision.element_id}" has no decisionTable; expected a decision table')
        return
    yield from _columns_findings(model, decision, table)
    yield from _table_findings(decision.element_id, table)


def _columns_findings(model: Model, decision: Decision, table: etree._Element) -> Iterable[Finding]:
    subject, where = model.qname(decision.iri), f'the table of "{decision.element_id}"'
    table_inputs = [(i.findtext(f"{_DMN}inputExpression/{_DMN}text") or "").strip()
                    for i in table.findall(f"{_DMN}input")]
    model_inputs = {i.variable for i in decision.inputs if i.variable is not None}
    for name in sorted(set(table_inputs) - model_inputs):
        yield Finding(KIND, subject, "dec:input",
                      f'{where} has input "{name}", but no dec:input has dec:variable "{name}"')
    for name in sorted(model_inputs - set(table_inputs)):
        yield Finding(KIND, subject, "dec:input",
                      f'dec:variable "{name}" is no input of {where} (its inputs: '
                      f"{', '.join(sorted(set(table_inputs))) or 'none'})")
    outputs = table.findall(f"{_DMN}output")
    if len(outputs) != 1:
        yield Finding(KIND, subject, "dec:output",
                      f"{where} has {len(outputs)} outputs; expected exactly one")
        return
    table_output = outputs[0].get("name") or ""
    for output in decision.outputs:
        if output.variable is not None and output.variable != table_output:
            yield Finding(KIND, subject, "dec:output",
                          f'dec:variable "{output.variable}" is not the output of {where}, '
                          f'which is named "{table_output}"')


def _table_findings(decision_id: str, table: etree._Element) -> Iterable[Finding]:
    policy = table.get("hitPolicy", "UNIQUE")
    if policy not in HIT_POLICIES:
        yield Finding(KIND, decision_id, "dmn:hitPolicy",
                      f'hit policy "{policy}" is not supported; expected one of {", ".join(HIT_POLICIES)}')
    columns = [(i.findtext(f"{_DMN}inputExpression/{_DMN}text") or "").strip() or f"#{n}"
               for n, i in enumerate(table.findall(f"{_DMN}input"), 1)]
    outputs = len(table.findall(f"{_DMN}output"))
    rows: list[tuple[str, list[UnaryTests]]] = []
    for number, rule in enumerate(table.findall(f"{_DMN}rule"), 1):
        rule_id = rule.get("id") or f"{decision_id} rule {number}"
        tests, problems = _rule_entries(rule, columns, outputs)
        for predicate, message in problems:
            yield Finding(KIND, rule_id, predicate, message)
        if not problems:
            rows.append((rule_id, tests))
    if policy == "UNIQUE":
        pairs = overlapping_pairs([tests for _, tests in rows])
        for i, j in pairs[:MAX_OVERLAP_FINDINGS]:
            yield Finding(KIND, decision_id, "dmn:rule",
                          f"rules {rows[i][0]} and {rows[j][0]} overlap: some input matches both, "
                          "which a UNIQUE table forbids; make them disjoint or use hit policy FIRST")
        if len(pairs) > MAX_OVERLAP_FINDINGS:
            yield Finding(KIND, decision_id, "dmn:rule",
                          f"{len(pairs) - MAX_OVERLAP_FINDINGS} more pairs of rules overlap "
                          f"(only the first {MAX_OVERLAP_FINDINGS} are listed)")


def _rule_entries(rule: etree._Element, columns: list[str],
                  outputs: int) -> tuple[list[UnaryTests], list[tuple[str, str]]]:
    """The parsed input entries of a rule, and its problems as (predicate, message)."""
    problems: list[tuple[str, str]] = []
    entries = rule.findall(f"{_DMN}inputEntry")
    if len(entries) != len(columns):
        problems.append(("dmn:inputEntry", f"{len(entries)} input entries; expected {len(columns)}, one per input"))
    tests = []
    for column, entry in zip(columns, entries):
        where = f'input "{column}"'
        try:
            tests.append(parse_unary_tests((entry.findtext(f"{_DMN}text") or "").strip() or "-", where=where))
        except ExpressionError as exc:
            problems.append(("dmn:inputEntry", f"{where}: {reason(exc, where)}"))
    output_entries = rule.findall(f"{_DMN}outputEntry")
    if len(output_entries) != outputs:
        problems.append(("dmn:outputEntry", f"{len(output_entries)} output entries; expected {outputs}"))
    for entry in output_entries:
        try:
            parse_literal((entry.findtext(f"{_DMN}text") or "").strip(), where="output")
        except ExpressionError as exc:
            problems.append(("dmn:outputEntry", f"output: {reason(exc, 'output')}"))
    return tests, problems

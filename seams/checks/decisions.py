"""The checks SHACL cannot express: the model against its BPMN and DMN payloads.

Each model fact that points into a payload must land on an element of the
right kind; a business-rule task's decision must be the one its BPMN names;
a decision's inputs and output must be its DMN table's; every table entry
must parse, and a UNIQUE table must have no two rules that one input can
match. Conditions and the upstream dataflow live in seams.checks.flow.

Every payload is indexed once (id -> element), so the checks stay linear in
the size of the model and its payloads; the UNIQUE overlap test sorts and
sweeps (seams.checks.unique_overlaps) and lists at most
``MAX_OVERLAP_FINDINGS`` pairs a table, then how many more there are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from lxml import etree
from rdflib import URIRef

from seams import vocab as V
from seams.checks.condition_names import condition_name_findings
from seams.checks.flow import KIND, elements_by_id, upstream_findings
from seams.checks.payload_structure import payload_structure_findings
from seams.checks.unique_overlaps import overlapping_pairs
from seams.findings import Finding
from seams.lang.dmn_expression import needs_interpreter, read_expression_decision
from seams.lang.dmn_support import Table, read_decision
from seams.model.dmn_imports import imported_roots
from seams.model.view import BpmnNode, Decision, Task

if TYPE_CHECKING:
    from seams.model.loading import Model, PayloadFile

MAX_OVERLAP_FINDINGS = 20  # overlap findings listed per table; the rest are counted
_PREFIX = {V.BPMN_NS: "bpmn", V.BPMNDI_NS: "bpmndi", V.DC_NS: "dc", V.DI_NS: "di",
           **{ns: "dmn" for ns in V.DMN_MODEL_NAMESPACES}, **{ns: "dmndi" for ns in V.DMNDI_NAMESPACES}}


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
    found.update(_typed_findings(model))
    found.update(payload_structure_findings(model))
    found.update(condition_name_findings(model))
    return sorted(found)


def _typed_findings(model: Model) -> list[Finding]:
    """Decisions and conditions against the types of their variables (their own modules)."""
    from seams.checks.condition_types import condition_type_findings
    from seams.checks.decision_types import decision_type_findings

    return [*decision_type_findings(model), *condition_type_findings(model)]


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
        payload = model.payloads.get(process.payload) if process.payload is not None else None
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
        if process is None or not process.found or process.payload is None \
                or model.payloads[process.payload].format != "bpmn":
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
        names = sorted({name for o in decision.outputs if isinstance(o.process_variable, URIRef)
                        for name in [view.variable_name(o.process_variable)] if name is not None})
        if node.result_variable is not None and names and node.result_variable not in names \
                and not _maps_each_output(node, names):
            yield Finding(KIND, model.qname(task.iri), "seam:decidedBy",
                          f'BPMN element "{node.id}" stores the result in "{node.result_variable}", but '
                          f"{model.qname(decision.iri)} sets {', '.join(names)} (dec:processVariable)")


def _maps_each_output(node: BpmnNode, names: list[str]) -> bool:
    """A task that keeps a table's context in its result variable and maps each variable the
    decision sets out of it (``${result.x}`` in Camunda 7, ``=result.x`` in Camunda 8)."""
    result = node.result_variable
    sources = {target: source for target, source in node.output_mappings}
    return all(sources.get(name, "").strip().removeprefix("=").removeprefix("${").startswith(f"{result}.")
               for name in names)


def _is_dmn_decision(model: Model, ids: dict, decision: Decision) -> bool:
    payload = model.payloads.get(decision.payload) if decision.payload is not None else None
    return (payload is not None and payload.format == "dmn" and decision.element_id is not None
            and _resolve(model, ids, decision.payload, decision.element_id, "decision", payload.dmn.model) is None)


def _decision_findings(model: Model, ids: dict, decision: Decision) -> Iterable[Finding]:
    payload = model.payloads.get(decision.payload) if decision.payload is not None else None
    if payload is None or decision.element_id is None:
        return
    if payload.format != "dmn":
        yield from _payload_of_format(model, decision.iri, decision.payload, "dmn")
        return
    subject = model.qname(decision.iri)
    problem = _resolve(model, ids, decision.payload, decision.element_id, "decision", payload.dmn.model)
    if problem:
        yield Finding(KIND, subject, "dec:payloadElement", problem)
        return
    element = ids[decision.payload][decision.element_id]
    if needs_interpreter(element):
        yield from _expression_findings(model, decision, element, imported_roots(model, payload))
        return
    extra = [i.variable for i in decision.inputs if i.variable is not None]
    table, problems = read_decision(element, names=extra)
    for found in problems:
        if found.predicate == "dmn:decisionTable":  # the decision itself is out of scope: the model's link is at fault
            yield Finding(KIND, subject, "dec:payloadElement", found.message)
        else:
            yield Finding(KIND, found.subject, found.predicate, found.message)
    if table is None:
        return
    yield from _columns_findings(model, decision, table)
    if table.hit_policy == "UNIQUE":
        yield from _overlap_findings(table)


def _expression_findings(model: Model, decision: Decision, element: etree._Element,
                         imported: dict[str, etree._Element]) -> Iterable[Finding]:
    """A decision the interpreter evaluates (a boxed expression, or a table that invokes a BKM or requires
    an imported model's element; seams.lang.dmn_expression): its texts parse, it reads only what it
    requires, and the model's dec:input and dec:output name its input data and its name."""
    subject = model.qname(decision.iri)
    read, problems = read_expression_decision(element, imported)
    for found in problems:
        yield Finding(KIND, subject, "dec:payloadElement", found.message)
    if read is None or any(found.predicate == "dmn:import" for found in problems):
        return  # without the imported model its input data are unknown: the one finding says what to add
    where = f'decision "{decision.element_id}" ({read.construct_name})'
    inputs = set(read.inputs) | set(read.required)
    for each in decision.inputs:
        if each.variable is not None and each.variable not in inputs:
            yield Finding(KIND, subject, "dec:input",
                          f'dec:variable "{each.variable}" is no input data of {where} (its input data: '
                          f"{', '.join(sorted(inputs)) or 'none'})")
    mapped = {each.variable for each in decision.inputs if each.variable is not None and each.from_path is not None}
    for name in read.inputs:
        if name not in mapped and not name.isidentifier():
            yield Finding(KIND, subject, "dec:input",
                          f'{where} needs input data "{name}", which is no Python name; map it with a dec:input '
                          "(dec:variable, dec:fromPath) to a process variable")
    yield from _output_name_findings(subject, decision, read.output_names, where)


def _output_name_findings(subject: str, decision: Decision, names: Sequence[str], where: str) -> Iterable[Finding]:
    """Each dec:output whose dec:variable is none of the decision's output names (a table's or a
    boxed expression's alike)."""
    for output in decision.outputs:
        if output.variable is not None and output.variable not in names:
            shown = f'which is named "{names[0]}"' if len(names) == 1 else \
                f"whose outputs are {', '.join(repr(n) for n in names)}"
            yield Finding(KIND, subject, "dec:output",
                          f'dec:variable "{output.variable}" is not the output of {where}, {shown}')


def _columns_findings(model: Model, decision: Decision, table: Table) -> Iterable[Finding]:
    subject, where = model.qname(decision.iri), f'the table of "{decision.element_id}"'
    table_inputs = list(table.inputs)
    model_inputs = {i.variable for i in decision.inputs if i.variable is not None}
    for name in sorted(set(table_inputs) - model_inputs):
        yield Finding(KIND, subject, "dec:input",
                      f'{where} has input "{name}", but no dec:input has dec:variable "{name}"')
    for name in sorted(model_inputs - set(table_inputs) - set(table.extra_names)):
        yield Finding(KIND, subject, "dec:input",
                      f'dec:variable "{name}" is no input of {where} (its inputs: '
                      f"{', '.join(sorted(set(table_inputs))) or 'none'})")
    names = table.output_names
    yield from _output_name_findings(subject, decision, names, where)
    mapped = {o.variable for o in decision.outputs}
    if len(names) > 1 and decision.outputs:
        for name in names:
            if name not in mapped:
                yield Finding(KIND, subject, "dec:output",
                              f'output "{name}" of {where} has no dec:output; map each output to a '
                              "process variable with its own dec:output")


def _overlap_findings(table: Table) -> Iterable[Finding]:
    """UNIQUE: no two rules may match one input. Exact over literal entries, found by
    sort-and-sweep (seams.checks.unique_overlaps) rather than by every pair; a rule with an
    entry that names inputs cannot be decided before evaluation and is not analysed (never
    reported as an overlap). At most MAX_OVERLAP_FINDINGS are listed, then a count."""
    rows = [rule for rule in table.rules if len(rule.tests) == len(table.inputs)
            and not any(entry.names for entry in rule.tests)]
    pairs = overlapping_pairs([list(rule.tests) for rule in rows])
    for i, j in pairs[:MAX_OVERLAP_FINDINGS]:
        yield Finding(KIND, table.decision_id, "dmn:rule",
                      f"rules {rows[i].id} and {rows[j].id} overlap: some input matches both, "
                      "which a UNIQUE table forbids; make them disjoint or use hit policy FIRST")
    if len(pairs) > MAX_OVERLAP_FINDINGS:
        yield Finding(KIND, table.decision_id, "dmn:rule",
                      f"{len(pairs) - MAX_OVERLAP_FINDINGS} more pairs of rules overlap "
                      f"(only the first {MAX_OVERLAP_FINDINGS} are listed)")


def not_analysed_columns(table: Table) -> list[str]:
    """The input columns whose entries refer to names, which the UNIQUE analysis cannot decide."""
    return [column for number, column in enumerate(table.inputs)
            if any(rule.tests and rule.tests[number].names for rule in table.rules)]

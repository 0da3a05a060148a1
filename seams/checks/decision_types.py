"""Decisions against the types of the variables they read and set.

The decision checks (seams.checks.decisions) make sure a table is well
formed; this module makes sure it means something for the process:

* a business-rule task writes exactly its decision's output variables and
  reads at least its inputs (else the flow analysis believes the wrong
  variable is set);
* each DMN ``typeRef`` is one the variable's ``seam:datatype`` allows (the
  table in seams.checks.types);
* an input entry tests values of its column's kind (``"big"`` in a number
  column never matches: FEEL makes it null) and matches some value the
  variable may hold (``"boat"`` where ``sh:in`` excludes it never does);
* an output entry is a value its output variable may hold (datatype and
  shape fields, judged by the contract item's functions).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from lxml import etree
from rdflib import URIRef

from seams import vocab as V
from seams.checks.types import (
    DATATYPES,
    VariableType,
    describe_type,
    from_domain_key,
    type_ref_name,
    variable_types,
)
from seams.errors import ExpressionError
from seams.findings import Finding
from seams.lang.feel import UnaryTests, parse_literal, parse_unary_tests
from seams.lang.feel_parse import EqualTest, RangeTest
from seams.lang.field_values import show
from seams.lang.values import NULL, kind_of
from seams.model.view import Decision, Task

if TYPE_CHECKING:
    from seams.model.loading import Model

KIND = "decision"
_DMN = f"{{{V.DMN_NS}}}"


def decision_type_findings(model: Model) -> list[Finding]:
    """Business-rule tasks against their decisions, and DMN tables against the variables' types."""
    view = model.view
    types = variable_types(model)
    found: set[Finding] = set()
    for task in view.tasks.values():
        decision = view.decisions.get(task.decided_by) if task.decided_by is not None else None
        if decision is not None:
            found.update(_task_findings(model, task, decision))
    tables = decision_tables(model)
    for decision in view.decisions.values():
        table = tables.get((decision.payload, decision.element_id))
        if table is not None:
            found.update(_table_findings(model, types, decision, table))
    return sorted(found)


def decision_tables(model: Model) -> dict[tuple, etree._Element]:
    """(payload IRI, decision id) -> its decisionTable, one pass over each DMN payload."""
    out = {}
    for iri, payload in model.payloads.items():
        if payload.format != "dmn":
            continue
        for decision in payload.tree.getroot().iter(f"{_DMN}decision"):
            table = decision.find(f"{_DMN}decisionTable")
            if table is not None and decision.get("id"):
                out[(iri, decision.get("id"))] = table
    return out


def _task_findings(model: Model, task: Task, decision: Decision) -> Iterable[Finding]:
    from seams.checks.drd import graph_inputs

    outputs = {o.process_variable for o in decision.outputs if isinstance(o.process_variable, URIRef)}
    inputs = {variable for _, variable in graph_inputs(model.view, decision)}
    writes = set(task.writes)
    if writes == outputs and inputs <= set(task.reads):
        return
    subject, name = model.qname(task.iri), model.qname(decision.iri)
    for extra in sorted(writes - outputs, key=str):
        yield Finding(KIND, subject, "seam:writes",
                      f"writes {model.qname(extra)}, which {name} does not set (its outputs: "
                      f"{_names(model, outputs)}); expected seam:writes to be exactly the decision's outputs")
    for missing in sorted(outputs - writes, key=str):
        yield Finding(KIND, subject, "seam:writes",
                      f"does not write {model.qname(missing)}, an output of {name} (dec:processVariable); "
                      "expected seam:writes to be exactly the decision's outputs")
    for missing in sorted(inputs - set(task.reads), key=str):
        yield Finding(KIND, subject, "seam:reads",
                      f"does not read {model.qname(missing)}, an input of {name} (dec:fromPath); "
                      "expected seam:reads to cover the decision's inputs")


def _item(vtype: VariableType | None) -> VariableType | None:
    """A list variable (a COLLECT result) holds the output entries as its items."""
    return vtype.item_type() if vtype is not None else None


def _names(model: Model, iris: Iterable[URIRef]) -> str:
    return ", ".join(sorted(model.qname(i) for i in iris)) or "none"


def _type_ref_findings(element: etree._Element, subject: str, what: str,
                       vtype: VariableType, model: Model) -> Iterable[Finding]:
    type_ref = element.get("typeRef")
    if type_ref is None or vtype.datatype not in DATATYPES:
        return
    allowed = DATATYPES[vtype.datatype][1]
    if type_ref_name(type_ref) not in allowed:
        yield Finding(KIND, subject, "dmn:typeRef",
                      f'{what} has typeRef "{type_ref}", but {model.qname(vtype.iri)} is '
                      f"{describe_type(vtype)}; expected one of: {', '.join(sorted(allowed))}")


def _table_findings(model: Model, types: dict[URIRef, VariableType], decision: Decision,
                    table: etree._Element) -> Iterable[Finding]:
    by_input = {i.variable: types.get(i.from_path) for i in decision.inputs
                if i.variable is not None and isinstance(i.from_path, URIRef)}
    by_output = {o.variable: _item(types.get(o.process_variable)) for o in decision.outputs
                 if o.variable is not None and isinstance(o.process_variable, URIRef)}
    columns: list[tuple[str, VariableType | None]] = []
    for number, column in enumerate(table.findall(f"{_DMN}input"), 1):
        text = (column.findtext(f"{_DMN}inputExpression/{_DMN}text") or "").strip()
        vtype = by_input.get(text)
        columns.append((text or f"#{number}", vtype))
        expression = column.find(f"{_DMN}inputExpression")
        if vtype is not None and expression is not None:
            yield from _type_ref_findings(expression, column.get("id") or decision.element_id or "",
                                          f'input "{text}"', vtype, model)
    outputs: list[tuple[str, VariableType | None]] = []
    for column in table.findall(f"{_DMN}output"):
        name = column.get("name") or ""
        vtype = by_output.get(name)
        outputs.append((name, vtype))
        if vtype is not None:
            yield from _type_ref_findings(column, column.get("id") or decision.element_id or "",
                                          f'output "{name}"', vtype, model)
    for number, rule in enumerate(table.findall(f"{_DMN}rule"), 1):
        rule_id = rule.get("id") or f"{decision.element_id} rule {number}"
        for (column_name, vtype), entry in zip(columns, rule.findall(f"{_DMN}inputEntry")):
            if vtype is not None and vtype.kind is not None:
                yield from _input_entry_findings(model, rule_id, column_name, vtype,
                                                 (entry.findtext(f"{_DMN}text") or "").strip() or "-")
        for (name, vtype), entry in zip(outputs, rule.findall(f"{_DMN}outputEntry")):
            if vtype is not None:
                yield from _output_entry_findings(model, rule_id, name, vtype,
                                                  (entry.findtext(f"{_DMN}text") or "").strip())


def _input_entry_findings(model: Model, rule_id: str, column: str, vtype: VariableType,
                          text: str) -> Iterable[Finding]:
    verdict = _entry_verdict(text, vtype.domain_key)
    if verdict is None:
        return
    where, variable = f'input "{column}"', f"{model.qname(vtype.iri)} ({describe_type(vtype)})"
    if verdict != "never":
        yield Finding(KIND, rule_id, "dmn:inputEntry",
                      f"{where}: {text} tests {verdict} values, but {variable} holds {vtype.kind} values; "
                      "that test never matches")
    else:
        yield Finding(KIND, rule_id, "dmn:inputEntry",
                      f"{where}: {text} matches no value {variable} may hold"
                      f"{_domain(vtype)}; the rule never applies")


@lru_cache(maxsize=4096)
def _entry_verdict(text: str, domain_key: tuple) -> str | None:
    """What is wrong with an input entry on a column of this domain: the kind of a test that
    never meets the column's kind, ``"never"`` when it matches no value of the domain, or None.
    Memoized: tables repeat their cells."""
    try:
        entry: UnaryTests = parse_unary_tests(text, where="input")
    except ExpressionError:
        return None  # seams.checks.decisions reports the entry
    if entry.is_any:
        return None
    vtype = from_domain_key(domain_key)
    literals: list[object] = []
    kind: str | None
    for test in entry.tests:
        if isinstance(test, EqualTest):
            kind, values = kind_of(test.value), [test.value]
        elif isinstance(test, RangeTest):
            kind, values = test.kind, [test.interval.lo, test.interval.hi]
        else:
            continue
        literals += [v for v in values if v is not None]
        if kind not in (vtype.kind, NULL):
            return kind
    samples = vtype.samples(literals)
    if samples and not any(entry.matches(value) for value in samples):
        return "never"
    return None


def _domain(vtype: VariableType) -> str:
    finite = vtype.finite_domain()
    if finite is not None:
        return f" (one of: {', '.join(show(v) for v in finite)})"
    return ""


def _output_entry_findings(model: Model, rule_id: str, name: str, vtype: VariableType,
                           text: str) -> Iterable[Finding]:
    parsed = output_literal(text)
    if parsed is None:
        return  # seams.checks.decisions reports the entry
    value = parsed[0]
    if vtype.allows(value):
        return
    for predicate, message in vtype.problems(value):
        yield Finding(KIND, rule_id, "dmn:outputEntry",
                      f'output "{name}": {message} [{predicate} of {model.qname(vtype.iri)}]')


@lru_cache(maxsize=4096)
def output_literal(text: str) -> tuple[object] | None:
    """An output entry's value (in a 1-tuple), or None when it does not parse; memoized."""
    try:
        return (parse_literal(text, where="output"),)
    except ExpressionError:
        return None

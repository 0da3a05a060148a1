"""Gateway conditions against the types and domains of the variables they compare.

In the condition language values meet only values of their own kind
(seams.lang.values): ``amount > "5000"`` is always false and ``covered == 0``
never true, at run time and silently. So each comparison's operands must be
of one kind, and a variable used bare as a condition must be a boolean.

A condition whose operands agree may still never be true (``claim_type ==
"boat"`` when ``sh:in`` excludes "boat", ``days > 100`` when the form stops
at 60) or never be false. When every comparison is of a variable with
literals, the condition is evaluated on sample values of each variable's
domain: its ``sh:in`` list or both booleans, else the literals it is compared
with, the bounds of its shape fields, and a value either side of each
(seams.checks.types.VariableType.samples) kept only if the variable's type
allows it. A comparison changes its answer only at its literals, so the
samples decide exactly for booleans, ``sh:in`` lists, integers, dates and
strings; a decimal gap thinner than 0.001 could be missed. Conditions that
compare two variables, or need more than ``MAX_SAMPLES`` combinations, are
not judged here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache
from itertools import product
from typing import TYPE_CHECKING, Any

from rdflib import URIRef

from seams import vocab as V
from seams.checks.decision_types import decision_tables, output_literal
from seams.checks.flow import CONDITION, process_variables, variables_set_by
from seams.checks.types import (
    MAX_SAMPLES,
    VariableType,
    describe_type,
    from_domain_key,
    key_value,
    value_key,
    variable_types,
)
from seams.errors import ExpressionError
from seams.findings import Finding
from seams.lang.condition import Condition, Operand, parse_condition
from seams.lang.condition_tree import FeelExpr
from seams.lang.field_values import show
from seams.lang.values import BOOLEAN, kind_of
from seams.model.view import Task

if TYPE_CHECKING:
    from seams.model.loading import Model

KIND = "decision"


def condition_type_findings(model: Model) -> list[Finding]:
    """Conditions comparing unlike kinds, and conditions that are never true or never false."""
    view = model.view
    types = variable_types(model)
    variables = process_variables(view)
    tasks_by_process: dict[URIRef, list[Task]] = defaultdict(list)
    for task in view.tasks.values():
        if task.process is not None:
            tasks_by_process[task.process].append(task)
    found: set[Finding] = set()
    tables: dict[tuple, Any] | None = None
    for process in view.processes.values():
        by_name: dict[str, list[VariableType]] = defaultdict(list)
        for iri in variables.get(process.iri, ()):
            if iri in types and types[iri].name:
                by_name[types[iri].name].append(types[iri])  # type: ignore[index]
        unique = {name: vtypes[0] for name, vtypes in by_name.items() if len(vtypes) == 1}
        outputs: dict[str, tuple] | None = None
        for flow in process.flows.values():
            if flow.condition is None:
                continue
            condition = _parsed(flow.condition)
            if condition is None:
                continue  # seams.checks.flow reports it
            if outputs is None:
                if tables is None:
                    tables = decision_tables(model)  # once per model, only when a condition needs it
                outputs = _output_domains(model, tasks_by_process.get(process.iri, []), types, tables)
            domains = tuple((name, unique[name].domain_key if name in unique else None,
                             value_key(outputs[name]) if name in outputs else None)
                            for name in sorted(condition.names))
            if _sound(condition, domains):
                continue
            found.update(_findings(model, flow.id, condition, unique, outputs))
    return sorted(found)


def _output_domains(model: Model, tasks: list[Task], types: dict[URIRef, VariableType],
                    tables: dict[tuple, Any]) -> dict[str, tuple]:
    """Variables only decisions set in this process: the values their tables can give them.

    Each is one of its decision table's output entries for that output, or
    null when no rule matches; a variable anything else sets (a form field,
    another task's seam:writes), or whose table gives a value its type
    refuses (seams.checks.decision_types reports that), keeps its declared
    domain."""
    view = model.view
    others: set[URIRef] = set()
    decided: dict[URIRef, list[tuple | None]] = defaultdict(list)
    for task in tasks:
        decision = view.decisions.get(task.decided_by) if task.decided_by is not None else None
        set_here = set(variables_set_by(view, task))
        if decision is not None:
            table = tables.get((decision.payload, decision.element_id))
            for output in decision.outputs:
                if isinstance(output.process_variable, URIRef) and output.variable is not None:
                    set_here.discard(output.process_variable)
                    values = _column_values(table, output.variable)
                    decided[output.process_variable].append(values)
        others.update(set_here)
    out = {}
    for iri, columns in decided.items():
        vtype = types.get(iri)
        if iri in others or vtype is None or vtype.name is None or any(c is None for c in columns):
            continue
        values = tuple(dict.fromkeys(v for column in columns for v in column or ()))
        if all(vtype.allows(v) for v in values):  # else the table is reported, not reasoned on
            out[vtype.name] = values + (None,)
    return out


def _column_values(table, name: str) -> tuple | None:
    """The values of the output entries of output ``name`` (None: no table, column or parse)."""
    if table is None:
        return None
    dmn = f"{{{V.DMN_NS}}}"
    names = [o.get("name") for o in table.findall(f"{dmn}output")]
    if name not in names:
        return None
    index, values = names.index(name), []
    for rule in table.findall(f"{dmn}rule"):
        entries = rule.findall(f"{dmn}outputEntry")
        parsed = output_literal((entries[index].findtext(f"{dmn}text") or "").strip()) \
            if index < len(entries) else None
        if parsed is None:
            return None
        values.append(parsed[0])
    return tuple(values)


@lru_cache(maxsize=4096)
def _parsed(text: str) -> Condition | None:
    try:
        return parse_condition(text, where="condition")
    except ExpressionError:
        return None


@lru_cache(maxsize=4096)
def _sound(condition: Condition, domains: tuple) -> bool:
    """No finding for this condition over variables of these domains (memoized: conditions repeat)."""
    types = {name: from_domain_key(key) for name, key, _ in domains if key is not None}
    outputs = {name: key_value(values) for name, _, values in domains if values is not None}
    return not any(_kind_problems(None, condition, types)) and _domain_verdict(condition, types, outputs) is None


def _findings(model: Model, flow_id: str, condition: Condition, types: dict[str, VariableType],
              outputs: dict[str, tuple]) -> Iterable[Finding]:
    problems = list(_kind_problems(model, condition, types))
    for message in problems:
        yield Finding(KIND, flow_id, CONDITION, message)
    if not problems:
        verdict = _domain_verdict(condition, types, outputs)
        if verdict is not None:
            names = ", ".join(f"{name} {_domain_text(model, types[name], outputs.get(name))}"
                              for name in sorted(condition.names))
            yield Finding(KIND, flow_id, CONDITION,
                          f"{_quote(condition.text)} is never {verdict} on the values its variables may hold "
                          f"({names}); expected a condition that can go either way")


def _describe(model: Model | None, vtype: VariableType) -> str:
    return f"{model.qname(vtype.iri) if model else '?'}, {describe_type(vtype)}"


def _quote(text: str) -> str:
    return repr(text if len(text) <= 80 else text[:77] + "...")


def _kind_problems(model: Model | None, condition: Condition, types: dict[str, VariableType]) -> Iterable[str]:
    for name in dict.fromkeys(condition.truth_names()):
        vtype = types.get(name)
        if vtype is not None and vtype.kind is not None and vtype.kind != BOOLEAN:
            yield (f'uses "{name}" ({_describe(model, vtype)}) as a condition, which is true only for the '
                   f"boolean True; expected a comparison such as {name} == ...")
    for op, left, right in condition.comparisons():
        if right.kind == "list":
            kind = _kind(left, types)
            for item in right.value:  # type: ignore[attr-defined]
                if kind is not None and kind_of(item) != kind:
                    yield (f"{_show(model, left, types)} {op} [...] lists {show(item)}, a {kind_of(item)}, "
                           f"which a {kind} never equals; expected items of one kind with the variable")
            continue
        if op in ("==", "!=") and any(o.kind == "literal" and o.value is None for o in (left, right)):
            continue  # a null test (FEEL `x = null`, JUEL `x == null`): true exactly for null
        kinds = [_kind(operand, types) for operand in (left, right)]
        if any(k is None for k in kinds) or kinds[0] == kinds[1]:
            continue
        outcome = "always true" if op == "!=" else "always false"
        yield (f"{_show(model, left, types)} {op} {_show(model, right, types)} compares a {kinds[0]} with a "
               f"{kinds[1]}, which is {outcome}; expected operands of one kind")


def _kind(operand: Operand, types: dict[str, VariableType]) -> str | None:
    """The operand's kind (None: a variable of unknown type, or an expression such as a path
    ``a.b.c`` into a JSON object, whose kind is known only when it is evaluated)."""
    if operand.kind == "expression":
        return None
    if operand.kind == "variable":
        vtype = types.get(str(operand.value))
        return vtype.kind if vtype is not None else None
    return kind_of(operand.value)


def _show(model: Model | None, operand: Operand, types: dict[str, VariableType]) -> str:
    if operand.kind == "variable":
        vtype = types.get(str(operand.value))
        return f'"{operand.value}" ({_describe(model, vtype)})' if vtype else f'"{operand.value}"'
    if operand.kind == "list":
        return "[" + ", ".join(show(v) for v in operand.value) + "]"  # type: ignore[attr-defined]
    return show(operand.value)


def _domain_verdict(condition: Condition, types: dict[str, VariableType],
                    outputs: dict[str, tuple]) -> str | None:
    """``"true"`` or ``"false"`` when the condition is never that on the samples; None when it can
    be both, or when the samples would not decide (two variables compared, an unknown type, a whole
    FEEL expression: its samples would be the variables' scalar samples, not the lists and contexts
    such expressions read)."""
    if isinstance(condition.tree, FeelExpr):
        return None
    literals: dict[str, list[object]] = {name: [] for name in condition.names}
    for _, left, right in condition.comparisons():
        if left.kind == "variable" and right.kind == "variable":
            return None
        for var, other in ((left, right), (right, left)):
            if var.kind == "variable":
                values = other.value if other.kind == "list" else (other.value,)
                literals[str(var.value)].extend(values)  # type: ignore[arg-type]
    names = sorted(literals)
    samples = []
    total = 1
    for name in names:
        vtype = types.get(name)
        values = list(outputs[name]) if name in outputs else (
            vtype.samples(literals[name]) if vtype is not None else None)
        if not values:
            return None
        if None in literals[name] and None not in values:
            values.append(None)  # a null test: the variable may be unset (null) when the engine asks
        total *= len(values)
        if total > MAX_SAMPLES:
            return None
        samples.append(values)
    answers = set()
    for combination in product(*samples):
        try:
            answers.add(condition.evaluate(dict(zip(names, combination))))
        except ExpressionError:
            return None
        if len(answers) == 2:
            return None
    return "true" if answers == {False} else "false" if answers == {True} else None


def _domain_text(model: Model, vtype: VariableType, outputs: tuple | None) -> str:
    if outputs is not None:
        return "in {" + ", ".join(show(v) for v in outputs) + "}, the values its decision gives it"
    finite = vtype.finite_domain()
    if finite is not None:
        return "in " + "{" + ", ".join(show(v) for v in finite) + "}"
    bounds = [f"{key} {show(rule[key])}" for rule in vtype.rules
              for key in ("minInclusive", "maxInclusive", "minExclusive", "maxExclusive") if key in rule]
    return f"({describe_type(vtype)}{': ' + ', '.join(bounds) if bounds else ''})"


"""Built-in generator ``decisions``: every DMN decision as a plain Python function.

The function takes the table's inputs (in column order, named by their
variables ``dec:input`` maps the input expressions to, or by the
expressions themselves when they are identifiers) and evaluates the rules as DMN defines the
hit policy: UNIQUE (no match gives None, more than one is a DecisionError),
FIRST, PRIORITY and OUTPUT ORDER (ranked by the outputs' ``outputValues``),
ANY (matches must agree), RULE ORDER and COLLECT (with SUM, MIN, MAX,
COUNT). What it accepts is exactly what ``seams check`` accepts: both read
the decision with seams.lang.dmn_support. Entry tests come from
``seams.lang.feel`` (``UnaryTests.to_python``), so the generated module agrees
with the checks on every value and needs only the standard library.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from lxml import etree

from seams.errors import GeneratorError
from seams.generators.hookspecs import hookimpl
from seams.generators.parts import assembled, json_part, read_json_part
from seams.generators.pysource import docstring, snake_name
from seams.lang.condition_python import runtime_expression
from seams.lang.dmn_expression import ExpressionDecision, needs_interpreter, read_expression_decision
from seams.lang.dmn_support import RANKED_POLICIES, Rule, Table, applied_rules, find_decision, read_decision
from seams.lang.feel_output import OutputExpression
from seams.lang.feel_runtime import runtime_source
from seams.lang.values import render_literal
from seams.model.dmn_imports import imported_payloads

if TYPE_CHECKING:
    from rdflib import URIRef

    from seams.model.loading import Model
    from seams.model.view import Decision

MODULE = "decisions.py"
_RUNTIME_NAME = "_FEEL_R"
"""The module global holding the runtime output expressions call into (built once per module)."""
# names the function bodies and the module use; an input named like one would shadow it
_MODULE_NAMES = frozenset({"DecisionError", "Decimal", "decide_by_id",
                           "date", "datetime", "time", "timedelta", "timezone", "ZoneInfo",
                           "_matched", "_unique", "_any", "_collect", "_priority", "_output_order",
                           "_feel_kind", "_feel_member", "_feel_compare", "_feel_test", "_FEEL_ORDERED",
                           _RUNTIME_NAME, "R"})
_DATETIME_NAMES = ("date", "datetime", "time", "timedelta", "timezone")
_PLACEHOLDER = "_seams_input"
_UNSAFE_COMMENT = re.compile(r"[^\S ]|[\x00-\x1f\x7f]")

_HELPERS = {
    "_unique": '''def _unique(decision, matched):
    """UNIQUE: None when no rule matches, an error when more than one does."""
    if len(matched) > 1:
        rules = ", ".join(rule for rule, _ in matched)
        raise DecisionError(f"{decision}: hit policy UNIQUE, yet rules {rules} all match")
    return matched[0][1] if matched else None''',
    "_any": '''def _any(decision, matched):
    """ANY: the matching rules must agree on the output; None when none matches."""
    outputs = [output for _, output in matched]
    if any(output != outputs[0] for output in outputs[1:]):
        rules = ", ".join(rule for rule, _ in matched)
        raise DecisionError(f"{decision}: hit policy ANY, yet rules {rules} match with different outputs")
    return outputs[0] if outputs else None''',
    "_collect": '''def _collect(matched, aggregation):
    """RULE ORDER and COLLECT: every matching output in rule order, or their aggregate."""
    outputs = [output for _, output in matched]
    if aggregation is None:
        return outputs
    if aggregation == "COUNT":
        return len(outputs)
    if not outputs or any(output is None for output in outputs):
        return None  # as FEEL's sum, min and max: no value, or a null among them, gives null
    return {"SUM": sum, "MIN": min, "MAX": max}[aggregation](outputs)''',
    "_priority": '''def _priority(matched):
    """PRIORITY: the output of the matching rule ranked first by the outputValues; None when none matches."""
    return min(matched, key=lambda match: match[0])[1] if matched else None''',
    "_output_order": '''def _output_order(matched):
    """OUTPUT ORDER: every matching output, ranked by the outputValues (rule order among equals)."""
    return [output for _, output in sorted(matched, key=lambda match: match[0])]''',
}


class DecisionsGenerator:
    """The ``decisions`` plugin. Composable: one part per function of the module, keyed by the
    function's name (so two components naming a function alike are "not composable", and the
    whole-model run refuses the name), the module around them built from the parts."""

    @hookimpl
    def seams_generate(self, model: Model) -> dict[str, bytes]:
        return assembled(self.seams_generate_parts(model), self.seams_assemble)

    @hookimpl
    def seams_generate_parts(self, model: Model) -> dict[str, dict[str, bytes]]:
        parts = function_parts(model)
        return {MODULE: parts} if parts else {}

    @hookimpl
    def seams_assemble(self, path: str, parts: Mapping[str, bytes]) -> bytes:
        return module_from_parts(path, parts).encode("utf-8")


def decisions_source(model: Model) -> str | None:
    """The module text, or None when the model has no decisions."""
    parts = function_parts(model)
    return module_from_parts(MODULE, parts) if parts else None


def function_parts(model: Model) -> dict[str, bytes]:
    """One JSON part per function of the module, by function name ({} without decisions).

    A part holds the function's ``source`` and the module helpers it ``needs``; a decision
    that is no table holds instead the ``source`` of its head, the ``call`` of the DMN
    interpreter that ends it and the DMN file ``texts`` that call reads, which the module
    numbers ``_DMN_1``, ``_DMN_2``, ... by the decisions' IRIs (``order``) when it is
    assembled: the numbers depend on every decision of the model, a part only on its own.
    """
    functions: dict[str, dict[str, object]] = {}
    for decision, name, table in _named_tables(model):
        if isinstance(table, ExpressionDecision):
            functions[name] = _expression_function(model, name, table, decision)
        else:
            helpers: set[str] = set()
            source = _function(model, name, table, decision, model.qname(decision.iri), helpers)
            functions[name] = {"source": source, "needs": sorted(helpers)}
    if not functions:
        return {}
    functions.update((name, {"source": source}) for name, source in _graph_functions(model).items())
    return {name: json_part(value) for name, value in functions.items()}


_PART_FIELDS = {"source": str}
_CALL_FIELDS = {"decision_id": str, "inputs": str}


def module_from_parts(path: str, parts: Mapping[str, bytes]) -> str:
    """The module from its functions' parts (:func:`function_parts`, of one model or merged from
    several components): the order, ``__all__``, helpers, DMN texts and imports all come from the
    parts' keys and contents, never from the order of ``parts``."""
    read = {name: read_json_part("decisions", path, name, parts[name], _PART_FIELDS) for name in sorted(parts)}
    functions, texts = _functions_and_texts(path, read)
    helpers = {str(h) for part in read.values() for h in part.get("needs", [])}
    header = (
        "Decision tables of the model as plain Python functions.\n\n"
        "Generated by `seams generate` (decisions) from the model; every run rewrites it.\n"
        "Each function evaluates its DMN table as its hit policy defines and needs\n"
        "only the standard library."
    )
    exported = ", ".join(f'"{n}"' for n in ["DecisionError", *sorted(functions)])
    body = [
        'class DecisionError(ValueError):\n    """A decision table broke its hit policy for the given inputs."""',
        *([runtime_source()] if "_feel_test" in helpers else []),
        *([f"{_RUNTIME_NAME} = {runtime_expression()}  # FEEL semantics of the output expressions"]
          if _RUNTIME_NAME in helpers else []),
        *(_HELPERS[h] for h in sorted(helpers & set(_HELPERS))),
        *(f"{name} = {text!r}  # the DMN file its decisions that are no tables are read from"
          for text, name in texts.items()),
        *(functions[n] for n in sorted(functions)),
    ]
    used = _names_used(body, {*_DATETIME_NAMES, "ZoneInfo"})
    datetime_names = ", ".join(["date", *(n for n in _DATETIME_NAMES[1:] if n in used)])
    zoneinfo = "\nfrom zoneinfo import ZoneInfo" if "ZoneInfo" in used else ""  # a literal's named zone
    interpreter = "\n\nfrom seams.lang.dmn_eval import decide_by_id" if texts else ""
    if texts:
        header += ("\nDecisions that are no tables (literal expressions, boxed contexts, invocations, ...)\n"
                   "call seams' DMN interpreter with their DMN file's text (docs/generators.md).")
    module = [
        f"{docstring(header)}\n\nfrom __future__ import annotations\n\n"
        f"from datetime import {datetime_names}\nfrom decimal import Decimal{zoneinfo}{interpreter}\n\n"
        f"__all__ = [{exported}]",
        *body,
    ]
    return "\n\n\n".join(module) + "\n"


def _names_used(body: list[str], wanted: set[str]) -> set[str]:
    """Which of ``wanted`` the body uses as names (``ast.Name``), parsing only the pieces whose
    text holds one of them: a module of many decisions is not parsed whole for a few imports."""
    spelled = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, wanted))) + r")\b")
    pieces = [piece for piece in body if spelled.search(piece)]
    if not pieces:
        return set()
    return {node.id for node in ast.walk(ast.parse("\n\n".join(pieces))) if isinstance(node, ast.Name)} & wanted


def _functions_and_texts(path: str, read: dict[str, dict]) -> tuple[dict[str, str], dict[str, str]]:
    """Each function's source by name, and the DMN file texts the interpreter calls read, each
    with its module global: numbered in the order of the decisions' IRIs, the order the
    whole-model run reads the decisions in, whatever components the parts come from."""
    for name, part in read.items():
        if not isinstance(part.get("needs", []), list) or ("call" in part and not isinstance(part.get("order"), str)):
            raise GeneratorError(f"decisions: {path} part {name!r} has a needs that is no list or a call without order")
    texts: dict[str, str] = {}  # DMN file text -> the module global holding it (expression decisions)
    functions = {name: str(part["source"]) for name, part in read.items()}
    for _, name in sorted((part["order"], name) for name, part in read.items() if "call" in part):
        part = read[name]
        call = part["call"]
        if not isinstance(call, dict) or any(not isinstance(call.get(f), t) for f, t in _CALL_FIELDS.items()) \
                or not isinstance(part.get("texts"), list) or not part["texts"]:
            raise GeneratorError(f"decisions: {path} part {name!r} has no call of seams' DMN interpreter")
        holders = [texts.setdefault(str(text), f"_DMN_{len(texts) + 1}") for text in part["texts"]]
        holder, imports = holders[0], holders[1:]
        functions[name] += (f"\n    return decide_by_id({holder}, {call['decision_id']!r}, {{{call['inputs']}}}"
                            + (f", imports=({', '.join(imports)},))" if imports else ")"))
    return functions, texts


_NAMED: weakref.WeakKeyDictionary[Model, list[tuple[Decision, str, Table | ExpressionDecision]]] = \
    weakref.WeakKeyDictionary()


def _named_tables(model: Model) -> list[tuple[Decision, str, Table | ExpressionDecision]]:
    """Every decision with the name of its function in the module and its table (or boxed
    expression), read once per model (the module and :func:`decision_calls` both need them)."""
    if model not in _NAMED:
        _NAMED[model] = _read_named_tables(model)
    return _NAMED[model]


def _read_named_tables(model: Model) -> list[tuple[Decision, str, Table | ExpressionDecision]]:
    named: list[tuple[Decision, str, Table | ExpressionDecision]] = []
    taken: set[str] = set()
    for decision in model.view.decisions.values():
        subject = model.qname(decision.iri)
        table = _table_of(model, decision, subject)
        name = snake_name(decision.label or (table.name if isinstance(table, Table) else None) or table.decision_id)
        if name in _MODULE_NAMES or hasattr(builtins, name):
            name += "_"  # a decision called "Type" must not hide type() from the tests
        if name in taken:
            raise GeneratorError(f"{subject} rdfs:label: function name {name} is already taken in {MODULE}")
        taken.add(name)
        named.append((decision, name, table))
    return named


@dataclass(frozen=True)
class DecisionCall:
    """How the process calls one decision of the generated module (the embedded engine's
    business-rule tasks, docs/scenarios.md): the function, its parameters (process variable
    names, in order), each rule's test as the module writes it, and the table's outputs."""

    decision_id: str
    function: str
    parameters: tuple[str, ...]
    rules: tuple[tuple[str, str], ...]  # (DMN rule id, Python test over the parameters)
    outputs: tuple[str, ...]  # the DMN output names; one output: the function returns its value
    hit_policy: str = "UNIQUE"  # the table's hit policy (dmn:hitPolicy)
    ranks: tuple[tuple[int, ...], ...] = ()  # PRIORITY: each rule's rank (seams.lang.dmn_support.Table.rank)

    def applied(self, matched: tuple[str, ...]) -> tuple[str, ...]:
        """The matched rules as the hit policy applies them: FIRST the first, PRIORITY the one that
        ranks first (the rule that decided); every other policy all of them, in rule order."""
        ranks = dict(zip((rule for rule, _ in self.rules), self.ranks)) if self.ranks else {}
        return applied_rules(self.hit_policy, matched, lambda rule: ranks.get(rule, ()))


def decision_calls(model: Model) -> dict[URIRef, DecisionCall]:
    """Every decision of the model as :func:`decisions_source` renders it, by the decision's IRI."""
    calls = {}
    for decision, name, table in _named_tables(model):
        if isinstance(table, ExpressionDecision):
            parameters = _expression_parameters(model, table, decision)
            calls[decision.iri] = DecisionCall(decision_id=table.decision_id, function=name,
                                               parameters=tuple(parameters.values()), rules=(),
                                               outputs=table.output_names, hit_policy=table.construct_name)
            continue
        scope = _parameters(model, table, decision, model.qname(decision.iri))
        columns = [scope[text] for text in table.inputs]
        rendered: dict[tuple[str, str], str] = {}
        rules = tuple((rule.id, _condition(rule, columns, scope, set(), rendered)) for rule in table.rules)
        calls[decision.iri] = DecisionCall(decision_id=table.decision_id, function=name,
                                           parameters=tuple(dict.fromkeys(scope.values())), rules=rules,
                                           outputs=table.output_names, hit_policy=table.hit_policy,
                                           ranks=tuple(table.rank(rule) for rule in table.rules))
    return calls


def _graph_functions(model: Model) -> dict[str, str]:
    """``<function>_graph`` for each decision that requires others (a DRD, docs/model.md): it takes
    the inputs of the whole graph and evaluates each required decision first, as Camunda does."""
    from seams.checks.drd import evaluation_order, fed_parameters

    view = model.view
    calls = decision_calls(model)
    out: dict[str, str] = {}
    for iri, call in sorted(calls.items(), key=lambda kv: kv[1].function):
        order = evaluation_order(view, view.decisions[iri])
        if len(order) < 2 or any(d.iri not in calls or len(calls[d.iri].outputs) != 1 for d in order[:-1]):
            continue
        fed: dict[str, str] = {}  # parameter -> the required decision's function that gives it
        for each in order[:-1]:
            for name in fed_parameters(view, view.decisions[iri], calls[each.iri].outputs[0]):
                fed.setdefault(name, calls[each.iri].function)
        params = list(dict.fromkeys(p for d in order for p in calls[d.iri].parameters if p not in fed))
        lines = [f"def {call.function}_graph({', '.join(params)}):",
                 f'    """{call.function} after the decisions it requires, each evaluated first."""']
        for each in order:
            each_call = calls[each.iri]
            arguments = ", ".join(f"{p}={p}" for p in each_call.parameters)
            if each.iri == iri:
                lines.append(f"    return {each_call.function}({arguments})")
            else:
                for name, function in fed.items():
                    if function == each_call.function:
                        lines.append(f"    {name} = {each_call.function}({arguments})")
        out[f"{call.function}_graph"] = "\n".join(lines)
    return out


def _table_of(model: Model, decision: Decision, subject: str) -> Table | ExpressionDecision:
    payload = model.payload_for(decision.iri)
    if payload is None or payload.format != "dmn":
        raise GeneratorError(f"{subject} seam:payload: no DMN payload")
    element = find_decision(payload.tree.getroot(), decision.element_id or "", payload.dmn.model)
    if element is None:
        raise GeneratorError(
            f"{subject} dec:payloadElement: {decision.element_id!r} is no decision in {payload.relpath}")
    if needs_interpreter(element):
        imported = {ns: p.tree.getroot() for ns, p in imported_payloads(model, payload).items()}
        expression, expression_problems = read_expression_decision(element, imported)
        if expression_problems or expression is None:
            first = expression_problems[0]
            raise GeneratorError(f"{subject} dec:payloadElement: {first.message}")
        return expression
    table, problems = read_decision(element, names=[i.variable for i in decision.inputs if i.variable])
    if problems or table is None:
        first = problems[0]
        raise GeneratorError(f"{subject} dec:payloadElement: DMN {first.subject} {first.predicate}: {first.message}")
    return table


def _expression_parameters(model: Model, read: ExpressionDecision, decision: Decision) -> dict[str, str]:
    """The Python parameter of each input data a decision that is no table needs (through the decisions
    it requires): the seam:name of the variable its dec:input reads, else the input data's name itself
    when it is an identifier (as for a table's inputs)."""
    mapped = {i.variable: model.view.variable_name(i.from_path) for i in decision.inputs
              if i.variable is not None and i.from_path is not None}
    params: dict[str, str] = {}
    for text in read.inputs:
        name = mapped.get(text) or (text if text.isidentifier() and not keyword.iskeyword(text) else None)
        if name is None or not name.isidentifier() or keyword.iskeyword(name) or name in _MODULE_NAMES \
                or name.startswith("_DMN_"):
            raise GeneratorError(f"{model.qname(decision.iri)} dec:input: DMN input data {text!r} of "
                                 f"{read.decision_id} is no Python identifier the module may use; map it with a "
                                 "dec:input (dec:variable, dec:fromPath) to a variable whose seam:name is one")
        params[text] = name
    if len(set(params.values())) != len(params):
        raise GeneratorError(f"{model.qname(decision.iri)} dec:input: DMN decision {read.decision_id} names an "
                             "input twice")
    return params


def _expression_function(model: Model, name: str, read: ExpressionDecision, decision: Decision) -> dict[str, object]:
    """A decision the generator does not write as Python (a boxed expression, a table that invokes a
    BKM or requires an imported model's element): a call of seams' DMN interpreter on its DMN file's
    text and the texts of the files it imports, which the module holds once per file (generating
    Python for every boxed expression would restate all of FEEL; docs/generators.md). The part
    holds the function's head, the call and the texts; :func:`module_from_parts` names the texts."""
    payload = model.payload_for(decision.iri)
    assert payload is not None
    texts = [etree.tostring(each.tree.getroot(), encoding="unicode")
             for each in (payload, *imported_payloads(model, payload).values())]
    params = _expression_parameters(model, read, decision)
    subject = model.qname(decision.iri)
    title = decision.label or read.name
    doc = (f"{title}: {subject}, DMN decision {read.decision_id}, a {read.construct_name}.\n\n"
           f"Returns {', '.join(read.output_names)}{' (a dict)' if len(read.output_names) > 1 else ''}, "
           "as seams' DMN interpreter evaluates it (FEEL values: numbers are Decimal,\n"
           "an evaluation error is None).")
    inputs = ", ".join(f"{data!r}: {param}" for data, param in params.items())
    return {"source": "\n".join([f"def {name}({', '.join(params.values())}):", f"    {docstring(doc, '    ')}"]),
            "call": {"decision_id": read.decision_id, "inputs": inputs}, "texts": texts, "order": str(decision.iri)}


def _parameters(model: Model, table: Table, decision: Decision, subject: str) -> dict[str, str]:
    """The Python parameter of each input the table uses (its columns, then the other names its
    entries use): the seam:name of the variable its dec:input reads, else the input expression
    itself when it is an identifier."""
    mapped = {i.variable: model.view.variable_name(i.from_path) for i in decision.inputs
              if i.variable is not None and i.from_path is not None}
    params: dict[str, str] = {}
    for text in (*table.inputs, *table.extra_names):
        if text in params:
            continue
        name = mapped.get(text) or (text if text.isidentifier() and not keyword.iskeyword(text) else None)
        if name is None or not name.isidentifier() or keyword.iskeyword(name):
            raise GeneratorError(f"{subject} dec:input: DMN input {text!r} of {table.decision_id} is no Python "
                                 "identifier; map it with a dec:input (dec:variable, dec:fromPath) to a variable "
                                 "whose seam:name is one")
        params[text] = name
    if len(set(params.values())) != len(params):
        raise GeneratorError(f"{subject} dec:input: DMN decision {table.decision_id} names an input twice")
    return params


def _function(model: Model, name: str, table: Table, decision: Decision, subject: str, helpers: set[str]) -> str:
    scope = _parameters(model, table, decision, subject)
    params = list(dict.fromkeys(scope.values()))
    column_params = [scope[text] for text in table.inputs]
    rendered: dict[tuple[str, str], str] = {}  # (entry text, parameter) -> its test: a table repeats its texts
    conditions = [_condition(rule, column_params, scope, helpers, rendered) for rule in table.rules]
    outputs = [_output(rule, table, scope, helpers) for rule in table.rules]
    _refuse_shadowing(params, table.rules, scope, subject)

    title = decision.label or table.name or table.decision_id
    returns = ", ".join(table.output_names)
    doc = (f"{title}: {subject}, DMN decision {table.decision_id}, hit policy {table.hit_policy}"
           f"{' ' + table.aggregation if table.aggregation else ''}.\n\n"
           f"Returns {returns}{' (a dict)' if len(table.outputs) > 1 else ''}; {_POLICY_TEXT[table.hit_policy]}")
    unanalysed = [text for number, text in enumerate(table.inputs)
                  if any(rule.tests[number].names for rule in table.rules if rule.tests)]
    if table.hit_policy == "UNIQUE" and unanalysed:
        doc += (f"\nUNIQUE overlaps not analysed for input(s) {', '.join(unanalysed)} (their entries use names);"
                "\ntwo matching rules raise DecisionError here.")
    lines = [f"def {name}({', '.join(params)}):", f"    {docstring(doc, '    ')}"]
    if table.hit_policy == "FIRST":
        for rule, condition, output in zip(table.rules, conditions, outputs):
            lines += [f"    if {condition}:{_comment(rule)}", f"        return {output}"]
        lines.append("    return None")
        return "\n".join(lines)
    lines.append("    _matched = []")
    ranked = table.hit_policy in RANKED_POLICIES
    for rule, condition, output in zip(table.rules, conditions, outputs):
        key = repr(table.rank(rule)) if ranked else repr(rule.id)
        lines += [f"    if {condition}:{_comment(rule)}", f"        _matched.append(({key}, {output}))"]
    if table.hit_policy in ("UNIQUE", "ANY"):
        helper = "_unique" if table.hit_policy == "UNIQUE" else "_any"
        lines.append(f"    return {helper}({title!r}, _matched)")
    elif ranked:
        helper = "_priority" if table.hit_policy == "PRIORITY" else "_output_order"
        lines.append(f"    return {helper}(_matched)")
    else:
        helper = "_collect"
        lines.append(f"    return _collect(_matched, {table.aggregation!r})")
    helpers.add(helper)
    return "\n".join(lines)


_POLICY_TEXT = {
    "UNIQUE": "None when no rule matches;\nmore than one matching rule is a DecisionError.",
    "FIRST": "the first matching rule wins, None when none matches.",
    "ANY": "matching rules must agree (else a DecisionError),\nNone when none matches.",
    "RULE ORDER": "a list of every matching rule's output, in rule order.",
    "COLLECT": ("every matching rule's output (a list), or their aggregate\n"
                "(COUNT 0 and others None when none matches)."),
    "PRIORITY": "the matching rule whose output ranks first in the\noutputValues wins, None when none matches.",
    "OUTPUT ORDER": "a list of every matching rule's output, ranked by the\noutputValues.",
}


def _condition(rule: Rule, params: list[str], scope: dict[str, str], helpers: set[str],
               rendered: dict[tuple[str, str], str]) -> str:
    tests = []
    for param, entry in zip(params, rule.tests):
        if not entry.is_any:
            if entry.names:
                helpers.add("_feel_test")
            key = (entry.text, param)
            if key not in rendered:  # the scope is the table's: the same text renders alike
                rendered[key] = _operand(entry.to_python(param, scope))
            tests.append(rendered[key])
    if len(tests) > 1:  # one test per line reads like the table's row
        return "(\n        " + "\n        and ".join(tests) + "\n    )"
    return tests[0] if tests else "True"


def _output(rule: Rule, table: Table, scope: dict[str, str], helpers: set[str]) -> str:
    """The rule's output: its literals, or the Python form of its output expressions
    (seams.lang.feel_output), read from the function's parameters; those call into the
    module's one runtime (``_FEEL_R``)."""
    if any(isinstance(value, OutputExpression) for value in rule.results):
        helpers.add(_RUNTIME_NAME)
    values = [value.to_python(scope, _RUNTIME_NAME) if isinstance(value, OutputExpression)
              else render_literal(value) for value in rule.results]
    if len(values) == 1:
        return values[0]
    return "{" + ", ".join(f"{name!r}: {value}" for name, value in zip(table.output_names, values)) + "}"


@lru_cache(maxsize=4096)  # a text that recurs across the model's tables renders alike
def _operand(expression: str) -> str:
    """``expression`` ready to sit between ``and``s: parenthesized only when it must be."""
    body = ast.parse(expression, mode="eval").body
    binds_looser = isinstance(body, (ast.IfExp, ast.Lambda, ast.NamedExpr)) or (
        isinstance(body, ast.BoolOp) and isinstance(body.op, ast.Or))
    return f"({expression})" if binds_looser and not _enclosed(expression) else expression


def _enclosed(expression: str) -> bool:
    """True when one pair of parentheses wraps all of ``expression``: if the first
    ``(`` closed earlier, the text between the outer two would not parse."""
    if not (expression.startswith("(") and expression.endswith(")")):
        return False
    try:
        ast.parse(expression[1:-1], mode="eval")
    except SyntaxError:
        return False
    return True


def _refuse_shadowing(params: list[str], rules: tuple[Rule, ...], scope: dict[str, str], subject: str) -> None:
    """An input named like a name the tests or the module need (``int``, ``date``, ...)
    would change what they mean inside the function, so it is refused."""
    needed = set(_MODULE_NAMES)
    placeholders = {text: _PLACEHOLDER for text in scope}
    seen: set[str] = set()
    for rule in rules:
        for result in rule.results:  # the globals an output expression's runtime reads, and its R
            if isinstance(result, OutputExpression) and result.text not in seen:
                seen.add(result.text)
                names, bound = _names(result.to_python(placeholders, _RUNTIME_NAME))
                needed |= names - bound - {_PLACEHOLDER}
                needed.add("R")
        for entry in rule.tests:
            if entry.text in seen:  # each distinct entry text once: a large table repeats them
                continue
            seen.add(entry.text)
            needed |= _names(entry.to_python(_PLACEHOLDER, placeholders))[0] - {_PLACEHOLDER}
    for param in params:
        if param in needed:
            raise GeneratorError(f"{subject} dec:input: input {param} would hide the name {param} the "
                                 f"generated function needs; rename the DMN input")


@lru_cache(maxsize=4096)  # each distinct expression parsed once, across the model's tables
def _names(expression: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names an expression reads, and those its lambdas bind."""
    tree = ast.parse(expression, mode="eval")
    return (frozenset(node.id for node in ast.walk(tree) if isinstance(node, ast.Name)),
            frozenset(node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)))


def _comment(rule: Rule) -> str:
    return f"  # {_UNSAFE_COMMENT.sub(' ', rule.id)}"

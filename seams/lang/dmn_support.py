"""What seams supports of a DMN decision, in one place: `seams check` and the decisions generator both read it.

A decision is read into plain data (`Table`) together with every reason
seams cannot evaluate it (`Problem`). The checks report each problem as a
finding; the generator refuses a decision with any problem, naming the
first. Because both ask `read_decision`, whatever the checks accept the
generator evaluates, and the other way round (a test holds them to it).

Supported (docs/model.md, "DMN decisions"): decision tables of DMN 1.1 to
1.5 with every hit policy (UNIQUE, FIRST, PRIORITY, ANY, COLLECT with SUM,
MIN, MAX, COUNT or none, RULE ORDER, OUTPUT ORDER; PRIORITY and OUTPUT ORDER
rank rules by the outputs' ``outputValues``), one or several outputs, input
expressions that are FEEL names or dotted paths, input entries that are
FEEL simple unary tests (seams.lang.feel) whose names are the decision's
inputs, output entries that are FEEL literals or FEEL expressions over the
decision's inputs (seams.lang.feel_output: ``amount * 0.1``, an input's
name, a string concatenation). Out of scope, each named: an output
expression under PRIORITY or OUTPUT ORDER (rules are ranked by literal
outputs) or under COLLECT SUM, MIN or MAX,
literal-expression decisions, boxed expressions (context, invocation,
list, relation, function definition) and tables that invoke business
knowledge models. The check and the generator read those last with
seams.lang.dmn_expression instead (``needs_interpreter``) and the generated
module calls the DMN interpreter for them; what still calls ``read_decision``
on one (rule coverage, routing suggestions) gets the problem and leaves it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from lxml import etree

from seams.errors import ExpressionError
from seams.lang.feel import UnaryTests, parse_unary_tests, resolve_name
from seams.lang.feel_output import OutputExpression, parse_output
from seams.lang.feel_parse import EqualTest, parse_name
from seams.lang.values import NULL, NUMBER, feel_kind_of

HIT_POLICIES = ("UNIQUE", "FIRST", "PRIORITY", "ANY", "COLLECT", "RULE ORDER", "OUTPUT ORDER")
AGGREGATIONS = ("SUM", "MIN", "MAX", "COUNT")
RANKED_POLICIES = ("PRIORITY", "OUTPUT ORDER")
"""Policies that order matching rules by the outputs' ``outputValues``."""

BOXED_EXPRESSIONS = ("context", "invocation", "list", "relation", "functionDefinition", "conditional",
                     "filter", "for", "every", "some")
_HIT_POLICY_NAMES = {"RULE_ORDER": "RULE ORDER", "OUTPUT_ORDER": "OUTPUT ORDER"}


@dataclass(frozen=True)
class Problem:
    """Why seams cannot evaluate (part of) a decision: the DMN id at fault, a predicate, a message."""

    subject: str
    predicate: str
    message: str


@dataclass(frozen=True)
class Output:
    name: str
    values: tuple[object, ...] | None  # outputValues as literals, highest priority first


@dataclass(frozen=True)
class Rule:
    id: str
    inputs: tuple[str, ...]  # FEEL unary tests as written, one per input column
    outputs: tuple[str, ...]  # FEEL literals or expressions as written, one per output column
    tests: tuple[UnaryTests, ...] = field(default=(), compare=False)
    results: tuple[object, ...] = field(default=(), compare=False)  # values, or OutputExpressions


@dataclass(frozen=True)
class Table:
    decision_id: str
    name: str | None
    hit_policy: str
    aggregation: str | None
    inputs: tuple[str, ...]  # inputExpression texts
    outputs: tuple[Output, ...]
    rules: tuple[Rule, ...]
    extra_names: tuple[str, ...] = ()  # names entries use that are no column (other inputs of the decision)

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(output.name for output in self.outputs)

    def rank(self, rule: Rule) -> tuple[int, ...]:
        """A rule's priority under PRIORITY / OUTPUT ORDER: per output that lists outputValues,
        the position of its output entry there (lower ranks first)."""
        return tuple(output.values.index(result) for output, result in zip(self.outputs, rule.results)
                     if output.values is not None and result in output.values)


def applied_rules(hit_policy: str, matched: Sequence[str],
                  rank: Callable[[str], tuple[int, ...]]) -> tuple[str, ...]:
    """The matched rules (rule ids, in rule order) as the hit policy applies them: FIRST the
    first, PRIORITY the one ``rank`` puts first (rule order among equals); every other policy
    all of them. The embedded engine reports these (docs/scenarios.md) and coverage seeds aim
    at them (seams.suggestions.coverage), so both read the hit policy here."""
    matched = tuple(matched)
    if not matched or hit_policy not in ("FIRST", "PRIORITY"):
        return matched
    if hit_policy == "FIRST":
        return matched[:1]
    return (min(matched, key=lambda rule: (rank(rule), matched.index(rule))),)


def find_decision(root: etree._Element, decision_id: str, namespace: str) -> etree._Element | None:
    for element in root.iter(f"{{{namespace}}}decision"):
        if element.get("id") == decision_id:
            return element
    return None


def _text(element: etree._Element | None, ns: str) -> str:
    if element is None:
        return ""
    node = element.find(f"{ns}text")
    return (node.text or "").strip() if node is not None else ""


def read_decision(decision: etree._Element, *, names: Iterable[str] = ()) -> tuple[Table | None, list[Problem]]:
    """The decision's table and every problem seams has with it (empty when it can evaluate it).

    ``names`` are the decision's inputs beyond its columns (``dec:input`` variables) that
    entries may refer to."""
    ns = f"{{{etree.QName(decision).namespace}}}"
    decision_id = decision.get("id", "")
    table = decision.find(f"{ns}decisionTable")
    problems: list[Problem] = []
    for requirement in decision.iterfind(f"{ns}knowledgeRequirement/{ns}requiredKnowledge"):
        problems.append(Problem(decision_id, "dmn:knowledgeRequirement",
                                f'DMN decision "{decision_id}" invokes business knowledge model '
                                f'"{requirement.get("href", "").lstrip("#")}"; seams evaluates such a table with '
                                "its DMN interpreter (seams.lang.dmn_expression), not rule by rule"))
    if table is None:
        problems.append(Problem(decision_id, "dmn:decisionTable", _not_a_table(decision, ns)))
        return None, problems
    hit_policy = (table.get("hitPolicy") or "UNIQUE").strip().upper()
    hit_policy = _HIT_POLICY_NAMES.get(hit_policy, hit_policy)
    aggregation = (table.get("aggregation") or "").strip().upper() or None
    inputs = tuple(_text(i.find(f"{ns}inputExpression"), ns) for i in table.findall(f"{ns}input"))
    outputs = []
    for number, element in enumerate(table.findall(f"{ns}output"), 1):
        values = None
        if element.find(f"{ns}outputValues") is not None:
            values = _output_values(_text(element.find(f"{ns}outputValues"), ns), decision_id, number, problems)
        outputs.append(Output(element.get("name") or "", values))
    problems += _policy_problems(decision_id, hit_policy, aggregation, outputs)
    problems += _column_problems(decision_id, inputs, outputs)
    scope = set(inputs) | set(names)
    rules, used = [], set()
    for index, element in enumerate(table.findall(f"{ns}rule"), start=1):
        rule = _rule(element, index, decision_id, ns, inputs, outputs, scope, problems)
        used |= {resolve_name(name, scope)[0] for test in rule.tests for name in test.names}
        used |= {name for result in rule.results if isinstance(result, OutputExpression) for name in result.names}
        rules.append(rule)
    if hit_policy in RANKED_POLICIES or (hit_policy == "COLLECT" and aggregation in ("SUM", "MIN", "MAX")):
        problems += _result_problems(hit_policy, aggregation, outputs, rules)
    read = Table(decision_id=decision_id, name=decision.get("name"), hit_policy=hit_policy,
                 aggregation=aggregation, inputs=inputs, outputs=tuple(outputs), rules=tuple(rules),
                 extra_names=tuple(sorted(used - set(inputs))))
    return read, problems


def _not_a_table(decision: etree._Element, ns: str) -> str:
    decision_id = decision.get("id", "")
    for child in decision:
        if not isinstance(child.tag, str) or not child.tag.startswith(ns):
            continue
        local = etree.QName(child).localname
        if local == "literalExpression":
            return (f'DMN decision "{decision_id}" is a literal-expression decision; out of scope '
                    "(seams evaluates decision tables)")
        if local in BOXED_EXPRESSIONS:
            return (f'DMN decision "{decision_id}" is a boxed expression ({local}); out of scope '
                    "(seams evaluates decision tables)")
    return f'DMN decision "{decision_id}" has no decisionTable; expected a decision table'


def _output_values(text: str, decision_id: str, number: int, problems: list[Problem]) -> tuple[object, ...] | None:
    try:
        tests = parse_unary_tests(text, where=f"outputValues of output {number}")
    except ExpressionError as exc:
        problems.append(Problem(decision_id, "dmn:outputValues", str(exc)))
        return None
    if tests.negated or not all(isinstance(t, EqualTest) and not tests.names for t in tests.tests):
        problems.append(Problem(decision_id, "dmn:outputValues",
                                f"outputValues of output {number} {text!r}: expected a list of literals"))
        return None
    return tuple(t.value for t in tests.tests if isinstance(t, EqualTest)) or None


def _policy_problems(decision_id: str, hit_policy: str, aggregation: str | None,
                     outputs: list[Output]) -> list[Problem]:
    problems = []
    if hit_policy not in HIT_POLICIES:
        problems.append(Problem(decision_id, "dmn:hitPolicy", f'hit policy "{hit_policy}" is not supported; '
                                f'expected one of {", ".join(HIT_POLICIES)}'))
    if aggregation is not None:
        if aggregation not in AGGREGATIONS:
            problems.append(Problem(decision_id, "dmn:aggregation", f'aggregation "{aggregation}" is not '
                                    f'supported; expected one of {", ".join(AGGREGATIONS)}'))
        elif hit_policy != "COLLECT":
            problems.append(Problem(decision_id, "dmn:aggregation",
                                    f"aggregation {aggregation} needs hit policy COLLECT, not {hit_policy}"))
        elif len(outputs) > 1:
            problems.append(Problem(decision_id, "dmn:aggregation",
                                    f"aggregation {aggregation} needs exactly one output; the table has "
                                    f"{len(outputs)}"))
    if hit_policy in RANKED_POLICIES and not any(o.values for o in outputs):
        problems.append(Problem(decision_id, "dmn:outputValues",
                                f"hit policy {hit_policy} ranks rules by the outputs' outputValues, "
                                "and no output lists them"))
    return problems


def _column_problems(decision_id: str, inputs: tuple[str, ...], outputs: list[Output]) -> list[Problem]:
    problems = []
    for number, text in enumerate(inputs, 1):
        if parse_name(text) is None:
            problems.append(Problem(decision_id, "dmn:inputExpression",
                                    f"input {number} {text!r}: expected a FEEL name or dotted path "
                                    "(other input expressions are out of scope)"))
    if not outputs:
        problems.append(Problem(decision_id, "dmn:output", f'DMN decision "{decision_id}" has no output'))
    if len(outputs) > 1:
        names = [o.name for o in outputs]
        if not all(names):
            problems.append(Problem(decision_id, "dmn:output",
                                    "a table with several outputs needs a name on each output"))
        elif len(set(names)) != len(names):
            problems.append(Problem(decision_id, "dmn:output", "two outputs have the same name"))
    return problems


def _rule(element: etree._Element, index: int, decision_id: str, ns: str, inputs: tuple[str, ...],
          outputs: list[Output], scope: set[str], problems: list[Problem]) -> Rule:
    rule_id = element.get("id") or f"{decision_id} rule {index}"
    entries = tuple(_text(e, ns) for e in element.findall(f"{ns}inputEntry"))
    results = tuple(_text(e, ns) for e in element.findall(f"{ns}outputEntry"))
    if len(entries) != len(inputs):
        problems.append(Problem(rule_id, "dmn:inputEntry",
                                f"{len(entries)} input entries; expected {len(inputs)}, one per input"))
    tests = []
    for number, (column, text) in enumerate(zip(inputs, entries), 1):
        where = f'input "{column or f"#{number}"}"'
        try:
            test = parse_unary_tests(text or "-", where=where)
            for name in test.names:
                resolve_name(name, scope)
            tests.append(test)
        except ExpressionError as exc:
            problems.append(Problem(rule_id, "dmn:inputEntry", f"{where}: {_reason(exc, where)}"))
        except KeyError as exc:
            problems.append(Problem(rule_id, "dmn:inputEntry", f"{where}: name {exc.args[0]!r} is no input of "
                                    f"the decision (its inputs: {', '.join(sorted(scope)) or 'none'})"))
    if len(results) != len(outputs):
        problems.append(Problem(rule_id, "dmn:outputEntry",
                                f"{len(results)} output entries; expected {len(outputs)}"))
    values = []
    for text in results:
        try:
            values.append(parse_output(text, where="output", scope=scope) if text else None)
        except ExpressionError as exc:
            problems.append(Problem(rule_id, "dmn:outputEntry", f"output: {_reason(exc, 'output')}"))
    if len(tests) != len(entries) or len(values) != len(results):
        tests, values = [], []  # a rule with a problem is not evaluated, so it keeps no parsed parts
    return Rule(id=rule_id, inputs=entries, outputs=results, tests=tuple(tests), results=tuple(values))


def _result_problems(hit_policy: str, aggregation: str | None, outputs: list[Output],
                     rules: list[Rule]) -> list[Problem]:
    problems = []
    for rule in rules:
        for number, (output, value) in enumerate(zip(outputs, rule.results), 1):
            if isinstance(value, OutputExpression):
                why = f"hit policy {hit_policy} ranks rules by literal outputs" if hit_policy in RANKED_POLICIES \
                    else f"aggregation {aggregation} over computed outputs is out of scope"
                problems.append(Problem(rule.id, "dmn:outputEntry",
                                        f"output {number}: {value.text!r} is an expression; {why}"))
                continue
            if hit_policy in RANKED_POLICIES and output.values is not None and value not in output.values:
                problems.append(Problem(rule.id, "dmn:outputEntry",
                                        f"output {number}: {value!r} is not among the outputValues that rank "
                                        f"rules under hit policy {hit_policy}"))
            kind = feel_kind_of(value)
            if aggregation == "SUM" and kind not in (NUMBER, NULL):
                problems.append(Problem(rule.id, "dmn:outputEntry",
                                        f"output {number}: aggregation SUM needs numbers, not {value!r}"))
    if aggregation in ("MIN", "MAX"):
        kinds = {feel_kind_of(value) for rule in rules for value in rule.results
                 if not isinstance(value, OutputExpression)} - {NULL}
        if len(kinds) > 1:
            problems.append(Problem(rules[0].id, "dmn:outputEntry",
                                    f"aggregation {aggregation} needs outputs of one kind, not "
                                    f"{', '.join(sorted(kinds))}"))
    return problems


def _reason(exc: ExpressionError, where: str) -> str:
    """The parser's message without its leading ``where: `` (the caller names the cell itself)."""
    text = str(exc)
    return text[len(where) + 2:] if text.startswith(f"{where}: ") else text

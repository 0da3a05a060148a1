"""Decisions that are not decision tables, as the check and the generated module read them.

A literal expression, a boxed context, an invocation of a business
knowledge model, a relation, a list, a conditional, ... (DMN 1.5, chapter
7): seams evaluates each with its DMN interpreter (seams.lang.dmn_eval), and
the generated decisions module calls that interpreter too (docs/generators.md).
What the check needs to know is read here, without evaluating anything:

* every FEEL text parses (an expression, or unary tests where DMN puts
  unary tests: ``inputEntry``, ``inputValues``, ``outputValues``,
  ``allowedValues``);
* the names it reads (seams.lang.feel_names, less the names the decision
  binds itself: context entries, function parameters, iterator variables)
  are what the interpreter puts in its scope: the input data and decisions
  it requires, the knowledge models and decision services it requires;
* what seams evaluates nowhere (an ``external`` Java or PMML function, an
  expression language other than FEEL, an element of an imported model) is
  one problem naming the decision and the construct.

``inputs`` are the input data it needs transitively (through the decisions
it requires in the same file): the parameters of its generated function.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lxml import etree

from seams.errors import ExpressionError
from seams.lang.dmn_support import Problem
from seams.lang.feel_grammar import normal_name
from seams.lang.feel_interpreter import FUNCTION_NAMES, compile_expression, compile_unary_tests
from seams.lang.feel_names import free_names, unsupported_construct

BOXED = ("literalExpression", "context", "invocation", "list", "relation", "functionDefinition", "conditional",
         "filter", "for", "some", "every")
"""The boxed expressions a decision may hold instead of a decisionTable (DMN 1.5)."""

CONSTRUCT_NAMES = {"literalExpression": "literal expression", "context": "boxed context",
                   "invocation": "invocation", "list": "boxed list", "relation": "relation",
                   "functionDefinition": "function definition", "conditional": "conditional",
                   "filter": "boxed filter", "for": "boxed for", "some": "boxed some", "every": "boxed every"}
_UNARY_TEXTS = {"inputEntry", "inputValues", "outputValues", "allowedValues"}
_BINDERS = {"formalParameter", "parameter"}


@dataclass(frozen=True)
class ExpressionDecision:
    """A decision whose value is a boxed expression, not a table."""

    decision_id: str
    name: str  # the decision's name: the name of its one output (its variable)
    construct: str  # the boxed expression's DMN element name (``literalExpression``, ``context``, ...)
    inputs: tuple[str, ...]  # input data it needs, through the decisions it requires (in file order)
    direct_inputs: tuple[str, ...]  # input data it requires itself
    required: tuple[str, ...]  # decisions it requires itself
    knowledge: tuple[str, ...]  # knowledge models and decision services it requires
    reads: tuple[str, ...]  # the names its FEEL texts read

    @property
    def construct_name(self) -> str:
        return CONSTRUCT_NAMES.get(self.construct, self.construct)


def expression_of(decision: etree._Element) -> etree._Element | None:
    """The decision's boxed expression (not a table), if it has one."""
    ns = etree.QName(decision).namespace
    for child in decision:
        if isinstance(child.tag, str) and etree.QName(child).namespace == ns \
                and etree.QName(child).localname in BOXED:
            return child
    return None


def is_expression_decision(decision: etree._Element) -> bool:
    """Whether the decision is a boxed expression rather than a decision table."""
    ns = etree.QName(decision).namespace
    return expression_of(decision) is not None and decision.find(f"{{{ns}}}decisionTable") is None


def read_expression_decision(decision: etree._Element) -> tuple[ExpressionDecision | None, list[Problem]]:
    """The decision (one with a boxed expression) and every problem seams has with it."""
    ns = f"{{{etree.QName(decision).namespace}}}"
    decision_id = decision.get("id", "")
    shown = f'DMN decision "{decision_id}"'
    problems: list[Problem] = []
    expression = expression_of(decision)
    if expression is None:
        return None, [Problem(decision_id, "dmn:decisionTable", f"{shown} has no decisionTable and no boxed "
                                                                "expression; expected one")]
    construct = etree.QName(expression).localname
    root = decision.getroottree().getroot()
    by_id = {el.get("id"): el for el in root if isinstance(el.tag, str) and el.get("id")}
    direct_inputs: list[str] = []
    required: list[str] = []
    knowledge: list[str] = []
    for requirement in decision.iterfind(f"{ns}informationRequirement/*"):
        target = _target(requirement, by_id, shown, problems)
        if target is not None:
            kind = etree.QName(target).localname
            (direct_inputs if kind == "inputData" else required).append(normal_name(target.get("name") or ""))
    for requirement in decision.iterfind(f"{ns}knowledgeRequirement/{ns}requiredKnowledge"):
        target = _target(requirement, by_id, shown, problems)
        if target is not None:
            knowledge.append(normal_name(target.get("name") or ""))
    known = {*direct_inputs, *required, *knowledge}
    reads = _read_texts(expression, ns, known, shown, decision_id, problems)
    for name in reads:
        if name not in known:
            problems.append(Problem(decision_id, "dmn:informationRequirement",
                                    f'{shown} ({CONSTRUCT_NAMES.get(construct, construct)}) reads "{name}", which '
                                    "is none of the input data, decisions or knowledge models it requires "
                                    f"(it requires: {', '.join(sorted(known)) or 'none'})"))
    for requirement in decision.iterfind(f"{ns}knowledgeRequirement/{ns}requiredKnowledge"):
        model = by_id.get((requirement.get("href") or "").lstrip("#"))
        if model is not None and etree.QName(model).localname == "businessKnowledgeModel":
            problems += _knowledge_problems(model, ns, by_id, shown, decision_id)
    read = ExpressionDecision(decision_id=decision_id, name=normal_name(decision.get("name") or decision_id),
                              construct=construct, inputs=tuple(_all_inputs(decision, by_id, ns)),
                              direct_inputs=tuple(dict.fromkeys(direct_inputs)), required=tuple(required),
                              knowledge=tuple(knowledge), reads=tuple(reads))
    return read, problems


def _read_texts(expression: etree._Element, ns: str, known: set[str], shown: str, decision_id: str,
                problems: list[Problem]) -> tuple[str, ...]:
    """The names the FEEL texts of ``expression`` read from outside it; a text that does not parse, an
    expression language other than FEEL or an external function is a problem."""
    bound = {normal_name(name) for name in _bound_names(expression, ns)}
    reads: dict[str, None] = {}
    for element in expression.iter():
        if not isinstance(element.tag, str):
            continue
        language = element.get("expressionLanguage")
        if language is not None and "feel" not in language.lower():
            problems.append(Problem(decision_id, "dmn:expressionLanguage",
                                    f"{shown} has a {etree.QName(element).localname} in {language}; "
                                    "not supported (seams reads FEEL)"))
        if etree.QName(element).localname != "text" or not (element.text or "").strip():
            continue
        parent = element.getparent()
        unary = parent is not None and etree.QName(parent).localname in _UNARY_TEXTS
        for name in _text_names(element.text or "", unary, known | bound, shown, problems, decision_id):
            if name not in bound:
                reads.setdefault(name, None)
    return tuple(reads)


def _knowledge_problems(model: etree._Element, ns: str, by_id: dict, shown: str,
                        decision_id: str) -> list[Problem]:
    """A business knowledge model the decision invokes: its logic parses and reads only its parameters
    and the knowledge models it requires itself (not followed further)."""
    logic = model.find(f"{ns}encapsulatedLogic")
    if logic is None:
        return []
    known = {normal_name(by_id[ref].get("name") or "") for requirement in
             model.iterfind(f"{ns}knowledgeRequirement/{ns}requiredKnowledge")
             if (ref := (requirement.get("href") or "").lstrip("#")) in by_id}
    where = f'{shown}\'s business knowledge model "{model.get("name") or model.get("id")}"'
    problems: list[Problem] = []
    for name in _read_texts(logic, ns, known, where, decision_id, problems):
        if name not in known:
            problems.append(Problem(decision_id, "dmn:knowledgeRequirement",
                                    f'{where} reads "{name}", which is none of its parameters or the knowledge '
                                    "models it requires"))
    return problems


def _target(requirement: etree._Element, by_id: dict, shown: str, problems: list[Problem]) -> etree._Element | None:
    href = requirement.get("href") or ""
    namespace, _, ident = href.partition("#")
    decision_id = shown.split('"')[1]
    if namespace:
        problems.append(Problem(decision_id, "dmn:import", f'{shown} requires "{href}" from an imported model; '
                                                            "not supported (seams reads one DMN file a decision)"))
        return None
    target = by_id.get(ident)
    if target is None:
        problems.append(Problem(decision_id, "dmn:informationRequirement",
                                f'{shown} requires "{href}", which is no element of its DMN file'))
    return target


def _bound_names(expression: etree._Element, ns: str) -> Iterable[str]:
    """The names the expression binds itself: context entries, function parameters, iterator variables."""
    for element in expression.iter():
        if not isinstance(element.tag, str):
            continue
        local = etree.QName(element).localname
        if local == "variable" and element.getparent() is not None \
                and etree.QName(element.getparent()).localname == "contextEntry":
            yield element.get("name") or ""
        elif local in _BINDERS:
            yield element.get("name") or ""
        elif element.get("iteratorVariable"):
            yield element.get("iteratorVariable") or ""
    yield "item"  # a boxed filter's and a relation filter's item


def _text_names(text: str, unary: bool, known: set[str], shown: str, problems: list[Problem],
                decision_id: str) -> tuple[str, ...]:
    try:
        tree = (compile_unary_tests(text, known, where=shown) if unary
                else compile_expression(text, known, where=shown)).tree
    except ExpressionError as exc:
        problems.append(Problem(decision_id, "dmn:text", str(exc)))
        return ()
    unsupported = unsupported_construct(tree)
    if unsupported is not None:
        problems.append(Problem(decision_id, "dmn:text", f"{shown} uses {unsupported}; not supported"))
    return tuple(name for name in free_names(tree, FUNCTION_NAMES) if name != "?")




def _all_inputs(decision: etree._Element, by_id: dict, ns: str) -> list[str]:
    """The input data names the decision needs, through the decisions it requires (same file)."""
    found: dict[str, None] = {}
    todo, seen = [decision], set()
    while todo:
        current = todo.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        for requirement in current.iterfind(f"{ns}informationRequirement/*"):
            href = requirement.get("href") or ""
            if "#" in href and not href.startswith("#"):
                continue
            target = by_id.get(href.lstrip("#"))
            if target is None:
                continue
            if etree.QName(target).localname == "inputData":
                found.setdefault(normal_name(target.get("name") or ""), None)
            else:
                todo.append(target)
    return list(found)

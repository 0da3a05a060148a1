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
  expression language other than FEEL, an element of an imported model the
  project has no DMN file for) is one problem naming the decision and the
  construct.

A decision table is read here too when the generator cannot write it as
Python (``needs_interpreter``): one that invokes a business knowledge model,
or one that requires an element of an imported model. An imported model is
followed where the caller passes it (``imported``: the project's DMN files by
definitions namespace, seams.model.dmn_imports); its elements are read under
the import's name, as the interpreter binds them.

``inputs`` are the input data it needs transitively (through the decisions
it requires, in its file or an imported one, an imported one's as
``import name.input name``): the parameters of its generated function.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
                   "filter": "boxed filter", "for": "boxed for", "some": "boxed some", "every": "boxed every",
                   "decisionTable": "decision table"}
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
    outputs: tuple[str, ...] = ()  # a table's output names (several: its value is a context of them)

    @property
    def output_names(self) -> tuple[str, ...]:
        """What the model's dec:output may name: a table's outputs, as for the tables the generator writes
        (one unnamed output: the decision's name); else the decision's name."""
        return self.outputs if self.outputs and all(self.outputs) else (self.name,)

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


def needs_interpreter(decision: etree._Element) -> bool:
    """Whether the generated module calls the DMN interpreter for the decision rather than holding it as
    Python: a boxed expression, a decision table that invokes a business knowledge model, or one that
    requires an element of an imported model (one rule: what the generator cannot write it calls)."""
    if expression_of(decision) is not None:
        return True
    ns = f"{{{etree.QName(decision).namespace}}}"
    return decision.find(f"{ns}knowledgeRequirement") is not None or any(
        not (requirement.get("href") or "#").startswith("#")
        for requirement in decision.iterfind(f"{ns}informationRequirement/*"))


def read_expression_decision(decision: etree._Element, imported: Mapping[str, etree._Element] | None = None
                             ) -> tuple[ExpressionDecision | None, list[Problem]]:
    """The decision (a boxed expression, or a table ``needs_interpreter`` routes here) and every problem
    seams has with it; ``imported``: the DMN files it may import, by their definitions namespace."""
    ns = f"{{{etree.QName(decision).namespace}}}"
    decision_id = decision.get("id", "")
    shown = f'DMN decision "{decision_id}"'
    problems: list[Problem] = []
    expression = expression_of(decision)
    if expression is None:
        expression = decision.find(f"{ns}decisionTable")
    if expression is None:
        return None, [Problem(decision_id, "dmn:decisionTable", f"{shown} has no decisionTable and no boxed "
                                                                "expression; expected one")]
    construct = etree.QName(expression).localname
    root = decision.getroottree().getroot()
    files = _Files(root, imported or {})
    direct_inputs: list[str] = []
    required: list[str] = []
    knowledge: list[str] = []
    models: list[etree._Element] = []
    known: set[str] = set()  # the names its texts may read: an imported element's under its import's name
    for requirement in decision.iterfind(f"{ns}informationRequirement/*"):
        found = _target(requirement, files, root, shown, problems)
        if found is not None:
            target, prefix = found
            known.add(prefix or normal_name(target.get("name") or ""))
            kind = etree.QName(target).localname
            (direct_inputs if kind == "inputData" else required).append(_qualified(prefix, target))
    for requirement in decision.iterfind(f"{ns}knowledgeRequirement/{ns}requiredKnowledge"):
        found = _target(requirement, files, root, shown, problems)
        if found is not None:
            target, prefix = found
            known.add(prefix or normal_name(target.get("name") or ""))
            knowledge.append(_qualified(prefix, target))
            if etree.QName(target).localname == "businessKnowledgeModel":
                models.append(target)
    known |= files.missing
    reads = _read_texts(expression, ns, known, shown, decision_id, problems)
    for name in reads:
        if name not in known:
            problems.append(Problem(decision_id, "dmn:informationRequirement",
                                    f'{shown} ({CONSTRUCT_NAMES.get(construct, construct)}) reads "{name}", which '
                                    "is none of the input data, decisions or knowledge models it requires "
                                    f"(it requires: {', '.join(sorted(known)) or 'none'})"))
    for model in models:
        problems += _knowledge_problems(model, files, shown, decision_id)
    read = ExpressionDecision(decision_id=decision_id, name=normal_name(decision.get("name") or decision_id),
                              construct=construct, inputs=tuple(_all_inputs(decision, files)),
                              direct_inputs=tuple(dict.fromkeys(direct_inputs)), required=tuple(required),
                              knowledge=tuple(knowledge), reads=tuple(reads),
                              outputs=tuple(normal_name(o.get("name") or "") for o in expression.iterfind(
                                  f"{ns}output")) if construct == "decisionTable" else ())
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


def _knowledge_problems(model: etree._Element, files: _Files, shown: str, decision_id: str) -> list[Problem]:
    """A business knowledge model the decision invokes (in its file or an imported one): its logic parses
    and reads only its parameters and the knowledge models it requires itself (not followed further)."""
    ns = f"{{{etree.QName(model).namespace}}}"
    logic = model.find(f"{ns}encapsulatedLogic")
    if logic is None:
        return []
    root = model.getroottree().getroot()
    known = set()
    for requirement in model.iterfind(f"{ns}knowledgeRequirement/{ns}requiredKnowledge"):
        found = _target(requirement, files, root, shown, [])
        if found is not None:
            known.add(found[1] or normal_name(found[0].get("name") or ""))
    where = f'{shown}\'s business knowledge model "{model.get("name") or model.get("id")}"'
    problems: list[Problem] = []
    for name in _read_texts(logic, ns, known, where, decision_id, problems):
        if name not in known:
            problems.append(Problem(decision_id, "dmn:knowledgeRequirement",
                                    f'{where} reads "{name}", which is none of its parameters or the knowledge '
                                    "models it requires"))
    return problems


def _qualified(prefix: str | None, target: etree._Element) -> str:
    """An element's name as the decision reads it: ``import name.element name`` for an imported one."""
    name = normal_name(target.get("name") or "")
    return f"{prefix}.{name}" if prefix else name


class _Files:
    """The decision's DMN file and the ones it may import: each file's elements by id, read once."""

    def __init__(self, root: etree._Element, imported: Mapping[str, etree._Element]):
        self.imported = imported
        self.missing: set[str] = set()  # import names of models the project lacks (reported once, as such)
        self._ids: dict[int, dict[str, etree._Element]] = {}
        self.ids(root)

    def ids(self, root: etree._Element) -> dict[str, etree._Element]:
        if id(root) not in self._ids:
            self._ids[id(root)] = {el.get("id") or "": el for el in root if isinstance(el.tag, str) and el.get("id")}
        return self._ids[id(root)]

    @staticmethod
    def import_name(root: etree._Element, namespace: str) -> str | None:
        """The name ``root`` imports ``namespace`` under (None when it does not import it)."""
        for element in root.iterfind("{*}import"):
            if element.get("namespace") == namespace:
                return normal_name(element.get("name") or "")
        return None


def _target(requirement: etree._Element, files: _Files, root: etree._Element, shown: str,
            problems: list[Problem]) -> tuple[etree._Element, str | None] | None:
    """The element a requirement names, and the import name it is read under (None: the same file)."""
    href = requirement.get("href") or ""
    namespace, _, ident = href.partition("#")
    decision_id = shown.split('"')[1]
    prefix, home = None, root
    if namespace and namespace != (root.get("namespace") or ""):
        prefix = files.import_name(root, namespace)
        if prefix is None:
            problems.append(Problem(decision_id, "dmn:import",
                                    f'{shown} requires "{href}", but its DMN file has no dmn:import of namespace '
                                    f'"{namespace}"; add one'))
            return None
        if namespace not in files.imported:
            files.missing.add(prefix)
            problems.append(Problem(decision_id, "dmn:import",
                                    f'{shown} requires an element of the imported model "{namespace}", which is no '
                                    "DMN file of the project; add the DMN file whose definitions namespace is "
                                    f'"{namespace}" to the model directory as a seam:Payload (seam:format "dmn")'))
            return None
        home = files.imported[namespace]
    target = files.ids(home).get(ident)
    if target is None:
        problems.append(Problem(decision_id, "dmn:informationRequirement",
                                f'{shown} requires "{href}", which is no element of '
                                f'{"its DMN file" if prefix is None else "the imported model " + repr(namespace)}'))
        return None
    return target, prefix


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




def _all_inputs(decision: etree._Element, files: _Files) -> list[str]:
    """The input data names the decision needs, through the decisions it requires (in its file or an
    imported one; an imported input data as ``import name.input name``, as the interpreter reads it)."""
    found: dict[str, None] = {}
    todo: list[tuple[etree._Element, tuple[str, ...]]] = [(decision, ())]
    seen: set[tuple[int, tuple[str, ...]]] = set()
    while todo:
        current, path = todo.pop(0)
        if (id(current), path) in seen or len(path) > 8:
            continue
        seen.add((id(current), path))
        root = current.getroottree().getroot()
        for requirement in current.iterfind("{*}informationRequirement/*"):
            target = _target(requirement, files, root, "\"\"", [])
            if target is None:
                continue
            element, prefix = target
            inner = (*path, prefix) if prefix else path
            if etree.QName(element).localname == "inputData":
                found.setdefault(".".join((*inner, normal_name(element.get("name") or ""))), None)
            else:
                todo.append((element, inner))
    return list(found)

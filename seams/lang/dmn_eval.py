"""The DMN interpreter: decisions of every kind, evaluated with seams' one FEEL (seams.lang.feel_interpreter).

A ``DmnInterpreter`` holds a DMN model and the models it imports (by
namespace). ``decide(name, inputs)`` gives a decision's value for input
data values; ``invoke(name, inputs)`` calls a decision service or a
business knowledge model. Decisions see what DMN 1.5 lets them see: the
decisions and input data they require (an imported one under its import's
name) and the BKMs and decision services they require as functions.
Boxed expressions: literal expressions, contexts, decision tables,
relations, lists, invocations, function definitions, conditionals,
filters, ``for``, ``some`` and ``every``. Values that do not conform to
their declared type (``typeRef``) are null, after DMN's singleton-list
conversions. A construct seams does not evaluate (a Java or PMML function)
is ``Unsupported`` naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from lxml import etree

from seams.errors import ExpressionError
from seams.lang.dmn_table import evaluate_table
from seams.lang.feel_eval import Scope, base_type, conforms, invoke
from seams.lang.feel_grammar import normal_name
from seams.lang.feel_interpreter import ROOT, compile_expression, compile_unary_tests
from seams.lang.feel_values import FeelError, FeelUnsupported, Function, feel_value

MAX_DEPTH = 64


class Unsupported(Exception):
    """A DMN construct the interpreter does not evaluate; the message names it."""


@dataclass
class DmnModel:
    """One DMN file: its elements by id and name, its imports and item definitions."""

    root: etree._Element
    path: Path | None = None
    ns: str = field(init=False)
    namespace: str = field(init=False)
    by_id: dict[str, etree._Element] = field(init=False)
    by_name: dict[str, etree._Element] = field(init=False)
    imports: dict[str, str] = field(init=False)  # import name -> namespace
    item_definitions: dict[str, etree._Element] = field(init=False)

    def __post_init__(self) -> None:
        self.ns = f"{{{etree.QName(self.root).namespace}}}"
        self.namespace = self.root.get("namespace") or ""
        self.by_id, self.by_name = {}, {}
        for element in self.root:
            if not isinstance(element.tag, str):
                continue
            if element.get("id"):
                self.by_id[element.get("id") or ""] = element
            if element.get("name") and etree.QName(element).localname in _DRG_ELEMENTS:
                self.by_name[normal_name(element.get("name") or "")] = element
        self.imports = {normal_name(i.get("name") or ""): i.get("namespace") or ""
                        for i in self.root.iterfind(f"{self.ns}import")}
        self.item_definitions = {normal_name(i.get("name") or ""): i
                                 for i in self.root.iterfind(f"{self.ns}itemDefinition")}

    def local(self, element: etree._Element) -> str:
        return etree.QName(element).localname

    def child(self, element: etree._Element, name: str) -> etree._Element | None:
        return element.find(f"{self.ns}{name}")

    def children(self, element: etree._Element, name: str) -> list[etree._Element]:
        return element.findall(f"{self.ns}{name}")


_DRG_ELEMENTS = {"decision", "inputData", "businessKnowledgeModel", "decisionService", "knowledgeSource"}
_BOXED = {"literalExpression", "context", "decisionTable", "relation", "list", "invocation", "functionDefinition",
          "conditional", "filter", "for", "some", "every"}


class DmnInterpreter:
    """Evaluates the decisions of a model (and its imports) for one set of input data at a time."""

    def __init__(self, main: DmnModel, others: Mapping[str, DmnModel] | None = None):
        self.main = main
        self.models = {m.namespace: m for m in (others or {}).values()}
        self.models[main.namespace] = main
        self.inputs: dict[str, object] = {}
        self.cache: dict[tuple[str, str], object] = {}
        self.depth = 0
        self.errors: list[str] = []  # what went wrong (as null) in the last decide or invoke

    # ---- entry points -------------------------------------------------------------------------------
    def decide(self, name: str, inputs: Mapping[str, object]) -> object:
        self._start(inputs)
        element = self.main.by_name.get(normal_name(name))
        if element is None or self.main.local(element) != "decision":
            raise Unsupported(f"no decision named {name!r}")
        return self.decision_value(self.main, element, ())

    def invoke(self, name: str, inputs: Mapping[str, object]) -> object:
        """A decision service (or BKM) called with inputs named as its parameters."""
        self._start(inputs)
        element = self.main.by_name.get(normal_name(name))
        if element is None:
            raise Unsupported(f"no decision service named {name!r}")
        function = self.function_of(self.main, element, ())
        try:
            return invoke(function, named={k: v for k, v in self.inputs.items() if k in function.parameters},
                          scope=Scope({}, ROOT, errors=self.errors))
        except FeelError as exc:
            self.errors.append(str(exc))
            return None

    def _start(self, inputs: Mapping[str, object]) -> None:
        self.inputs = {normal_name(k): feel_value(v) for k, v in inputs.items()}
        self.cache = {}
        self.errors.clear()

    # ---- the DRG ------------------------------------------------------------------------------------
    def resolve(self, model: DmnModel, href: str) -> tuple[DmnModel, etree._Element]:
        namespace, _, ident = href.partition("#")
        target = self.models.get(namespace) if namespace else model
        if target is None or ident not in target.by_id:
            raise Unsupported(f"reference {href!r} to a model or element that is not there")
        return target, target.by_id[ident]

    def import_name(self, model: DmnModel, target: DmnModel) -> str | None:
        if target is model:
            return None
        for name, namespace in model.imports.items():
            if namespace == target.namespace:
                return name
        raise Unsupported(f"model {target.namespace!r} used without an import")

    def decision_value(self, model: DmnModel, element: etree._Element, path: tuple[str, ...]) -> object:
        key = (model.namespace + "|" + ".".join(path), element.get("id") or "")
        if key in self.cache:
            return self.cache[key]
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Unsupported("decisions require each other in a cycle or too deeply")
        try:
            scope = self.requirements_scope(model, element, path)
            expression = self.boxed_of(model, element)
            if expression is None:
                value = None
            else:
                value = self.evaluate(model, expression, scope)
            value = self.typed(model, self._type_ref(model, element), value)
        finally:
            self.depth -= 1
        self.cache[key] = value
        return value

    def input_value(self, model: DmnModel, element: etree._Element, path: tuple[str, ...]) -> object:
        name = normal_name(element.get("name") or "")
        value: object = self.inputs
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, dict) and name in value:
            found = value[name]
        else:
            found = self.inputs.get(".".join((*path, name)))
        return self.typed(model, self._type_ref(model, element), found)

    def requirements_scope(self, model: DmnModel, element: etree._Element, path: tuple[str, ...]) -> Scope:
        values: dict[str, object] = {}
        for requirement in model.children(element, "informationRequirement"):
            for kind in ("requiredDecision", "requiredInput"):
                reference = model.child(requirement, kind)
                if reference is None:
                    continue
                target, required = self.resolve(model, reference.get("href") or "")
                prefix = self.import_name(model, target)
                inner_path = path + ((prefix,) if prefix else ())
                if kind == "requiredDecision":
                    value = self.decision_value(target, required, inner_path)
                else:
                    value = self.input_value(target, required, inner_path)
                self._bind(values, prefix, required.get("name") or "", value)
        self.knowledge(model, element, values, path)
        return Scope(values, ROOT, types=self.type_checker(model), errors=self.errors)

    def knowledge(self, model: DmnModel, element: etree._Element, values: dict[str, object],
                  path: tuple[str, ...]) -> None:
        for requirement in model.children(element, "knowledgeRequirement"):
            reference = model.child(requirement, "requiredKnowledge")
            if reference is None:
                continue
            target, required = self.resolve(model, reference.get("href") or "")
            prefix = self.import_name(model, target)
            self._bind(values, prefix, required.get("name") or "", self.function_of(target, required, path))

    @staticmethod
    def _bind(values: dict[str, object], prefix: str | None, name: str, value: object) -> None:
        name = normal_name(name)
        if prefix is None:
            values[name] = value
            return
        inner = values.setdefault(prefix, {})
        if isinstance(inner, dict):
            inner[name] = value

    def function_of(self, model: DmnModel, element: etree._Element, path: tuple[str, ...]) -> Function:
        kind = model.local(element)
        name = element.get("name") or ""
        if kind == "businessKnowledgeModel":
            logic = model.child(element, "encapsulatedLogic")
            values: dict[str, object] = {}
            scope = Scope(values, ROOT, types=self.type_checker(model), errors=self.errors)
            if logic is None:
                return Function(name, (), lambda: None)
            function = self.function_definition(model, logic, scope, name,
                                                 result_type=self._type_ref(model, element))
            values[normal_name(name)] = function  # a BKM may call itself
            self.knowledge(model, element, values, path)
            return function
        if kind == "decisionService":
            return self.decision_service(model, element, path)
        raise Unsupported(f"{kind} {name!r} invoked as a function")

    def decision_service(self, model: DmnModel, element: etree._Element, path: tuple[str, ...]) -> Function:
        inputs = [self.resolve(model, r.get("href") or "")
                  for r in (*model.children(element, "inputData"), *model.children(element, "inputDecision"))]
        outputs = [self.resolve(model, r.get("href") or "") for r in model.children(element, "outputDecision")]
        parameters = [normal_name(e.get("name") or "") for _, e in inputs]

        def call(*arguments: object) -> object:
            saved_inputs, saved_cache = self.inputs, self.cache
            self.inputs = dict(zip(parameters, arguments))
            self.cache = {}
            try:
                for (target, required), value in zip(inputs, arguments):
                    typed = self.typed(target, self._type_ref(target, required), value)
                    if typed is None and value is not None:
                        raise FeelError(f"argument {required.get('name')!r} is no {self._type_ref(target, required)}")
                    if target.local(required) == "decision":
                        key = (target.namespace + "|", required.get("id") or "")
                        self.cache[key] = typed
                results = {normal_name(e.get("name") or ""): self.decision_value(t, e, ())
                           for t, e in outputs}
            finally:
                self.inputs, self.cache = saved_inputs, saved_cache
            if len(results) == 1:
                return next(iter(results.values()))
            return results

        return Function(element.get("name") or "", parameters, call)

    # ---- boxed expressions --------------------------------------------------------------------------
    def boxed_of(self, model: DmnModel, element: etree._Element) -> etree._Element | None:
        for child in element:
            if isinstance(child.tag, str) and model.local(child) in _BOXED:
                return child
        return None

    def evaluate(self, model: DmnModel, expression: etree._Element, scope: Scope) -> object:
        kind = model.local(expression)
        handler = getattr(self, f"_boxed_{kind}", None)
        if handler is None:
            raise Unsupported(f"boxed expression {kind}")
        value = handler(model, expression, scope)
        return self.typed(model, expression.get("typeRef"), value) if expression.get("typeRef") else value

    def feel(self, text: str, scope: Scope, where: str) -> object:
        try:
            expression = compile_expression(text, scope.names(), where=where)
        except ExpressionError as exc:
            scope.errors.append(str(exc))
            return None
        try:
            return expression.evaluate(scope)
        except FeelUnsupported as exc:
            raise Unsupported(str(exc)) from None

    def _boxed_literalExpression(self, model: DmnModel, element: etree._Element, scope: Scope) -> object:
        language = element.get("expressionLanguage")
        if language and "feel" not in language.lower():
            raise Unsupported(f"a literal expression in {language}")
        text = model.child(element, "text")
        if text is None or not (text.text or "").strip():
            return None
        return self.feel(text.text or "", scope, element.get("id") or "literal expression")

    def _boxed_context(self, model: DmnModel, element: etree._Element, scope: Scope) -> object:
        result: dict[str, object] = {}
        inner = scope.child(result)
        for entry in model.children(element, "contextEntry"):
            variable = model.child(entry, "variable")
            expression = self.boxed_of(model, entry)
            value = None if expression is None else self.evaluate(model, expression, inner)
            if variable is None:
                return value
            value = self.typed(model, variable.get("typeRef"), value)
            result[normal_name(variable.get("name") or "")] = value
        return result

    def _boxed_list(self, model: DmnModel, element: etree._Element, scope: Scope) -> object:
        return [self.evaluate(model, item, scope) for item in element
                if isinstance(item.tag, str) and model.local(item) in _BOXED]

    def _boxed_relation(self, model: DmnModel, element: etree._Element, scope: Scope) -> object:
        columns = [normal_name(c.get("name") or "") for c in model.children(element, "column")]
        rows = []
        for row in model.children(element, "row"):
            cells = [c for c in row if isinstance(c.tag, str) and model.local(c) in _BOXED]
            rows.append({name: self.evaluate(model, cell, scope) for name, cell in zip(columns, cells)})
        return rows

    def _boxed_invocation(self, model: DmnModel, element: etree._Element, scope: Scope) -> object:
        called = self.boxed_of(model, element)
        function = None if called is None else self.evaluate(model, called, scope)
        if not isinstance(function, Function):
            scope.errors.append("invocation of something that is not a function")
            return None
        named = {}
        for binding in model.children(element, "binding"):
            parameter = model.child(binding, "parameter")
            expression = self.boxed_of(model, binding)
            value = None if expression is None else self.evaluate(model, expression, scope)
            named[normal_name(parameter.get("name") or "") if parameter is not None else ""] = value
        try:
            return invoke(function, named=named, scope=scope)
        except FeelError as exc:
            scope.errors.append(str(exc))
            return None

    def _boxed_functionDefinition(self, model: DmnModel, element: etree._Element, scope: Scope) -> object:
        return self.function_definition(model, element, scope, "function")

    def function_definition(self, model: DmnModel, element: etree._Element, scope: Scope, name: str,
                            result_type: str | None = None) -> Function:
        kind = element.get("kind") or "FEEL"
        if kind.upper() != "FEEL":
            raise Unsupported(f"a {kind} function definition")
        parameters = [(normal_name(p.get("name") or ""), p.get("typeRef"))
                      for p in model.children(element, "formalParameter")]
        body = self.boxed_of(model, element)

        def call(*arguments: object) -> object:
            values = {}
            for (parameter, type_ref), value in zip(parameters, arguments):
                values[parameter] = self.typed(model, type_ref, value)
                if values[parameter] is None and value is not None:
                    raise FeelError(f"argument {parameter!r} is no {type_ref}")
            if body is None:
                return None
            self.depth += 1
            if self.depth > MAX_DEPTH * 4:
                self.depth -= 1
                raise FeelError("functions call each other too deeply")
            try:
                result = self.evaluate(model, body, scope.child(values))
            finally:
                self.depth -= 1
            return self.typed(model, result_type, result)

        return Function(name, [p for p, _ in parameters], call)

    def _part(self, model: DmnModel, element: etree._Element, name: str, scope: Scope) -> object:
        part = model.child(element, name)
        expression = None if part is None else self.boxed_of(model, part)
        return None if expression is None else self.evaluate(model, expression, scope)

    def _boxed_conditional(self, model: DmnModel, element: etree._Element, scope: Scope) -> object:
        condition = self._part(model, element, "if", scope)
        if condition is not None and not isinstance(condition, bool):
            scope.errors.append("a conditional's if is no boolean")
            return None
        return self._part(model, element, "then" if condition is True else "else", scope)

    def _boxed_filter(self, model: DmnModel, element: etree._Element, scope: Scope) -> object:
        items = self._part(model, element, "in", scope)
        if items is None:
            return None
        items = items if isinstance(items, list) else [items]
        kept = []
        for item in items:
            frame = dict(item) if isinstance(item, dict) else {}
            frame["item"] = item
            verdict = self._part(model, element, "match", scope.child(frame))
            if verdict is not None and not isinstance(verdict, bool):
                scope.errors.append("a filter's match is no boolean")
                return None
            if verdict is True:
                kept.append(item)
        return kept

    def _iterate(self, model: DmnModel, element: etree._Element, scope: Scope) -> tuple[str, list]:
        variable = normal_name(element.get("iteratorVariable") or "")
        items = self._part(model, element, "in", scope)
        if items is None:
            raise FeelError("iteration over null")
        if not isinstance(items, list):
            items = [items]
        return variable, items

    def _boxed_for(self, model: DmnModel, element: etree._Element, scope: Scope) -> object:
        try:
            variable, items = self._iterate(model, element, scope)
        except FeelError:
            return None
        results: list[object] = []
        for item in items:
            results.append(self._part(model, element, "return", scope.child({variable: item, "partial": results})))
        return results

    def _quantified(self, model: DmnModel, element: etree._Element, scope: Scope, wanted: bool) -> object:
        try:
            variable, items = self._iterate(model, element, scope)
        except FeelError:
            return None
        unknown = False
        for item in items:
            verdict = self._part(model, element, "satisfies", scope.child({variable: item}))
            if verdict is not None and not isinstance(verdict, bool):
                scope.errors.append("a quantifier's satisfies is no boolean")
                return None
            if verdict is wanted:
                return wanted
            if verdict is not (not wanted):
                unknown = True
        return None if unknown else not wanted

    def _boxed_some(self, model: DmnModel, element: etree._Element, scope: Scope) -> object:
        return self._quantified(model, element, scope, True)

    def _boxed_every(self, model: DmnModel, element: etree._Element, scope: Scope) -> object:
        return self._quantified(model, element, scope, False)

    def _boxed_decisionTable(self, model: DmnModel, element: etree._Element, scope: Scope) -> object:
        return evaluate_table(self, model, element, scope)

    # ---- types --------------------------------------------------------------------------------------
    def _type_ref(self, model: DmnModel, element: etree._Element) -> str | None:
        variable = model.child(element, "variable")
        if variable is not None and variable.get("typeRef"):
            return variable.get("typeRef")
        return element.get("typeRef")

    def type_checker(self, model: DmnModel) -> Callable[[str], Callable[[object], bool] | None]:
        def check(name: str) -> Callable[[object], bool] | None:
            definition = self._definition(model, name)
            if definition is None:
                return None
            target, element = definition
            return lambda value: self._coerce(target, element, value, strict=True,
                                              constraints=False) is not _MISMATCH

        return check

    def _definition(self, model: DmnModel, name: str) -> tuple[DmnModel, etree._Element] | None:
        name = normal_name(name)
        if name in model.item_definitions:
            return model, model.item_definitions[name]
        prefix, _, rest = name.partition(".")
        if rest and prefix in model.imports and model.imports[prefix] in self.models:
            target = self.models[model.imports[prefix]]
            if rest in target.item_definitions:
                return target, target.item_definitions[rest]
        return None

    def typed(self, model: DmnModel, type_ref: str | None, value: object) -> object:
        """value as its declared type holds it: null when it does not conform (DMN 1.5, 10.3.2.9.4)."""
        if not type_ref or value is None:
            return value
        result = self._coerce_ref(model, type_ref, value, strict=False)
        return None if result is _MISMATCH else result

    def _coerce_ref(self, model: DmnModel, type_ref: str, value: object, *, strict: bool,
                    constraints: bool = True) -> object:
        name = type_ref.removeprefix("feel:")
        name = name.split(":", 1)[1] if ":" in name and not name.startswith("date") else name
        definition = self._definition(model, name)
        if definition is not None:
            return self._coerce(definition[0], definition[1], value, strict=strict, constraints=constraints)
        check = base_type(normal_name(name))
        if check is None:
            try:
                type_tree = compile_expression(f"x instance of {name}").tree[2]
                ok = conforms(value, type_tree, Scope({}, ROOT, types=self.type_checker(model)))
            except (ExpressionError, FeelError):
                return value
            return value if ok else _MISMATCH
        if value is None or check(value):
            return value
        if not strict and isinstance(value, list) and len(value) == 1 and check(value[0]):
            return value[0]
        return _MISMATCH

    def _coerce(self, model: DmnModel, definition: etree._Element, value: object, *, strict: bool,
                constraints: bool = True) -> object:
        """value as the item definition holds it, or _MISMATCH; ``instance of`` (constraints False) asks only
        for the type, a declared variable also for its allowed values."""
        if value is None:
            return None
        if definition.get("isCollection") == "true":
            if not isinstance(value, list):
                if strict:
                    return _MISMATCH
                value = [value]
            items = [self._coerce_one(model, definition, item, strict=strict, constraints=constraints)
                     for item in value]
            return _MISMATCH if any(item is _MISMATCH for item in items) else items
        return self._coerce_one(model, definition, value, strict=strict, constraints=constraints)

    def _coerce_one(self, model: DmnModel, definition: etree._Element, value: object, *, strict: bool,
                    constraints: bool = True) -> object:
        if value is None:
            return None
        components = model.children(definition, "itemComponent")
        if components:
            if not isinstance(value, dict):
                return _MISMATCH
            result = dict(value)
            for component in components:
                key = normal_name(component.get("name") or "")
                if key not in value:
                    return _MISMATCH
                inner = self._coerce(model, component, value[key], strict=strict, constraints=constraints)
                if inner is _MISMATCH:
                    return _MISMATCH
                result[key] = inner
            return result
        type_ref = model.child(definition, "typeRef")
        ref = type_ref.text.strip() if type_ref is not None and type_ref.text else definition.get("typeRef")
        if model.child(definition, "functionItem") is not None:
            return value if isinstance(value, Function) else _MISMATCH
        if ref:
            value = self._coerce_ref(model, ref, value, strict=strict, constraints=constraints)
            if value is _MISMATCH or not constraints:
                return value
        for constraint in ("allowedValues", "typeConstraint"):
            element = model.child(definition, constraint)
            text = None if element is None else model.child(element, "text")
            if text is not None and (text.text or "").strip():
                try:
                    tests = compile_unary_tests(text.text or "", where=constraint)
                except ExpressionError:
                    continue
                if tests.matches(value, Scope({}, ROOT)) is not True:
                    return _MISMATCH
        return value


_MISMATCH = object()


def load_models(paths: list[Path]) -> dict[str, DmnModel]:
    """Each DMN file by its namespace (for imports)."""
    from seams.model.payloads import parse_xml

    models = {}
    for path in paths:
        model = DmnModel(parse_xml(path.read_bytes(), source=path.name).getroot(), path)
        models[model.namespace] = model
    return models




@lru_cache(maxsize=32)
def _model_of_text(text: str) -> DmnModel:
    from seams.model.payloads import parse_xml

    return DmnModel(parse_xml(text.encode("utf-8"), source="DMN text").getroot())


def decide_by_id(text: str, decision_id: str, inputs: Mapping[str, object], *,
                 imports: tuple[str, ...] = ()) -> object:
    """The value of the decision ``decision_id`` of the DMN file ``text`` for input data ``inputs``
    (by input data name; an imported model's as ``import name.input name``), ``imports`` the texts
    of the DMN files it imports: what the generated decisions module calls for a decision it does
    not write as Python (docs/generators.md). A construct the interpreter does not evaluate is
    ``Unsupported``."""
    model = _model_of_text(text)
    element = model.by_id.get(decision_id)
    if element is None or model.local(element) != "decision":
        raise Unsupported(f"no decision with id {decision_id!r}")
    others = {m.namespace: m for m in map(_model_of_text, imports)}
    interpreter = DmnInterpreter(model, others)
    interpreter._start(inputs)
    return interpreter.decision_value(model, element, ())

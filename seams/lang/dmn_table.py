"""Decision tables for the DMN interpreter (DMN 1.5, chapter 8): rules, hit policies, aggregations.

The input expressions are FEEL expressions, the input entries FEEL unary
tests (``?`` is the input's value), the output entries FEEL expressions,
all through seams.lang.feel_interpreter. A broken hit policy (two rules
of a UNIQUE table, different outputs of an ANY table) and an input outside
its ``inputValues`` are errors, which make the table's value null.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from lxml import etree

from seams.errors import ExpressionError
from seams.lang.feel_eval import Scope, unary_test
from seams.lang.feel_grammar import normal_name
from seams.lang.feel_interpreter import compile_unary_tests
from seams.lang.feel_values import NUMBERS, compare, equal

DmnInterpreter = Any  # seams.lang.dmn_eval.DmnInterpreter, which calls this module
DmnModel = Any  # seams.lang.dmn_eval.DmnModel


class _TableError(Exception):
    pass


def _text(model: DmnModel, element: etree._Element | None) -> str:
    if element is None:
        return ""
    text = model.child(element, "text")
    return (text.text or "").strip() if text is not None else ""


def _tests(model: DmnModel, text: str, scope: Scope, where: str, value: object) -> bool | None:
    try:
        tests = compile_unary_tests(text, scope.names(), where=where)
    except ExpressionError as exc:
        raise _TableError(str(exc)) from exc
    return tests.matches(value, scope)


def evaluate_table(interpreter: DmnInterpreter, model: DmnModel, table: etree._Element, scope: Scope) -> object:
    try:
        return _evaluate(interpreter, model, table, scope)
    except _TableError as exc:
        scope.errors.append(str(exc))
        return None


def _evaluate(interpreter: DmnInterpreter, model: DmnModel, table: etree._Element, scope: Scope) -> object:
    values = []
    for column in model.children(table, "input"):
        expression = model.child(column, "inputExpression")
        value = interpreter.feel(_text(model, expression), scope, column.get("id") or "input")
        if expression is not None and expression.get("typeRef"):
            value = interpreter.typed(model, expression.get("typeRef"), value)
        allowed = _text(model, model.child(column, "inputValues"))
        if allowed and value is not None and _tests(model, allowed, scope, "inputValues", value) is not True:
            raise _TableError(f"input {value!r} outside its inputValues {allowed!r}")
        values.append(value)
    outputs = model.children(table, "output")
    names = [normal_name(o.get("name") or "") for o in outputs]
    matched = []
    for rule in model.children(table, "rule"):
        entries = model.children(rule, "inputEntry")
        if all(_tests(model, _text(model, entry) or "-", scope.child({"?": value}), entry.get("id") or "entry",
                      value) is True for entry, value in zip(entries, values)):
            matched.append(rule)
    hit = (table.get("hitPolicy") or "UNIQUE").upper()
    aggregation = (table.get("aggregation") or "").upper()
    results = [_rule_output(interpreter, model, rule, outputs, names, scope) for rule in matched]
    if not results:
        return _default(interpreter, model, outputs, names, scope, hit, aggregation)
    if hit in ("UNIQUE", "U"):
        if len(results) > 1:
            raise _TableError("a UNIQUE table with more than one rule matching")
        return results[0]
    if hit in ("FIRST", "F"):
        return results[0]
    if hit in ("ANY", "A"):
        if any(not equal(r, results[0]) for r in results[1:]):
            raise _TableError("an ANY table whose matching rules give different outputs")
        return results[0]
    if hit in ("PRIORITY", "P"):
        return sorted(results, key=lambda r: _priority(model, outputs, names, r, scope))[0]
    if hit in ("OUTPUT ORDER", "O"):
        return sorted(results, key=lambda r: _priority(model, outputs, names, r, scope))
    if hit in ("RULE ORDER", "R"):
        return results
    if hit in ("COLLECT", "C"):
        return _collect(results, aggregation, len(outputs))
    raise _TableError(f"hit policy {hit!r}")


def _rule_output(interpreter: DmnInterpreter, model: DmnModel, rule: etree._Element, outputs: list,
                 names: list[str], scope: Scope) -> object:
    values = []
    for entry, column in zip(model.children(rule, "outputEntry"), outputs):
        text = _text(model, entry)
        value = interpreter.feel(text, scope, entry.get("id") or "output entry") if text else None
        values.append(interpreter.typed(model, column.get("typeRef"), value))
    if len(outputs) == 1:
        return values[0]
    return dict(zip(names, values))


def _default(interpreter: DmnInterpreter, model: DmnModel, outputs: list, names: list[str], scope: Scope,
             hit: str, aggregation: str) -> object:
    defaults = []
    for column in outputs:
        text = _text(model, model.child(column, "defaultOutputEntry"))
        defaults.append(interpreter.feel(text, scope, "defaultOutputEntry") if text else None)
    if hit in ("COLLECT", "C") and aggregation == "COUNT":
        return Decimal(0)
    if all(d is None for d in defaults) and hit in ("COLLECT", "C", "RULE ORDER", "R", "OUTPUT ORDER", "O") \
            and not aggregation:
        return []
    if len(outputs) == 1:
        return defaults[0]
    return dict(zip(names, defaults))


def _priority(model: DmnModel, outputs: list, names: list[str], result: object, scope: Scope) -> tuple:
    ranks = []
    for column, name in zip(outputs, names):
        value = result.get(name) if isinstance(result, dict) and len(outputs) > 1 else result
        listed = _text(model, model.child(column, "outputValues"))
        rank = 10**6
        if listed:
            tree = compile_unary_tests(listed, where="outputValues").tree
            for index, test in enumerate(tree[1] if tree[0] != "any" else ()):
                if unary_test(test, value, scope) is True:
                    rank = index
                    break
        ranks.append(rank)
    return tuple(ranks)


def _collect(results: list, aggregation: str, width: int) -> object:
    if not aggregation:
        return results
    if width > 1:
        raise _TableError("an aggregation over several outputs")
    if aggregation == "COUNT":
        return Decimal(len(results))
    present = [r for r in results if r is not None]
    if aggregation == "SUM":
        if not all(isinstance(r, Decimal) for r in present):
            raise _TableError("SUM over non-numbers")
        total = Decimal(0)
        for r in present:
            total = NUMBERS.add(total, r)
        return total if present else None
    if aggregation in ("MIN", "MAX"):
        if not present:
            return None
        best = present[0]
        for r in present[1:]:
            order = compare(r, best)
            if order is None:
                raise _TableError(f"{aggregation} over values that do not compare")
            if (order < 0) == (aggregation == "MIN") and order != 0:
                best = r
        return best
    raise _TableError(f"aggregation {aggregation!r}")

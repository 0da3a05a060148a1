"""The one place the engine evaluates model text that is not a gateway condition.

Input and output mappings (``camunda:inputParameter``, ``zeebe:input``), a
call activity's ``sourceExpression`` and Zeebe mappings, a multi-instance
collection, a loop condition, an inclusive gateway's conditions: every
expression the engine needs goes through :func:`evaluate_expression`: a
Camunda 7 JUEL body with seams.lang's JUEL evaluator, a Camunda 8 FEEL body
with the one FEEL implementation (seams.lang.feel_interpreter: the whole of
DMN 1.5's FEEL, numbers as exact decimals, an evaluation error or a missing
variable null, as Zeebe's FEEL gives it; a syntax error one line naming
``where``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seams.errors import ExpressionError

MAX_DEPTH = 50


def evaluate_expression(text: str, variables: Mapping[str, Any], *, where: str) -> Any:
    """The value of ``text`` as the engine of its dialect computes it: Camunda 7 JUEL ``${...}``,
    Camunda 8 FEEL ``=...``; any other text is the literal string it is (as Camunda 7 reads an
    input parameter without ``${}``). A construct the evaluators do not read, or a value they
    refuse, is an ExpressionError naming ``where``."""
    from seams.lang.condition_semantics import engine_value
    from seams.lang.condition_tree import JUEL
    from seams.lang.feel_expression import is_feel
    from seams.lang.juel import is_juel, parse_juel

    source = text.strip()
    if is_juel(source):
        return engine_value(parse_juel(source, where=where, max_depth=MAX_DEPTH), JUEL, dict(variables), where)
    if is_feel(source):  # the whole of FEEL (DMN 1.5): contexts, lists, paths, filters, built-ins
        from seams.lang.feel_interpreter import compile_expression

        body = source[1:] if source.startswith("=") else source
        return compile_expression(body, variables.keys(), where=where).run(dict(variables)).value
    return text


def condition_holds(text: str, variables: Mapping[str, Any], *, where: str) -> bool:
    """A condition's truth by seams.lang.condition (every dialect), as the exclusive gateways read it."""
    from seams.lang.condition import parse_condition

    return parse_condition(text, where=where).evaluate(dict(variables))


__all__ = ["ExpressionError", "condition_holds", "evaluate_expression"]

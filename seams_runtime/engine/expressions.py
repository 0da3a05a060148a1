"""The one place the engine evaluates model text that is not a gateway condition.

Input and output mappings (``camunda:inputParameter``, ``zeebe:input``), a
call activity's ``sourceExpression`` and Zeebe mappings, a multi-instance
collection, a loop condition, an inclusive gateway's conditions: every
expression the engine needs goes through :func:`evaluate_expression`, which
calls seams.lang's JUEL and FEEL expression evaluators (the ones the
conditions and the DMN output entries use). When seams.lang's FEEL is
replaced, this function is the one to switch over.
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
    from seams.lang.condition_tree import FEEL, JUEL
    from seams.lang.feel_expression import is_feel, parse_feel_expression
    from seams.lang.juel import is_juel, parse_juel

    source = text.strip()
    if is_juel(source):
        return engine_value(parse_juel(source, where=where, max_depth=MAX_DEPTH), JUEL, dict(variables), where)
    if is_feel(source):
        return engine_value(parse_feel_expression(source, where=where, max_depth=MAX_DEPTH), FEEL,
                            dict(variables), where)
    return text


def condition_holds(text: str, variables: Mapping[str, Any], *, where: str) -> bool:
    """A condition's truth by seams.lang.condition (every dialect), as the exclusive gateways read it."""
    from seams.lang.condition import parse_condition

    return parse_condition(text, where=where).evaluate(dict(variables))


__all__ = ["ExpressionError", "condition_holds", "evaluate_expression"]

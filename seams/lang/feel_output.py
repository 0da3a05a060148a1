"""Output entries of a decision table that are FEEL expressions, not literals.

DMN lets an output entry be any FEEL expression over the decision's inputs:
``amount * 0.1``, the name of an input, ``Symptom + " is listed"``. seams
reads such an entry with the FEEL expression parser of Camunda 8 conditions
(seams.lang.feel_expression, docs/conditions.md, "FEEL"), so the same
constructs are supported and the rest refused by name. Its names must be
the decision's inputs (a column's input expression, or a ``dec:input``
variable), or paths into them.

It is evaluated with the FEEL semantics the condition evaluator has
(seams.lang.condition_semantics: null for an operand of the wrong kind, a
division by zero, ...), and the generated decisions module gets the Python
source seams.lang.condition_python writes for the same tree, so both agree.
A literal entry stays a plain value (seams.lang.feel_parse.parse_literal):
only an entry that is not a literal becomes an OutputExpression.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, cast

from seams.errors import ExpressionError
from seams.lang.condition_python import engine_value_python
from seams.lang.condition_semantics import engine_value
from seams.lang.condition_tree import FEEL, FeelExpr, Node, Path, Var
from seams.lang.feel_expression import parse_feel_expression
from seams.lang.feel_parse import parse_literal

MAX_DEPTH = 50
"""Deepest nesting of an output expression, as for a condition."""


@dataclass(frozen=True)
class OutputExpression:
    """An output entry that is a FEEL expression; ``tree`` reads the decision's inputs by their
    names in ``names`` (a dotted path whose text is an input is read as that input)."""

    text: str
    tree: Node = field(compare=False)
    names: tuple[str, ...] = ()

    def evaluate(self, env: Mapping[str, object]) -> object:
        """The entry's value for the inputs in ``env`` (by input name)."""
        return engine_value(self.tree, FEEL, env, f"output {self.text!r}")

    def to_python(self, scope: Mapping[str, str], runtime: str | None = None) -> str:
        """Python source for the entry's value; ``scope`` maps each input name to its parameter,
        ``runtime`` names a global holding seams.lang.condition_python.runtime_expression()
        (else the source builds the runtime itself)."""
        return engine_value_python(self.tree, FEEL, lambda name: scope[name], runtime)


def parse_output(text: str, *, where: str, scope: Iterable[str]) -> object:
    """An output entry: its literal value, or an OutputExpression over the names in ``scope``.

    A text that is neither a literal nor a FEEL expression seams reads, or an
    expression that names anything but the decision's inputs, is an
    ExpressionError naming the construct."""
    try:
        return parse_literal(text, where=where)
    except ExpressionError as literal_error:
        try:
            tree = parse_feel_expression("=" + text, where=where, max_depth=MAX_DEPTH)
        except ExpressionError as exc:
            raise (literal_error if _temporal(literal_error) else exc) from None
    known = set(scope)
    used: list[str] = []
    tree = _resolved(tree, known, used, where)
    return OutputExpression(text=text, tree=tree, names=tuple(dict.fromkeys(used)))


def _temporal(error: ExpressionError) -> bool:
    """Whether the literal parser stopped inside a temporal literal (a years and months duration, a
    time with a zone name, ...): its message then says more than the expression parser's."""
    return any(word in str(error) for word in ("date()", "time()", "duration()", "durations", "zone",
                                               "no such"))


def _dotted(node: Node) -> list[str] | None:
    if isinstance(node, Var):
        return [node.name]
    if isinstance(node, Path):
        base = _dotted(node.base)
        return None if base is None else [*base, node.attr]
    return None


def _resolved_feel(node: FeelExpr, scope: set[str], used: list[str], where: str) -> FeelExpr:
    """A whole FEEL expression's names checked against ``scope``: a free name is an input, or the first
    segment of dotted inputs (``Applicant`` of ``Applicant.Age``); a name read inside a filter is passed
    when it is an input (else it is an item's entry)."""
    names: list[str] = []
    for name in node.names:
        inputs = [known for known in sorted(scope) if known == name or known.startswith(name + ".")]
        if not inputs:
            raise ExpressionError(f"{where}: name {name!r} is no input of the decision "
                                  f"(its inputs: {', '.join(sorted(scope)) or 'none'})")
        names.extend(inputs)
    names.extend(name for name in node.filter_names if name in scope)
    unique = tuple(dict.fromkeys(names))
    used.extend(unique)
    return FeelExpr(node.text, unique, ())


def _resolved(node: Node, scope: set[str], used: list[str], where: str) -> Node:
    """The tree with every name checked against ``scope``: the longest dotted prefix of a path
    that is an input becomes that input, the rest stays a path into it."""
    if isinstance(node, FeelExpr):
        return _resolved_feel(node, scope, used, where)
    parts = _dotted(node)
    if parts is not None:
        for cut in range(len(parts), 0, -1):
            name = ".".join(parts[:cut])
            if name in scope:
                used.append(name)
                resolved: Node = Var(name)
                for attr in parts[cut:]:
                    resolved = Path(resolved, attr)
                return resolved
        raise ExpressionError(f"{where}: name {parts[0]!r} is no input of the decision "
                              f"(its inputs: {', '.join(sorted(scope)) or 'none'})")
    if not is_dataclass(node):
        return node
    changes: dict[str, Any] = {}
    for item in fields(node):
        value = getattr(node, item.name)
        if is_dataclass(value) and not isinstance(value, type):
            changes[item.name] = _resolved(cast(Node, value), scope, used, where)
        elif isinstance(value, tuple) and any(is_dataclass(v) for v in value):
            changes[item.name] = tuple(_resolved(cast(Node, v), scope, used, where) if is_dataclass(v) else v
                                       for v in value)
    return cast(Node, replace(cast(Any, node), **changes)) if changes else node

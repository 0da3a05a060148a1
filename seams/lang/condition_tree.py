"""The one expression tree every gateway condition dialect parses into.

seams' own Python subset, Camunda 7's JUEL (``${...}``) and Camunda 8's FEEL
(``=...``) are three spellings of one small language of comparisons over
process variables (docs/conditions.md). Each parser builds these nodes; the
evaluator (seams.lang.condition_semantics) and the printer
(seams.lang.condition_print) read them, so the routing check, the boundary
samples, the upstream-variables analysis and condition-to-dmn see one tree
whatever dialect the modeler wrote.

Literal values are Python values: ``int``, ``Decimal`` (a number written with
a point or exponent), ``str``, ``bool``, ``None`` (null), ``date``,
``datetime`` and ``timedelta`` (FEEL's ``date``, ``date and time`` and
days-and-time ``duration`` literals).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, get_args


@dataclass(frozen=True)
class Var:
    """A process variable read by name."""

    name: str


@dataclass(frozen=True)
class Path:
    """``base.attr``: a property of a map-valued expression (JUEL and FEEL paths)."""

    base: Node
    attr: str


@dataclass(frozen=True)
class Lit:
    value: object  # int | Decimal | str | bool | None | date | datetime | timedelta


@dataclass(frozen=True)
class Range:
    """A FEEL interval ``[low..high]``; ``*_closed`` says whether the end point belongs to it."""

    low: Lit
    high: Lit
    low_closed: bool = True
    high_closed: bool = True


@dataclass(frozen=True)
class LitList:
    """The right side of ``in``: literals and (FEEL) ranges."""

    items: tuple[Lit | Range, ...]


@dataclass(frozen=True)
class Compare:
    """A comparison; seams allows Python's chains (``1 < x <= 10``), JUEL and FEEL two operands."""

    operands: tuple[Node | LitList, ...]
    ops: tuple[str, ...]  # "==" "!=" "<" "<=" ">" ">=" "in" "not in"


@dataclass(frozen=True)
class BoolOp:
    op: str  # "and" | "or"
    values: tuple[Node, ...]


@dataclass(frozen=True)
class Not:
    operand: Node


@dataclass(frozen=True)
class Arith:
    """Binary arithmetic: ``+ - * / %`` (JUEL ``div``/``mod``; FEEL ``modulo(a, b)``)."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Neg:
    """Unary minus of anything but a number literal (``-5`` is ``Lit(-5)``)."""

    operand: Node


@dataclass(frozen=True)
class Ternary:
    """JUEL ``a ? b : c``, FEEL ``if a then b else c``."""

    test: Node
    then: Node
    orelse: Node


@dataclass(frozen=True)
class Empty:
    """JUEL ``empty x``: null, an empty string, list or map."""

    operand: Node


@dataclass(frozen=True)
class Between:
    """FEEL ``value between low and high`` (both ends included)."""

    value: Node
    low: Node
    high: Node


@dataclass(frozen=True)
class ListLit:
    """A FEEL list ``[a, b]`` as a value: compared with ``=``/``!=`` (``x = []``) or searched by ``list contains``."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Matches:
    """FEEL ``matches(value, "pattern"[, "flags"])``: the pattern, a string literal, searched in ``value``."""

    value: Node
    pattern: str
    flags: str = ""


@dataclass(frozen=True)
class ListContains:
    """FEEL ``list contains(list, value)``."""

    items: Node
    value: Node


@dataclass(frozen=True)
class IsDefined:
    """FEEL ``is defined(x)`` / ``x is defined``: the variable (or context entry) exists, even if null."""

    operand: Node  # a Var or a Path


@dataclass(frozen=True)
class FeelExpr:
    """A whole FEEL expression the tree has no nodes for (a function call, a filter, ``some``, ``for``, a
    context, ...): evaluated by seams.lang.feel_interpreter, the one FEEL implementation.

    ``text`` is the expression without its leading ``=``; ``names`` its free names
    (seams.lang.feel_names), the variables it reads, which ``walk`` yields as ``Var`` nodes so every
    analysis of the variables a condition reads sees them."""

    text: str
    names: tuple[str, ...] = ()
    filter_names: tuple[str, ...] = ()
    """Names read only inside filter conditions: item entries or variables (seams.lang.feel_names)."""


Node = (Var | Path | Lit | Compare | BoolOp | Not | Arith | Neg | Ternary | Empty | Between | ListLit | Matches
        | ListContains | IsDefined | FeelExpr)

NODE_CLASSES: tuple[type, ...] = get_args(Node)
"""Every kind of node a condition is made of (``LitList`` and ``Range`` are parts of a ``Compare``, not nodes)."""

SEAMS, JUEL, FEEL = "seams", "juel", "feel"
DIALECTS = (SEAMS, JUEL, FEEL)
DIALECT_NAMES = {SEAMS: "seams", JUEL: "JUEL", FEEL: "FEEL"}
"""How a dialect is named in messages and docs."""


def children(node: Node | LitList | Range) -> tuple:
    """The direct sub-nodes of a node, operands and list items included."""
    return _CHILDREN.visit(node)


def walk(node: Node | LitList | Range) -> Iterator[Node | LitList | Range]:
    """Every node of the tree, depth first, the node itself first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def depth(node: Node | LitList | Range) -> int:
    """The nesting depth of a tree (a leaf is 1)."""
    best, stack = 0, [(node, 1)]
    while stack:
        current, level = stack.pop()
        best = max(best, level)
        stack.extend((child, level + 1) for child in children(current))
    return best


T = TypeVar("T")


class UnvisitedNodeError(TypeError):
    """A walker met a node kind it has no ``visit_`` method for: a node kind added without teaching every walker."""


class ConditionVisitor(Generic[T]):
    """One walk over a condition tree, in the style of the standard library's ``ast.NodeVisitor``.

    ``visit(node)`` calls the subclass's ``visit_<NodeClass>(node)``, so each walker (printing,
    evaluating, rendering Python) keeps one method per node kind in one place, and a new node kind
    fails loudly, naming the walker and the kind, in every walker not yet taught it (a test checks
    every walker against ``NODE_CLASSES``).
    """

    _methods: dict[type, Callable[[Any, Any], T]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._methods = {}  # each walker its own: node class -> its visit_ function, looked up once

    def visit(self, node: Node | LitList | Range) -> T:
        try:
            method = self._methods[type(node)]
        except KeyError:
            method = self._methods[type(node)] = self._method(type(node))
        return method(self, node)

    @classmethod
    def _method(cls, kind: type) -> Callable[[Any, Any], T]:
        method = getattr(cls, "visit_" + kind.__name__, None)
        if method is None:
            raise UnvisitedNodeError(f"{cls.__name__} has no visit_{kind.__name__}: "
                                     f"teach it the {kind.__name__} node kind")
        return method


class _Children(ConditionVisitor[tuple]):
    """The direct sub-nodes of each node kind, in the order ``walk`` visits them."""

    def visit_Var(self, node: Var) -> tuple:
        return ()

    def visit_Lit(self, node: Lit) -> tuple:
        return ()

    def visit_Path(self, node: Path) -> tuple:
        return (node.base,)

    def visit_Range(self, node: Range) -> tuple:
        return (node.low, node.high)

    def visit_LitList(self, node: LitList) -> tuple:
        return node.items

    def visit_Compare(self, node: Compare) -> tuple:
        return node.operands

    def visit_BoolOp(self, node: BoolOp) -> tuple:
        return node.values

    def visit_Not(self, node: Not) -> tuple:
        return (node.operand,)

    def visit_Arith(self, node: Arith) -> tuple:
        return (node.left, node.right)

    def visit_Neg(self, node: Neg) -> tuple:
        return (node.operand,)

    def visit_Ternary(self, node: Ternary) -> tuple:
        return (node.test, node.then, node.orelse)

    def visit_Empty(self, node: Empty) -> tuple:
        return (node.operand,)

    def visit_Between(self, node: Between) -> tuple:
        return (node.value, node.low, node.high)

    def visit_ListLit(self, node: ListLit) -> tuple:
        return node.items

    def visit_Matches(self, node: Matches) -> tuple:
        return (node.value,)

    def visit_ListContains(self, node: ListContains) -> tuple:
        return (node.items, node.value)

    def visit_IsDefined(self, node: IsDefined) -> tuple:
        return (node.operand,)

    def visit_FeelExpr(self, node: FeelExpr) -> tuple:
        return tuple(Var(name) for name in node.names)


_CHILDREN = _Children()

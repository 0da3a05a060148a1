"""The variables a FEEL expression reads: the free names of a seams.lang.feel_grammar tree.

The dataflow checks (a variable set on every path before a condition reads
it, no unknown variable) and the DMN check (an expression reads only the
decision's inputs, required decisions and knowledge models) need to know
which names an expression takes from outside. A name is *free* unless the
expression binds it itself:

* a ``for``/``some``/``every`` loop variable (and ``partial`` inside a
  ``for``), in the loops after it and in the body;
* a function definition's parameters, in its body;
* a context's earlier entries, in the later ones;
* anything inside a filter's condition (``items[price > 10]``): there
  ``item`` and, for a list of contexts, each item's entries are names, and
  which names those are is known only at run time; so a filter condition
  contributes nothing (a process variable it reads is not reported).

Of a path ``order.items.price`` only the first segment ``order`` is read. A
called name that is a built-in function (``count``, ``lower case``) is not a
variable; any other called name is (a function held in a variable, a BKM).
"""

from __future__ import annotations

from collections.abc import Iterable

from seams.lang.feel_grammar import Node

_LEAVES = frozenset({"lit", "any", "error", "unsupported"})


def free_names(tree: Node, builtins: Iterable[str] = ()) -> tuple[str, ...]:
    """The names ``tree`` reads from outside, each once, in order of first appearance.

    ``builtins`` are names that are not variables when called (the built-in functions)."""
    found: dict[str, None] = {}
    _Walk(frozenset(builtins), found).visit(tree, frozenset())
    return tuple(found)


def filter_names(tree: Node, builtins: Iterable[str] = ()) -> tuple[str, ...]:
    """The names read inside filter conditions (``limit`` in ``items[price > limit]``), ``item`` left out:
    each is an item's entry or a variable, which only the values tell; a caller that knows the
    variables in scope (a decision's inputs) passes those among them to the interpreter."""
    found: dict[str, None] = {}
    walk = _Walk(frozenset(builtins), found)
    walk.in_filters = True
    walk.visit(tree, frozenset())
    return tuple(name for name in found if name != "item")


def unsupported_construct(tree: Node) -> str | None:
    """What in ``tree`` no FEEL evaluator of seams runs (the grammar's ``("unsupported", what)``: an
    ``external`` Java or PMML function), if anything."""
    stack: list[object] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple) and node:
            if node[0] == "unsupported":
                return str(node[1])
            stack.extend(node)
    return None


class _Walk:
    def __init__(self, builtins: frozenset[str], found: dict[str, None]):
        self.builtins = builtins
        self.found = found
        self.in_filters = False
        """Collect only the names inside filter conditions (``filter_names``), not the free ones."""
        self.depth = 0

    def visit(self, node: object, bound: frozenset[str]) -> None:  # noqa: C901 - one branch per node kind
        if not isinstance(node, tuple) or not node:
            return
        kind = node[0]
        if kind in _LEAVES:
            return
        if kind == "name":
            if node[1] not in bound and node[1] != "?" and self.in_filters == (self.depth > 0):
                self.found.setdefault(node[1], None)
        elif kind == "path":
            self.visit(node[1], bound)
        elif kind == "filter":
            self.visit(node[1], bound)  # the condition's names are the items' entries (module docstring)
            if self.in_filters:
                self.depth += 1
                self.visit(node[2], bound)
                self.depth -= 1
        elif kind == "call":
            function = node[1]
            if not (function[0] == "name" and function[1] in self.builtins and function[1] not in bound):
                self.visit(function, bound)
            for argument in node[2]:
                self.visit(argument[1] if node[3] else argument, bound)
        elif kind == "context":
            inner = set(bound)
            for key, value in node[1]:
                self.visit(value, frozenset(inner))
                inner.add(" ".join(key.split()))
        elif kind == "for" or kind in ("some", "every"):
            inner = set(bound)
            for variable, source in node[1]:
                self.visit(source, frozenset(inner))
                inner.add(variable)
            if kind == "for":
                inner.add("partial")
            self.visit(node[2], frozenset(inner))
        elif kind == "function":
            self.visit(node[2], bound | {name for name, _ in node[1]})
        elif kind == "instance":
            self.visit(node[1], bound)
        elif kind in ("list", "tests", "not"):
            for item in node[1]:
                self.visit(item, bound)
        elif kind == "test":
            self.visit(node[2], bound)
        elif kind in ("arith", "cmp"):
            self.visit(node[2], bound)
            self.visit(node[3], bound)
        elif kind == "in":
            self.visit(node[1], bound)
            for test in node[2]:
                self.visit(test, bound)
        elif kind == "range":
            self.visit(node[1], bound)
            self.visit(node[2], bound)
        else:  # neg, and, or, between, if, span: every operand is an expression
            for part in node[1:]:
                self.visit(part, bound)

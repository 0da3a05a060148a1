"""Every walker over condition trees has a method for every node kind (docs/conditions.md, "One visitor").

The walkers are found by introspection (every ConditionVisitor subclass in the seams.lang modules) and so
are the node kinds (the classes of condition_tree), so a node kind added without teaching some walker,
or a walker added without a method for some kind, fails here before it fails on a user's condition.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import pytest

import seams.lang
from seams.lang import condition_tree
from seams.lang.condition_print import print_condition
from seams.lang.condition_tree import NODE_CLASSES, ConditionVisitor, Lit, UnvisitedNodeError, Var


def walkers() -> list[type]:
    for info in pkgutil.iter_modules(seams.lang.__path__, "seams.lang."):
        importlib.import_module(info.name)
    found, stack = [], list(ConditionVisitor.__subclasses__())
    while stack:
        cls = stack.pop()
        found.append(cls)
        stack.extend(cls.__subclasses__())
    return sorted(found, key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


def test_the_node_kinds_are_every_node_class_of_the_tree_module():
    classes = {obj for _, obj in inspect.getmembers(condition_tree, inspect.isclass)
               if dataclasses.is_dataclass(obj) and obj.__module__ == condition_tree.__name__}
    assert set(NODE_CLASSES) == classes - {condition_tree.LitList, condition_tree.Range}
    assert len(NODE_CLASSES) == 16


def test_the_three_walkers_are_found():
    assert {f"{cls.__module__}.{cls.__name__}" for cls in walkers()} >= {
        "seams.lang.condition_print._Printer", "seams.lang.condition_python._Renderer",
        "seams.lang.condition_semantics._Engine", "seams.lang.condition_tree._Children"}


def test_the_children_walker_also_opens_the_parts_of_a_comparison():
    for part in ("LitList", "Range"):
        assert callable(getattr(condition_tree._Children, f"visit_{part}", None))
    tree = condition_tree.Compare((Var("days"), condition_tree.LitList((Lit(1), condition_tree.Range(Lit(2), Lit(5))))),
                                  ("in",))
    assert [type(node).__name__ for node in condition_tree.walk(tree)] == [
        "Compare", "Var", "LitList", "Lit", "Range", "Lit", "Lit"]


@pytest.mark.parametrize("walker", walkers(), ids=lambda cls: cls.__name__)
def test_every_walker_visits_every_node_kind(walker):
    missing = [kind.__name__ for kind in NODE_CLASSES if not callable(getattr(walker, f"visit_{kind.__name__}", None))]
    assert missing == [], f"{walker.__name__} has no visit_ method for {missing}"


def test_a_walker_without_a_method_names_itself_and_the_node_kind():
    class Partial(ConditionVisitor[str]):
        def visit_Var(self, node: Var) -> str:
            return node.name

    assert Partial().visit(Var("days")) == "days"
    with pytest.raises(UnvisitedNodeError, match=r"^Partial has no visit_Lit: teach it the Lit node kind$"):
        Partial().visit(Lit(5))


def test_a_visit_dispatches_on_the_exact_node_class():
    assert print_condition(condition_tree.Not(Var("approved")), "feel") == "=not(approved)"

"""Identifiers for imported things: handler modules, IRI local names.

A name must be the same for the same input (a re-import gives the same
model) and unique where the vocabulary says so (docs/model.md), so names are
handed out by one :class:`Names` allocator in input order, with ``_2``,
``_3``... on a repeat.
"""

from __future__ import annotations

import keyword
import re

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL_1 = re.compile(r"([A-Z]+)([A-Z][a-z])")
_CAMEL_2 = re.compile(r"([a-z0-9])([A-Z])")
_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")
_LOCAL = re.compile(r"[^A-Za-z0-9_\-]+")


def snake_case(text: str) -> str:
    """``ChargeCardDelegate`` / ``charge-card`` / ``Activity_0x1`` -> a snake_case identifier."""
    text = _CAMEL_2.sub(r"\1_\2", _CAMEL_1.sub(r"\1_\2", text))
    words = [w for w in _NOT_WORD.split(text) if w]
    name = "_".join(words).lower()
    if not name:
        return "task"
    if name[0].isdigit():
        name = f"task_{name}"
    if keyword.iskeyword(name):
        name = f"{name}_"
    return name


def local_name(text: str) -> str:
    """A BPMN/DMN id or variable name as an IRI local name readers take unescaped."""
    name = _LOCAL.sub("_", text).strip("-") or "x"
    return name if name[0].isalnum() or name[0] == "_" else f"x{name}"


class Names:
    """Hands out unique names in call order; ``taken`` are names already in use."""

    def __init__(self, taken: set[str] | None = None):
        self._taken = set(taken or ())

    def unique(self, wanted: str) -> str:
        name, number = wanted, 1
        while name in self._taken:
            number += 1
            name = f"{wanted}_{number}"
        self._taken.add(name)
        return name

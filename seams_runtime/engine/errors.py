"""How a run ends early: a model the engine refuses, or one instance that stops at an element."""

from __future__ import annotations

from seams.errors import SeamsError


class EngineRefused(SeamsError):
    """The process has an element (or a shape of one) the embedded engine does not run."""


class ScenarioStop(Exception):
    """The run stops at an element: one line saying why."""

    def __init__(self, element: str | None, message: str):
        super().__init__(message)
        self.element = element
        self.message = message

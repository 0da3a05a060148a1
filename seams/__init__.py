"""seams: a business application kept as a model that is data.

The public API is re-exported here lazily, so ``import seams`` (which the
pytest plugin does in every session) stays cheap until a name is used.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from seams.errors import (
    DraftGeneratorError,
    EditError,
    ExpressionError,
    GeneratorError,
    ProjectError,
    ProviderError,
    ResolutionError,
    SeamsError,
)

_LAZY = {
    "load_project": "seams.project.layout",
    "find_project_root": "seams.project.layout",
    "Project": "seams.project.layout",
    "Model": "seams.model.loading",
    "Finding": "seams.findings",
    "all_findings": "seams.checks.registry",
    "context_for": "seams.model.context",
    "resolve_task": "seams.model.resolve",
    "decision_findings": "seams.checks.decisions",
    "shape_findings": "seams.checks.shapes",
    "run_generators": "seams.generators.generate",
}

__all__ = [
    "SeamsError", "ProjectError", "ResolutionError", "GeneratorError", "ProviderError",
    "DraftGeneratorError", "EditError", "ExpressionError", *_LAZY,
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'seams' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value

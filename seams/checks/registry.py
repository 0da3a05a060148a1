"""Everything ``seams check`` (and the plugin's gate items) report, in one place.

Each source of findings lives with its concern (shapes, decisions,
generation, the lock, drafts); this module only fixes their order so the
CLI and the pytest items agree line for line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seams.findings import Finding

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.project.layout import Project

MODEL_KINDS = ("shape", "decision", "generate")
LOCK_KINDS = ("generated-stale", "generated-hand-edited", "draft-stale", "draft-hand-edited")


def model_findings(model: Model) -> list[Finding]:
    """Shapes and decision checks: is the model sound?"""
    from seams.checks.decisions import decision_findings
    from seams.checks.shapes import shape_findings

    return [*shape_findings(model), *decision_findings(model)]


def lock_findings(project: Project, model: Model) -> list[Finding]:
    """Generated files and accepted drafts against ``seams.lock``."""
    from seams.checks.handler_drafts import draft_findings
    from seams.generators.generate import generated_findings

    return [*generated_findings(project, model), *draft_findings(project, model)]


def all_findings(project: Project, model: Model) -> list[Finding]:
    """What ``seams check`` prints: model, generation (kind ``generate``), then lock kinds."""
    from seams.generators.generate import generate_findings

    return [*model_findings(model), *generate_findings(project, model), *lock_findings(project, model)]

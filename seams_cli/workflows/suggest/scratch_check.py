"""The machine half of acceptance for a model change: the model gates, in a scratch copy.

The project is copied (seams.scratch), the change is written into the copy
through seams_edit's one write path, and one pytest session of the seams
plugin runs there; the verdicts are those of the model gates: the seam
shapes, the decision checks and generation. Handler acceptance items are not
the suggestion's business (a handler may not be drafted yet), so their
outcomes are ignored (the runner has no selection of the model gates alone).
"""

from __future__ import annotations

from pathlib import Path

from seams.checks.registry import MODEL_GATE_NAMES
from seams.errors import GeneratorError
from seams.model.loading import Model
from seams.project.layout import Project
from seams_cli.verdicts import GateVerdict, gate_verdicts
from seams_cli.workflows.scratch import scratch_project
from seams_edit import apply


def check_in_scratch(project: Project, model: Model, files: dict[Path, bytes]) -> list[GateVerdict]:
    """Write ``files`` (real project paths) into a scratch copy and run the model gates there."""
    from pytest_seams.runner import run_session

    model_dir = model.trig_path.parent
    timeout = project.config.propose.timeout
    with scratch_project(project, model) as scratch:
        copied = {scratch.model_path.parent / path.relative_to(model_dir): data for path, data in files.items()}
        apply(scratch.root, copied, undo_dir=None)
        result = run_session(scratch.root, timeout=timeout, env=scratch.env())
        if result.timed_out:
            raise GeneratorError(f"the scratch check timed out after {timeout:g} s")
        return gate_verdicts(result, MODEL_GATE_NAMES, scratch_root=scratch.root)

"""The machine half of acceptance for a model change: its gates, in a scratch copy.

The project is copied (seams_cli.workflows.scratch), the change is written
into the copy through seams_edit's one write path, the suggestion's record
beside it, and one pytest session of the seams plugin runs there with the
model gates only (``--seams-only model``: shapes, decisions, generate) and
the item of the record's kind (``--seams-suggestion``: routing, forms). Handler acceptance
items are not the suggestion's business (a handler may not be drafted yet,
and a hanging one must not time out a correct suggestion), so they are not
even collected. The verdicts are the items' reports (seams_cli.verdicts).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from seams.checks.registry import MODEL_GATES, Gate
from seams.errors import GeneratorError
from seams.model.loading import Model
from seams.project.layout import Project
from seams_cli.verdicts import GateVerdict, gate_verdicts
from seams_cli.workflows.scratch import scratch_project
from seams_cli.workflows.suggest.store import json_bytes
from seams_edit import apply

RECORD_NAME = "suggestion.json"


def gates_of(project: Project, kind_gate: Gate | None) -> tuple[str, ...]:
    """The gates the scratch session collects for ``project``: its model gates (a gate tied to a
    generator only when the project lists it, seams.checks.registry) and the suggestion kind's gate
    (routing, forms; none for gist-anchor). Read from the registry, so a gate added there is judged."""
    own = (kind_gate.name,) if kind_gate is not None else ()
    return (*(g.name for g in MODEL_GATES if g.applies(project.config.generators)), *own)


def check_in_scratch(project: Project, model: Model, files: dict[Path, bytes],
                     record: Mapping[str, Any], kind_gate: Gate | None) -> dict[str, GateVerdict]:
    """Write ``files`` (real project paths) into a scratch copy and run the model gates and
    the item of ``record``'s kind (``kind_gate``) there; the verdicts by gate name."""
    from pytest_seams.runner import run_session

    model_dir = model.trig_path.parent
    timeout = project.config.propose.timeout
    with scratch_project(project, model) as scratch:
        copied = {scratch.model_path.parent / path.relative_to(model_dir): data for path, data in files.items()}
        apply(scratch.root, copied, undo_dir=None)
        record_path = scratch.root.parent / RECORD_NAME  # beside the copy, not in it
        record_path.write_bytes(json_bytes(record))
        result = run_session(scratch.root, select="model", timeout=timeout, env=scratch.env(),
                             args=[f"--seams-suggestion={record_path}"])
        if result.timed_out:
            raise GeneratorError(f"the scratch check timed out after {timeout:g} s")
        return {v.gate: v for v in gate_verdicts(result, gates_of(project, kind_gate), scratch_root=scratch.root)}

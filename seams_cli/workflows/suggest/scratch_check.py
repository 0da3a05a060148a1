"""The machine half of acceptance for a model change: the model gates, in a scratch copy.

The project is copied (seams.scratch), the change is written into the copy
through seams_edit's one write path, and one pytest session of the seams
plugin runs there; the verdicts are those of the model gates: the seam
shapes, the decision checks and generation. Handler acceptance items are not
the suggestion's business (a handler may not be drafted yet), so their
outcomes are ignored (the runner has no selection of the model gates alone).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from seams.checks.registry import MODEL_GATE_NAMES
from seams.errors import GeneratorError
from seams.model.loading import Model
from seams.project.layout import Project
from seams_cli.workflows.scratch import scratch_project
from seams_edit import apply


@dataclass(frozen=True)
class GateVerdict:
    gate: str
    passed: bool
    lines: tuple[str, ...]  # one per finding: ``<kind> <subject> [<predicate>]: <message>``


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
        verdicts = []
        for gate in MODEL_GATE_NAMES:
            items = [item for item in result.items if item.gate == gate]
            if not items:
                raise GeneratorError(f"the scratch check ran no {gate} item"
                                     + (f": {result.error}" if result.error else ""))
            failed = [item for item in items if item.outcome != "passed"]
            lines = [f.line() for item in failed for f in item.findings]
            lines += [f"{gate} {item.name}: {_first_line(item.text, scratch.root)}"
                      for item in failed if not item.findings]
            verdicts.append(GateVerdict(gate, not failed, tuple(lines)))
        return verdicts


def _first_line(text: str, root: Path) -> str:
    lines = [line.strip() for line in (text or "").replace(str(root), ".").splitlines() if line.strip()]
    return lines[-1][:200] if lines else "failed"

"""Where ``seams check`` spends its time: ``python benchmarks/phases.py PROJECT`` prints JSON.

Run in a fresh process (the runner starts it) so imports are counted as a
user pays them. The phases are the ones ``seams check`` runs, in its order,
each timed once in CPU seconds of this process (``time.process_time``: steadier than wall time
on a shared machine); the sum is close to a check's CPU time minus interpreter start.
"""

from __future__ import annotations

import json
import sys
import time


def main(root: str) -> None:
    phases: list[tuple[str, float]] = []
    start = time.process_time()

    def lap(name: str) -> None:
        nonlocal start
        now = time.process_time()
        phases.append((name, now - start))
        start = now

    from seams.project.layout import load_project
    from seams_cli.lifetime import command_model
    lap("import seams, rdflib, lxml")
    project = load_project(root, env={})
    with command_model(project) as model:
        lap("load: TriG parse + BPMN/DMN payloads")
        _check(project, model, lap)
    json.dump(phases, sys.stdout)


def _check(project, model, lap) -> None:
    """The phases of ``seams.checks.all_findings``, one lap each."""
    _ = model.view
    lap("typed view")
    from seams.checks.shapes import shape_findings
    lap("import pyshacl")
    shape_findings(model)
    lap("shapes: pyshacl + Python rules")
    from seams.checks.decisions import decision_findings
    decision_findings(model)
    lap("decision checks")
    from seams.generators.generate import generate_findings
    generate_findings(project, model)
    lap("generators (in memory)")
    from seams.checks.registry import lock_findings
    lock_findings(project, model)
    lap("lock: generated files and drafts")


if __name__ == "__main__":
    main(sys.argv[1])

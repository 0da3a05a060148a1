"""The cost of the type-aware checks in one process: ``python benchmarks/type_checks.py PROJECT REPEATS``.

Prints JSON ``{"seconds": total, "parts": {name: seconds}}``: the model is
loaded and its typed view built first (``seams check`` pays those anyway),
then each new check runs once, cold, as in a check (the variable types and
the memos of domain verdicts are built during that run). The reads check
lives inside the must-be-set dataflow (``seams.checks.flow``), which keeps no
memo, so its cost is the dataflow's best time of ``REPEATS`` with it minus
the best without it; so is the second pass that counts an optional form
field without a default as unset for conditions.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable


def best(repeats: int, action: Callable[[], object]) -> float:
    """The least CPU time of ``repeats`` runs (CPU, not wall: the row compares it with the CPU
    time of a whole ``seams check``, which a busy machine would otherwise blur)."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        action()
        times.append(time.process_time() - start)
    return min(times)


def main(root: str, repeats: int) -> None:
    from seams.checks import flow
    from seams.checks.condition_types import condition_type_findings
    from seams.checks.decision_types import decision_type_findings
    from seams.checks.examples import example_findings
    from seams.checks.field_types import field_type_findings
    from seams.project.layout import load_project
    from seams_cli.lifetime import command_model

    project = load_project(root, env={})
    with command_model(project) as model:
        assert model.view is not None  # built before the timing: seams check builds it for every check
        # once each, cold, in the order seams check runs them: their memos start empty, as in a check
        parts = {
            "examples": best(1, lambda: example_findings(model)),
            "form fields": best(1, lambda: field_type_findings(model)),
            "decision tables": best(1, lambda: decision_type_findings(model)),
            "conditions": best(1, lambda: condition_type_findings(model)),
        }
        with_reads = best(repeats, lambda: flow.upstream_findings(model))
        original = flow._read_findings
        flow._read_findings = lambda *args: iter(())  # type: ignore[assignment]
        try:
            without_reads = best(repeats, lambda: flow.upstream_findings(model))
        finally:
            flow._read_findings = original  # type: ignore[assignment]
        parts["reads on every path"] = max(0.0, with_reads - without_reads)
        # conditions see optional fields without a default as unset: a second dataflow pass for a
        # process whose forms have one (docs/conditions.md); without them the first pass serves
        loose = flow.may_leave_unset
        flow.may_leave_unset = lambda *args: frozenset()  # type: ignore[assignment]
        try:
            without_optional = best(repeats, lambda: flow.upstream_findings(model))
        finally:
            flow.may_leave_unset = loose  # type: ignore[assignment]
        parts["optional fields at conditions"] = max(0.0, with_reads - without_optional)
        unmemoized = _without_memos(model, repeats)
    json.dump({"seconds": sum(parts.values()), "parts": parts, "unmemoized": unmemoized}, sys.stdout)


def _without_memos(model, repeats: int) -> float:
    """The four checks with every memo replaced by the plain function: the cost on a model whose
    processes share no variable domain, cell or condition (the synthetic model repeats one)."""
    from seams.checks import condition_types, decision_types, examples, field_types, types

    memoized = [(types, "_allows"), (types, "_finite_domain"), (types, "_samples"),
                (decision_types, "_entry_verdict"), (decision_types, "output_literal"),
                (condition_types, "_parsed"), (condition_types, "_sound")]
    saved = [(module, name, getattr(module, name)) for module, name in memoized]
    for module, name, function in saved:
        setattr(module, name, function.__wrapped__)
    try:
        def run() -> None:
            types._TYPES.clear()
            examples.example_findings(model)
            field_types.field_type_findings(model)
            decision_types.decision_type_findings(model)
            condition_types.condition_type_findings(model)

        return best(repeats, run)
    finally:
        for module, name, function in saved:
            setattr(module, name, function)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))

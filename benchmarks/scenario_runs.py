"""Time the example's scenarios on the embedded engine against the same calls without it (a child).

``python benchmarks/scenario_runs.py PROJECT REPEATS`` prints JSON: the best
seconds per instance of running every scenario of PROJECT with
seams_runtime.engine (``engine``), and of making the same handler and
decision calls directly (``direct``: for each scenario, the service tasks
its run passed through, each handler imported and called in the same
sandboxed executor with the same inputs and replies, and each decision's
generated function called with the same arguments). Both share one
executor, started before the timing; each is warmed up once.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from seams.model.loading import load_model
from seams.project.layout import load_project
from seams_runtime.engine.prepare import find_process, prepared
from seams_runtime.handler_checks import call_handle
from seams_runtime.sandbox.channel import Executor
from seams_runtime.scenarios import run_scenario, scenario_specs


def main(root: Path, repeats: int) -> dict:
    project = load_project(root)
    model = load_model(project)
    specs = scenario_specs(model)
    with Executor([(project.handlers_dir, project.handlers_dir.name)]) as executor:

        def engine() -> list:
            runs = []
            for spec in specs:
                result, findings = run_scenario(project, model, spec, executor_for=lambda _: executor)
                if findings or result is None:
                    raise SystemExit(f"scenario {spec.plan.label} failed: {[f.line() for f in findings]}")
                runs.append((spec, result))
            return runs

        runs = engine()  # warm: the spec, the conditions and the decisions module are built once
        calls = []  # (kind, what, arguments) per instance, in run order
        for spec, result in runs:
            ready = prepared(project, model, find_process(model, spec.process))
            instance = []
            for step in result.steps:
                if step.kind == "serviceTask":
                    instance.append(("handler", ready.task_spec(ready.process.element_id or "", step.element_id),
                                     spec.plan.replies))
                elif step.kind == "businessRuleTask":
                    decision_calls, namespace, _ = ready.decisions()
                    call = next(c for c in decision_calls.values() if c.decision_id == step.decision)
                    instance.append(("decision", namespace[call.function],
                                     {p: result.variables.get(p) for p in call.parameters}))
            calls.append((instance, result.variables))

        def direct() -> None:
            for instance, variables in calls:
                for kind, what, extra in instance:
                    if kind == "handler":
                        handle, problems = executor.import_handler(what.module, what.module_file)
                        assert not problems, problems
                        _, error, _, _ = call_handle(handle, what.reads, what.bindings, variables, extra)
                        assert error is None, error
                    else:
                        what(**extra)

        direct()
        engine_best = direct_best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            engine()
            engine_best = min(engine_best, time.perf_counter() - start)
            start = time.perf_counter()
            direct()
            direct_best = min(direct_best, time.perf_counter() - start)
    return {"instances": len(specs), "engine": engine_best / len(specs), "direct": direct_best / len(specs)}


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), int(sys.argv[2]))))

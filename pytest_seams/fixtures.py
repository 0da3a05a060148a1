"""Fixtures a project's own tests use: the loaded model, and runs on the embedded engine.

They are what the seams items use, offered to hand-written tests
(docs/plugin.md, "Fixtures"):

* ``seams_project`` / ``seams_model`` (session): the project whose ``seams.toml``
  is nearest above pytest's rootdir, and its loaded model (``SEAMS_MODEL`` honoured);
* ``seams_run``: ``seams_run(process, given=..., answers=..., replies=...)`` runs one
  instance as ``seams run`` does and returns its ``seams.runs.RunResult``;
* ``seams_scenario``: ``seams_scenario(label)`` replays one ``seam:scenario`` and
  returns the run, failing the test with the scenario's findings when it differs.

Nothing heavy is imported until a fixture is used, so the plugin stays light.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest


@pytest.fixture(scope="session")
def seams_project(pytestconfig: pytest.Config) -> Any:
    from seams.errors import SeamsError
    from seams.project.layout import load_project

    try:
        return load_project(pytestconfig.rootpath)
    except SeamsError as exc:
        pytest.fail(f"seams_project: {str(exc).splitlines()[0]}", pytrace=False)


@pytest.fixture(scope="session")
def seams_model(seams_project: Any) -> Any:
    from seams.errors import SeamsError
    from seams.model.loading import load_model

    try:
        return load_model(seams_project)
    except SeamsError as exc:
        pytest.fail(f"seams_model: {str(exc).splitlines()[0]}", pytrace=False)


@pytest.fixture
def seams_run(seams_project: Any, seams_model: Any) -> Callable[..., Any]:
    def run(process: str, *, given: Mapping[str, Any] | None = None,
            answers: Mapping[str, Mapping[str, Any]] | None = None,
            replies: Mapping[str, Any] | None = None) -> Any:
        """One instance of ``process`` (label, BPMN id, prefixed name or IRI); ``answers`` by user
        task BPMN id, each the values its form submits; ``replies`` by binding name (a binding
        left out answers as in the first shown example that gives it a reply, as ``seams run``)."""
        from seams_runtime.engine import run_instance

        def user_task_data(info: Any) -> Mapping[str, Any]:
            """The task's answers judged by its form, as ``seams run --answers`` takes them (a
            date field's ``"2024-05-02"`` a date); a refused value fails the test."""
            from seams.forms import submitted

            data = (answers or {}).get(info.element_id, {})
            task = next((t for t in seams_model.view.tasks.values() if seams_model.qname(t.iri) == info.subject),
                        None)
            try:
                return submitted(seams_model, task, info.fields, data, f"answers for {info.element_id}")
            except ValueError as exc:
                pytest.fail(str(exc), pytrace=False)

        from seams.errors import SeamsError
        from seams_runtime.engine import find_process
        from seams_runtime.run_replies import binding_replies

        try:
            chosen, _ = binding_replies(seams_model, find_process(seams_model, process), replies, option="replies")
        except SeamsError as exc:
            pytest.fail(f"seams_run: {str(exc).splitlines()[0]}", pytrace=False)
        return run_instance(seams_project, seams_model, process, given=dict(given or {}),
                            user_task_data=user_task_data, replies=chosen)
    return run


@pytest.fixture
def seams_scenario(seams_project: Any, seams_model: Any) -> Callable[[str], Any]:
    def replay(label: str) -> Any:
        """The run of the scenario ``label`` (as its pytest item names it); a scenario that
        differs fails the test with its findings, one per line."""
        from seams_runtime.scenarios import run_scenario, scenario_specs

        specs = {spec.item[len("scenario["):-1]: spec for spec in scenario_specs(seams_model)}
        if label not in specs:
            pytest.fail(f"seams_scenario: no scenario {label!r} (scenarios: {', '.join(sorted(specs)) or 'none'})",
                        pytrace=False)
        result, findings = run_scenario(seams_project, seams_model, specs[label])
        if findings:
            pytest.fail("\n".join(finding.line() for finding in findings), pytrace=False)
        return result
    return replay

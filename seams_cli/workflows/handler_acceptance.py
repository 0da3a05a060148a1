"""A handler module judged by its task's acceptance items, in a scratch copy.

``seams propose`` judges a drafted module this way before writing it, and
``seams accept`` judges the module as it is on disk before recording it in
``seams.lock``: the same items, the same scratch copy, the same lines.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

from pytest_seams.expected import expected_items
from pytest_seams.runner import run_session
from seams.checks.clean_text import clean_text_problem
from seams.errors import ProjectError
from seams.fs import atomic_write
from seams.generators.pysource import is_identifier
from seams.model.loading import Model
from seams.model.view import Task
from seams.project.layout import Project
from seams.project.limits import path_text_problem
from seams_cli.verdicts import propose_lines
from seams_cli.workflows.scratch import scratch_project


def target_module(project: Project, model: Model, task: Task) -> Path:
    """``<handlers>/<handler>.py``, refused unless it stays inside the handlers directory."""
    subject = model.qname(task.iri)
    if not task.handler:
        raise ProjectError(f"{subject} seam:handler: the service task names no handler module")
    if not is_identifier(task.handler):
        raise ProjectError(f"{subject} seam:handler: {task.handler!r} is not a module name")
    problem = path_text_problem(f"{task.handler}.py")
    if problem:
        raise ProjectError(f"{subject} seam:handler: {task.handler[:40]}...: the module name {problem}")
    handlers = project.handlers_dir
    target = (handlers / f"{task.handler}.py").resolve()
    if target.parent != handlers:
        raise ProjectError(f"{subject} seam:handler: {project.relative(target)} is outside "
                           f"the handlers directory {project.relative(handlers)}")
    return target


def acceptance_failures(project: Project, model: Model, task: Task, target: Path, draft: str,
                        extra_env: Mapping[str, str] | None = None) -> list[str]:
    """``failed ...`` lines: the module is not clean text, does not parse, or acceptance items
    failed. ``extra_env`` chooses the sandbox the handler runs in (seams_cli.workflows.sandboxing)."""
    module = project.relative(target)
    unclean = clean_text_problem(draft)
    if unclean:
        return [f"failed {module}: {unclean}"]
    try:
        ast.parse(draft, filename=module)
    except SyntaxError as exc:
        return [f"failed {module}: not valid Python: {exc.msg} (line {exc.lineno})"]
    except ValueError as exc:  # a NUL byte, on Pythons that do not call it a SyntaxError
        return [f"failed {module}: not valid Python: {exc}"]
    expected = expected_items(project, model, task=str(task.iri))
    with scratch_project(project, model) as scratch:
        atomic_write(scratch.path_of(project, target), draft.encode("utf-8"))
        result = run_session(scratch.root, select=str(task.iri), timeout=project.config.propose.timeout,
                             env={**scratch.env(), **(extra_env or {})})
        return propose_lines(result, expected, scratch_root=scratch.root, module=module)

"""``seams propose TASK``: draft a handler with the provider; keep it only if it passes (ADR-0020).

Every check that can refuse the command (project, task, target module,
provider, lock) runs before the provider is asked, so a refusal costs
nothing. The answer is tried in a scratch copy of the project; the real
project and ``seams.lock`` change only when every acceptance item of the
task passed there, and then together (the module is restored if the lock
cannot be written). See docs/propose.md for the lines and the cache key.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path

from pytest_seams.acceptance import acceptance_source
from pytest_seams.expected import expected_items
from pytest_seams.runner import ItemResult, run_session
from seams.checks.clean_text import clean_text_problem
from seams.checks.handler_drafts import draft_record, record_draft
from seams.errors import ProjectError, SeamsError
from seams.generators.pysource import is_identifier
from seams.generators.stubs import stub_source
from seams.model.context import context_for
from seams.model.loading import Model, load_model
from seams.model.resolve import resolve_task
from seams.model.view import Task
from seams.project.layout import Project, load_project
from seams.project.lock import atomic_write, read_lock
from seams_cli.llm.prompting import fill, load_template, quote
from seams_cli.llm.provider import (
    add_provider_arguments,
    cache_key,
    cached_answer,
    call_provider,
    chosen_llm_model,
    chosen_provider,
    read_cached,
    say,
    say_provider,
    strip_escapes,
    strip_fence,
    write_cached,
)
from seams_cli.options import add_project_arguments
from seams_cli.workflows.sandboxing import add_sandbox_argument, chosen_sandbox, sandbox_env
from seams_cli.workflows.scratch import scratch_project

__all__ = ["add_arguments", "run", "build_prompt", "call_provider", "quote", "strip_fence"]

TEMPLATE = "draft-v1.txt"
DRAFTS_DIR = "drafts"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("task", metavar="TASK",
                        help="the service task: IRI, prefixed name, BPMN id or handler name")
    add_provider_arguments(parser)
    parser.add_argument("--force", action="store_true", help="replace an existing handler module")
    add_sandbox_argument(parser)
    add_project_arguments(parser)


def build_prompt(manifest: Mapping, *, stub: str, tests: str) -> str:
    """The draft-v1 prompt: the facts (JSON), the BPMN element, the C1 stub and the C2
    tests, each a DATA block. A pure function of its arguments, byte for byte."""
    facts = {key: value for key, value in manifest.items() if key != "bpmn"}
    return fill(load_template(TEMPLATE), {
        "facts": quote(json.dumps(facts, sort_keys=True, indent=2, ensure_ascii=False), label="facts"),
        "bpmn": quote(manifest.get("bpmn") or "(the task has no BPMN element)", label="bpmn"),
        "stub": quote(stub, label="stub"),
        "tests": quote(tests, label="tests"),
    })


def draft_text(answer: str) -> str:
    """The module source an answer stands for: one wrapping fence removed, blank lines
    at either end dropped, one trailing newline (the bytes that are hashed and written)."""
    return strip_fence(answer).strip("\n").rstrip() + "\n"


def run(args: argparse.Namespace) -> int:
    project = load_project(args.project, model=args.model)
    model = load_model(project)
    task = resolve_task(model, args.task)
    target = _target_module(project, model, task)
    module = project.relative(target)
    if target.exists() and not args.force:
        raise SeamsError(f"{module} exists; use --force to replace it")
    provider = chosen_provider(args.provider, project.config)
    llm_model = chosen_llm_model(args.llm_model, project.config)
    read_lock(project)  # a malformed lock fails now, not after a paid call
    sandbox = chosen_sandbox(args.no_sandbox)  # no sandbox, no paid call
    context = context_for(model, task.iri)
    prompt = build_prompt(context.manifest, stub=stub_source(model, task),
                          tests=acceptance_source(project, model, task))

    say(f"task {task.iri}")
    say(f"context {context.hash}")
    say(f"template {TEMPLATE}")
    say_provider(provider, llm_model)
    key = cache_key([context.hash, TEMPLATE, provider], llm_model=llm_model)
    cached_path = project.cache_dir / DRAFTS_DIR / f"{key}.py"
    draft, _ = cached_answer(
        lambda: read_cached(cached_path),
        lambda: draft_text(call_provider(provider, prompt, timeout=project.config.propose.timeout,
                                         llm_model=llm_model, cwd=project.root)),
        lambda text: write_cached(project.cache_dir, cached_path, text))
    data = draft.encode("utf-8")
    digest = hashlib.sha256(data).hexdigest()
    say(f"draft {digest}")

    failures = _rejections(project, model, task, target, draft, sandbox_env(sandbox))
    if failures:
        for line in failures:
            say(line)
        return 1
    say("tests passed")
    _write_accepted(project, target, data, draft_record(
        task=str(task.iri), module=module, context_hash=context.hash, template=TEMPLATE,
        provider=provider, sha256=digest, llm_model=llm_model, sandbox=sandbox.record()))
    say(f"wrote {module}")
    return 0


def _target_module(project: Project, model: Model, task: Task) -> Path:
    """``<handlers>/<handler>.py``, refused unless it stays inside the handlers directory."""
    subject = model.qname(task.iri)
    if not task.handler:
        raise ProjectError(f"{subject} seam:handler: the service task names no handler module")
    if not is_identifier(task.handler):
        raise ProjectError(f"{subject} seam:handler: {task.handler!r} is not a module name")
    handlers = project.handlers_dir
    target = (handlers / f"{task.handler}.py").resolve()
    if target.parent != handlers:
        raise ProjectError(f"{subject} seam:handler: {project.relative(target)} is outside "
                           f"the handlers directory {project.relative(handlers)}")
    return target


def _rejections(project: Project, model: Model, task: Task, target: Path, draft: str,
                extra_env: Mapping[str, str]) -> list[str]:
    """``failed ...`` lines: the draft is not clean text, does not parse, or acceptance items failed."""
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
                             env={**scratch.env(), **extra_env})
        if result.passed_all(expected):
            return []
        lines = [f"failed {item.name}{_reason(item, scratch.root)}" for item in result.failures()]
    outcomes = {item.name: item.outcome for item in result.items}
    lines += [f"failed {name}: {'was skipped' if outcomes.get(name) == 'skipped' else 'did not run'}"
              for name in expected if outcomes.get(name) not in ("passed", "failed", "error")]
    return lines or [f"failed {module}: {result.error or 'the acceptance session did not pass'}"]


def _reason(item: ItemResult, scratch_root: Path) -> str:
    """One safe line about why an item failed: its first finding, else its text."""
    text = item.findings[0].message if item.findings else (item.text or "")
    text = strip_escapes(text).replace(f"{scratch_root}/", "").replace(str(scratch_root), ".")
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = _CONTROL.sub(" ", line)
    return f": {line[:200]}" if line else ""


def _write_accepted(project: Project, target: Path, data: bytes, record: dict[str, str]) -> None:
    """Write the module, then the lock; if the lock fails the module is put back."""
    before = target.read_bytes() if target.exists() else None
    atomic_write(target, data)
    try:
        record_draft(project, record)
    except BaseException:
        if before is None:
            target.unlink(missing_ok=True)
        else:
            atomic_write(target, before)
        raise

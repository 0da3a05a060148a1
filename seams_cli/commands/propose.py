"""``seams propose TASK``: draft a handler with the provider; keep it only if it passes (docs/propose.md).

Every check that can refuse the command (project, task, target module,
provider, lock) runs before the provider is asked, so a refusal costs
nothing. The answer is tried in a scratch copy of the project; the real
project and ``seams.lock`` change only when every acceptance item of the
task passed there, and then together (the module is restored if the lock
cannot be written). See docs/propose.md for the lines and the cache key.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_seams.generated_inputs import contract_text
from seams.checks.handler_drafts import BY_HAND, draft_record, handler_imports, with_draft
from seams.checks.shapes_wellformed import wellformedness_findings
from seams.errors import SeamsError
from seams.generators.stubs import stub_source
from seams.model.context import context_for, shown_facts
from seams.model.loading import Model, load_model
from seams.model.resolve import resolve_task
from seams.model.view import Task
from seams.project.layout import Project, load_project
from seams.project.lock import Lock, lock_bytes, read_lock
from seams.project.project_lock import project_lock
from seams_cli.llm.answer_text import strip_fence
from seams_cli.llm.cache import AnswerCache, cache_key, cached_answer
from seams_cli.llm.options import (
    add_provider_arguments,
    add_refresh_argument,
    add_tries_argument,
    chosen_llm_model,
    chosen_provider,
    chosen_tries,
)
from seams_cli.llm.output import say, say_provider
from seams_cli.llm.process import call_provider
from seams_cli.llm.prompting import fill, load_template, quote
from seams_cli.options import add_project_arguments
from seams_cli.workflows.handler_acceptance import acceptance_failures, target_module
from seams_cli.workflows.sandboxing import add_sandbox_argument, chosen_sandbox, sandbox_env
from seams_edit.files import apply
from seams_edit.undo import undo_dir
from seams_runtime.acceptance_source import acceptance_source
from seams_runtime.sandbox import Sandbox
from seams_runtime.task_specs import task_specs

__all__ = ["add_arguments", "run", "build_prompt", "call_provider", "quote", "strip_fence"]

TEMPLATE = "draft-v2.txt"
FOLLOW_UP = "draft-followup-v1.txt"
DRAFTS_DIR = "drafts"
HELD_OUT_FAILED = "a held-out example failed"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("task", metavar="TASK",
                        help="the service task: IRI, prefixed name, BPMN id or handler name")
    add_provider_arguments(parser)
    add_refresh_argument(parser)
    add_tries_argument(parser)
    parser.add_argument("--force", action="store_true",
                        help="replace an existing handler module that is unchanged since its lock record")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an existing handler module even when it was edited by hand")
    add_sandbox_argument(parser)
    add_project_arguments(parser)


def prompt_values(manifest: Mapping, *, stub: str, tests: str, contract: str = "") -> dict[str, str]:
    """The DATA blocks every draft prompt holds: the facts (JSON, held-out examples left out),
    the BPMN element, the stub, the acceptance tests and the contract in words."""
    facts = shown_facts(manifest)
    return {
        "facts": quote(json.dumps(facts, sort_keys=True, indent=2, ensure_ascii=False), label="facts"),
        "bpmn": quote(manifest.get("bpmn") or "(the task has no BPMN element)", label="bpmn"),
        "stub": quote(stub, label="stub"),
        "tests": quote(tests, label="tests"),
        "contract": quote(contract or "(no contract text)", label="contract"),
    }


def build_prompt(manifest: Mapping, *, stub: str, tests: str, contract: str = "") -> str:
    """The draft-v2 prompt: :func:`prompt_values`, each a DATA block. A pure function of its
    arguments, byte for byte."""
    return fill(load_template(TEMPLATE), prompt_values(manifest, stub=stub, tests=tests, contract=contract))


def build_follow_up(values: Mapping[str, str], *, previous: str, failures: list[str], previous_try: int,
                    tries: int) -> str:
    """The draft-followup-v1 prompt: the draft prompt's blocks, the refused answer and the lines
    it failed with (held-out examples already reduced to :data:`HELD_OUT_FAILED`)."""
    return fill(load_template(FOLLOW_UP), {
        **values, "previous_try": str(previous_try), "tries": str(tries),
        "previous": quote(previous, label="previous answer"),
        "failures": quote("\n".join(failures), label="failed lines"),
    })


def shown_failures(lines: list[str], held_out: list[str]) -> list[str]:
    """The ``failed`` lines a follow-up prompt may show: a line about a held-out example (its item,
    or the contract over it) becomes ``failed: a held-out example failed``, with no label or value."""
    shown: list[str] = []
    for line in lines:
        if any(f"::example[{label}]" in line or f"example {label!r}" in line for label in held_out):
            line = f"failed: {HELD_OUT_FAILED}"
        if line not in shown:
            shown.append(line)
    return shown


def draft_text(answer: str) -> str:
    """The module source an answer stands for: one wrapping fence removed, blank lines
    at either end dropped, one trailing newline (the bytes that are hashed and written)."""
    return strip_fence(answer).strip("\n").rstrip() + "\n"


def run(args: argparse.Namespace) -> int:
    project = load_project(args.project, model=args.model)
    model = load_model(project)
    task = resolve_task(model, args.task)
    target = target_module(project, model, task)
    module = project.relative(target)
    if target.exists() and not args.overwrite:
        _refuse_replacing(task, module, target, read_lock(project), force=args.force)
    provider = chosen_provider(args.provider, project.config)
    llm_model = chosen_llm_model(args.llm_model, project.config)
    read_lock(project)  # a malformed lock fails now, not after a paid call
    malformed = wellformedness_findings(model)  # the acceptance tests validate with these shapes
    if malformed:
        raise SeamsError(f"{malformed[0].line()} (the shapes graph must be well-formed first; "
                         "seams check lists every problem)")
    sandbox = chosen_sandbox(args.no_sandbox)  # no sandbox, no paid call
    tries = chosen_tries(args.tries, project.config)
    context = context_for(model, task.iri)
    (_, spec), = task_specs(project, model, task)
    values = prompt_values(context.manifest, stub=stub_source(model, task),
                           tests=acceptance_source(project, model, task), contract=contract_text(spec))
    held_out = [e.label for e in spec.examples if e.held_out]

    say(f"task {task.iri}")
    say(f"context {context.hash}")
    draft, template, attempt = "", TEMPLATE, 0
    failures: list[str] = []
    for attempt in range(1, tries + 1):
        if tries > 1:
            say(f"try {attempt} of {tries}")
        if attempt == 1:
            template, parts = TEMPLATE, [context.hash, TEMPLATE, provider]
            prompt = fill(load_template(TEMPLATE), values)
            say(f"template {template}")
            say_provider(provider, llm_model)
        else:  # the previous answer and what it failed, held-out examples reduced to one line
            shown = shown_failures(failures, held_out)
            template = FOLLOW_UP
            prompt = build_follow_up(values, previous=draft, failures=shown, previous_try=attempt - 1, tries=tries)
            parts = [context.hash, FOLLOW_UP, provider, f"try {attempt}", _digest(draft), _digest("\n".join(shown))]
            say(f"template {template}")
        draft, failures = _one_try(project, model, task, target, sandbox, provider, llm_model, prompt, parts,
                                   refresh=args.refresh)
        if not failures:
            break
    if failures:
        return 1
    data = draft.encode("utf-8")
    digest = _digest(draft)
    say("tests passed")
    with project_lock(project.root, timeout=project.config.lock_timeout, command="seams propose"):
        # what the draft was tested against must still hold: another command may have written meanwhile
        if target.exists() and not (args.force or args.overwrite):
            raise SeamsError(f"{module} exists; use --force to replace it")
        if context_for(load_model(project), task.iri).hash != context.hash:
            raise SeamsError(f"the model changed while the draft for {model.qname(task.iri)} was tested; "
                             "run seams propose again")
        _write_accepted(project, target, data, draft_record(
            task=str(task.iri), module=module, context_hash=context.hash, template=template,
            provider=provider, sha256=digest, llm_model=llm_model, sandbox=sandbox.record(),
            imports=handler_imports(project, target), attempt=attempt))
    say(f"wrote {module}")
    return 0


def drafts_cache(project: Project) -> AnswerCache:
    """Drafts as ``.seams/drafts/<key>.py`` (docs/propose.md)."""
    return AnswerCache(project.cache_dir, DRAFTS_DIR, ".py")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _one_try(project: Project, model: Model, task: Task, target: Path, sandbox: Sandbox, provider: str,
             llm_model: str | None, prompt: str, parts: list[str], *, refresh: bool) -> tuple[str, list[str]]:
    """One answer, from the cache (its key built from ``parts``) or the provider, judged:
    (draft, failed lines); the lines are printed, and a rejection is remembered beside the entry."""
    key = cache_key(parts, llm_model=llm_model)
    cache = drafts_cache(project)
    draft, _ = cached_answer(
        lambda: cache.read(key),
        lambda: draft_text(call_provider(provider, prompt, timeout=project.config.propose.timeout,
                                         llm_model=llm_model, project_root=project.root)),
        lambda text: cache.write(key, text),
        refresh=refresh, rejected=cache.rejected(key))
    say(f"draft {_digest(draft)}")
    failures = acceptance_failures(project, model, task, target, draft, sandbox_env(sandbox))
    for line in failures:
        say(line)
    if failures:
        cache.mark_rejected(key, failures)
    return draft, failures



def _refuse_replacing(task: Task, module: str, target: Path, lock: Lock, *, force: bool) -> None:
    """An existing module is replaced only with ``--force`` and only while it is the accepted
    draft byte for byte; a hand edit (or a module with no record) needs ``--overwrite``, so
    no edit is ever dropped silently. A module accepted by hand names ``--overwrite`` with or
    without ``--force``, since ``--force`` never replaces it."""
    record = next((r for r in lock.drafts if r.get("task") == str(task.iri) and r.get("module") == module), None)
    if not force and (record is None or record.get("by") != BY_HAND):
        raise SeamsError(f"{module} exists; use --force to replace it")
    if record is not None and record.get("by") == BY_HAND:
        raise SeamsError(f"{module} was reviewed and accepted by hand (seams.lock: \"by\": \"hand\"); "
                         f"--force never replaces it: use --overwrite to replace it (seams undo takes it back)")
    if record is not None and record.get("sha256") == hashlib.sha256(target.read_bytes()).hexdigest():
        return
    why = "was edited since its record in seams.lock" if record is not None else "has no record in seams.lock"
    raise SeamsError(f"{module} {why}; run seams accept {task.handler} to keep it as it is, "
                     f"or --overwrite to replace it")


def _write_accepted(project: Project, target: Path, data: bytes, record: dict[str, Any]) -> None:
    """Write the module and the lock (re-read now, under the project lock) together, or neither,
    through the one write path: ``seams undo`` puts back the module it replaced (or removes
    the new one) and the lock as they were."""
    lock = lock_bytes(with_draft(read_lock(project), record))
    apply(project.root, {target: data, project.lock_path: lock}, undo_dir=undo_dir(project.root))

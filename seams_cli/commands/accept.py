"""``seams accept TASK``: record a hand-edited (or hand-written) handler in ``seams.lock``.

``handlers/`` is hand-owned: after a person edits an accepted draft, ``seams
check`` reports ``draft-hand-edited`` until the lock knows the new bytes.
This command is the way back to green. It runs the task's acceptance items
on the module as it is now, in a scratch copy exactly as ``seams propose``
judges a draft, and only if they all pass records the module: a record with
``"by": "hand"`` and no provider or template, so ``draft-stale`` still fires
when a fact the handler depends on changes later. A drafted module that is
byte for byte its record and only stale keeps its drafted record, with the
new context hash (``refreshed``): nobody wrote it by hand. Lines: docs/propose.md.
"""

from __future__ import annotations

import argparse
import hashlib

from seams.checks.handler_drafts import BY_HAND, hand_record, handler_imports, record_draft
from seams.errors import ProjectError
from seams.model.context import context_for
from seams.model.loading import load_model
from seams.model.resolve import resolve_task
from seams.project.layout import load_project
from seams.project.lock import read_lock
from seams.project.project_lock import project_lock
from seams_cli.llm.output import say
from seams_cli.options import add_project_arguments
from seams_cli.workflows.handler_acceptance import acceptance_failures, target_module
from seams_cli.workflows.sandboxing import add_sandbox_argument, chosen_sandbox, sandbox_env


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("task", metavar="TASK",
                        help="the service task: IRI, prefixed name, BPMN id or handler name")
    add_sandbox_argument(parser)
    add_project_arguments(parser)


def run(args: argparse.Namespace) -> int:
    project = load_project(args.project, model=args.model)
    model = load_model(project)
    task = resolve_task(model, args.task)
    target = target_module(project, model, task)
    module = project.relative(target)
    if not target.is_file():
        raise ProjectError(f"{module}: no such handler module; run seams propose {task.handler}, "
                           f"or copy generated/stubs/{task.handler}.py there and write its body")
    read_lock(project)  # a malformed lock fails before the session, not after
    sandbox = chosen_sandbox(args.no_sandbox)
    data = target.read_bytes()
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProjectError(f"{module}: not UTF-8 (byte {exc.start})") from None
    context = context_for(model, task.iri)
    digest = hashlib.sha256(data).hexdigest()
    say(f"task {task.iri}")
    say(f"context {context.hash}")
    say(f"module {module} {digest}")
    failures = acceptance_failures(project, model, task, target, source, sandbox_env(sandbox))
    if failures:
        for line in failures:
            say(line)
        return 1
    say("tests passed")
    if target.read_bytes() != data:  # edited again while its tests ran: that version was not judged
        raise ProjectError(f"{module} changed while its tests ran; run seams accept {task.handler} again")
    with project_lock(project.root, timeout=project.config.lock_timeout, command="seams accept"):
        imports = handler_imports(project, target)
        previous = next((r for r in read_lock(project).drafts
                         if r.get("task") == str(task.iri) and r.get("module") == module), None)
        if previous is not None and previous.get("by") != BY_HAND and previous.get("sha256") == digest:
            # an untouched draft that is only stale: still the provider's draft, now for this context
            record = {**previous, "context_hash": context.hash}
            record.pop("imports", None)
            if imports:
                record["imports"] = dict(sorted(imports.items()))
            record_draft(project, record)
            say(f"refreshed {module} (the draft is unchanged; its record now has this context)")
            return 0
        record_draft(project, hand_record(task=str(task.iri), module=module, context_hash=context.hash,
                                          sha256=digest, imports=imports))
    say(f"recorded {module}")
    return 0

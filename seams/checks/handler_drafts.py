"""Accepted drafts in ``seams.lock``, and when they need another look (the lock of
docs/architecture.md, D-handler-contract).

A drafted handler is hand-owned once accepted, but it was written from a
set of facts. The lock keeps the hash of those facts (the context hash)
and of the file, so ``seams check`` can say when the model moved under the
draft (``draft-stale``) and when someone changed or removed the file
(``draft-hand-edited``). Both are problems: the draft deserves review.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from rdflib import URIRef

from seams import vocab as V
from seams.errors import ProjectError
from seams.findings import Finding
from seams.model.context import context_for
from seams.project.lock import Lock, read_lock, write_lock

if TYPE_CHECKING:
    from seams.model.loading import Model
    from seams.project.layout import Project

REQUIRED = ("task", "module", "context_hash", "sha256")
DRAFTED = ("template", "provider")  # required too, except on a record written by hand
BY_HAND = "hand"


def draft_record(*, task: str, module: str, context_hash: str, template: str, provider: str,
                 sha256: str, llm_model: str | None = None, sandbox: str | None = None,
                 imports: dict[str, str] | None = None, attempt: int = 1) -> dict[str, Any]:
    """One lock record (docs/propose.md); ``model`` only when an LLM model was named, so locks
    written before the amendment keep their bytes; ``sandbox`` names the sandbox that
    judged the draft (``none`` for ``--no-sandbox``; absent in older locks); ``imports``
    the sha256 of each project module the handler imports (seams.checks.handler_imports),
    only when it imports one; ``try`` the try of ``seams propose --tries`` that was
    accepted, only when it was not the first."""
    record: dict[str, Any] = {"task": task, "module": module, "context_hash": context_hash, "template": template,
                              "provider": provider, "sha256": sha256}
    if attempt > 1:
        record["try"] = attempt
    if llm_model:
        record["model"] = llm_model
    if sandbox:
        record["sandbox"] = sandbox
    if imports:
        record["imports"] = dict(sorted(imports.items()))
    return record


def hand_record(*, task: str, module: str, context_hash: str, sha256: str,
                imports: dict[str, str] | None = None) -> dict[str, Any]:
    """The record ``seams accept`` writes for a module a person wrote or edited: no provider,
    no template, ``"by": "hand"``; the context hash still makes ``draft-stale`` fire later."""
    record: dict[str, Any] = {"task": task, "module": module, "context_hash": context_hash, "sha256": sha256,
                              "by": BY_HAND}
    if imports:
        record["imports"] = dict(sorted(imports.items()))
    return record


def handler_imports(project: Project, target: Path) -> dict[str, str]:
    """The project modules the handler module ``target`` imports, with their sha256."""
    from seams.checks.handler_imports import project_imports

    return project_imports(project.handlers_dir.parent, target, project.root)


def with_draft(lock: Lock, record: dict[str, Any]) -> Lock:
    """A copy of ``lock`` whose draft for ``record``'s task is ``record`` (added or replaced)."""
    drafts = [d for d in lock.drafts if d.get("task") != record["task"]]
    drafts.append(record)
    return Lock(drafts=sorted(drafts, key=lambda d: str(d.get("task", ""))),
                generated=dict(lock.generated))


def record_draft(project: Project, record: dict[str, Any]) -> None:
    """Add or replace the task's record in ``seams.lock`` (atomic; other records kept)."""
    write_lock(project, with_draft(read_lock(project), record))


def _records(project: Project) -> list[dict[str, str]]:
    records = read_lock(project).drafts
    for index, record in enumerate(records):
        needed = REQUIRED if record.get("by") == BY_HAND else REQUIRED + DRAFTED
        for key in needed:
            if not isinstance(record.get(key), str):
                raise ProjectError(f"{project.lock_path.name}: drafts[{index}] needs a string {key}")
    return records


def draft_findings(project: Project, model: Model) -> list[Finding]:
    """``draft-stale`` (the task is gone, or its context hash moved) for every record,
    then ``draft-hand-edited`` (the file is missing or its sha256 moved)."""
    return draft_findings_with(project, lambda iri: draft_context_hash(model, iri), model.qname)


def draft_context_hash(model: Model, iri: URIRef) -> str | None:
    """The context hash a draft of ``iri`` is held to; None when it is no service task of the model."""
    task = model.view.tasks.get(iri)
    if task is None or task.kind != V.ServiceTask:
        return None
    return context_for(model, iri).hash


def drafted_tasks(project: Project) -> list[URIRef]:
    """The tasks seams.lock records a draft of."""
    return [URIRef(record["task"]) for record in _records(project)]


def draft_findings_with(project: Project, context_hash: Callable[[URIRef], str | None],
                        qname: Callable[[URIRef], str]) -> list[Finding]:
    """:func:`draft_findings` with each task's context hash found by ``context_hash`` (the
    whole model's, or the one kept for its component by seams.checks.incremental)."""
    stale, edited = [], []
    for record in _records(project):
        iri = URIRef(record["task"])
        module = record["module"]
        handler = PurePosixPath(module).stem
        found = context_hash(iri)
        if found is None:
            stale.append(Finding("draft-stale", qname(iri), None,
                                 f"the task of the draft {module} no longer resolves; "
                                 "review the draft and its lock record"))
        elif found != record["context_hash"]:
            # --force never replaces a module accepted by hand (docs/propose.md): its line names --overwrite
            stale.append(Finding("draft-stale", qname(iri), None, (
                f"a fact the handler {module} was accepted against changed; review it, then run seams accept "
                f"{handler} (or seams propose {handler} --overwrite for a new draft; seams undo takes it back)"
                if record.get("by") == BY_HAND else
                f"a fact the draft {module} was written from changed; review it, then run seams accept "
                f"{handler} (or seams propose {handler} --force for a new draft)")))
        edited.extend(_edit_findings(project, module, record["sha256"], handler))
        edited.extend(_import_findings(project, module, record.get("imports"), handler))
    return stale + edited


def _import_findings(project: Project, module: str, imports: object, handler: str) -> list[Finding]:
    """``draft-hand-edited`` for each project module the accepted handler imports that changed."""
    if not isinstance(imports, dict):
        return []
    findings = []
    for relative, sha256 in sorted(imports.items()):
        if not isinstance(relative, str) or not isinstance(sha256, str):
            raise ProjectError(f"{project.lock_path.name}: the imports of {module} must map paths to sha256")
        for finding in _edit_findings(project, relative, sha256, handler):
            findings.append(Finding("draft-hand-edited", module, None,
                                    f"{relative}, which the accepted draft imports: {finding.message}"))
    return findings


def _edit_findings(project: Project, module: str, sha256: str, handler: str) -> list[Finding]:
    path = (project.root / module).resolve()
    if project.root not in path.parents:
        raise ProjectError(f"{project.lock_path.name}: draft module {module} leads outside the project")
    try:
        actual = hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return [Finding("draft-hand-edited", module, None,
                        f"the accepted draft is missing; restore it, or run seams propose {handler}")]
    except OSError as exc:
        return [Finding("draft-hand-edited", module, None, f"cannot read the draft: {exc.strerror}")]
    if actual != sha256:
        return [Finding("draft-hand-edited", module, None,
                        "the file changed since its draft was accepted; review it, "
                        f"then run seams accept {handler} to record it")]
    return []

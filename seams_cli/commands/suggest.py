"""``seams suggest``: ask the provider for a model change, check it, keep it pending; list; accept.

The LLM only proposes (ADR-0028): its answer is parsed and validated
(seams.suggest.answer), the change is built by code (seams.suggest.build),
checked in a scratch copy (shapes, decisions, generation) and by running both
versions of the gateway on sample inputs (routing kept), and stored under
``.seams/suggestions/<id>/``. Only ``--accept ID`` writes the model, through
seams_edit with undo. Output lines and exit codes: docs/suggest.md.
"""

from __future__ import annotations

import argparse

from seams.errors import GeneratorError, ResolutionError
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.project.project_lock import project_lock
from seams.suggestions.answer import KIND, parse_answer, parse_object
from seams.suggestions.candidates import candidate_for, find_candidates
from seams.suggestions.routing import check_routing
from seams_cli.llm.provider import (
    add_provider_arguments,
    cached_answer,
    call_provider,
    chosen_llm_model,
    chosen_provider,
    say,
    say_provider,
    strip_fence,
)
from seams_cli.options import add_project_arguments
from seams_cli.workflows.suggest.build import build_change, change_files
from seams_cli.workflows.suggest.prompt import TEMPLATE, build_prompt
from seams_cli.workflows.suggest.scratch_check import check_in_scratch
from seams_cli.workflows.suggest.store import (
    ID_PATTERN,
    Pending,
    cache_key,
    file_hashes,
    list_pending,
    load_pending,
    read_cache,
    remove_pending,
    store_pending,
    suggestion_id,
    unified_diff,
    verify_stored,
    write_cache,
)
from seams_edit import apply
from seams_edit.files import read_or_none
from seams_edit.undo import undo_dir

EXIT_CODES = {ResolutionError: 1}
"""A name in the answer (or an id) the model does not have is a rejection (exit 1), not a usage error."""
NO_CANDIDATES = "no candidates: every gateway condition reads decision outputs"


def suggestion_id_argument(text: str) -> str:
    """Refuse anything but 64 lowercase hex digits before a path is built from it."""
    if not ID_PATTERN.match(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a suggestion id (64 lowercase hex digits)")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true",
                      help="list pending suggestions: id, kind, gateway, fresh|stale")
    mode.add_argument("--accept", metavar="ID", type=suggestion_id_argument,
                      help="apply a pending suggestion through seams_edit (seams undo reverts it)")
    parser.add_argument("--kind", choices=[KIND], default=KIND, help=f"the kind of change (default: {KIND})")
    add_provider_arguments(parser)
    add_project_arguments(parser)


def run(args: argparse.Namespace) -> int:
    project = load_project(args.project, model=args.model)
    llm_model = chosen_llm_model(args.llm_model, project.config)  # an empty name is refused in every mode
    if args.list:
        return _list(project)
    if args.accept:
        # under the lock: a second accept of the same id waits, then finds it gone
        with project_lock(project.root, timeout=project.config.lock_timeout, command="seams suggest"):
            return _accept(project, args.accept)
    return _suggest(project, args, llm_model)


def _suggest(project, args: argparse.Namespace, llm_model: str | None) -> int:
    model = load_model(project)
    candidates = find_candidates(model)
    if not candidates:
        say(NO_CANDIDATES)
        return 0
    provider = chosen_provider(args.provider, project.config)
    prompt = build_prompt(model, candidates)
    say(f"template {TEMPLATE}")
    say_provider(provider, llm_model)
    key = cache_key(model.hash, TEMPLATE, provider, llm_model)
    about = {"model_hash": model.hash, "template": TEMPLATE, "provider": provider,
             **({"llm_model": llm_model} if llm_model else {})}
    response, _ = cached_answer(
        lambda: read_cache(project, key),
        lambda: call_provider(provider, prompt, timeout=project.config.propose.timeout,
                              llm_model=llm_model, cwd=project.root),
        lambda text: write_cache(project, key, text, about))

    suggestion = parse_answer(strip_fence(response), model, candidates)
    say(f"gateway {suggestion.gateway}")
    files = change_files(model, build_change(model, suggestion))
    routing = check_routing(model, candidate_for(candidates, model, suggestion.gateway), suggestion)
    if routing.findings:  # cheap and decisive: no scratch session for a table that routes wrongly
        _verdict(False, "routing", [f.line() for f in routing.findings],
                 failed=f"routing changed ({routing.samples} samples)")
    verdicts = {v.gate: v for v in check_in_scratch(project, model, files)}
    for gate in ("shapes", "decisions"):
        _verdict(verdicts[gate].passed, gate, verdicts[gate].lines)
    say(f"routing kept ({routing.samples} samples)")
    _verdict(verdicts["generate"].passed, "generate", verdicts["generate"].lines)

    ident = suggestion_id(model.hash, TEMPLATE, provider, response, llm_model)
    old = {path: read_or_none(path) for path in files}
    relpaths = {path: project.relative(path) for path in files}
    diffs = {relpaths[p]: unified_diff(relpaths[p], old[p], data) for p, data in files.items()}
    pending = Pending(id=ident, kind=suggestion.kind, gateway=suggestion.gateway, model_hash=model.hash,
                      template=TEMPLATE, provider=provider, llm_model=llm_model,
                      files=tuple(sorted(relpaths.values())), suggestion=suggestion.as_json(),
                      hashes={relpaths[p]: file_hashes(old[p], data, diffs[relpaths[p]]) for p, data in files.items()})
    store_pending(project, pending, diffs)
    for relpath in pending.files:
        say(f"changed {relpath}")
    say(f"suggestion {ident}")
    return 0


def _verdict(ok: bool, gate: str, lines, *, failed: str | None = None) -> None:
    """Print the gate's verdict; a failure is a rejection listing each finding's line."""
    if ok:
        say(f"{gate} passed")
        return
    say(failed or f"{gate} failed")
    raise GeneratorError(f"suggestion rejected: {gate} failed in the changed model", details=list(lines))


def _list(project) -> int:
    pending = list_pending(project)
    if not pending:
        say("no pending suggestions")
        return 0
    current = load_model(project).hash
    for entry in pending:
        say(f"{entry.id} {entry.kind} {entry.gateway} {'fresh' if entry.model_hash == current else 'stale'}")
    return 0


def _accept(project, ident: str) -> int:
    entry = load_pending(project, ident)
    model = load_model(project)
    if entry.model_hash != model.hash:
        raise GeneratorError(f"suggestion {ident} is stale: the model changed since it was made; "
                             f"run seams suggest again")
    candidates = find_candidates(model)
    suggestion = parse_object(entry.suggestion, model, candidates)
    # The stored suggestion is a file under .seams/; the routing check is cheap, so it runs
    # again rather than trusting that the file is the one the checks passed.
    routing = check_routing(model, candidate_for(candidates, model, suggestion.gateway), suggestion)
    if routing.findings:
        raise GeneratorError(f"suggestion {ident} does not keep the routing of {suggestion.gateway}",
                             details=[f.line() for f in routing.findings])
    files = change_files(model, build_change(model, suggestion))
    verify_stored(project, entry, files)  # exactly the bytes whose diffs were stored, or nothing
    record = apply(project.root, files, undo_dir=undo_dir(project.root))
    say(f"applied {ident}")
    for path in sorted(project.relative(p) for p in record.changed):
        say(f"wrote {path}")
    remove_pending(project, ident)
    return 0

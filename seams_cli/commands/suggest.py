"""``seams suggest``: ask the provider for a model change, check it, keep it pending; list; accept.

The LLM only proposes (docs/architecture.md, D-llm-proposes): its answer is parsed and validated
(seams.suggestions.answer), the change is built by code (seams_cli.workflows.suggest.build),
checked in a scratch copy by one pytest session of the model gates (shapes,
decisions, generation) and the routing item, which runs both versions of the
gateway on sample inputs (routing kept), and stored under
``.seams/suggestions/<id>/``. Only ``--accept ID`` writes the model, through
seams_edit with undo. Output lines and exit codes: docs/suggest.md.
"""

from __future__ import annotations

import argparse
import hashlib
from dataclasses import replace

from seams.errors import GeneratorError, ResolutionError
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.project.project_lock import project_lock
from seams.suggestions.answer import KIND, parse_answer, parse_object
from seams.suggestions.candidates import candidate_for, find_candidates
from seams.suggestions.routing import original_conditions
from seams_cli.llm.answer_text import strip_fence
from seams_cli.llm.cache import cache_key as key_of
from seams_cli.llm.cache import cached_answer
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
from seams_cli.llm.prompting import fill, load_template
from seams_cli.options import add_project_arguments
from seams_cli.workflows.suggest.build import build_change, change_files
from seams_cli.workflows.suggest.prompt import FOLLOW_UP, TEMPLATE, build_follow_up, prompt_values
from seams_cli.workflows.suggest.review import review_page, show, write_review
from seams_cli.workflows.suggest.scratch_check import check_in_scratch
from seams_cli.workflows.suggest.store import (
    PREFIX_PATTERN,
    Pending,
    answer_cache,
    cache_key,
    file_hashes,
    list_pending,
    load_pending,
    remove_pending,
    resolve_id,
    store_pending,
    suggestion_id,
    unified_diff,
    verify_stored,
)
from seams_edit import apply
from seams_edit.files import read_or_none
from seams_edit.undo import undo_dir

EXIT_CODES = {ResolutionError: 1}
"""A name in the answer (or an id) the model does not have is a rejection (exit 1), not a usage error."""
NO_CANDIDATES = "no candidates: every gateway condition reads decision outputs"
SHORT_ID = 12  # hex digits of the id shown in the accept hint: unique in practice, short to type


def suggestion_id_argument(text: str) -> str:
    """Refuse anything but 6 to 64 lowercase hex digits (an id or a prefix of one) before
    a path is built from it."""
    if not PREFIX_PATTERN.match(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a suggestion id (6 to 64 lowercase hex digits: an id or a unique prefix)")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true",
                      help="list pending suggestions: id, kind, gateway, fresh|stale")
    mode.add_argument("--accept", metavar="ID", type=suggestion_id_argument,
                      help="apply a pending suggestion (its id, or a unique prefix of at least 6 hex digits) "
                           "through seams_edit (seams undo reverts it)")
    mode.add_argument("--show", metavar="ID", type=suggestion_id_argument,
                      help="write the review page of a pending suggestion (diagrams before and after, tables, "
                           "conditions, routing samples, diffs) and print where it is")
    parser.add_argument("--kind", choices=[KIND], default=KIND, help=f"the kind of change (default: {KIND})")
    add_provider_arguments(parser)
    add_refresh_argument(parser)
    add_tries_argument(parser)
    add_project_arguments(parser)


def run(args: argparse.Namespace) -> int:
    project = load_project(args.project, model=args.model)
    llm_model = chosen_llm_model(args.llm_model, project.config)  # an empty name is refused in every mode
    if args.list:
        return _list(project)
    if args.show:
        return show(project, resolve_id(project, args.show))
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
    tries = chosen_tries(args.tries, project.config)
    values = prompt_values(model, candidates)
    previous: tuple[str, list[str]] | None = None  # the rejected response and its lines
    for attempt in range(1, tries + 1):
        if tries > 1:
            say(f"try {attempt} of {tries}")
        if previous is None:
            template, prompt = TEMPLATE, fill(load_template(TEMPLATE), values)
            key = cache_key(model.hash, TEMPLATE, provider, llm_model)
        else:
            template = FOLLOW_UP
            prompt = build_follow_up(values, previous=previous[0], failures=previous[1], previous_try=attempt - 1,
                                     tries=tries)
            key = key_of([model.hash, FOLLOW_UP, provider, f"try {attempt}", _digest(previous[0]),
                          _digest("\n".join(previous[1]))], llm_model=llm_model)
        say(f"template {template}")
        if attempt == 1:
            say_provider(provider, llm_model)
        about = {"model_hash": model.hash, "template": template, "provider": provider,
                 **({"llm_model": llm_model} if llm_model else {})}
        response = _answer(project, key, prompt, about, provider, llm_model, refresh=args.refresh)
        try:
            ident = _check(project, model, candidates, response, provider, llm_model, template)
            break
        except (GeneratorError, ResolutionError) as exc:
            # a verdict on the answer: a re-run says the cached answer was rejected before
            lines = [str(exc), *getattr(exc, "details", ())]
            answer_cache(project).mark_rejected(key, lines)
            if attempt == tries:
                raise
            for line in lines:
                say(f"failed {line}")
            previous = (response, lines)
    say(f"accept with: seams suggest --accept {ident[:SHORT_ID]}")
    return 0


def _answer(project, key: str, prompt: str, about: dict[str, str], provider: str, llm_model: str | None, *,
            refresh: bool) -> str:
    """One try's response: cached under ``key``, else the provider's (then cached at once)."""
    cache = answer_cache(project)
    response, _ = cached_answer(
        lambda: cache.read(key),
        lambda: call_provider(provider, prompt, timeout=project.config.propose.timeout,
                              llm_model=llm_model, project_root=project.root),
        lambda text: cache.write(key, text, about),
        refresh=refresh, rejected=cache.rejected(key))
    return response


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check(project, model, candidates, response: str, provider: str, llm_model: str | None,
           template: str = TEMPLATE) -> str:
    """Parse, build and check the answer; store it as pending; its id."""
    suggestion = parse_answer(strip_fence(response), model, candidates)
    say(f"gateway {suggestion.gateway}")
    candidate = candidate_for(candidates, model, suggestion.gateway)
    files = change_files(model, build_change(model, suggestion))
    ident = suggestion_id(model.hash, template, provider, response, llm_model)
    relpaths = {path: project.relative(path) for path in files}
    old = {path: read_or_none(path) for path in files}
    diffs = {relpaths[p]: unified_diff(relpaths[p], old[p], data) for p, data in files.items()}
    pending = Pending(id=ident, kind=suggestion.kind, gateway=suggestion.gateway, model_hash=model.hash,
                      template=template, provider=provider, llm_model=llm_model,
                      files=tuple(sorted(relpaths.values())), suggestion=suggestion.as_json(),
                      original_conditions=original_conditions(candidate),
                      hashes={relpaths[p]: file_hashes(old[p], data, diffs[relpaths[p]]) for p, data in files.items()})
    verdicts = check_in_scratch(project, model, files, pending.record())
    routing = verdicts["routing"]
    samples = routing.facts.get("samples")
    if not routing.passed:  # the most telling verdict first: a table that routes wrongly
        _verdict(False, "routing", routing.lines,
                 failed=f"routing changed ({samples} samples)" if samples is not None else None)
    for gate in ("shapes", "decisions"):
        _verdict(verdicts[gate].passed, gate, verdicts[gate].lines)
    say(f"routing kept ({samples} samples)")
    _verdict(verdicts["generate"].passed, "generate", verdicts["generate"].lines)
    store_pending(project, pending, diffs)
    for relpath in pending.files:
        say(f"would change {relpath}")
    say(f"suggestion {ident}")
    return ident


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


def _accept(project, prefix: str) -> int:
    ident = resolve_id(project, prefix)
    entry = load_pending(project, ident)
    model = load_model(project)
    if entry.model_hash != model.hash:
        raise GeneratorError(f"suggestion {ident} is stale: the model changed since it was made; "
                             f"run seams suggest again")
    candidates = find_candidates(model)
    suggestion = parse_object(entry.suggestion, model, candidates)
    # The stored suggestion is a file under .seams/, so the scratch session that judged it
    # runs again on it (model gates and routing) rather than trusting that it is the same file;
    # the original conditions come from the model itself (unchanged: the suggestion is fresh).
    files = change_files(model, build_change(model, suggestion))
    original = original_conditions(candidate_for(candidates, model, suggestion.gateway))
    verdicts = check_in_scratch(project, model, files, replace(entry, original_conditions=original).record())
    if not verdicts["routing"].passed:
        raise GeneratorError(f"suggestion {ident} does not keep the routing of {suggestion.gateway}",
                             details=list(verdicts["routing"].lines))
    for verdict in verdicts.values():
        if not verdict.passed:
            raise GeneratorError(f"suggestion {ident}: {verdict.gate} failed in the changed model",
                                 details=list(verdict.lines))
    verify_stored(project, entry, files)  # exactly the bytes whose diffs were stored, or nothing
    page = review_page(project, model, entry)  # made while the "before" files are still there
    record = apply(project.root, files, undo_dir=undo_dir(project.root))
    say(f"applied {ident}")
    for path in sorted(project.relative(p) for p in record.changed):
        say(f"wrote {path}")
    remove_pending(project, ident)
    say(f"review {project.relative(write_review(project, page, ident))}")
    return 0

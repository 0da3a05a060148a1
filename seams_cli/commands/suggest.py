"""``seams suggest``: ask the provider for model changes, check them, keep them pending; list; accept.

The LLM only proposes (docs/architecture.md, D-llm-proposes). For each kind
of change (seams_cli.workflows.suggest.kinds: condition-to-dmn, merge-shapes,
gist-anchor) the model offers candidates for, its answer is parsed and
validated (seams.suggestions), the change is built by code, checked in a
scratch copy by one pytest session of the model gates of the gate registry
and the kind's own gate (routing kept, forms kept), and stored under
``.seams/suggestions/<id>/``. Only ``--accept ID`` writes the model, through
seams_edit with undo. Output lines and exit codes: docs/suggest.md.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from dataclasses import replace

from seams.checks.registry import MODEL_GATES
from seams.errors import GeneratorError, ResolutionError, SeamsError
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.project.project_lock import project_lock
from seams.suggestions.answer import KIND, decode_answer
from seams.suggestions.kinds import KIND_NAMES
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
from seams_cli.options import add_project_arguments
from seams_cli.workflows.suggest.build import change_files
from seams_cli.workflows.suggest.kinds import FLOWS, KindFlow
from seams_cli.workflows.suggest.prompt import FOLLOW_UP, build_follow_up, prompt_values
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

EXIT_CODES: dict[type, int] = {ResolutionError: 1}
"""A name in the answer (or an id) the model does not have is a rejection (exit 1), not a usage error."""
NO_CANDIDATES = FLOWS[KIND].no_candidates
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
                      help="list pending suggestions: id, kind, subject, fresh|stale")
    mode.add_argument("--accept", metavar="ID", type=suggestion_id_argument,
                      help="apply a pending suggestion (its id, or a unique prefix of at least 6 hex digits) "
                           "through seams_edit (seams undo reverts it)")
    mode.add_argument("--show", metavar="ID", type=suggestion_id_argument,
                      help="write the review page of a pending suggestion (diagrams before and after, tables, "
                           "conditions, routing samples, diffs) and print where it is")
    parser.add_argument("--kind", choices=list(KIND_NAMES), default=None,
                        help="ask for this kind of change only (default: every kind the model has candidates for)")
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
    flows = [FLOWS[args.kind]] if args.kind else list(FLOWS.values())
    offered = [(flow, candidates) for flow in flows if (candidates := flow.find(model))]
    if not offered:
        for flow in flows:
            say(flow.no_candidates)
        return 0
    provider = chosen_provider(args.provider, project.config)
    code = 0
    for flow, candidates in offered:
        if len(offered) == 1:
            return _offer(project, model, flow, candidates, args, provider, llm_model)
        try:  # several kinds: a refused one is reported and the others still offered
            _offer(project, model, flow, candidates, args, provider, llm_model)
        except SeamsError as exc:
            print(f"seams suggest: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
                  file=sys.stderr)
            for line in exc.details:
                print(line, file=sys.stderr)
            code = max(code, 1 if isinstance(exc, ResolutionError) else exc.exit_code)  # as EXIT_CODES
    return code


def _offer(project, model, flow: KindFlow, candidates: list, args: argparse.Namespace, provider: str,
           llm_model: str | None) -> int:
    """Ask for, check and store one suggestion of ``flow``'s kind. ``--tries`` asks again
    with the versioned follow-up prompt (the rejected answer and its lines) for
    condition-to-dmn, the kind that has one (docs/suggest.md)."""
    tries = chosen_tries(args.tries, project.config) if flow.name == KIND else 1
    previous: tuple[str, list[str]] | None = None  # the rejected response and its lines
    for attempt in range(1, tries + 1):
        if tries > 1:
            say(f"try {attempt} of {tries}")
        if previous is None:
            template, prompt = flow.template, flow.prompt(model, candidates)
            key = cache_key(model.hash, flow.template, provider, llm_model, flow.key_extra)
        else:
            template = FOLLOW_UP
            prompt = build_follow_up(prompt_values(model, candidates), previous=previous[0], failures=previous[1],
                                     previous_try=attempt - 1, tries=tries)
            key = key_of([model.hash, FOLLOW_UP, provider, f"try {attempt}", _digest(previous[0]),
                          _digest("\n".join(previous[1]))], llm_model=llm_model)
        say(f"template {template}")
        if attempt == 1:
            say_provider(provider, llm_model)
        about = {"model_hash": model.hash, "template": template, "provider": provider,
                 **({"llm_model": llm_model} if llm_model else {}),
                 **({"extra": " ".join(flow.key_extra)} if flow.key_extra and previous is None else {})}
        cache = answer_cache(project)
        response, _ = cached_answer(
            lambda: cache.read(key),  # noqa: B023 (called at once, in this iteration)
            lambda: call_provider(provider, prompt, timeout=project.config.propose.timeout,  # noqa: B023
                                  llm_model=llm_model, project_root=project.root),
            lambda text: cache.write(key, text, about),  # noqa: B023
            refresh=args.refresh, rejected=cache.rejected(key))
        try:
            ident = _check(project, model, flow, candidates, response, provider, llm_model, template)
            break
        except (GeneratorError, ResolutionError) as exc:
            # a verdict on the answer: a re-run says the cached answer was rejected before
            lines = [str(exc), *exc.details]
            cache.mark_rejected(key, lines)
            if attempt == tries:
                raise
            for line in lines:
                say(f"failed {line}")
            previous = (response, lines)
    say(f"accept with: seams suggest --accept {ident[:SHORT_ID]}")
    return 0


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check(project, model, flow: KindFlow, candidates: list, response: str, provider: str,
           llm_model: str | None, template: str | None = None) -> str:
    """Parse, build and check the answer; store it as pending; its id."""
    suggestion = flow.parse(decode_answer(strip_fence(response)), model, candidates)
    for line in flow.said(model, suggestion):
        say(line)
    files = change_files(model, flow.build(model, suggestion))
    template = template or flow.template
    ident = suggestion_id(model.hash, template, provider, response, llm_model, flow.key_extra)
    relpaths = {path: project.relative(path) for path in files}
    old = {path: read_or_none(path) for path in files}
    diffs = {relpaths[p]: unified_diff(relpaths[p], old[p], data) for p, data in files.items()}
    extra = flow.record(model, candidates, suggestion)
    pending = Pending(id=ident, kind=flow.name, subject=flow.subject(model, suggestion), model_hash=model.hash,
                      template=template, provider=provider, llm_model=llm_model,
                      files=tuple(sorted(relpaths.values())), suggestion=suggestion.as_json(),
                      original_conditions=extra.pop("original_conditions", None),
                      hashes={relpaths[p]: file_hashes(old[p], data, diffs[relpaths[p]]) for p, data in files.items()},
                      extra=extra)
    verdicts = check_in_scratch(project, model, files, pending.record(), flow.gate)
    _report(project, flow, verdicts)
    store_pending(project, pending, diffs)
    for relpath in pending.files:
        say(f"would change {relpath}")
    say(f"suggestion {ident}")
    return ident


def _report(project, flow: KindFlow, verdicts: dict) -> None:
    """Print each gate's verdict; the first failure is a rejection listing its findings.

    The kind's own gate is the most telling, so its failure comes first; otherwise
    the registry's model gates that judge the model alone (shapes, decisions), then
    the kind's gate, then those that need the project (generation, engine bindings)."""
    kind_gate = flow.gate
    kind_verdict = verdicts[kind_gate.name] if kind_gate is not None else None
    samples = kind_verdict.facts.get("samples") if kind_verdict is not None else None
    if kind_verdict is not None and not kind_verdict.passed:
        _verdict(False, kind_verdict.gate, kind_verdict.lines,
                 failed=f"{flow.kept} changed ({samples} samples)" if samples is not None else None)
    gates = [g for g in MODEL_GATES if g.name in verdicts]
    for gate in (g for g in gates if not g.source.needs_project):
        _verdict(verdicts[gate.name].passed, gate.name, verdicts[gate.name].lines)
    if kind_verdict is not None:
        say(f"{flow.kept} kept ({samples} samples)")
    for gate in (g for g in gates if g.source.needs_project):
        _verdict(verdicts[gate.name].passed, gate.name, verdicts[gate.name].lines)


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
        say(f"{entry.id} {entry.kind} {entry.subject} {'fresh' if entry.model_hash == current else 'stale'}")
    return 0


def _accept(project, prefix: str) -> int:
    ident = resolve_id(project, prefix)
    entry = load_pending(project, ident)
    flow = FLOWS.get(entry.kind)
    if flow is None:
        raise GeneratorError(f"suggestion {ident}: unknown kind {entry.kind!r} (kinds: {', '.join(FLOWS)})")
    model = load_model(project)
    if entry.model_hash != model.hash:
        raise GeneratorError(f"suggestion {ident} is stale: the model changed since it was made; "
                             f"run seams suggest again")
    candidates = flow.find(model)
    suggestion = flow.parse(entry.suggestion, model, candidates)
    # The stored suggestion is a file under .seams/, so the scratch session that judged it
    # runs again on it (model gates and the kind's gate) rather than trusting that it is the
    # same file; what the kind's gate compares with (the gateway's original conditions, the old
    # forms' verdicts) comes from the model itself (unchanged: the suggestion is fresh).
    files = change_files(model, flow.build(model, suggestion))
    extra = flow.record(model, candidates, suggestion)
    original = extra.pop("original_conditions", None)
    checked = replace(entry, original_conditions=original, extra=extra)
    verdicts = check_in_scratch(project, model, files, checked.record(), flow.gate)
    kind_gate = flow.gate
    if kind_gate is not None and not verdicts[kind_gate.name].passed:
        what = (f"does not keep the routing of {entry.subject}" if flow.name == KIND
                else f"does not keep what {entry.subject} accept")
        raise GeneratorError(f"suggestion {ident} {what}", details=list(verdicts[kind_gate.name].lines))
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

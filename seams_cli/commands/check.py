"""``seams check``: is the model sound, and do the generated files and drafts match the lock?

One line per problem on stdout, ``<kind> <subject> [<predicate>]: <message>``,
so the output diffs and greps well; exit 1 when there is one. A clean run
still says so in one line, because silence reads as "did it run at all?".
``--format json|sarif|github`` prints the same findings with the file and line
at fault for code hosts and CI (seams_cli.check_formats); the exit code is the same.
A project error (bad config, unreadable model or payload) is exit 2 through
seams_cli.errors.

What a check found is kept under ``.seams/check-cache/``, keyed by the
content of everything it reads (seams.project.check_cache): the same inputs
print the same lines without loading the model. ``--no-cache`` neither reads
nor writes it; deleting it only makes the next check do all the work.
A check that misses, in a project checked here before, re-checks only the
components of the model an edit touched (seams.checks.incremental, kept under
``.seams/component-cache/``) and parses only the changed TriG statements
(seams.model.statement_cache, ``.seams/parse-cache/``); whatever those cannot
answer for sure is a whole check, which keeps them anew. ``--no-cache``
skips all of it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from seams.checks import registry as checks
from seams.checks.advice import advice
from seams.errors import SeamsError
from seams.fs import ensure_local_dir
from seams.project import check_cache
from seams.project.layout import Project, load_project
from seams_cli.check_formats import FORMATS, render
from seams_cli.lifetime import command_model, paused_collection

if TYPE_CHECKING:
    from seams.model.statement_cache import StatementPack

CLEAN = "seams check: no problems"
STATEMENTS = ".seams/parse-cache"
COMPONENTS = ".seams/component-cache"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", metavar="DIR",
                        help="the project directory (default: the nearest seams.toml upwards)")
    parser.add_argument("--model", metavar="TRIG",
                        help="the TriG model to check (default: SEAMS_MODEL, else project.model)")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="text (default): one line per finding; json: findings with file and line; "
                             "sarif: SARIF 2.1.0 for code scanning; github: GitHub Actions ::error annotations")
    parser.add_argument("--no-cache", action="store_true",
                        help="check everything afresh, without reading or writing .seams/check-cache")


def run(args: argparse.Namespace) -> int:
    project = load_project(args.project, model=args.model)
    if args.format == "text":  # the lines alone: the cache stands in for the model
        verdict = fresh_verdict(project) if args.no_cache else cached_check(project)
        findings, notes = list(verdict.findings), list(verdict.notes)
        locations: list = [None] * len(findings)
    else:  # file and line need the model's payloads and TriG text
        from seams.finding_locations import locate_findings

        with command_model(project) as model:
            findings = checks.all_findings(project, model)
            notes = advice(model)
            locations = locate_findings(model, findings)
    # advice, not problems: the exit code is the findings' alone
    print(render(args.format, findings, locations, notes, cwd=Path.cwd(), root=project.root, clean=CLEAN), end="")
    return 1 if findings else 0


def cached_check(project: Project) -> check_cache.Verdict:
    """The stored verdict of a check on exactly these inputs, else a fresh one, then stored.

    The key is taken again after the check: a file changed while it ran
    (an editor saving) leaves nothing stored, since the verdict may mix the
    old and the new content."""
    files: dict[str, str] = {}
    known = check_cache.FileDigests.read(project)
    key = _key(project, files, known)
    stored = check_cache.read_verdict(project, key)
    if stored is not None:
        known.write(project)  # what it vouches for now (a file read just after its edit is not kept)
        return stored
    verdict = None
    if _checked_here(project):  # re-check what an edit touched (seams.checks.incremental), else all of it
        from seams.checks import incremental

        pack = statement_pack(project)
        with paused_collection():
            verdict = incremental.recheck(project, pack, _prepare(project), files)
        if verdict is None:
            verdict = fresh_verdict(project, statements=pack, keep_components=True)
    else:
        verdict = fresh_verdict(project)
    if _key(project, None, known) == key:
        try:  # a .seams leading out of the project is refused; .seams/.gitignore keeps it out of git
            ensure_local_dir(project.root, check_cache.cache_path(project))
        except (SeamsError, OSError):
            return verdict  # nothing stored: it is only a cache
        check_cache.write_verdict(project, key, verdict)
        known.write(project)
    return verdict


def _key(project: Project, files: dict[str, str] | None = None,
         known: check_cache.FileDigests | None = None) -> str:
    from seams.generators.hookspecs import ENTRY_POINT_GROUP

    return check_cache.check_key(project, ENTRY_POINT_GROUP, files=files, known=known)


def _checked_here(project: Project) -> bool:
    """Whether this project was checked here before (a verdict or a statement pack is kept).

    Keeping the statements costs the check that writes them about a quarter more than
    a plain parse (docs/performance.md), which only re-checks win back: a fresh
    clone's one check in CI never pays it, an editor's second check starts the pack."""
    for kept in (check_cache.cache_path(project), project.root / STATEMENTS, project.root / COMPONENTS):
        try:
            if kept.is_dir() and any(kept.iterdir()):
                return True
        except OSError:
            continue
    return False


def statement_pack(project: Project) -> StatementPack:
    """Where a check keeps each TriG statement's parsed quads (seams.model.statement_cache):
    ``.seams/parse-cache``, read only from inside the project and made as ``.seams`` is."""
    from seams.model.statement_cache import StatementPack

    directory = project.root / STATEMENTS
    inside = directory.parent.resolve().is_relative_to(project.root.resolve())
    return StatementPack(directory if inside else None, check_cache.tool_digest(), _prepare(project))


def _prepare(project: Project) -> Callable[[Path], None]:
    """How a cache directory under ``.seams`` is made: refused where ``.seams`` leads out of the project."""
    return lambda made: ensure_local_dir(project.root, made)


def fresh_verdict(project: Project, statements: StatementPack | None = None,
                  keep_components: bool = False) -> check_cache.Verdict:
    """Load the model and run every gate (what the cache stands in for); ``statements``:
    reuse the TriG statements parsed before (the same dataset, see seams.model.statement_cache);
    ``keep_components``: keep what the next check needs to re-check only what an edit touches."""
    with command_model(project, statements=statements) as model:
        verdict = check_cache.Verdict(tuple(checks.all_findings(project, model)), tuple(advice(model)))
        if keep_components:
            from seams.checks import incremental

            incremental.record_whole(project, model, verdict, _prepare(project))
        return verdict

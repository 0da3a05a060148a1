"""``seams draft-generator NAME --reference FILE``: a generator drafted by the provider,
kept only when its golden test passes (docs/draft-generator.md).

Every refusal that needs no answer (the name, the reference, an occupied
DIR, the project, the provider) comes before the provider is asked. The
answer's three texts then pass the cheap checks (extract step, no logic,
no restated label) and the scaffold assembled with them passes its four
golden items in a scratch directory before DIR or the cache is touched.
Every error exits 1, project errors included. Lines and cache key:
docs/draft-generator.md.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Sequence
from pathlib import Path

from seams.checks.clean_text import clean_text_problem
from seams.errors import DraftGeneratorError, SeamsError
from seams.generators.new_generator import default_out, scaffold, write
from seams.generators.package import package_name
from seams.model.loading import Model, load_model
from seams.project.layout import Project, load_project
from seams.project.project_lock import project_lock
from seams_cli.commands import new_generator
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
from seams_cli.workflows.generator_draft import (
    DraftAnswer,
    assemble,
    golden_verdict,
    model_subjects,
    parse_answer,
    subjects_text,
    vocabulary_text,
)
from seams_cli.workflows.sandboxing import add_sandbox_argument, chosen_sandbox, sandbox_env
from seams_runtime.sandbox import Sandbox

EXIT_CODES = {SeamsError: 1}
"""docs/draft-generator.md: every error of this command exits 1, a project error too."""
TEMPLATE = "draft-generator-v2.txt"
FOLLOW_UP = "draft-generator-followup-v1.txt"
CACHE_DIR = "generator-drafts"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """new-generator's NAME, --reference, --out and --force, then the provider and project options."""
    new_generator.add_arguments(parser)
    add_provider_arguments(parser)
    add_refresh_argument(parser)
    add_tries_argument(parser)
    add_sandbox_argument(parser)
    add_project_arguments(parser)


def build_prompt(*, reference_name: str, reference: str, subjects: Sequence[tuple[str, str, str]],
                 package: str) -> str:
    """The draft-generator-v2 prompt: the reference's file name and text, the model's labelled
    subjects with their types, the seams.vocab names and the scaffold's package module, each
    a DATA block. A pure function of its arguments, byte for byte."""
    return fill(load_template(TEMPLATE), prompt_values(reference_name=reference_name, reference=reference,
                                                       subjects=subjects, package=package))


def prompt_values(*, reference_name: str, reference: str, subjects: Sequence[tuple[str, str, str]],
                  package: str) -> dict[str, str]:
    """The DATA blocks of the draft-generator prompts (the first and the follow-up)."""
    return {
        "reference_name": quote(reference_name, label="reference name"),
        "reference": quote(reference, label="reference"),
        "subjects": quote(subjects_text(list(subjects)) or "(the model has no labelled subjects)",
                          label="subjects"),
        "vocabulary": quote(vocabulary_text(), label="vocabulary"),
        "package": quote(package, label="package module"),
    }


def run(args: argparse.Namespace) -> int:
    reference_path = Path(args.reference)
    default_files = scaffold(args.name, reference_path)  # the name and reference refusals
    out = Path(args.out) if args.out else default_out(args.name)
    write({}, out, force=args.force)  # refuses an occupied DIR now, writes nothing
    project = load_project(args.project, model=args.model)
    model = load_model(project)
    provider = chosen_provider(args.provider, project.config)
    llm_model = chosen_llm_model(args.llm_model, project.config)
    sandbox = chosen_sandbox(args.no_sandbox)  # no sandbox, no paid call
    package = package_name(args.name)
    reference = default_files[f"{package}/templates/{reference_path.name}"].decode("utf-8")  # verbatim
    package_module = default_files[f"{package}/__init__.py"].decode("utf-8")
    tries = chosen_tries(args.tries, project.config)
    values = prompt_values(reference_name=reference_path.name, reference=reference,
                           subjects=model_subjects(model), package=package_module)
    reference_sha = hashlib.sha256(reference.encode("utf-8")).hexdigest()  # the file's bytes: strict UTF-8
    previous: tuple[str, list[str]] | None = None  # the refused answer's text and its lines
    for attempt in range(1, tries + 1):
        if tries > 1:
            say(f"try {attempt} of {tries}")
        if previous is None:
            prompt = fill(load_template(TEMPLATE), values)
            parts = [reference_sha, model.hash, TEMPLATE, provider]
        else:
            prompt = fill(load_template(FOLLOW_UP), {
                **values, "previous_try": str(attempt - 1), "tries": str(tries),
                "previous": quote(previous[0], label="previous answer"),
                "failures": quote("\n".join(previous[1]), label="failed lines")})
            parts = [reference_sha, model.hash, FOLLOW_UP, provider, f"try {attempt}", _digest(previous[0]),
                     _digest("\n".join(previous[1]))]
        say(f"prompt {_digest(prompt)}")
        if attempt == 1:
            say_provider(provider, llm_model)
        try:
            answer, hit, key, files = _one_try(args, project, model, reference_path, sandbox, provider,
                                                       llm_model, prompt, parts)
            break
        except _Refused as refused:
            if attempt == tries:
                raise refused.error from None
            lines = [str(refused.error), *refused.error.details]
            for line in lines:
                say(f"failed {line}" if not line.startswith("failed ") else line)
            previous = (refused.text, lines)
    say("tests passed")
    with project_lock(project.root, timeout=project.config.lock_timeout, command="seams draft-generator"):
        written = write(files, out, force=args.force)
    if not hit:
        answers_cache(project).write(key, answer.cache_text())
    for path in written:
        say(f"wrote {path.as_posix()}")
    for step in next_steps(args.name, out, project.config.generators):
        say(f"next: {step}")
    return 0


class _Refused(Exception):
    """One try's answer was refused: the error to raise when it was the last, and its text."""

    def __init__(self, error: DraftGeneratorError, text: str):
        super().__init__(str(error))
        self.error, self.text = error, text


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _one_try(args: argparse.Namespace, project: Project, model: Model, reference_path: Path, sandbox: Sandbox,
             provider: str, llm_model: str | None, prompt: str,
             parts: list[str]) -> tuple[DraftAnswer, bool, str, dict[str, bytes]]:
    """(answer, cache hit, cache key, files) of an answer that passed its checks, else _Refused."""
    key = cache_key(parts, llm_model=llm_model)
    cache = answers_cache(project)
    said: list[str] = []

    def ask() -> DraftAnswer:
        text = call_provider(provider, prompt, timeout=project.config.propose.timeout,
                             llm_model=llm_model, project_root=project.root)
        said.append(text)
        return parse_answer(strip_fence(text))

    try:
        answer, hit = cached_answer(lambda: _cached_answer(cache, key), ask,  # kept once the golden test passed
                                    refresh=args.refresh)
    except DraftGeneratorError as error:  # not an answer at all (not JSON, a key missing)
        raise _Refused(error, said[-1] if said else "") from None
    text = answer.cache_text()
    for part in ("extract", "template"):
        unclean = clean_text_problem(getattr(answer, part))
        if unclean:
            raise _Refused(DraftGeneratorError(f"answer {part} {unclean}"), text)
    files = assemble(args.name, reference_path, answer)
    verdict = golden_verdict(model, f"seams-{args.name}", files, reference_path.name,
                             timeout=project.config.propose.timeout, extra_env=sandbox_env(sandbox))
    if verdict.refusal is not None:  # extract, no-logic or restated-label: the item's own line
        raise _Refused(DraftGeneratorError(verdict.refusal), text)
    failures = verdict.failures
    if failures:
        raise _Refused(DraftGeneratorError(f"the golden test failed ({len(failures)} failed) in the scratch "
                                           "package", details=[f"failed {line}" for line in failures]), text)
    return answer, hit, key, files


def next_steps(name: str, out: Path, enabled: Sequence[str] | None) -> list[str]:
    """What makes the drafted package run: install it, enable it, generate."""
    where = out.as_posix() if out.is_absolute() or out.as_posix().startswith(".") else f"./{out.as_posix()}"
    steps = [f"pip install {where}"]
    if enabled is not None and name not in enabled:
        steps.append(f'add "{name}" to [generate] generators in seams.toml')
    steps.append("seams generate")
    return steps


def answers_cache(project: Project) -> AnswerCache:
    """Answers as ``.seams/generator-drafts/<key>.json`` (docs/draft-generator.md), kept once they passed."""
    return AnswerCache(project.cache_dir, CACHE_DIR, ".json")


def _cached_answer(cache: AnswerCache, key: str) -> DraftAnswer | None:
    """A stored answer, or None when there is none or it no longer reads as one."""
    text = cache.read(key)
    if text is None:
        return None
    try:
        return parse_answer(text)
    except DraftGeneratorError:
        return None

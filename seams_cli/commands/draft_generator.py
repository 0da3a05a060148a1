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
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.project.project_lock import project_lock
from seams_cli.commands import new_generator
from seams_cli.llm.prompting import fill, load_template, quote
from seams_cli.llm.provider import (
    add_provider_arguments,
    add_refresh_argument,
    cache_key,
    cached_answer,
    call_provider,
    chosen_llm_model,
    chosen_provider,
    read_cached,
    say,
    say_provider,
    strip_fence,
    write_cached,
)
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

EXIT_CODES = {SeamsError: 1}
"""docs/draft-generator.md: every error of this command exits 1, a project error too."""
TEMPLATE = "draft-generator-v2.txt"
CACHE_DIR = "generator-drafts"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """new-generator's NAME, --reference, --out and --force, then the provider and project options."""
    new_generator.add_arguments(parser)
    add_provider_arguments(parser)
    add_refresh_argument(parser)
    add_sandbox_argument(parser)
    add_project_arguments(parser)


def build_prompt(*, reference_name: str, reference: str, subjects: Sequence[tuple[str, str, str]],
                 package: str) -> str:
    """The draft-generator-v2 prompt: the reference's file name and text, the model's labelled
    subjects with their types, the seams.vocab names and the scaffold's package module, each
    a DATA block. A pure function of its arguments, byte for byte."""
    return fill(load_template(TEMPLATE), {
        "reference_name": quote(reference_name, label="reference name"),
        "reference": quote(reference, label="reference"),
        "subjects": quote(subjects_text(list(subjects)) or "(the model has no labelled subjects)",
                          label="subjects"),
        "vocabulary": quote(vocabulary_text(), label="vocabulary"),
        "package": quote(package, label="package module"),
    })


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
    prompt = build_prompt(reference_name=reference_path.name, reference=reference,
                          subjects=model_subjects(model), package=package_module)

    say(f"prompt {hashlib.sha256(prompt.encode('utf-8')).hexdigest()}")
    say_provider(provider, llm_model)
    reference_sha = hashlib.sha256(reference.encode("utf-8")).hexdigest()  # the file's bytes: strict UTF-8
    key = cache_key([reference_sha, model.hash, TEMPLATE, provider], llm_model=llm_model)
    cached_path = project.cache_dir / CACHE_DIR / f"{key}.json"

    def ask() -> DraftAnswer:
        text = call_provider(provider, prompt, timeout=project.config.propose.timeout,
                             llm_model=llm_model, project_root=project.root)
        return parse_answer(strip_fence(text))

    answer, hit = cached_answer(lambda: _cached_answer(cached_path), ask,  # kept once the golden test passed
                                refresh=args.refresh)

    for key in ("extract", "template"):
        unclean = clean_text_problem(getattr(answer, key))
        if unclean:
            raise DraftGeneratorError(f"answer {key} {unclean}")
    files = assemble(args.name, reference_path, answer)
    verdict = golden_verdict(model, f"seams-{args.name}", files, reference_path.name,
                             timeout=project.config.propose.timeout, extra_env=sandbox_env(sandbox))
    if verdict.refusal is not None:  # extract, no-logic or restated-label: the item's own line
        raise DraftGeneratorError(verdict.refusal)
    failures = verdict.failures
    if failures:
        raise DraftGeneratorError(f"the golden test failed ({len(failures)} failed) in the scratch package",
                                  details=[f"failed {line}" for line in failures])
    say("tests passed")
    with project_lock(project.root, timeout=project.config.lock_timeout, command="seams draft-generator"):
        written = write(files, out, force=args.force)
    if not hit:
        write_cached(project.cache_dir, cached_path, answer.cache_text())
    for path in written:
        say(f"wrote {path.as_posix()}")
    for step in next_steps(args.name, out, project.config.generators):
        say(f"next: {step}")
    return 0


def next_steps(name: str, out: Path, enabled: Sequence[str] | None) -> list[str]:
    """What makes the drafted package run: install it, enable it, generate."""
    where = out.as_posix() if out.is_absolute() or out.as_posix().startswith(".") else f"./{out.as_posix()}"
    steps = [f"pip install {where}"]
    if enabled is not None and name not in enabled:
        steps.append(f'add "{name}" to [generate] generators in seams.toml')
    steps.append("seams generate")
    return steps


def _cached_answer(path: Path) -> DraftAnswer | None:
    """A stored answer, or None when there is none or it no longer reads as one."""
    text = read_cached(path)
    if text is None:
        return None
    try:
        return parse_answer(text)
    except DraftGeneratorError:
        return None

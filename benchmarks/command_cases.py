"""``seams check`` against itself and a bare rdflib parse; a cached ``seams propose`` against ``pytest -q``.

All of them are commands a user runs, so each is measured as a fresh child
process (interpreter start and imports included, as the user pays them).
"""

from __future__ import annotations

import sys
from pathlib import Path

from measure import (
    BenchmarkError,
    Row,
    Sample,
    alternate,
    best_cpu_seconds,
    best_seconds,
    least_rss_mb,
    processes,
    run_child,
)

# a bare parse of the same TriG, as seams parses it (one Dataset reading as the union)
_PARSE = ("import sys\nfrom rdflib import Dataset\n"
          "Dataset(default_union=True).parse(data=open(sys.argv[1], encoding='utf-8').read(), format='trig')\n")


def seams(*args: str, project: Path) -> Sample:
    return run_child([sys.executable, "-m", "seams_cli", *args], cwd=project)


def check(project: Path, *, cached: bool = False) -> Sample:
    """``seams check``: a full check (``--no-cache``), or with ``cached`` as a user runs it
    (reading and writing .seams/check-cache)."""
    sample = seams("check", *(() if cached else ("--no-cache",)), project=project)
    if "seams check: no problems" not in sample.stdout:
        raise BenchmarkError(f"seams check in {project} found problems:\n{sample.stdout[-2000:]}")
    return sample


def bare_parse(project: Path) -> Sample:
    return run_child([sys.executable, "-c", _PARSE, "model/model.trig"], cwd=project)


def check_rows(small: Path, large: Path, *, small_n: int, large_n: int, repeats: int) -> list[Row]:
    """Linear growth (the large check against the small one) and the large check against a parse."""
    small_checks, large_checks, parses = alternate(
        repeats, lambda: check(small), lambda: check(large), lambda: bare_parse(large))
    growth = large_n / small_n
    return [
        Row(f"seams check, {large_n} vs {processes(small_n)}", best_seconds(large_checks),
            best_seconds(small_checks), target=1.2 * growth,
            note=f"{growth:g}x the model: linear + 20%"),
        Row(f"seams check vs bare rdflib parse, {processes(large_n)}: time", best_seconds(large_checks),
            best_seconds(parses), target=2),
        Row(f"seams check vs bare rdflib parse, {processes(large_n)}: CPU time", best_cpu_seconds(large_checks),
            best_cpu_seconds(parses), target=2),
        Row(f"seams check vs bare rdflib parse, {processes(large_n)}: peak memory",
            least_rss_mb(large_checks), least_rss_mb(parses), target=3, unit="MB"),
    ]


def propose_row(project: Path, *, handler: str, copies: int, repeats: int) -> Row:
    """A cached ``seams propose --overwrite`` (cache hit, scratch copy and acceptance session
    included) against a plain ``pytest -q`` of the same project in the same state."""
    first = seams("propose", handler, "--overwrite", project=project)  # fills the cache, writes the handler
    if "tests passed" not in first.stdout:
        raise BenchmarkError(f"seams propose {handler} did not pass:\n{first.stdout}")

    def cached() -> Sample:
        sample = seams("propose", handler, "--overwrite", project=project)
        if "cache hit" not in sample.stdout or "tests passed" not in sample.stdout:
            raise BenchmarkError(f"seams propose {handler} was not a passing cache hit:\n{sample.stdout}")
        return sample

    def plain_pytest() -> Sample:
        return run_child([sys.executable, "-m", "pytest", "-q"], cwd=project)

    proposes, pytests = alternate(repeats, cached, plain_pytest)
    return Row(f"cached seams propose vs pytest -q, {processes(copies)}",
               best_seconds(proposes), best_seconds(pytests), target=1.5)


def sandbox_row(project: Path, *, handler: str, copies: int, repeats: int) -> Row:
    """What the sandbox costs: the cached ``seams propose --force`` (its acceptance items
    each start a sandboxed executor) against the same command with ``--no-sandbox`` (each
    item's executor is a plain process). Run after :func:`propose_row` filled the cache."""

    def run(*extra: str) -> Sample:
        sample = seams("propose", handler, "--force", *extra, project=project)
        if "cache hit" not in sample.stdout or "tests passed" not in sample.stdout:
            raise BenchmarkError(f"seams propose {handler} {' '.join(extra)} was not a passing cache hit:\n"
                                 f"{sample.stdout}")
        return sample

    sandboxed, unsandboxed = alternate(repeats, run, lambda: run("--no-sandbox"))
    return Row(f"sandboxed vs --no-sandbox cached seams propose, {processes(copies)}",
               best_seconds(sandboxed), best_seconds(unsandboxed), target=1.5)


def generated_inputs_row(project: Path, *, handler: str, copies: int, repeats: int) -> Row:
    """What the contract on generated inputs costs: the cached ``seams propose --force`` with the
    default 25 generated inputs against a copy of the project that turns them off
    (``[acceptance] generated_cases = 0``: the contract item as it was, examples only). Run
    after :func:`propose_row` filled the cache (the copy takes the cache with it)."""
    import shutil

    without = project.with_name(project.name + "-no-generated")
    if not without.exists():
        shutil.copytree(project, without)
        config = without / "seams.toml"
        config.write_text(config.read_text(encoding="utf-8") + "\n[acceptance]\ngenerated_cases = 0\n",
                          encoding="utf-8")

    def run(root: Path) -> Sample:
        sample = seams("propose", handler, "--force", project=root)
        if "cache hit" not in sample.stdout or "tests passed" not in sample.stdout:
            raise BenchmarkError(f"seams propose {handler} in {root.name} was not a passing cache hit:\n"
                                 f"{sample.stdout}")
        return sample

    generated, examples_only = alternate(repeats, lambda: run(project), lambda: run(without))
    return Row(f"cached seams propose with 25 generated inputs vs examples only, {processes(copies)}",
               best_seconds(generated), best_seconds(examples_only), target=1.5)

"""Run the seams benchmarks and print the table: ``python benchmarks/run.py [--quick | --enforce-coarse]``.

Every row is a ratio against a baseline measured in the same run, side by
side, so the figures mean the same on a fast or a busy machine. The full
run builds synthetic projects of 1, 50 and 400 processes (see
synthetic.py) in a temporary directory, takes a few minutes on two cores
and exits 1 when a target fails. ``--enforce-coarse`` runs the same and
exits 1 only when a figure is more than twice its target: a regression, not
the noise of a busy machine (run it before landing a change to the checks,
the loading or the runner; docs/performance.md). ``--quick`` uses tiny
projects and only checks that every benchmark works (exit 0 unless one
breaks); CI runs it. ``--only`` picks groups of rows.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assumption_case import assumption_row
from command_cases import check_rows, generated_inputs_row, propose_row, sandbox_row
from edit_case import edit_row
from feel_case import feel_rows
from measure import BenchmarkError, Row, run_child, table
from recheck_case import parser_rows, recheck_rows, scale_rows
from sandbox_limits_case import limits_rows
from scenario_case import scenario_row
from scratch_case import scratch_row
from synthetic import build_project
from type_case import type_checks_row
from unique_table import table_rows

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Sizes:
    small: int  # processes in the smaller checked model
    large: int  # processes in the larger one (also patched by seams_edit)
    propose: tuple[int, ...]  # project sizes the propose row runs at
    repeats: int  # samples per measured command (best of)
    rdflib_repeats: int
    tree_mb: int  # the unrelated tree beside the scratch-copied project
    tree_files: int
    scratch_repeats: int
    rules: tuple[int, int]  # rules in the smaller and larger UNIQUE table
    limits_repeats: int  # samples of each executor life in the whole-draft limits' rows
    huge: int  # processes in the scale row's project (against ``large``)
    huge_repeats: int


FULL = Sizes(small=50, large=400, propose=(1, 50), repeats=5, rdflib_repeats=2,
             tree_mb=300, tree_files=3000, scratch_repeats=15, rules=(1000, 10_000), limits_repeats=7,
             huge=4000, huge_repeats=1)
QUICK = Sizes(small=1, large=2, propose=(1,), repeats=1, rdflib_repeats=1,
              tree_mb=2, tree_files=40, scratch_repeats=3, rules=(8, 40), limits_repeats=1, huge=3, huge_repeats=1)


GROUPS = ("check", "recheck", "type", "propose", "limits", "assumptions", "edit", "scratch", "scenario", "unique",
          "feel", "scale", "parser", "phases")
COARSE = 2.0
"""``--enforce-coarse`` fails a row only when its ratio is more than this many times its target."""


def measure(sizes: Sizes, workdir: Path, say, groups: tuple[str, ...] = GROUPS
            ) -> tuple[list[Row], list[tuple[str, float]]]:
    projects: dict[int, Path] = {}

    def project(copies: int) -> Path:
        if copies not in projects:
            say(f"building a {copies}-process project")
            projects[copies] = build_project(workdir / f"processes-{copies}", copies)
        return projects[copies]

    rows: list[Row] = []
    phases: list[tuple[str, float]] = []
    if "check" in groups:
        say("seams check and bare parses")
        rows += check_rows(project(sizes.small), project(sizes.large), small_n=sizes.small,
                           large_n=sizes.large, repeats=sizes.repeats)
    if "recheck" in groups:
        say("seams check again: from its cache, and after a one-line edit")
        rows += recheck_rows(project(sizes.large), copies=sizes.large, repeats=sizes.repeats)
    if "type" in groups:
        say("the type-aware checks against seams check")
        type_row, type_parts = type_checks_row(project(sizes.large), copies=sizes.large, repeats=sizes.repeats)
        rows.append(type_row)
        say("type-aware checks, CPU seconds: " + ", ".join(f"{k} {v:.3f}" for k, v in type_parts.items()))
    for copies in sizes.propose if "propose" in groups else ():
        say(f"seams propose and pytest -q, {copies} process(es)")
        rows.append(propose_row(project(copies), handler="record_leave_0", copies=copies,
                                repeats=sizes.repeats))
        rows.append(sandbox_row(project(copies), handler="record_leave_0", copies=copies,
                                repeats=sizes.repeats))
        rows.append(generated_inputs_row(project(copies), handler="record_leave_0", copies=copies,
                                         repeats=sizes.repeats))
    if "limits" in groups:
        say("a sandboxed executor with the whole-draft limits against before them")
        rows += limits_rows(workdir, calls=20, repeats=sizes.limits_repeats, say=say)
    if "assumptions" in groups:
        say("generated inputs within a task's assumptions against the same without them")
        rows.append(assumption_row(repeats=max(3, sizes.repeats)))
    if "edit" in groups:
        say("seams_edit and the rdflib round trip")
        trig = (project(sizes.large) / "model" / "model.trig").read_text(encoding="utf-8")
        rows.append(edit_row(trig, copies=sizes.large, repeats=max(3, sizes.repeats),
                             rdflib_repeats=sizes.rdflib_repeats))
    if "scratch" in groups:
        say("scratch copies with and without an unrelated tree")
        rows.append(scratch_row(project(sizes.small), copies=sizes.small, megabytes=sizes.tree_mb,
                                files=sizes.tree_files, repeats=sizes.scratch_repeats))
    if "scenario" in groups:
        say("scenarios on the embedded engine against their calls alone")
        rows.append(scenario_row(workdir, repeats=max(3, sizes.repeats)))
    if "unique" in groups:
        say("seams check on large UNIQUE decision tables")
        rows += table_rows(workdir, small=sizes.rules[0], large=sizes.rules[1], repeats=min(3, sizes.repeats))
    if "feel" in groups:
        say("FEEL conditions and boxed-expression decisions against condition trees and tables")
        rows += feel_rows(repeats=max(3, sizes.repeats))
    if "scale" in groups:
        say(f"seams check at {sizes.huge} processes against {sizes.large}")
        rows += scale_rows(project(sizes.large), project(sizes.huge), small_n=sizes.large, large_n=sizes.huge,
                           repeats=sizes.huge_repeats)
    if "parser" in groups:
        say("oxrdflib's TriG parser against rdflib's")
        if _has_oxrdflib():
            rows += parser_rows({n: project(n) for n in (sizes.large, sizes.huge)}, repeats=sizes.huge_repeats)
        else:
            say("oxrdflib is not installed (pip install oxrdflib): no parser rows")
    if "phases" in groups:
        say("where seams check spends its time")
        phases = json.loads(run_child([sys.executable, str(HERE / "phases.py"), str(project(sizes.large))],
                                      cwd=workdir).stdout)
    return rows, phases


def _has_oxrdflib() -> bool:
    import importlib.util

    return importlib.util.find_spec("oxrdflib") is not None


def phase_table(phases: list[tuple[str, float]], copies: int) -> str:
    total = sum(seconds for _, seconds in phases)
    lines = [f"| seams check, {copies} processes, in one process | CPU seconds | share |", "| --- | ---: | ---: |"]
    lines += [f"| {name} | {seconds:.2f} | {seconds / total:.0%} |" for name, seconds in phases]
    lines.append(f"| total | {total:.2f} | 100% |")
    return "\n".join(lines)


def _groups(text: str) -> tuple[str, ...]:
    chosen = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in chosen if name not in GROUPS]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"unknown group(s) {', '.join(unknown) or '(none)'}; "
                                         f"groups: {', '.join(GROUPS)}")
    return chosen


def _compiled(say: Callable[[str], None]) -> None:
    """Byte-compile seams' packages first, as an installed seams is: with
    PYTHONDONTWRITEBYTECODE set (some machines set it) every child would compile the
    modules changed since the last ``.pyc`` again, which counts against a short command
    more than against the long one it is measured beside (docs/performance.md)."""
    import compileall

    say("byte-compiling seams' packages")
    for package in ("seams", "seams_cli", "seams_edit", "seams_runtime", "pytest_seams"):
        compileall.compile_dir(str(HERE.parent / package), quiet=2, force=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/run.py", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="tiny sizes; only check that it works")
    mode.add_argument("--enforce-coarse", action="store_true",
                      help=f"full sizes; exit 1 only when a figure is more than {COARSE:g}x its target")
    parser.add_argument("--only", type=_groups, default=GROUPS, metavar="GROUP[,GROUP]",
                        help=f"run only these groups of rows ({', '.join(GROUPS)})")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL

    def say(line: str) -> None:
        print(f"# {line}", file=sys.stderr, flush=True)

    _compiled(say)
    with tempfile.TemporaryDirectory(prefix="seams-bench-") as tmp:
        try:
            rows, phases = measure(sizes, Path(tmp), say, args.only)
        except BenchmarkError as exc:
            print(f"benchmarks/run.py: {exc}", file=sys.stderr)
            return 2
    print(table(rows, enforced=not args.quick))
    if phases:
        print()
        print(phase_table(phases, sizes.large))
    load = os.getloadavg()[0]
    print(f"\n{os.cpu_count()} CPUs, load average {load:.2f} at the end of the run"
          + ("; --quick: targets not enforced" if args.quick else "")
          + (f"; --enforce-coarse: a row fails only beyond {COARSE:g}x its target" if args.enforce_coarse else ""))
    if args.quick:
        return 0
    return _verdict(rows, coarse=args.enforce_coarse)


def _verdict(rows: list[Row], *, coarse: bool) -> int:
    """Exit 1 when a row misses its target (``coarse``: by more than COARSE times), else 0."""
    limit = COARSE if coarse else 1.0
    failed = [row for row in rows if row.enforced and row.ratio > row.target * limit]
    if not failed:
        return 0
    what = f"more than {COARSE:g}x over target" if coarse else "target(s) missed"
    print(f"benchmarks/run.py: {len(failed)} {what}: "
          + "; ".join(f"{row.name} ({row.ratio:.2f}x, target {row.target:g}x)" for row in failed), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())

"""``seams check`` on a UNIQUE decision table of many rules: ``python benchmarks/unique_table.py``.

A copy of examples/leave whose Decision_ApprovalLevel has N rules: ``days``
split into N/3 disjoint ranges, crossed with the three leave types the model
allows (``"annual"``, ``"sick"``, ``"unpaid"``), so no two rules overlap
and ``seams check`` must find the project clean (``seams generate`` runs
first). Two rows, each side by side with its baseline: the large table
against one a tenth its size (linear growth), and the smaller table checked
with the sort-and-sweep search against the same check with the quadratic
pair-by-pair search it replaced (seams.checks.unique_overlaps).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

from measure import BenchmarkError, Row, Sample, alternate, best_seconds, run_child, table

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "leave"
_TYPES = ('"annual"', '"sick"', '"unpaid"')  # every value the model allows: no rule that never applies


_OUTCOMES = ("&quot;auto&quot;", "&quot;manager&quot;")  # both, so each gateway flow can be taken


def _rule(n: int) -> str:
    low, kind = (n // 3) * 2, _TYPES[n % 3]
    return (f'      <rule id="Rule_{n}">\n'
            f'        <inputEntry id="In_{n}_a"><text>[{low}..{low + 2}[</text></inputEntry>\n'
            f'        <inputEntry id="In_{n}_b"><text>{kind.replace(chr(34), "&quot;")}</text></inputEntry>\n'
            f'        <outputEntry id="Out_{n}"><text>{_OUTCOMES[n % 2]}</text></outputEntry>\n'
            f'      </rule>\n')


def build_table_project(target: Path, rules: int) -> Path:
    """The example at ``target`` with ``rules`` disjoint rules in Decision_ApprovalLevel."""
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    dmn = target / "model" / "leave.dmn"
    text = dmn.read_text(encoding="utf-8")
    body = "".join(_rule(n) for n in range(rules))
    text = re.sub(r"      <rule id=.*</rule>\n", lambda _: body, text, flags=re.S)
    dmn.write_text(text, encoding="utf-8")
    # the form caps days at 60: lift the cap so every range is a value days may hold (else the
    # type checks rightly report rules that never apply, and the table tests nothing)
    trig = target / "model" / "model.trig"
    trig.write_text(trig.read_text(encoding="utf-8").replace(" sh:maxInclusive 60 ;", ""), encoding="utf-8")
    # the rules changed, so must the generated decision module: regenerate, then check
    run_child([sys.executable, "-m", "seams_cli", "generate"], cwd=target)
    return target


# the same ``seams check`` with the overlap search swapped for the quadratic one
_QUADRATIC = """
import sys
from seams.checks import decisions
from seams.lang.feel import overlaps

def quadratic(rows):
    return [(i, j) for i in range(len(rows)) for j in range(i + 1, len(rows))
            if all(overlaps(a, b) for a, b in zip(rows[i], rows[j]))]

decisions.overlapping_pairs = quadratic
from seams_cli.main import main
sys.exit(main(["check", "--no-cache"]))
"""


def _check(project: Path, *, quadratic: bool = False) -> Sample:
    argv = ([sys.executable, "-c", _QUADRATIC] if quadratic
            else [sys.executable, "-m", "seams_cli", "check", "--no-cache"])
    sample = run_child(argv, cwd=project)
    if "seams check: no problems" not in sample.stdout:
        raise BenchmarkError(f"seams check in {project} found problems:\n{sample.stdout[-2000:]}")
    return sample


def table_rows(workdir: Path, *, small: int, large: int, repeats: int) -> list[Row]:
    small_project = build_table_project(workdir / f"rules-{small}", small)
    large_project = build_table_project(workdir / f"rules-{large}", large)
    larges, smalls, quadratics = alternate(repeats, lambda: _check(large_project), lambda: _check(small_project),
                                           lambda: _check(small_project, quadratic=True))
    growth = large / small
    return [
        Row(f"seams check, UNIQUE table of {large} vs {small} rules", best_seconds(larges), best_seconds(smalls),
            target=1.2 * growth, note=f"{growth:g}x the rules: linear + 20%"),
        Row(f"seams check, UNIQUE table of {small} rules: sort-and-sweep vs quadratic search",
            best_seconds(smalls), best_seconds(quadratics), target=1.0),
    ]


def cpu_seconds(project: Path) -> float:
    """User + system CPU time of one ``seams check`` (what a busy machine does not inflate)."""
    import os
    import subprocess

    child = subprocess.Popen([sys.executable, "-m", "seams_cli", "check", "--no-cache"], cwd=project,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise BenchmarkError(f"seams check in {project} failed")
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/unique_table.py", description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=int, default=10_000, help="rules in the large table (default 10000)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="seams-bench-") as tmp:
        rows = table_rows(Path(tmp), small=args.rules // 10, large=args.rules, repeats=args.repeats)
        cpu = cpu_seconds(Path(tmp) / f"rules-{args.rules}")
    print(table(rows))
    print(f"\nCPU time (user + system) of seams check on the {args.rules}-rule table: {cpu:.2f} s")
    return 0 if all(row.passed for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

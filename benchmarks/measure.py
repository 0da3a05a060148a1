"""Timing and peak memory of fresh child processes, and the result table.

Every figure is a ratio against a baseline measured in the same run, side
by side (the two commands alternate), so a busy machine slows both and the
ratio stays meaningful. Each sample is a fresh child: its wall time, and its
own peak resident set from ``os.wait4`` (the rusage of that one child, not
of all children so far).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


class BenchmarkError(Exception):
    """A measured command failed or did something other than what was measured."""


@dataclass(frozen=True)
class Sample:
    seconds: float
    max_rss_kb: int
    stdout: str
    cpu_seconds: float = 0.0  # user + system time of the child alone (os.wait4)


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment without what would change what a command does (SEAMS_*, pytest options)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SEAMS_", "PYTEST_")) and k != "PYTHONSTARTUP"}
    return {**env, **(extra or {})}


def run_child(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None) -> Sample:
    """Run ``argv`` to completion; a non-zero exit is a BenchmarkError showing its output."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        child = subprocess.Popen(list(argv), cwd=cwd, env=dict(env or child_env()),
                                 stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    if child.returncode != 0:
        tail = "\n".join(text.splitlines()[-15:])
        raise BenchmarkError(f"{' '.join(argv)} (in {cwd}) exited {child.returncode}:\n{tail}")
    return Sample(seconds=seconds, max_rss_kb=usage.ru_maxrss, stdout=text,
                  cpu_seconds=usage.ru_utime + usage.ru_stime)


def alternate(repeats: int, *actions: Callable[[], Sample]) -> list[list[Sample]]:
    """Run the actions in turn ``repeats`` times; the samples of each action."""
    samples: list[list[Sample]] = [[] for _ in actions]
    for _ in range(repeats):
        for action, found in zip(actions, samples):
            found.append(action())
    return samples


def best_seconds(samples: list[Sample]) -> float:
    return min(sample.seconds for sample in samples)


def best_cpu_seconds(samples: list[Sample]) -> float:
    """The least CPU time: on a machine shared with other jobs, steadier than the wall time."""
    return min(sample.cpu_seconds for sample in samples)


def least_rss_mb(samples: list[Sample]) -> float:
    return min(sample.max_rss_kb for sample in samples) / 1024


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


@dataclass(frozen=True)
class Row:
    """One line of the table: ``measured / baseline`` must be at most ``target``."""

    name: str
    measured: float
    baseline: float
    target: float
    unit: str = "s"
    note: str = ""
    enforced: bool = True  # False: tracked against its target, never failing a run (docs/performance.md)

    @property
    def ratio(self) -> float:
        return self.measured / self.baseline

    @property
    def passed(self) -> bool:
        return self.ratio <= self.target or not self.enforced


def processes(count: int) -> str:
    return f"{count} process" if count == 1 else f"{count} processes"


def table(rows: list[Row], *, enforced: bool = True) -> str:
    """The rows as a markdown table; with ``enforced`` False (``--quick``) the result column
    says so instead of pass or FAIL, since tiny projects measure nothing a target is about."""
    lines = ["| benchmark | measured | baseline | ratio | target | result |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    for row in rows:
        note = f" ({row.note})" if row.note else ""
        lines.append(f"| {row.name}{note} | {_amount(row.measured, row.unit)} | "
                     f"{_amount(row.baseline, row.unit)} | {row.ratio:.2f}x | ≤ {row.target:g}x | "
                     f"{_result(row) if enforced else 'not enforced'} |")
    return "\n".join(lines)


def _result(row: Row) -> str:
    if not row.enforced:
        return "tracked: " + ("within" if row.ratio <= row.target else "over")
    return "pass" if row.passed else "FAIL"


def _amount(value: float, unit: str) -> str:
    if unit == "s":
        return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"
    return f"{value:.0f} {unit}"

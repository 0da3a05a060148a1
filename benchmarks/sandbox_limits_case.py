"""What the limits of the whole draft cost (issue 27): one sandboxed executor's life --
start, import a handler, ``calls`` handle calls with a binding each, end -- with today's
sandbox (its own root, the run's uid or user namespace, seccomp, the supervisor, the
judge's schema checks and memory watch) against the same with the sandbox as it was
before them (``BEFORE``, the commit the work started from, exported with ``git archive``),
side by side on the same backend, in alternating fresh children
(benchmarks/sandbox_limits_run.py), best of ``repeats`` (wall time of the life, in the child).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

from measure import BenchmarkError, Row, alternate, run_child

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
BEFORE = "c8fdcc6"  # main before the limits of the whole draft: the baseline's packages
HANDLER = '''
def handle(inputs, bindings):
    ref = bindings.calendar(inputs["employee"], inputs["leave_type"], inputs["days"])
    return {"booking_ref": str(ref)}
'''


def export_before(workdir: Path) -> Path | None:
    """The baseline's ``seams`` and ``seams_runtime`` packages, or None when this checkout
    does not hold the commit (a shallow clone)."""
    target = workdir / f"before-{BEFORE}"
    if target.exists():
        return target
    done = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", BEFORE, "seams", "seams_runtime"],
                          capture_output=True, check=False)
    if done.returncode != 0:
        return None
    target.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        archive.extractall(target, filter="data")
    return target


def limits_rows(workdir: Path, *, calls: int, repeats: int, say) -> list[Row]:
    before = export_before(workdir)
    if before is None:
        say(f"the limits' row is left out: commit {BEFORE} is not in this checkout")
        return []
    package = workdir / "limits-project" / "handlers"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "record_leave.py").write_text(HANDLER)
    rows = []
    for backend in ("bubblewrap", "namespaces"):
        def life(root: Path, backend: str = backend) -> float:
            sample = run_child([sys.executable, str(HERE / "sandbox_limits_run.py"), str(root), str(package),
                                backend, str(calls)], cwd=workdir)
            result = json.loads(sample.stdout.strip().splitlines()[-1])
            if result.get("unavailable"):
                raise LookupError(result["unavailable"])
            if Path(result["runtime"]).resolve().parents[1] != root.resolve():
                raise BenchmarkError(f"the executor came from {result['runtime']}, not {root}")
            return result["seconds"]

        try:
            now, then = alternate(repeats, lambda: _sample(life(REPO)), lambda: _sample(life(before)))
        except LookupError as exc:
            say(f"the limits' row on {backend} is left out: {exc}")
            continue
        rows.append(Row(f"sandboxed executor with the whole-draft limits vs before them, {backend}: start, "
                        f"import, {calls} calls, end", min(s.seconds for s in now), min(s.seconds for s in then),
                        target=1.5))
    return rows


def _sample(seconds: float):
    from measure import Sample

    return Sample(seconds=seconds, max_rss_kb=0, stdout="")

"""Make the three review pages on a copy of the bundled example, as a user does, and picture them.

``seams suggest --show`` (the README's suggestion), ``seams run --html`` (a scenario through the
manager's review) and ``pytest --seams-coverage-html`` (two scenarios left out, so the page has
gaps). Used by tests/test_render_pages.py and, run as a script, to remake docs/images:

    .venv/bin/python tests/render_pages.py
"""

from __future__ import annotations

import os
import re
import runpy
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import render_diagram

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "leave"
RUN_SCENARIO = "long leave approved by the manager"
LEFT_OUT = "not unpaid and not refuses"  # pytest -k: the scenarios coverage runs
SIZES = {"suggest-review": (1500, 2700), "run-page": (1500, 1350), "coverage-page": (1500, 1150)}


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("SEAMS_", "PYTEST_"))} | \
        {"PYTHONDONTWRITEBYTECODE": "1"}


def _run(args: list[str], cwd: Path) -> str:
    done = subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=600, check=False)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(args)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done.stdout


def make_pages(folder: Path) -> dict[str, Path]:
    """The pages, by name (the keys of SIZES), made in a copy of the example under ``folder``."""
    project = folder / "leave"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".seams"))
    answer = runpy.run_path(str(EXAMPLE / "provider" / "recorded.py"), run_name="recorded")["RECORD_LEAVE"]
    handler = answer.strip().removeprefix("```python").removesuffix("```").strip() + "\n"
    (project / "handlers" / "record_leave.py").write_text(handler, encoding="utf-8")
    seams = [sys.executable, "-m", "seams_cli"]
    ident = re.findall(r"^suggestion ([0-9a-f]{64})$", _run([*seams, "suggest", "--kind", "condition-to-dmn"], project),
                       flags=re.M)[-1]
    review = re.findall(r"^review (\S+)$", _run([*seams, "suggest", "--show", ident], project), flags=re.M)[-1]
    run_html, coverage_html = folder / "run.html", folder / "coverage.html"
    _run([*seams, "run", "Leave request", "--scenario", RUN_SCENARIO, "--html", str(run_html)], project)
    _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", LEFT_OUT,
          "--seams-coverage-html", str(coverage_html)], project)
    return {"suggest-review": project / review, "run-page": run_html, "coverage-page": coverage_html}


def main() -> int:
    if render_diagram.chromium() is None:
        print("render_pages: needs chromium (bash .ci/run installs it)", file=sys.stderr)
        return 2
    images = REPO / "docs" / "images"
    with tempfile.TemporaryDirectory(prefix="seams-pages-") as folder:
        for name, page in make_pages(Path(folder)).items():
            render_diagram.screenshot(page, images / f"{name}.png", SIZES[name])
            print(f"docs/images/{name}.png from {page.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

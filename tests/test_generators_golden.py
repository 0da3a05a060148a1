"""The four golden items of a generator package, in real pytest sessions.

Each session is ``python -m pytest -q -p no:cacheprovider tests`` in the
package directory with ``SEAMS_MODEL`` set, as ``seams draft-generator``
runs it (docs/draft-generator.md). Until the seams plugin (``pytest_seams.plugin``) exists,
the golden collector is loaded on its own with ``-p pytest_seams.golden``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import EXAMPLE, REPO

from pytest_seams.golden import is_golden_file
from seams.generators.new_generator import scaffold, write
from seams.generators.package_run import loaded_package, render_package

MODEL = EXAMPLE / "model" / "model.trig"
FIXTURE = REPO / "tests" / "fixtures" / "thirdparty_generator"
GATES = ("golden", "determinism", "parses", "sources")
_RESULT = re.compile(r"^(PASSED|FAILED|ERROR) (\S+)::(\w+)", re.M)


def _plugin_args() -> list[str]:
    if importlib.util.find_spec("pytest_seams.plugin") is not None:
        return []
    return ["-p", "no:seams", "-p", "pytest_seams.golden"]


def _session(cwd: Path, *paths: str, model: Path | None = MODEL) -> tuple[dict[tuple[str, str], str], str]:
    """Run pytest; returns {(golden file, gate): outcome} and the whole output."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SEAMS_", "PYTEST_"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if model is not None:
        env["SEAMS_MODEL"] = str(model)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *_plugin_args(), "-rA",
         "-W", "ignore::DeprecationWarning", *paths],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)
    output = done.stdout + done.stderr
    results = {(Path(path).name, gate): outcome for outcome, path, gate in _RESULT.findall(output)}
    return results, output


def _scaffolded(tmp_path: Path, name: str, reference_name: str, text: str) -> Path:
    reference = tmp_path / "references" / reference_name
    reference.parent.mkdir(exist_ok=True)
    reference.write_text(text, encoding="utf-8")
    package = tmp_path / f"seams-{name}"
    write(scaffold(name, reference), package, force=False)
    return package


def test_a_scaffolded_package_passes_its_four_tests_as_written(tmp_path):
    package = _scaffolded(tmp_path, "leave-report", "report.md", "# Leave report\n\nApprovals: auto, manager.\n")
    results, output = _session(package, "tests")
    assert results == {("report.md", gate): "PASSED" for gate in GATES}, output
    assert "4 passed" in output


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _thirdparty(tmp_path: Path) -> Path:
    package = tmp_path / "seams-thirdparty"
    shutil.copytree(FIXTURE, package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "tests").mkdir()
    (package / "golden").rename(package / "tests" / "golden")
    return package


def test_each_gate_fails_for_its_own_fault_and_only_then(tmp_path):
    """One session over several packages: two good ones (a Python reference; the
    third-party package with [graph: ...] lines and a loop) and one fault each."""
    _scaffolded(tmp_path, "python", "approvals.py",
                'APPROVALS = {"auto": 5}\n\n\ndef level(days):\n    return "auto"\n')
    _thirdparty(tmp_path)

    golden = _scaffolded(tmp_path, "golden", "golden.md", "# Title\n\nA line.\n")
    _edit(golden / "tests" / "golden" / "golden.md", "[fixed] A line.", "A lane.")

    sources = _scaffolded(tmp_path, "sources", "sources.md", "# Sources\n")
    _edit(sources / "seams_sources" / "__init__.py",
          "return [trig.resolve(), *payload_files(trig).values()]", "return [trig.resolve()]")

    determinism = _scaffolded(tmp_path, "determinism", "determinism.txt", "pid\n")
    module = determinism / "seams_determinism" / "__init__.py"
    # a value of the hash seed (a pid no longer differs: each run has its own PID namespace)
    _edit(module, 'return {"model_hash"', 'return {"pid": hash("seams") % 100000, "model_hash"')
    (determinism / "seams_determinism" / "templates" / "determinism.txt").write_text("pid [[ pid ]]\n")
    (determinism / "tests" / "golden" / "determinism.txt").write_text("[graph: the process] pid 0\n")

    parses = _scaffolded(tmp_path, "parses", "parses.json", '{"a": 1}\n')
    (parses / "seams_parses" / "templates" / "parses.json").write_text('{"a": 1,}\n')

    raising = _scaffolded(tmp_path, "raising", "raising.md", "# Report\n")
    (raising / "seams_raising" / "templates" / "raising.md").write_text("# [[ missing ]]\n")

    results, output = _session(tmp_path, *sorted(p.name for p in tmp_path.glob("seams-*")))
    failed = {key for key, outcome in results.items() if outcome == "FAILED"}
    assert failed == {("golden.md", "golden"), ("sources.md", "sources"), ("determinism.txt", "determinism"),
                      ("determinism.txt", "golden"), ("parses.json", "parses"), ("parses.json", "golden"),
                      *(("raising.md", gate) for gate in GATES)}, output
    assert len(results) == 7 * 4, output
    assert "golden tests/golden/golden.md: line 3 has no [fixed] or [graph: ...] marker" in output
    assert "--- golden (markers removed)\n+++ rendered" in output and "-A lane.\n+A line." in output
    assert "sources tests/golden/sources.md: extract reads leave.bpmn, which sources() does not name" in output
    assert "determinism tests/golden/determinism.txt: two renderings of the same model differ" in output
    assert "parses tests/golden/parses.json: the rendered output does not parse as .json" in output
    assert "the package failed: UndefinedError: 'missing' is undefined" in output


def test_without_a_model_every_gate_fails_saying_so(tmp_path):
    package = _scaffolded(tmp_path, "leave-report", "report.md", "# Report\n")
    results, output = _session(package, "tests", model=None)
    assert results == {("report.md", gate): "FAILED" for gate in GATES}, output
    assert "SEAMS_MODEL is not set" in output


def test_golden_files_are_recognised_only_in_a_generator_package(tmp_path):
    package = _scaffolded(tmp_path, "leave-report", "report.md", "# Report\n")
    golden = package / "tests" / "golden" / "report.md"
    assert is_golden_file(golden)
    assert not is_golden_file(package / "seams_leave_report" / "templates" / "report.md")
    hidden = golden.with_name(".report.md.swp")
    hidden.write_text("x")
    assert not is_golden_file(hidden)
    (package / "pyproject.toml").unlink()
    assert not is_golden_file(golden)


def test_loading_a_package_leaves_no_module_or_path_behind(tmp_path):
    package = _scaffolded(tmp_path, "leave-report", "report.md", "# Report\n")
    modules, path = set(sys.modules), list(sys.path)
    with loaded_package(package, package / "seams_leave_report") as module:
        rendered = render_package(module, MODEL, tmp_path)
    assert rendered.output == "# Report\n"
    assert set(rendered.reads) == {MODEL.resolve(), *(MODEL.parent / n for n in ("leave.bpmn", "leave.dmn"))}
    left = {name for name in set(sys.modules) - modules
            if name.startswith(("_seams_golden", "seams_leave_report"))
            or str(getattr(sys.modules[name], "__file__", "")).startswith(str(package))}
    assert left == set()
    assert sys.path == path

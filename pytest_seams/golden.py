"""The four scaffold tests of a generator package, as pytest items (docs/generators.md, D-golden).

A golden file ``<package root>/tests/golden/<name>`` (the root holds a
``pyproject.toml`` and a ``seams_*`` package) is collected as a
:class:`GoldenFile` with four gate items: ``golden`` (the output rendered
from ``SEAMS_MODEL`` (else the enclosing project's model) equals the golden text with its markers removed; a
mismatch shows a unified diff; ``--seams-update-golden`` rewrites the file
from the rendering for review, see golden_update), ``determinism`` (a fresh interpreter with
another hash seed renders the same bytes), ``parses`` (the output parses for
its suffix) and ``sources`` (every file extract reads is named by
``sources(trig)``). The package runs once per file; the items judge that run.

The seams plugin collects golden files through :func:`is_golden_file` and
:class:`GoldenFile`; loaded on its own (``-p pytest_seams.golden``) this
module collects them itself, and it stays inert when the plugin is active.
"""

from __future__ import annotations

import difflib
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from pytest_seams.golden_model import model_for
from pytest_seams.golden_update import model_subject_finder, updated_golden
from pytest_seams.items import GateItem
from seams.findings import Finding
from seams.generators.formats import parse_problem
from seams.generators.golden_text import read_golden
from seams.generators.package_run import Rendered, is_scaffold_package, render_in_judge, rendered_from_run


def _package_root(path: Path) -> Path | None:
    golden_dir = path.parent
    if golden_dir.name != "golden" or golden_dir.parent.name != "tests":
        return None
    return golden_dir.parent.parent


def _packages(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("seams_*") if (p / "__init__.py").is_file())


def _package_dir(root: Path, template_name: str) -> Path | None:
    return next((p for p in _packages(root) if (p / "templates" / template_name).is_file()), None)


def _root_of(path: Path) -> Path:
    """The package root of a collected golden file (``is_golden_file`` found one)."""
    root = _package_root(path)
    if root is None:
        raise ValueError(f"{path}: not in a generator package's tests/golden directory")
    return root


def is_golden_file(path: Path) -> bool:
    """True for ``<root>/tests/golden/<name>`` where root has a pyproject.toml and a seams_* package."""
    path = Path(path)
    root = _package_root(path)
    if root is None or path.name.startswith(".") or not path.is_file():
        return False
    return (root / "pyproject.toml").is_file() and bool(_packages(root))


@dataclass(frozen=True)
class _Rendering:
    """A run that rendered: what the items judge."""

    rendered: Rendered
    child_output: str | None
    trig: Path


@dataclass(frozen=True)
class _Run:
    """One run of the package over the model, or why it could not run."""

    rendered: Rendered | None = None
    child_output: str | None = None
    trig: Path | None = None
    problem: str | None = None
    details: str = ""


class GoldenFile(pytest.File):
    """One golden file: its four gates, sharing one run of the package."""

    def collect(self):
        from pytest_seams.golden_rules import rule_items

        root = _root_of(Path(self.path))
        subject = Path(self.path).relative_to(root).as_posix()
        yield from rule_items(self, root, _package_dir(root, Path(self.path).name), subject)  # drafted only
        for item_class in (GoldenItem, DeterminismItem, ParsesItem, SourcesItem):
            yield item_class.from_parent(self, name=item_class.gate, subject=subject)

    def package_run(self) -> _Run:
        cached = getattr(self, "_run", None)
        if cached is None:
            cached = self._run = self._execute()
        return cached

    def _execute(self) -> _Run:
        path = Path(self.path)
        root = _root_of(path)
        package_dir = _package_dir(root, path.name)
        if package_dir is None:
            return _Run(problem=f"no seams_* package in {root.name} has templates/{path.name}")
        trig, problem = model_for(root)
        if trig is None:
            return _Run(problem=problem)
        try:
            first, second = (_sandboxed_run(package_dir, trig, path.name, seed) for seed in (0, 1))
        except _PackageFailed as exc:
            return _Run(problem=f"the package failed: {exc}", details=exc.details)
        return _Run(rendered=first, child_output=second.output, trig=trig)


class _PackageFailed(Exception):
    def __init__(self, message: str, details: str = ""):
        super().__init__(message)
        self.details = details


def _sandboxed_run(package_dir: Path, trig: Path, template: str, hash_seed: int) -> Rendered:
    """The package's extract (and sources) in an executor process in the sandbox, never in
    this process. A scaffolded package's template is rendered here, with Jinja's
    SandboxedEnvironment; any other package renders itself in the executor and only its
    text comes back. The second run uses another hash seed (the determinism item)."""
    from seams_runtime.sandbox import SandboxUnavailable
    from seams_runtime.sandbox.channel import Executor, ExecutorGone, RemoteError

    scaffold = is_scaffold_package(package_dir)
    try:
        with Executor([(package_dir, package_dir.name)], read=[trig.parent], hash_seed=hash_seed) as executor:
            run = executor.extract(package_dir.name, trig, render=not scaffold)
            code_dir = executor.code_root
    except RemoteError as exc:
        raise _PackageFailed(str(exc)) from None
    except (ExecutorGone, SandboxUnavailable) as exc:
        raise _PackageFailed(str(exc)) from None
    if scaffold:
        try:
            output = render_in_judge(package_dir / "templates", template, run["view"])
        except Exception as exc:  # a drafted template may fail to render in any way; report it as data
            raise _PackageFailed(f"{type(exc).__name__}: {exc}",
                                 "".join(traceback.format_exception(exc, limit=-4))) from None
    elif isinstance(run["output"], str):
        output = run["output"]
    else:
        raise _PackageFailed(f"render returned {type(run['output']).__name__}, not str")
    return rendered_from_run(run, output, trig, package_dir, code_dir)


class _GoldenGate(GateItem):
    """Runs the package (once per file) and hands the rendering to ``judge``."""

    marker = "seams_golden"

    def runtest(self) -> None:
        run = cast(GoldenFile, self.parent).package_run()
        if run.rendered is None or run.trig is None:
            self.fail_with([self.finding(run.problem or "the package did not run")], run.details)
            return
        findings, text = self.judge(_Rendering(run.rendered, run.child_output, run.trig))
        if findings:
            self.fail_with(findings, text)

    def finding(self, message: str) -> Finding:
        return Finding(self.gate, self.subject, None, message)

    def judge(self, run: _Rendering) -> tuple[list[Finding], str]:
        raise NotImplementedError


class GoldenItem(_GoldenGate):
    gate = "golden"

    def judge(self, run: _Rendering) -> tuple[list[Finding], str]:
        golden = read_golden(Path(self.path).read_text(encoding="utf-8"))
        findings = [self.finding(f"line {n} has no [fixed] or [graph: ...] marker") for n in golden.unmarked]
        output = run.rendered.output
        if output == golden.expected:
            return findings, ""
        if self.config.getoption("seams_update_golden", default=False):
            return [*findings, self._update(output, run.trig)], ""
        diff = difflib.unified_diff(golden.expected.split("\n"), output.split("\n"),
                                    "golden (markers removed)", "rendered", lineterm="")
        findings.append(self.finding("the rendered output differs from the golden text"))
        return findings, "\n".join(diff)


    def _update(self, output: str, trig: Path) -> Finding:
        """Rewrite the golden file from the rendering (markers carried over), and fail so
        the change is reviewed before the next run passes."""
        from seams.fs import atomic_write, resolve_inside

        path = Path(self.path)
        root = _root_of(path)
        if path.is_symlink() or resolve_inside(root, path.relative_to(root)) != path.resolve() \
                or path.parent.resolve() != (root.resolve() / path.parent.relative_to(root)):
            return self.finding(f"not updated: {path.relative_to(root).as_posix()} or its folder is a symbolic "
                                "link; --seams-update-golden writes only inside the package, through no link")
        text = updated_golden(path.read_text(encoding="utf-8"), output, model_subject_finder(trig))
        atomic_write(path, text.encode("utf-8"))
        return self.finding("updated from the model (--seams-update-golden); review the change "
                            "(git diff), then run pytest again")


class DeterminismItem(_GoldenGate):
    gate = "determinism"

    def judge(self, run: _Rendering) -> tuple[list[Finding], str]:
        if run.child_output == run.rendered.output:
            return [], ""
        diff = difflib.unified_diff(run.rendered.output.split("\n"), (run.child_output or "").split("\n"),
                                    "first rendering", "second rendering (another hash seed)", lineterm="")
        return [self.finding("two renderings of the same model differ")], "\n".join(diff)


class ParsesItem(_GoldenGate):
    gate = "parses"

    def judge(self, run: _Rendering) -> tuple[list[Finding], str]:
        problem = parse_problem(run.rendered.output, Path(self.path).name)
        return ([self.finding(f"the rendered output {problem}")] if problem else []), ""


class SourcesItem(_GoldenGate):
    gate = "sources"

    def judge(self, run: _Rendering) -> tuple[list[Finding], str]:
        rendered, trig = run.rendered, run.trig
        named = set(rendered.sources)
        findings = [self.finding(f"sources() names {p}, which does not exist")
                    for p in rendered.sources if not p.is_file()]
        if trig not in named:
            findings.append(self.finding(f"sources() does not name the TriG file {trig.name}"))
        findings += [self.finding(f"extract reads {_shown(p, trig)}, which sources() does not name")
                     for p in rendered.reads if p not in named]
        return findings, ""


def _shown(path: Path, trig: Path) -> str:
    """Model files relative to the TriG file's directory, others as they are."""
    return path.relative_to(trig.parent).as_posix() if path.is_relative_to(trig.parent) else str(path)


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    """Collect golden files when loaded on its own; the seams plugin does it when active."""
    manager = parent.config.pluginmanager
    if manager.has_plugin("seams") or manager.has_plugin("pytest_seams.plugin"):
        return None
    if is_golden_file(file_path):
        return GoldenFile.from_parent(parent, path=file_path)
    return None

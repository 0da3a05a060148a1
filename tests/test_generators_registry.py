"""The generator registry: built-ins, installed packages (entry points), selection, failures.

Installed packages are simulated the way an installer leaves them: a
``.dist-info`` directory with ``entry_points.txt`` on a temporary sys.path
entry, found by the real ``importlib.metadata`` and loaded by pluggy's real
``load_setuptools_entrypoints``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import REPO, copy_example, edit

from seams.errors import GeneratorError, ProjectError
from seams.generators import registry
from seams.generators.generate import generate_findings, run_generators
from seams.model.loading import load_model
from seams.project.layout import load_project

FIXTURE = REPO / "tests" / "fixtures" / "thirdparty_generator"


def _install(site: Path, dist: str, entry_points: dict[str, str]) -> None:
    info = site / f"{dist}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1.0\n", encoding="utf-8")
    lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[seams.generators]\n{lines}", encoding="utf-8")


def _install_module(site: Path, entry: str, module: str, source: str) -> None:
    """A one-module generator package whose ``generator`` is registered as ``entry``."""
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    _install(site, module, {entry: f"{module}:generator"})


def _odd_generator(body: str) -> str:
    return f"from seams.generators import hookimpl\n\n\nclass Odd:\n    @hookimpl\n    {body}\n\n\ngenerator = Odd()\n"


@pytest.fixture()
def site(tmp_path, monkeypatch):
    """A temporary site directory on sys.path; modules imported from it are forgotten afterwards."""
    directory = tmp_path / "site"
    directory.mkdir()
    monkeypatch.syspath_prepend(str(directory))
    monkeypatch.syspath_prepend(str(FIXTURE))
    before = set(sys.modules)
    yield directory
    for name in set(sys.modules) - before:
        if name.startswith(("seams_thirdparty", "broken_generator", "odd_generator")):
            del sys.modules[name]


def _project(tmp_path: Path, generators: str | None):
    root = copy_example(tmp_path)
    config = root / "seams.toml"
    if generators is None:
        edit(config, '[generate]\ngenerators = ["stubs", "decisions"]\n', "")
    else:
        edit(config, 'generators = ["stubs", "decisions"]', f"generators = {generators}")
    project = load_project(root)
    return project, load_model(project)


def test_the_default_is_every_builtin_and_nothing_installed(tmp_path, site):
    _install(site, "seams_thirdparty", {"thirdparty": "seams_thirdparty:generator"})
    project, model = _project(tmp_path, None)
    files = run_generators(project, model)
    assert sorted(project.relative(p) for p in files) == [
        "generated/decisions.py", "generated/stubs/check_balance.py", "generated/stubs/record_leave.py"]
    assert "seams_thirdparty" not in sys.modules  # never imported when not chosen


def test_an_installed_package_runs_when_listed(tmp_path, site):
    _install(site, "seams_thirdparty", {"thirdparty": "seams_thirdparty:generator"})
    assert "thirdparty" in registry.installed_names()
    project, model = _project(tmp_path, '["thirdparty", "decisions"]')
    files = {project.relative(p): data for p, data in run_generators(project, model).items()}
    assert sorted(files) == ["generated/decisions.py", "generated/thirdparty/processes.md"]
    text = files["generated/thirdparty/processes.md"].decode("utf-8")
    assert text.startswith("# Processes\n\n## Leave request\n\n")
    assert "- Check leave balance\n" in text


def test_an_unknown_generator_name_is_a_project_error_naming_it(tmp_path, site):
    project, model = _project(tmp_path, '["stubs", "nosuch"]')
    with pytest.raises(ProjectError, match=r"seams.toml: generate.generators names unknown generator nosuch"):
        run_generators(project, model)


def test_a_package_that_fails_to_import_is_that_generators_error(tmp_path, site):
    _install_module(site, "broken", "broken_generator", "raise RuntimeError('no luck')\n")
    project, model = _project(tmp_path, '["stubs", "broken"]')
    findings = generate_findings(project, model)
    assert [(f.kind, f.subject) for f in findings] == [("generate", "broken")]
    assert "cannot load its package: RuntimeError: no luck" in findings[0].message
    with pytest.raises(GeneratorError, match=r"^generator broken: cannot load"):
        run_generators(project, model)


@pytest.mark.parametrize(("body", "fault"), [
    ("def seams_generate(self):\n        raise ValueError('boom')", "failed: ValueError: boom"),
    ("def seams_generate(self):\n        return {'../escape.txt': b'x'}", "returned the path '../escape.txt'"),
    ("def seams_generate(self):\n        return {'a.txt': 'text, not bytes'}", "must map a str path to bytes"),
    ("def seams_generate(self):\n        return {'decisions.py': b'clash'}", "which generator decisions writes too"),
    ("def seams_generate(self):\n        return None", "must return a mapping"),
    ("def seams_generate(self, nonsense):\n        return {}",
     "does not fit the seams hooks: Argument(s) {'nonsense'}"),
    ("def seams_other(self):\n        return {}", "unknown hook 'seams_other'"),
])
def test_a_misbehaving_generator_is_reported_by_name(tmp_path, site, body, fault):
    _install_module(site, "odd", "odd_generator", _odd_generator(body))
    project, model = _project(tmp_path, '["decisions", "odd"]')
    findings = generate_findings(project, model)
    assert [(f.kind, f.subject) for f in findings] == [("generate", "odd")]
    assert fault in findings[0].message


def test_a_generator_may_not_write_into_the_handlers_package(tmp_path, site):
    root = copy_example(tmp_path)
    edit(root / "seams.toml", 'generated = "generated"', 'generated = "."')
    edit(root / "seams.toml", 'generators = ["stubs", "decisions"]', 'generators = ["stubs", "odd"]')
    _install_module(site, "odd", "odd_generator", _odd_generator(
        "def seams_generate(self):\n        return {'handlers/check_balance.py': b'x'}"))
    project = load_project(root)
    findings = generate_findings(project, load_model(project))
    assert [(f.subject, f.message) for f in findings] == [
        ("odd", "would write handlers/check_balance.py, which is hand-owned or belongs to seams")]


def test_runs_are_memoized_per_model(tmp_path):
    project, model = _project(tmp_path, None)
    first = run_generators(project, model)
    assert run_generators(project, model) == first
    assert run_generators(project, model) is not first  # callers get their own dict
    from seams.generators.generate import generation

    assert generation(project, model) is generation(project, model)


def test_a_package_without_the_hook_is_reported(tmp_path, site):
    _install_module(site, "odd", "odd_generator", "class Odd:\n    pass\n\n\ngenerator = Odd()\n")
    project, model = _project(tmp_path, '["odd"]')
    findings = generate_findings(project, model)
    assert [(f.subject, f.message) for f in findings] == [("odd", "implements no seams_generate hook")]

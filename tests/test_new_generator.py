"""``seams new-generator``: the scaffolded package, its refusals, and its use by ``seams generate``."""

from __future__ import annotations

import ast
import json
import sys
import tomllib
from pathlib import Path

import pytest
from helpers import copy_example, edit, run_seams

from seams.errors import GeneratorError
from seams.generators.golden_text import read_golden
from seams.generators.new_generator import scaffold, write
from seams.generators.package import DEFAULT_EXTRACT, package_module
from seams_cli.main import main

REFERENCE = "# Leave report\n\nApprovals go to a manager after 5 days.\n"


@pytest.fixture()
def reference(tmp_path) -> Path:
    path = tmp_path / "report.md"
    path.write_text(REFERENCE, encoding="utf-8")
    return path


def test_the_scaffold_is_the_package_of_the_design(reference):
    files = scaffold("leave-report", reference)
    assert sorted(files) == ["pyproject.toml", "seams_leave_report/__init__.py",
                             "seams_leave_report/templates/report.md", "tests/golden/report.md"]
    assert files["seams_leave_report/templates/report.md"].decode() == REFERENCE
    golden = files["tests/golden/report.md"].decode()
    assert golden == "[fixed] # Leave report\n\n[fixed] Approvals go to a manager after 5 days.\n"
    assert read_golden(golden).expected == REFERENCE
    config = tomllib.loads(files["pyproject.toml"].decode())
    assert config["project"]["name"] == "seams-leave-report"
    assert config["project"]["entry-points"]["seams.generators"] == {"leave-report": "seams_leave_report:generator"}
    module = ast.parse(files["seams_leave_report/__init__.py"])
    defined = {n.name for n in module.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert {"extract", "render", "sources", "Generator"} <= defined
    assert "generator" in {t.id for n in module.body if isinstance(n, ast.Assign) for t in n.targets}


def test_the_scaffold_is_deterministic(reference):
    assert scaffold("leave-report", reference) == scaffold("leave-report", reference)


def test_the_extract_step_is_a_parameter_and_the_rest_stays():
    drafted = ("from __future__ import annotations\nimport json\n\n\n"
               "def extract(trig: Path, out: Path) -> dict:\n    return {'labels': json.dumps([])}\n")
    default = package_module("x", "a.md")
    module = package_module("x", "a.md", drafted)
    assert DEFAULT_EXTRACT.strip() in default and DEFAULT_EXTRACT.strip() not in module
    assert "return {'labels': json.dumps([])}" in module
    assert module.count("from __future__ import annotations") == 1
    compile(module, "module", "exec")
    marker = "# --- render and register"
    assert module[module.index(marker):] == default[default.index(marker):]


def test_template_and_golden_can_replace_the_scaffolds(reference):
    files = scaffold("r", reference, template="[[ title ]]\n", golden="[graph: ex:R rdfs:label] T\n")
    assert files["seams_r/templates/report.md"] == b"[[ title ]]\n"
    assert files["tests/golden/report.md"] == b"[graph: ex:R rdfs:label] T\n"


def test_the_cli_writes_the_package_and_names_each_file(tmp_path, reference):
    done = run_seams("new-generator", "leave-report", "--reference", str(reference), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "wrote seams-leave-report/pyproject.toml", "wrote seams-leave-report/seams_leave_report/__init__.py",
        "wrote seams-leave-report/seams_leave_report/templates/report.md",
        "wrote seams-leave-report/tests/golden/report.md"]
    written = {p.relative_to(tmp_path / "seams-leave-report").as_posix(): p.read_bytes()
               for p in (tmp_path / "seams-leave-report").rglob("*") if p.is_file()}
    assert written == scaffold("leave-report", reference)


def _write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


@pytest.mark.parametrize(("name", "file", "content", "reason"), [
    ("Leave", "r.md", "x\n", "name 'Leave': use lowercase letters, digits and hyphens"),
    ("1leave", "r.md", "x\n", "name '1leave'"),
    ("leave_report", "r.md", "x\n", "name 'leave_report'"),
    ("leave", "r.pdf", "x\n", "reference r.pdf: unsupported suffix .pdf"),
    ("leave", "README", "x\n", "reference README: unsupported suffix (none)"),
    ("leave", "r.md", b"\xff\xfe bad", "reference r.md: not UTF-8 text"),
    ("leave", "r.md", "", "reference r.md: empty"),
    ("leave", "r.txt", " \n\n", "reference r.txt: empty"),
    ("leave", "r.py", "def broken(:\n", "reference r.py: does not parse as .py"),
    ("leave", "r.json", "{\"a\": }\n", "reference r.json: does not parse as .json"),
    ("leave", "r.toml", "a = \n", "reference r.toml: does not parse as .toml"),
    ("leave", "r.xml", "<a><b></a>\n", "reference r.xml: does not parse as .xml"),
    ("leave", "r.bpmn", "<!DOCTYPE x><x/>\n", "reference r.bpmn: does not parse as .bpmn: a DTD is not allowed"),
    ("leave", "r.ttl", "<a> <b> .\n", "reference r.ttl: does not parse as .ttl"),
    ("leave", "r.trig", "{ <a> <b> <c> \n", "reference r.trig: does not parse as .trig"),
    ("leave", "r.md", "a\nb [[ c ]]\n", "reference r.md: line 2 holds the template delimiter [["),
    ("leave", "r.md", "[% if x %]\n", "holds the template delimiter [%"),
    ("leave", "r.html", "<p>[# note #]</p>\n", "holds the template delimiter [#"),
    ("leave", "r.txt", "one\r\ntwo\r\n", "reference r.txt: has CR line endings"),
    ("leave", "test_r.py", "x = 1\n", "pytest would collect tests/golden/test_r.py"),
    ("leave", "conftest.py", "x = 1\n", "pytest would collect tests/golden/conftest.py"),
])
def test_each_refusal_is_one_line_exit_1_and_writes_nothing(tmp_path, monkeypatch, capsys,
                                                            name, file, content, reason):
    reference = _write(tmp_path / file, content)
    monkeypatch.chdir(tmp_path)
    assert main(["new-generator", name, "--reference", str(reference), "--out", "pkg"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("seams new-generator: ") and reason in lines[0], err
    assert not (tmp_path / "pkg").exists()


def test_a_missing_reference_is_refused(tmp_path):
    done = run_seams("new-generator", "leave", "--reference", "nope.md", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("seams new-generator: reference nope.md: cannot read it")


def test_closing_delimiters_alone_are_plain_text(tmp_path):
    reference = _write(tmp_path / "r.py", "rows = [[1, 2]][0]\nfirst = rows[rows[0]]\n")
    with pytest.raises(GeneratorError, match=r"\[\["):
        scaffold("r", reference)
    reference = _write(tmp_path / "s.py", "rows = [1, [2]]\nfirst = rows[rows[1][0]]\n")
    assert scaffold("s", reference)["seams_s/templates/s.py"] == reference.read_bytes()


def test_an_occupied_out_needs_force_which_replaces_only_the_package_files(tmp_path, reference):
    out = tmp_path / "pkg"
    out.mkdir()
    (out / "NOTES.md").write_text("mine\n", encoding="utf-8")
    _write(out / "pyproject.toml", "old")
    refused = run_seams("new-generator", "leave", "--reference", str(reference), "--out", str(out), cwd=tmp_path)
    assert refused.returncode == 1 and "not empty" in refused.stderr
    assert (out / "pyproject.toml").read_text() == "old"
    forced = run_seams("new-generator", "leave", "--reference", str(reference), "--out", str(out), "--force",
                       cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert (out / "NOTES.md").read_text() == "mine\n"
    assert (out / "pyproject.toml").read_bytes() == scaffold("leave", reference)["pyproject.toml"]


def test_write_checks_every_path_before_writing_any(tmp_path, reference):
    out = tmp_path / "pkg"
    (out / "tests" / "golden" / "report.md").mkdir(parents=True)  # a directory where a file must go
    with pytest.raises(GeneratorError, match="is in the way"):
        write(scaffold("leave", reference), out, force=True)
    assert not (out / "pyproject.toml").exists()


def test_an_installed_scaffold_renders_its_reference_with_seams_generate(tmp_path, reference):
    package = tmp_path / "seams-leave-report"
    write(scaffold("leave-report", reference), package, force=False)
    site = tmp_path / "site" / "seams_leave_report-0.1.0.dist-info"
    site.mkdir(parents=True)
    (site / "METADATA").write_text("Metadata-Version: 2.1\nName: seams-leave-report\nVersion: 0.1.0\n")
    (site / "entry_points.txt").write_text("[seams.generators]\nleave-report = seams_leave_report:generator\n")
    root = copy_example(tmp_path, generated=False)
    edit(root / "seams.toml", 'generators = ["stubs", "decisions"]', 'generators = ["leave-report"]')
    env = {"PYTHONPATH": f"{package}{_sep()}{site.parent}"}
    done = run_seams("generate", cwd=root, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["wrote generated/report.md", "wrote seams.lock", "unchanged 0"]
    assert (root / "generated" / "report.md").read_text(encoding="utf-8") == REFERENCE
    assert list(json.loads((root / "seams.lock").read_text())["generated"]) == ["generated/report.md"]


def _sep() -> str:
    return ";" if sys.platform == "win32" else ":"

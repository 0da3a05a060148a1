"""The packages import one way: seams <- seams_edit <- pytest_seams <- seams_cli, with no cycle.

The graph is read from the source (ast), lazy imports inside functions and
``TYPE_CHECKING`` imports included, by the same script that prints it for
docs/architecture.md.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _script():
    spec = importlib.util.spec_from_file_location("import_graph", REPO / "scripts" / "import_graph.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["import_graph"] = module
    spec.loader.exec_module(module)
    return module


def test_imports_run_one_way_without_cycles():
    assert _script().problems() == []


def test_a_wrong_way_import_and_a_cycle_are_reported():
    script = _script()
    edges = {"seams.lang.feel": {"seams_cli.llm.provider"}, "seams_cli.llm.provider": set(),
             "seams.model.view": {"seams.model.loading"}, "seams.model.loading": {"seams.model.view"}}
    assert script.problems(edges) == [
        "seams.lang.feel imports seams_cli.llm.provider: seams_cli is above seams",
        "import cycle: seams.model.loading -> seams.model.view -> seams.model.loading",
    ]


def test_lazy_and_type_checking_imports_count(tmp_path):
    script = _script()
    source = tmp_path / "mod.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from seams_cli import main\n"
                      "def f():\n    import pytest_seams.runner\n")
    found = script.imports_of(source, {"seams_cli", "seams_cli.main", "pytest_seams", "pytest_seams.runner"},
                                name="seams.mod")
    assert found == {"seams_cli.main", "pytest_seams.runner"}


def test_the_documented_graph_is_the_script_s_output():
    import re
    import subprocess

    printed = subprocess.run([sys.executable, str(REPO / "scripts" / "import_graph.py")], capture_output=True,
                             text=True, check=True, timeout=120).stdout
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- import-graph:[^\n]*-->\n```\n(.*?)```\n<!-- /import-graph -->", text, re.S)
    assert block is not None, "docs/architecture.md lost its import-graph markers"
    assert block.group(1) == printed


RENDERED = "acceptance tests of {subject}{label}: handler module {module}."
"""The header of the rendered acceptance source: prompt text, not a citation (changing it
would change every propose prompt)."""


def test_no_citation_of_a_document_outside_the_repository():
    """Docstrings, comments and docs cite docs/*.md and the named decisions of
    docs/architecture.md, never ADR numbers, design sections or backlog ids."""
    import re

    cited = re.compile(r"ADR-?\d{2,4}|design §\s?\d+|backlog [A-Z]\d+|\bD0\d{2}\b|\bC[1-5]\b")
    found = []
    for folder in ("seams", "seams_edit", "pytest_seams", "seams_cli", "tests", "scripts", "benchmarks", "docs"):
        for path in sorted((REPO / folder).rglob("*")):
            if path.suffix not in (".py", ".md"):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")  # a fixture may be Latin-1
            for number, line in enumerate(text.splitlines(), start=1):
                if cited.search(line) and RENDERED not in line:
                    found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    for name in ("README.md",):
        for number, line in enumerate((REPO / name).read_text(encoding="utf-8").splitlines(), start=1):
            if cited.search(line):
                found.append(f"{name}:{number}: {line.strip()}")
    assert found == []

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

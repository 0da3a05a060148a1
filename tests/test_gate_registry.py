"""The gate registry is the one list of gates: the docs, the plugin's items, ``seams check``
and the kinds of the findings all agree with it."""

from __future__ import annotations

import re

from helpers import EXAMPLE, REPO, copy_example

from pytest_seams.expected import expected_items
from seams.checks import registry
from seams.checks.registry import LOCK_GATES, MODEL_GATES, gate, gate_of_kind, gates
from seams.model.loading import load_model
from seams.project.layout import load_project


def test_the_docs_gate_table_is_the_registry():
    text = (REPO / "docs" / "plugin.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- gate-table:[^\n]*-->\n(.*?)<!-- /gate-table -->", text, re.S)
    assert block is not None, "docs/plugin.md lost its gate table markers"
    assert block.group(1) == registry.markdown_table()


def test_gates_have_names_and_findings_have_kinds():
    assert registry.MODEL_GATE_NAMES == ("shapes", "decisions", "generate", "engine-bindings")
    assert registry.MODEL_KINDS == ("shape", "decision", "generate", "engine-binding")  # `shape`, the gate is `shapes`
    assert gate_of_kind("shape") is gate("shapes")
    assert gate_of_kind("decision") is gate("decisions")
    assert gate_of_kind("draft-hand-edited") is gate("draft-hand-edited")
    assert gate_of_kind("routing") is registry.ROUTING
    assert gate_of_kind("no-such-kind") is None
    assert registry.ROUTING not in registry.CHECK_GATES  # seams check never runs it
    assert [g.only_kind for g in LOCK_GATES] == list(registry.LOCK_KINDS)
    assert all(g.only_kind is None for g in MODEL_GATES)
    for g in gates():
        assert callable(g.source.load()), g.name


def test_the_plugin_collects_the_registry_in_order():
    project = load_project(EXAMPLE)
    model = load_model(project)
    assert expected_items(project, model, task="model") == [f"seams.toml::{g.name}" for g in MODEL_GATES
                                                            if g.name != "engine-bindings"]
    everything = expected_items(project, model, check=True)
    assert everything[-len(LOCK_GATES):] == [f"seams.toml::{g.name}" for g in LOCK_GATES]


def test_every_finding_seams_check_reports_belongs_to_a_gate(tmp_path):
    root = copy_example(tmp_path)
    generated = sorted((root / "generated").rglob("*.*"))
    generated[0].write_bytes(generated[0].read_bytes() + b"# edited\n")
    project = load_project(root)
    model = load_model(project)
    findings = registry.all_findings(project, model)
    assert findings, "the hand edit must be found"
    for finding in findings:
        owner = gate_of_kind(finding.kind)
        assert owner is not None, finding
        assert finding in owner.source.findings(project, model)


def test_the_golden_file_items_are_the_registry_s_names():
    from pytest_seams.golden import DeterminismItem, GoldenItem, ParsesItem, SourcesItem
    from pytest_seams.golden_rules import ExtractItem, NoLogicItem, RestatedLabelItem

    assert tuple(c.gate for c in (GoldenItem, DeterminismItem, ParsesItem, SourcesItem)) == registry.GOLDEN_GATE_NAMES
    assert tuple(c.gate for c in (ExtractItem, NoLogicItem, RestatedLabelItem)) == registry.DRAFT_RULE_NAMES


def test_a_layer_above_adds_its_gate_through_the_hook():
    """The scenario gate is defined in seams_runtime and reaches the registry through the
    ``seams_gates`` hook (entry point group ``seams.gates``); the core names no module above it."""
    from seams_runtime.scenarios import SCENARIO

    assert gate("scenario") is SCENARIO
    assert gate_of_kind("scenario") is SCENARIO
    assert [g.name for g in gates()][-1] == "scenario"
    core = (REPO / "seams" / "checks" / "registry.py").read_text(encoding="utf-8")
    assert "seams_runtime" not in core and "pytest_seams.scenarios" not in core

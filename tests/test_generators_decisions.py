"""The built-in ``decisions`` generator: generated functions agree with the DMN table.

The oracle below reads the DMN itself (lxml) and evaluates every rule with
``seams.feel`` (``UnaryTests.matches``) under the hit policy as DMN 1.3
defines it; the generated function must give the same answer (or raise) on
every sample input from ``feel.sample_values`` plus values of other kinds.
"""

from __future__ import annotations

import ast
import itertools
import subprocess
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from helpers import EXAMPLE, copy_example, edit
from lxml import etree

from seams.errors import GeneratorError
from seams.generators.decisions import decisions_source
from seams.lang.feel import parse_literal, parse_unary_tests, sample_values
from seams.model.loading import load_model
from seams.project.layout import load_project

DMN = "{https://www.omg.org/spec/DMN/20191111/MODEL/}"
OTHER_KINDS = [None, True, "zzz", Decimal("2.5"), date(2024, 1, 1)]


class Conflict(Exception):
    """The oracle's hit-policy violation."""


def _table(dmn_path: Path, decision_id: str):
    root = etree.parse(str(dmn_path)).getroot()
    decision = next(d for d in root.iter(f"{DMN}decision") if d.get("id") == decision_id)
    table = decision.find(f"{DMN}decisionTable")
    rules = []
    for rule in table.findall(f"{DMN}rule"):
        tests = [parse_unary_tests(e.findtext(f"{DMN}text"), where="oracle") for e in rule.findall(f"{DMN}inputEntry")]
        output = parse_literal(rule.find(f"{DMN}outputEntry").findtext(f"{DMN}text"), where="oracle")
        rules.append((rule.get("id"), tests, output))
    return table.get("hitPolicy", "UNIQUE"), table.get("aggregation"), rules


def _oracle(policy: str, aggregation: str | None, rules, values: tuple):
    matched = [(rule_id, output) for rule_id, tests, output in rules
               if all(test.matches(value) for test, value in zip(tests, values))]
    outputs = [output for _, output in matched]
    if policy == "UNIQUE":
        if len(matched) > 1:
            raise Conflict
        return outputs[0] if outputs else None
    if policy == "FIRST":
        return outputs[0] if outputs else None
    if policy == "ANY":
        if len({repr(o) for o in outputs}) > 1:
            raise Conflict
        return outputs[0] if outputs else None
    if aggregation is None:
        return outputs
    if aggregation == "COUNT":
        return len(outputs)
    return {"SUM": sum, "MIN": min, "MAX": max}[aggregation](outputs) if outputs else None


def _module(root: Path) -> dict:
    source = decisions_source(load_model(load_project(root)))
    namespace: dict = {"__name__": "generated_decisions"}
    exec(compile(source, "decisions.py", "exec"), namespace)
    return namespace


def _agree(root: Path) -> int:
    """Compare the generated function with the oracle on every sample; returns how many
    inputs matched more than one rule (so a test can insist overlaps were exercised)."""
    policy, aggregation, rules = _table(root / "model" / "leave.dmn", "Decision_ApprovalLevel")
    function = _module(root)["approval_level"]
    columns = list(zip(*[tests for _, tests, _ in rules]))
    samples = [sample_values(column) + OTHER_KINDS for column in columns]
    overlaps = 0
    for values in itertools.product(*samples):
        try:
            expected = _oracle(policy, aggregation, rules, values)
        except Conflict:
            with pytest.raises(_module_error(function)):
                function(*values)
            overlaps += 1
            continue
        assert function(*values) == expected, values
        matched = sum(all(t.matches(v) for t, v in zip(tests, values)) for _, tests, _ in rules)
        overlaps += matched > 1
    return overlaps


def _module_error(function) -> type:
    return function.__globals__["DecisionError"]


def test_the_example_decision_agrees_with_its_table_on_every_sample():
    assert _agree(EXAMPLE) == 0


def _overlapping(tmp_path: Path, policy: str, aggregation: str | None = None, numbers: bool = False) -> Path:
    root = copy_example(tmp_path)
    dmn = root / "model" / "leave.dmn"
    edit(dmn, "<text>&gt; 5</text>", "<text>&gt; 3</text>")  # Rule_Long now overlaps both short rules
    extra = f' aggregation="{aggregation}"' if aggregation else ""
    edit(dmn, 'hitPolicy="UNIQUE"', f'hitPolicy="{policy}"{extra}')
    if numbers:
        edit(dmn, '<text>"auto"</text>', "<text>1</text>")
        edit(dmn, '<text>"manager"</text>', "<text>2.5</text>")  # both rules
    return root


@pytest.mark.parametrize(("policy", "aggregation", "numbers"), [
    ("UNIQUE", None, False), ("FIRST", None, False), ("ANY", None, False), ("RULE ORDER", None, False),
    ("COLLECT", None, False), ("COLLECT", "SUM", True), ("COLLECT", "MIN", True), ("COLLECT", "MAX", True),
    ("COLLECT", "COUNT", False),
])
def test_every_hit_policy_agrees_with_its_table_where_rules_overlap(tmp_path, policy, aggregation, numbers):
    assert _agree(_overlapping(tmp_path, policy, aggregation, numbers)) > 0


def test_unique_with_two_matches_raises_naming_the_rules(tmp_path):
    function = _module(_overlapping(tmp_path, "UNIQUE"))["approval_level"]
    with pytest.raises(_module_error(function), match="Rule_ShortAnnual, Rule_Long"):
        function(4, "annual")
    assert function(2, "annual") == "auto"
    assert function(None, None) is None


def test_any_with_disagreeing_matches_raises(tmp_path):
    function = _module(_overlapping(tmp_path, "ANY"))["approval_level"]
    with pytest.raises(_module_error(function), match="ANY"):
        function(4, "annual")
    assert function(4, "sick") == "manager"  # two rules match and agree


def test_a_missing_hit_policy_means_unique(tmp_path):
    root = _overlapping(tmp_path, "UNIQUE")
    edit(root / "model" / "leave.dmn", ' hitPolicy="UNIQUE"', "")
    function = _module(root)["approval_level"]
    with pytest.raises(_module_error(function)):
        function(4, "annual")


def test_the_module_needs_only_the_standard_library(tmp_path):
    source = decisions_source(load_model(load_project(EXAMPLE)))
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module.split(".")[0])
    assert imported <= {"__future__", "datetime", "decimal"}
    module = tmp_path / "decisions.py"
    module.write_text(source, encoding="utf-8")
    # -E -s -S: no environment, no site-packages, so no seams: only the standard library
    done = subprocess.run([sys.executable, "-E", "-s", "-S", "-c",
                           "import decisions; print(decisions.approval_level(3, 'annual'))"],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "auto"), done.stderr


def test_generation_is_deterministic():
    model = load_model(load_project(EXAMPLE))
    assert decisions_source(model) == decisions_source(load_model(load_project(EXAMPLE)))


def test_a_model_without_decisions_gets_no_module(tmp_path):
    root = copy_example(tmp_path)
    edit(root / "model" / "model.trig", "ex:ApprovalLevel a dec:Decision ;", "ex:ApprovalLevel a seam:Unused ;")
    assert decisions_source(load_model(load_project(root))) is None


@pytest.mark.parametrize(("file", "old", "new", "fault"), [
    ("leave.dmn", 'hitPolicy="UNIQUE"', 'hitPolicy="PRIORITY"',
     r"ex:ApprovalLevel dec:payloadElement: DMN Decision_ApprovalLevel dmn:outputValues: hit policy PRIORITY ranks "
     r"rules by the outputs' outputValues, and no output lists them"),
    ("leave.dmn", 'hitPolicy="UNIQUE"', 'hitPolicy="FIRST" aggregation="SUM"',
     r"ex:ApprovalLevel dec:payloadElement: DMN Decision_ApprovalLevel dmn:aggregation: aggregation SUM needs hit "
     r"policy COLLECT, not FIRST"),
    ("leave.dmn", "<text>&gt; 5</text>", "<text>&gt; days + 1</text>",
     r"ex:ApprovalLevel dec:payloadElement: DMN Rule_Long dmn:inputEntry: input \"days\": unexpected '\+'"),
    ("leave.dmn", '<text>"manager"</text>', "<text>manager</text>",
     r"ex:ApprovalLevel dec:payloadElement: DMN Rule_Long dmn:outputEntry: output: name 'manager'"),
    ("leave.dmn", "<text>days</text>", "<text>int</text>", r"ex:ApprovalLevel dec:input: input int would hide"),
    ("leave.dmn", "<text>days</text>", "<text>days + 1</text>", r"ex:ApprovalLevel dec:payloadElement: DMN "
                                                                 r"Decision_ApprovalLevel dmn:inputExpression: input 1 "
                                                                 r"'days \+ 1': expected a FEEL name"),
    ("model.trig", 'dec:payloadElement "Decision_ApprovalLevel"', 'dec:payloadElement "Nope"',
     r"ex:ApprovalLevel dec:payloadElement: 'Nope' is no decision in leave.dmn"),
])
def test_what_cannot_become_a_function_is_a_generator_error_naming_it(tmp_path, file, old, new, fault):
    root = copy_example(tmp_path)
    edit(root / "model" / file, old, new)
    with pytest.raises(GeneratorError, match=fault):
        decisions_source(load_model(load_project(root)))


def test_a_decision_named_like_a_builtin_does_not_hide_it(tmp_path):
    root = copy_example(tmp_path)
    edit(root / "model" / "model.trig", 'ex:ApprovalLevel a dec:Decision ;\n        rdfs:label "Approval level" ;',
         'ex:ApprovalLevel a dec:Decision ;\n        rdfs:label "Type" ;')
    module = _module(root)
    assert "type" not in module and module["__all__"] == ["DecisionError", "type_"]
    assert module["type_"](3, "annual") == "auto"

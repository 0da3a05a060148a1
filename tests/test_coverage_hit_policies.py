"""Coverage seeds for every hit policy: a rule's seed is a set of input values on which the
engine applies that rule as the table's hit policy does (the one rule that decides under
UNIQUE, FIRST, PRIORITY and ANY; one of the matches under COLLECT, RULE ORDER and OUTPUT
ORDER). Each table is our own, over the leave example's inputs (days, leave_type), written
into a copy of the example in place of its decision; each seed is held to the generated
decisions module's own rule tests (which rules match) and to the hit policy written out here."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import copy_example

from seams.generators.decisions import decision_calls, decisions_source
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.suggestions.coverage import coverage

DMN = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="Definitions_Policies"
             name="Hit policies" namespace="http://camunda.org/schema/1.0/dmn">
  <decision id="Decision_ApprovalLevel" name="Approval level">
    <decisionTable id="DecisionTable_Policies" hitPolicy="{policy}"{aggregation}>
      <input id="Input_Days" label="Days">
        <inputExpression id="InputExpression_Days" typeRef="integer"><text>days</text></inputExpression>
      </input>
      <input id="Input_LeaveType" label="Leave type">
        <inputExpression id="InputExpression_LeaveType" typeRef="string"><text>leave_type</text></inputExpression>
      </input>
      <output id="Output_Approval" label="Approval level" name="approval" typeRef="{type}">{values}</output>
{rules}
    </decisionTable>
  </decision>
</definitions>
"""

RULE = """      <rule id="{id}">
        <inputEntry id="{id}_days"><text>{days}</text></inputEntry>
        <inputEntry id="{id}_type"><text>{leave_type}</text></inputEntry>
        <outputEntry id="{id}_out"><text>{output}</text></outputEntry>
      </rule>"""

RANKED = '<outputValues id="Values_Approval"><text>"hr","manager","auto"</text></outputValues>'

# (days test, leave_type test, output) per rule, in rule order. Each table has rules another
# rule always overlaps with a different output, which "every match agrees" cannot seed.
TABLES = {
    "UNIQUE": [("<= 5", '"annual"', '"auto"'), ("> 5", "-", '"manager"'), ("<= 5", 'not("annual")', '"manager"')],
    "FIRST": [("> 20", "-", '"hr"'), ("> 5", "-", '"manager"'), ("-", '"annual"', '"auto"'), ("-", "-", '"manager"')],
    "PRIORITY": [("-", "-", '"auto"'), ("> 5", "-", '"manager"'), ("-", '"unpaid"', '"hr"')],
    "ANY": [("<= 5", '"annual"', '"auto"'), ("<= 3", '"annual"', '"auto"'), ("> 5", "-", '"manager"'),
            ("-", '"sick"', '"manager"')],
    "COLLECT": [("-", "-", '"auto"'), ("> 5", "-", '"manager"'), ("-", '"unpaid"', '"hr"')],
    "COLLECT SUM": [("-", "-", "1"), ("> 5", "-", "2"), ("-", '"unpaid"', "4")],
    "COLLECT COUNT": [("-", "-", '"auto"'), ("> 5", "-", '"manager"'), ("-", '"unpaid"', '"hr"')],
    "RULE ORDER": [("-", "-", '"auto"'), ("> 5", "-", '"manager"'), ("-", '"unpaid"', '"hr"')],
    "OUTPUT ORDER": [("-", "-", '"auto"'), ("> 5", "-", '"manager"'), ("-", '"unpaid"', '"hr"')],
}


def _dmn(name: str) -> str:
    policy, _, aggregation = name.partition(" ")
    policy = {"RULE": "RULE ORDER", "OUTPUT": "OUTPUT ORDER"}.get(policy, policy)
    aggregation = "" if aggregation in ("ORDER", "") else aggregation
    rules = "\n".join(RULE.format(id=f"Rule_{n}", days=days.replace("<", "&lt;").replace(">", "&gt;"),
                                  leave_type=leave_type, output=output)
                      for n, (days, leave_type, output) in enumerate(TABLES[name], 1))
    return DMN.format(policy=policy, aggregation=f' aggregation="{aggregation}"' if aggregation else "",
                      type="integer" if name == "COLLECT SUM" else "string",
                      values=RANKED if policy in ("PRIORITY", "OUTPUT") or name == "OUTPUT ORDER" else "",
                      rules=rules)


def _applied(name: str, matched: list[int], outputs: list[str]) -> list[int]:
    """The rules (1-based) the engine applies when ``matched`` match, written out per policy
    (DMN 1.5, 8.2.11) independently of seams' own code."""
    if name == "UNIQUE":
        return matched if len(matched) == 1 else []
    if name == "FIRST":
        return matched[:1]
    if name == "PRIORITY":
        order = ['"hr"', '"manager"', '"auto"']
        return [min(matched, key=lambda n: (order.index(outputs[n - 1]), n))] if matched else []
    if name == "ANY":
        return matched if len({outputs[n - 1] for n in matched}) == 1 else []
    return matched  # COLLECT (any aggregator), RULE ORDER, OUTPUT ORDER: every match counts


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    roots = {}
    for name in TABLES:
        root = copy_example(tmp_path_factory.mktemp(name.replace(" ", "_")))
        (root / "model" / "leave.dmn").write_text(_dmn(name), encoding="utf-8")
        roots[name] = root
    return roots


@pytest.mark.parametrize("name", list(TABLES))
def test_every_rule_of_every_hit_policy_gets_a_seed_the_engine_applies(projects: dict[str, Path],
                                                                       name: str) -> None:
    model = load_model(load_project(projects[name]))
    uncovered = [u for u in coverage(model, []).uncovered if u.kind == "rule"]
    assert [u.target for u in uncovered] == [f"Rule_{n}" for n in range(1, len(TABLES[name]) + 1)]
    # the generated module's rule tests say which rules match a seed
    namespace: dict = {}
    exec(compile(decisions_source(model) or "", "<decisions.py>", "exec"), namespace)  # noqa: S102
    (call,) = [c for c in decision_calls(model).values() if c.decision_id == "Decision_ApprovalLevel"]
    outputs = [output for _, _, output in TABLES[name]]
    for u in uncovered:
        assert u.seed is not None, u.line()
        assert set(u.seed) == {"days", "leave_type"}, u.line()
        matched = [n for n, (_, test) in enumerate(call.rules, 1)
                   if eval(test, namespace, {p: u.seed.get(p) for p in call.parameters})]  # noqa: S307
        assert int(u.target.split("_")[1]) in _applied(name, matched, outputs), (u.line(), matched)
        assert u.line().endswith(" via Task_Submit"), u.line()


def test_a_first_table_s_shadowed_rules_get_seeds_below_the_earlier_rules(projects: dict[str, Path]) -> None:
    """The issue's FIRST table: a catch-all last rule overlaps every other; each earlier rule's
    seed lies where no rule before it matches."""
    model = load_model(load_project(projects["FIRST"]))
    seeds = {u.target: u.seed for u in coverage(model, []).uncovered if u.kind == "rule"}
    assert seeds["Rule_1"] is not None and seeds["Rule_1"]["days"] > 20
    assert seeds["Rule_2"] is not None and 5 < seeds["Rule_2"]["days"] <= 20
    assert seeds["Rule_3"] == {"days": seeds["Rule_3"]["days"], "leave_type": "annual"}
    assert seeds["Rule_3"]["days"] <= 5
    assert seeds["Rule_4"] is not None and seeds["Rule_4"]["days"] <= 5 and seeds["Rule_4"]["leave_type"] != "annual"


def test_a_collecting_table_gives_no_flow_seed_through_its_list_output(projects: dict[str, Path]) -> None:
    """A gateway on a variable a COLLECT table sets holds a list, no one rule's output: the flow
    seed is not traced back through it (the rule seeds still are printed)."""
    model = load_model(load_project(projects["COLLECT"]))
    report = coverage(model, [])
    flows = {u.target: u for u in report.uncovered if u.kind == "flow"}
    assert flows["Flow_Auto"].seed is None and flows["Flow_Review"].seed is None
    assert all(u.seed is not None for u in report.uncovered if u.kind == "rule")

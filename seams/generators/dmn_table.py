"""A DMN decision table read into plain data, for the ``decisions`` generator.

Only what evaluation needs: the input expressions (column order matters,
rule entries are positional), the output names, the hit policy (UNIQUE when
the attribute is absent, as DMN 1.3 defines) and every rule's entry texts.
Any shape the generator could not turn into a function is a GeneratorError
naming the decision and the element at fault.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from seams import vocab as V
from seams.errors import GeneratorError

_DMN = f"{{{V.DMN_NS}}}"


@dataclass(frozen=True)
class Rule:
    id: str
    inputs: tuple[str, ...]  # FEEL unary tests, one per input column
    outputs: tuple[str, ...]  # FEEL literals, one per output column


@dataclass(frozen=True)
class Table:
    decision_id: str
    name: str | None
    hit_policy: str
    aggregation: str | None
    inputs: tuple[str, ...]  # inputExpression texts
    outputs: tuple[str, ...]  # output names
    rules: tuple[Rule, ...]


def find_decision(tree: etree._ElementTree, decision_id: str) -> etree._Element | None:
    for element in tree.getroot().iter(f"{_DMN}decision"):
        if element.get("id") == decision_id:
            return element
    return None


def _text(element: etree._Element | None) -> str:
    if element is None:
        return ""
    node = element.find(f"{_DMN}text")
    return (node.text or "").strip() if node is not None else ""


def read_table(decision: etree._Element, *, subject: str) -> Table:
    decision_id = decision.get("id", "")
    table = decision.find(f"{_DMN}decisionTable")
    if table is None:
        raise GeneratorError(f"{subject} dec:payloadElement: DMN decision {decision_id} has no decisionTable")
    inputs = tuple(_text(i.find(f"{_DMN}inputExpression")) for i in table.findall(f"{_DMN}input"))
    outputs = tuple(o.get("name") or "" for o in table.findall(f"{_DMN}output"))
    if not outputs:
        raise GeneratorError(f"{subject} dec:output: DMN decision {decision_id} has no output")
    if len(outputs) > 1 and not all(outputs):
        raise GeneratorError(f"{subject} dec:output: DMN decision {decision_id} has an output without a name")
    rules = []
    for index, rule in enumerate(table.findall(f"{_DMN}rule"), start=1):
        rule_id = rule.get("id") or f"rule {index}"
        entries = tuple(_text(e) for e in rule.findall(f"{_DMN}inputEntry"))
        results = tuple(_text(e) for e in rule.findall(f"{_DMN}outputEntry"))
        if len(entries) != len(inputs) or len(results) != len(outputs):
            raise GeneratorError(
                f"{subject} dec:payloadElement: DMN rule {rule_id} has {len(entries)} input and "
                f"{len(results)} output entries for {len(inputs)} inputs and {len(outputs)} outputs")
        rules.append(Rule(id=rule_id, inputs=entries, outputs=results))
    return Table(
        decision_id=decision_id,
        name=decision.get("name"),
        hit_policy=(table.get("hitPolicy") or "UNIQUE").strip().upper(),
        aggregation=(table.get("aggregation") or "").strip().upper() or None,
        inputs=inputs,
        outputs=outputs,
        rules=tuple(rules),
    )

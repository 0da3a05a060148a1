"""seams' FEEL side by side with another Python FEEL library on the TCK cases both can run.

Usage: ``python conformance/feel_anchor.py PATH`` with the ``bkflow-feel``
package importable (it is no dependency of seams: install it beside seams
to take the measure). PATH is a DMN TCK checkout as for
``conformance/dmn_tck.py``.

A library that evaluates FEEL expressions but not DMN models can run the
TCK's result nodes whose decision is one literal expression reading input
data only (no business knowledge model, no other decision, no item
definition to conform to). For each such node both evaluate the
expression with the case's inputs; the results are compared with the
expected value as conformance/dmn_tck.py compares them. Prints the counts
of each and the nodes where exactly one passes. See docs/conformance.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dmn_tck import _T, same, value_of  # noqa: E402 - the runner beside this script

from seams.lang.dmn_eval import DmnModel  # noqa: E402
from seams.lang.feel_interpreter import evaluate  # noqa: E402
from seams.lang.feel_values import FeelUnsupported, feel_value  # noqa: E402
from seams.model.payloads import parse_xml  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: python conformance/feel_anchor.py PATH", file=sys.stderr)
        return 2
    try:
        from bkflow_feel.api import parse_expression  # type: ignore[import-not-found]
    except ImportError:
        print("feel_anchor: the bkflow-feel package is not importable; install it to take the measure",
              file=sys.stderr)
        return 2
    counts = {"cases": 0, "seams": 0, "other": 0}
    differ = []
    for test_file in sorted(Path(argv[0]).rglob("*-test-*.xml")):
        for name, text, inputs, expected in _cases(test_file):
            counts["cases"] += 1
            try:
                ours = same(evaluate(text, inputs), expected)
            except (FeelUnsupported, Exception):  # noqa: BLE001 - a crash is a miss, as for the other
                ours = False
            try:
                theirs = same(feel_value(parse_expression(text, dict(inputs))), expected)
            except Exception:  # noqa: BLE001 - the other library raises on errors FEEL makes null
                theirs = expected is None
            counts["seams"] += ours
            counts["other"] += theirs
            if ours != theirs:
                differ.append(f"{'seams' if ours else 'bkflow-feel'} only: {name}: {text.strip()[:80]}")
    for line in differ:
        print(line)
    print(f"literal-expression nodes on input data: {counts['cases']}; seams passes {counts['seams']}, "
          f"bkflow-feel passes {counts['other']}")
    return 0


def _cases(test_file: Path):
    tests = etree.parse(str(test_file)).getroot()
    model_path = test_file.parent / (tests.findtext(f"{_T}modelName") or "").strip()
    try:
        model = DmnModel(parse_xml(model_path.read_bytes(), source=model_path.name).getroot())
    except (OSError, ValueError, Exception):  # noqa: BLE001 - a model either runner cannot read is skipped
        return
    for case in tests.findall(f"{_T}testCase"):
        if case.get("type") == "decisionService":
            continue
        try:
            inputs = {node.get("name"): value_of(node) for node in case.findall(f"{_T}inputNode")}
        except ValueError:
            continue
        for result in case.findall(f"{_T}resultNode"):
            decision = model.by_name.get(result.get("name") or "")
            text = _plain_literal(model, decision)
            if text is None:
                continue
            try:
                expected = None if result.get("errorResult") == "true" else value_of(result.find(f"{_T}expected"))
            except ValueError:
                continue
            yield f"{test_file.name} {case.get('id')} {result.get('name')}", text, inputs, expected


def _plain_literal(model: DmnModel, decision) -> str | None:
    """The decision's text when it is one literal expression over input data only, untyped or a base type."""
    if decision is None or model.local(decision) != "decision":
        return None
    if model.children(decision, "knowledgeRequirement"):
        return None
    for requirement in model.children(decision, "informationRequirement"):
        if model.child(requirement, "requiredDecision") is not None:
            return None
    variable = model.child(decision, "variable")
    if variable is not None and (variable.get("typeRef") or "") in model.item_definitions:
        return None
    literal = model.child(decision, "literalExpression")
    text = None if literal is None else model.child(literal, "text")
    return None if text is None else text.text


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Decision tables as modelers write them, through `seams check` and the generated module alike.

Every table here is written for this test in the shapes of the DMN TCK's compliance-level-2 tables
(0004-simpletable-U, 0010-multi-output-U, 0110-outputOrder, 0118-multi-priority: inputs named like
``Age`` and ``Risk Category``, outputs with outputValues) and of Camunda Modeler's files. Each runs in a
one-decision project of its own. The agreement test holds the checks and the generator to one table of
what seams supports (seams.lang.dmn_support): whatever the checks accept the generator turns into a
function, and whatever the checks refuse, the generator refuses too.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from seams.checks.decisions import decision_findings
from seams.checks.shapes import shape_findings
from seams.errors import GeneratorError
from seams.generators.decisions import decisions_source
from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.vocab import DMN_VERSIONS

HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<definitions xmlns="{ns}" id="Definitions_T" name="T" namespace="urn:t">\n')
INPUTS = {"Age": "age", "Risk Category": "risk_category", "isAffordable": "is_affordable", "limit": "limit"}


def table(policy: str, inputs: list[str], outputs: list[tuple[str, str | None]],
          rules: list[tuple[list[str], list[str]]], *, extra: str = "") -> str:
    """A DMN decision ``Decision_T`` holding one decision table."""
    parts = ['<decision id="Decision_T" name="Approval Status">',
             f'<decisionTable id="Table_T"{f" hitPolicy={policy!r}" if policy else ""}{extra}>'.replace("'", '"')]
    for number, text in enumerate(inputs, 1):
        parts.append(f'<input id="In_{number}"><inputExpression id="Expr_{number}" typeRef="string">'
                     f"<text>{text}</text></inputExpression></input>")
    for number, (name, values) in enumerate(outputs, 1):
        listed = f"<outputValues><text>{values}</text></outputValues>" if values else ""
        parts.append(f'<output id="Out_{number}" name="{name}" typeRef="string">{listed}</output>')
    for number, (entries, results) in enumerate(rules, 1):
        cells = "".join(f"<inputEntry><text>{escape(e)}</text></inputEntry>" for e in entries)
        cells += "".join(f"<outputEntry><text>{escape(r)}</text></outputEntry>" for r in results)
        parts.append(f'<rule id="Rule_{number}">{cells}</rule>')
    parts.append("</decisionTable></decision>")
    return "\n".join(parts)


def project(tmp_path: Path, decision: str, *, inputs: list[str], outputs: list[str], version: str = "1.3") -> Path:
    """A seams project with one DMN payload and one decision whose inputs and outputs map to variables."""
    root = tmp_path / "p"
    (root / "model").mkdir(parents=True)
    (root / "seams.toml").write_text('[project]\nbase = "https://example.org/t/"\n', encoding="utf-8")
    (root / "model" / "t.dmn").write_text(HEAD.format(ns=DMN_VERSIONS[version].model) + decision + "\n</definitions>\n",
                                          encoding="utf-8")
    mapped = [f'dec:input [ dec:variable "{text}" ; dec:fromPath ex:{INPUTS[text]} ]' for text in inputs]
    mapped += [f'dec:output [ dec:variable "{name}" ; dec:processVariable ex:out_{n} ]'
               for n, name in enumerate(outputs, 1)]
    variables = [f'ex:{var} a seam:Variable ; seam:name "{var}" .' for var in INPUTS.values()]
    variables += [f'ex:out_{n} a seam:Variable ; seam:name "out_{n}" .' for n in range(1, len(outputs) + 1)]
    trig = "\n".join([
        "@prefix seam: <https://w3id.org/seams/seam#> .", "@prefix dec: <https://w3id.org/seams/dec#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .", "@prefix ex: <https://example.org/t/> .",
        "ex:graph\\/seams {", 'ex:dmn a seam:Payload ; seam:path "t.dmn" ; seam:format "dmn" .',
        'ex:T a dec:Decision ; rdfs:label "Approval status" ; seam:payload ex:dmn ; dec:payloadElement "Decision_T" ;',
        "  " + " ;\n  ".join(mapped) + " .", *variables, "}"])
    (root / "model" / "model.trig").write_text(trig + "\n", encoding="utf-8")
    return root


def outcome(root: Path) -> tuple[list[str], object]:
    """The decision findings, and the generated function (or the GeneratorError)."""
    model = load_model(load_project(root))
    findings = [f.line() for f in decision_findings(model) if "overlap" not in f.message]
    try:
        source = decisions_source(model)
    except GeneratorError as exc:
        return findings, exc
    namespace: dict = {}
    exec(compile(source or "", "decisions.py", "exec"), namespace)
    return findings, namespace["approval_status"]


BASE_RULES = [(['>= 18', '"Medium","Low"'], ['"Approved"', '"Basic"']),
              (['< 18', '"Medium","Low"'], ['"Declined"', '"Standard"']),
              (['-', '"High"'], ['"Declined"', '"Standard"'])]
TWO_OUT = [("Status", '"Approved", "Declined"'), ("Rate", None)]

VARIANTS = {
    # name: (policy, inputs, outputs, rules, extra attributes, supported?)
    "unique, two outputs": ("UNIQUE", ["Age", "Risk Category"], TWO_OUT, BASE_RULES, "", True),
    "priority": ("PRIORITY", ["Age", "Risk Category"], TWO_OUT, BASE_RULES, "", True),
    "output order": ("OUTPUT ORDER", ["Age", "Risk Category"], TWO_OUT, BASE_RULES, "", True),
    "rule order": ("RULE ORDER", ["Age", "Risk Category"], TWO_OUT, BASE_RULES, "", True),
    "any": ("ANY", ["Age", "Risk Category"], TWO_OUT, BASE_RULES, "", True),
    "collect": ("COLLECT", ["Age", "Risk Category"], TWO_OUT, BASE_RULES, "", True),
    "collect count": ("COLLECT", ["Age"], [("Score", None)], [(["> 1"], ["1"]), (["> 2"], ["2"])],
                      ' aggregation="COUNT"', True),
    "collect sum": ("COLLECT", ["Age"], [("Score", None)], [(["> 1"], ["1"]), (["> 2"], ["2.5"])],
                    ' aggregation="SUM"', True),
    "names as ends": ("FIRST", ["Age", "limit"], [("Score", None)],
                      [(["< limit", "-"], ["1"]), (["[limit..100]", "-"], ["2"])],
                      "", True),
    "priority without outputValues": ("PRIORITY", ["Age"], [("Score", None)], [(["> 1"], ["1"])], "", False),
    "output entry outside outputValues": ("PRIORITY", ["Age"], [("Status", '"Approved"')], [(["> 1"], ['"Maybe"'])],
                                          "", False),
    "sum over strings": ("COLLECT", ["Age"], [("Status", None)], [(["> 1"], ['"a"'])], ' aggregation="SUM"', False),
    "aggregation with two outputs": ("COLLECT", ["Age", "Risk Category"], TWO_OUT, BASE_RULES, ' aggregation="MAX"',
                                     False),
    "unknown hit policy": ("BEST", ["Age"], [("Score", None)], [(["> 1"], ["1"])], "", False),
    "unknown name": ("FIRST", ["Age"], [("Score", None)], [(["< ceiling"], ["1"])], "", False),
    "arithmetic entry": ("FIRST", ["Age"], [("Score", None)], [(["< 1 + 2"], ["1"])], "", False),
    "expression output": ("FIRST", ["Age"], [("Score", None)], [(["> 1"], ["Age * 2"])], "", True),
    "concatenated output": ("FIRST", ["Age", "Risk Category"], [("Status", None)],
                            [(["> 1", "-"], ['Risk Category + " risk"'])], "", True),
    "output naming an input": ("COLLECT", ["Age"], [("Score", None)], [(["> 1"], ["Age"])], "", True),
    "output naming no input": ("FIRST", ["Age"], [("Score", None)], [(["> 1"], ["Salary * 2"])], "", False),
    "expression ranked by priority": ("PRIORITY", ["Age"], [("Score", "1, 2")], [(["> 1"], ["Age * 2"])], "",
                                      False),
    "sum over expressions": ("COLLECT", ["Age"], [("Score", None)], [(["> 1"], ["Age * 2"])],
                             ' aggregation="SUM"', False),
    "zone name in a date and time": ("UNIQUE", ["Age"], [("Score", None)],
                                     [(['< date and time("2024-03-31T02:30:00@Europe/Paris")'],
                                       ['date and time("2024-01-01T10:00:00@Europe/Paris")'])], "", True),
    "zone name in a time": ("FIRST", ["Age"], [("Score", None)], [(["> 1"], ['time("10:00:00@Europe/Paris")'])],
                            "", True),  # an output entry the interpreter computes (seams.lang.feel_output)
    "years and months duration": ("FIRST", ["Age"], [("Score", None)], [(["> 1"], ['duration("P1Y2M")'])], "",
                                  True),
    "output context": ("FIRST", ["Age"], [("Score", None)], [(["> 1"], ["{a: 1}"])], "", True),
    "two outputs, one unnamed": ("FIRST", ["Age"], [("Score", None), ("", None)], [(["> 1"], ["1", "2"])], "", False),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_checks_and_the_generator_never_disagree(tmp_path, name):
    policy, inputs, outputs, rules, extra, supported = VARIANTS[name]
    names = [n for n, _ in outputs if n]
    root = project(tmp_path, table(policy, inputs, outputs, rules, extra=extra), inputs=inputs, outputs=names)
    findings, function = outcome(root)
    assert (findings == []) is supported, findings
    assert (not isinstance(function, GeneratorError)) is supported, function


@pytest.mark.parametrize(("policy", "age", "risk", "want"), [
    ("UNIQUE", 20, "Low", {"Status": "Approved", "Rate": "Basic"}),
    ("UNIQUE", 20, "Unknown", None),
    ("PRIORITY", 20, "High", {"Status": "Declined", "Rate": "Standard"}),
    ("RULE ORDER", 10, "Low", [{"Status": "Declined", "Rate": "Standard"}]),
    ("COLLECT", 10, "Nothing", []),
])
def test_several_outputs_are_a_dict_by_output_name(tmp_path, policy, age, risk, want):
    root = project(tmp_path, table(policy, ["Age", "Risk Category"], TWO_OUT, BASE_RULES),
                   inputs=["Age", "Risk Category"], outputs=["Status", "Rate"])
    findings, function = outcome(root)
    assert findings == []
    assert function(age=age, risk_category=risk) == want  # "Risk Category" arrives as its variable's name


def test_a_decision_maps_several_outputs_with_a_dec_output_each_and_the_shapes_agree(tmp_path):
    root = project(tmp_path, table("FIRST", ["Age", "Risk Category"], TWO_OUT, BASE_RULES),
                   inputs=["Age", "Risk Category"], outputs=["Status", "Rate"])
    model = load_model(load_project(root))
    assert [f.line() for f in shape_findings(model) if f.subject == "ex:T"] == []
    assert [len(d.outputs) for d in model.view.decisions.values()] == [2]


def test_priority_and_output_order_rank_by_the_output_values(tmp_path):
    rules = [(["> 0"], ['"Low"']), (["> 10"], ['"High"']), (["> 5"], ['"Medium"']), (["> 20"], ['"Low"'])]
    outputs = [("Level", '"High", "Medium", "Low"')]
    for policy, want in [("PRIORITY", {30: "High", 7: "Medium", 1: "Low", 0: None}),
                         ("OUTPUT ORDER", {30: ["High", "Medium", "Low", "Low"], 7: ["Medium", "Low"], 0: []})]:
        root = project(tmp_path / policy.replace(" ", "_"), table(policy, ["Age"], outputs, rules), inputs=["Age"],
                       outputs=["Level"])
        findings, function = outcome(root)
        assert findings == []
        assert {age: function(age=age) for age in want} == want


@pytest.mark.parametrize(("aggregation", "age", "want"), [
    ("SUM", 5, Decimal("3.5")), ("MIN", 5, 1), ("MAX", 5, Decimal("2.5")), ("COUNT", 5, 2), ("SUM", 0, None),
    ("COUNT", 0, 0), ("SUM", 50, None), ("COUNT", 50, 3),  # a null output makes SUM null, as FEEL's sum()
])
def test_collect_aggregations(tmp_path, aggregation, age, want):
    rules = [(["> 1"], ["1"]), (["> 2"], ["2.5"]), (["> 10"], [""])]
    root = project(tmp_path, table("COLLECT", ["Age"], [("Score", None)], rules, extra=f' aggregation="{aggregation}"'),
                   inputs=["Age"], outputs=["Score"])
    findings, function = outcome(root)
    assert findings == []
    assert function(age=age) == want


def test_a_multi_output_table_needs_a_dec_output_per_output(tmp_path):
    root = project(tmp_path, table("FIRST", ["Age", "Risk Category"], TWO_OUT, BASE_RULES),
                   inputs=["Age", "Risk Category"], outputs=["Status"])
    findings, _ = outcome(root)
    assert findings == ['decision ex:T dec:output: output "Rate" of the table of "Decision_T" has no dec:output; '
                        "map each output to a process variable with its own dec:output"]


def test_a_unique_table_with_names_is_not_analysed_and_says_so(tmp_path):
    rules = [(["< limit"], ["1"]), (["> 5"], ["2"])]
    decision = table("UNIQUE", ["Age", "limit"], [("Score", None)], [(r[0] + ["-"], r[1]) for r in rules])
    root = project(tmp_path, decision,
                   inputs=["Age", "limit"], outputs=["Score"])
    model = load_model(load_project(root))
    assert decision_findings(model) == []  # never a wrong overlap
    source = decisions_source(model) or ""
    assert "UNIQUE overlaps not analysed for input(s) Age" in source
    namespace: dict = {}
    exec(compile(source, "decisions.py", "exec"), namespace)
    assert namespace["approval_status"](age=3, limit=10) == 1
    with pytest.raises(namespace["DecisionError"], match="rules Rule_1, Rule_2 all match"):
        namespace["approval_status"](age=7, limit=10)


@pytest.mark.parametrize(("construct", "named"), [
    ('<literalExpression id="L"><text>Age * 2</text></literalExpression>',
     'DMN decision "Decision_T" (literal expression) reads "Age", which is none of the input data'),
    ('<context id="C"><contextEntry><literalExpression><text>Risk</text></literalExpression></contextEntry></context>',
     'DMN decision "Decision_T" (boxed context) reads "Risk"'),
    ('<invocation id="I"><literalExpression><text>rate</text></literalExpression></invocation>',
     'DMN decision "Decision_T" (invocation) reads "rate", which is none of the input data, decisions or '
     "knowledge models it requires (it requires: none)"),
])
def test_a_boxed_expression_reading_what_it_does_not_require_is_a_finding_that_names_it(tmp_path, construct, named):
    decision = f'<decision id="Decision_T" name="Approval Status">{construct}</decision>'
    root = project(tmp_path, decision, inputs=[], outputs=[])
    findings, function = outcome(root)
    assert len(findings) == 1 and named in findings[0] and "ex:T dec:payloadElement" in findings[0]
    assert isinstance(function, GeneratorError) and named in str(function)


BKM_RATE = ('<inputData id="InputData_Age" name="Age"/>\n<businessKnowledgeModel id="BKM_Rate" name="rate">'
            '<encapsulatedLogic><formalParameter name="a"/><literalExpression><text>a * 2</text></literalExpression>'
            '</encapsulatedLogic></businessKnowledgeModel>\n')
REQUIRES = ('<informationRequirement><requiredInput href="#InputData_Age"/></informationRequirement>'
            '<knowledgeRequirement><requiredKnowledge href="{href}"/></knowledgeRequirement><decisionTable')


def test_a_table_that_invokes_a_business_knowledge_model_is_evaluated_by_the_interpreter(tmp_path):
    decision = BKM_RATE + table("FIRST", ["Age"], [("Score", None)], [(["> 1"], ["rate(Age)"])]).replace(
        "<decisionTable", REQUIRES.format(href="#BKM_Rate"), 1).replace('typeRef="string"', 'typeRef="number"')
    root = project(tmp_path, decision, inputs=["Age"], outputs=["Score"])
    findings, function = outcome(root)
    assert findings == []
    assert callable(function) and function(Decimal(30)) == Decimal(60) and function(Decimal(0)) is None


def test_a_business_knowledge_model_that_is_not_there_is_a_finding_that_names_it(tmp_path):
    decision = BKM_RATE + table("FIRST", ["Age"], [("Score", None)], [(["> 1"], ["rate(Age)"])]).replace(
        "<decisionTable", REQUIRES.format(href="#BKM_Gone"), 1)
    root = project(tmp_path, decision, inputs=["Age"], outputs=["Score"])
    findings, function = outcome(root)
    assert findings == ['decision ex:T dec:payloadElement: DMN decision "Decision_T" (decision table) reads "rate", '
                        "which is none of the input data, decisions or knowledge models it requires (it requires: Age)",
                        'decision ex:T dec:payloadElement: DMN decision "Decision_T" requires "#BKM_Gone", which is '
                        "no element of its DMN file"]
    assert isinstance(function, GeneratorError)


@pytest.mark.parametrize("version", sorted(DMN_VERSIONS))
def test_every_version_reads_the_same_table(tmp_path, version):
    root = project(tmp_path, table("FIRST", ["Age", "Risk Category"], TWO_OUT, BASE_RULES),
                   inputs=["Age", "Risk Category"], outputs=["Status", "Rate"], version=version)
    findings, function = outcome(root)
    assert findings == [] and function(age=30, risk_category="High") == {"Status": "Declined", "Rate": "Standard"}

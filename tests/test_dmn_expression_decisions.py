"""Decisions that are boxed expressions: seams check reads them, the generated module agrees with the interpreter.

tests/fixtures/dmn_expressions/pricing.dmn is written for seams in the shape of the DMN
TCK's literal-expression, boxed-context and invocation models (0004-lending's BKMs,
0008-LX-arithmetic): a literal expression over a path and a ``for``, an invocation of a
business knowledge model with a binding, and a boxed context over two required decisions.
"""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from lxml import etree

from seams.checks.decisions import decision_findings
from seams.errors import GeneratorError
from seams.generators.decisions import decision_calls, decisions_source
from seams.lang.dmn_eval import DmnInterpreter, DmnModel, decide_by_id
from seams.lang.dmn_expression import read_expression_decision
from seams.model.loading import load_model
from seams.project.layout import load_project

DMN = Path(__file__).parent / "fixtures" / "dmn_expressions" / "pricing.dmn"
DECISIONS = {"Total": ("Decision_Total", ['dec:input [ dec:variable "order" ; dec:fromPath ex:order ]'], "Order Total"),
             "Discount": ("Decision_Discount", ['dec:input [ dec:variable "Customer Tier" ; dec:fromPath ex:tier ]'],
                          "Discount"),
             "Quote": ("Decision_Quote", ['dec:input [ dec:variable "order" ; dec:fromPath ex:order ]',
                                          'dec:input [ dec:variable "Customer Tier" ; dec:fromPath ex:tier ]'],
                       "Quote")}
ORDERS = [{"items": [{"price": 10, "quantity": 2}, {"price": Decimal("5.5"), "quantity": 1}]},
          {"items": []}, {"items": [{"price": 3, "quantity": None}]}, None]
TIERS = ["gold", "silver", None]


def project(tmp_path: Path, dmn_text: str | None = None, extra: str = "") -> Path:
    root = tmp_path / "p"
    (root / "model").mkdir(parents=True)
    (root / "seams.toml").write_text('[project]\nbase = "https://example.org/t/"\n', encoding="utf-8")
    if dmn_text is None:
        shutil.copy(DMN, root / "model" / "pricing.dmn")
    else:
        (root / "model" / "pricing.dmn").write_text(dmn_text, encoding="utf-8")
    parts = ["@prefix seam: <https://w3id.org/seams/seam#> .", "@prefix dec: <https://w3id.org/seams/dec#> .",
             "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .",
             "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .", "@prefix ex: <https://example.org/t/> .",
             "ex:graph\\/seams {", 'ex:dmn a seam:Payload ; seam:path "pricing.dmn" ; seam:format "dmn" .',
             'ex:order a seam:Variable ; seam:name "order" ; seam:datatype rdf:JSON .',
             'ex:tier a seam:Variable ; seam:name "tier" .']
    for label, (element, inputs, output) in DECISIONS.items():
        parts.append(f'ex:{label} a dec:Decision ; rdfs:label "{label}" ; seam:payload ex:dmn ; '
                     f'dec:payloadElement "{element}" ;\n  ' + " ;\n  ".join(inputs)
                     + f' ;\n  dec:output [ dec:variable "{output}" ; dec:processVariable ex:out_{label} ] .')
        parts.append(f'ex:out_{label} a seam:Variable ; seam:name "out_{label.lower()}" .')
    parts += [extra, "}"]
    (root / "model" / "model.trig").write_text("\n".join(parts) + "\n", encoding="utf-8")
    return root


def test_each_kind_reads_what_it_requires():
    root = etree.parse(str(DMN)).getroot()
    read = {d.get("id"): read_expression_decision(d) for d in root.iter("{*}decision")}
    assert all(problems == [] for _, problems in read.values())
    total, discount, quote = (read[i][0] for i in ("Decision_Total", "Decision_Discount", "Decision_Quote"))
    assert (total.construct_name, total.reads, total.inputs) == ("literal expression", ("order",), ("order",))
    assert (discount.construct_name, discount.knowledge, discount.reads) == (
        "invocation", ("discount rate",), ("discount rate", "Customer Tier"))
    assert (quote.construct_name, quote.required, quote.inputs) == (
        "boxed context", ("Order Total", "Discount"), ("order", "Customer Tier"))


def test_the_check_is_clean_and_the_module_gives_the_interpreters_values(tmp_path):
    root = project(tmp_path)
    model = load_model(load_project(root))
    assert [f.line() for f in decision_findings(model)] == []
    source = decisions_source(model) or ""
    namespace: dict = {}
    exec(compile(source, "decisions.py", "exec"), namespace)
    interpreter = DmnInterpreter(DmnModel(etree.parse(str(DMN)).getroot()))
    for order in ORDERS:
        for tier in TIERS:
            inputs = {"order": order, "Customer Tier": tier}
            assert namespace["total"](order=order) == interpreter.decide("Order Total", inputs)
            assert namespace["discount"](tier=tier) == interpreter.decide("Discount", inputs)
            assert namespace["quote"](order=order, tier=tier) == interpreter.decide("Quote", inputs)
    assert namespace["quote"](order=ORDERS[0], tier="gold") == {"net": Decimal("22.95"), "summary": "net 22.95"}
    calls = decision_calls(model)
    assert {call.function: (call.parameters, call.outputs, call.hit_policy) for call in calls.values()} == {
        "total": (("order",), ("Order Total",), "literal expression"),
        "discount": (("tier",), ("Discount",), "invocation"),
        "quote": (("order", "tier"), ("Quote",), "boxed context")}


def test_the_module_is_deterministic_and_holds_the_dmn_text_once(tmp_path):
    model = load_model(load_project(project(tmp_path)))
    first, second = decisions_source(model), decisions_source(model)
    assert first == second and first is not None
    assert first.count("_DMN_1 = ") == 1 and "_DMN_2" not in first


def _broken(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(("old", "new", "line"), [
    ("i.price * i.quantity", "i.price * i.quantity * rate",
     'DMN decision "Decision_Total" (literal expression) reads "rate", which is none of the input data, '
     "decisions or knowledge models it requires (it requires: order)"),
    ("<text>Order Total * (1 - Discount)</text>", "<text>Order Total * (1 - </text>",
     'DMN decision "Decision_Quote": FEEL'),
    ('<literalExpression id="Literal_Total">', '<literalExpression id="Literal_Total" expressionLanguage="javascript">',
     'DMN decision "Decision_Total" has a literalExpression in javascript; not supported (seams reads FEEL)'),
    ('<text>if tier = "gold" then 0.1 else 0</text>', '<text>(function(t) external {java: {class: "Rates"}})(tier)</text>',
     'DMN decision "Decision_Discount"\'s business knowledge model "discount rate" uses an external (Java or PMML) '
     "function definition; not supported"),
    ('<requiredInput href="#InputData_Order"/>', '<requiredInput href="urn:other#InputData_Order"/>',
     'DMN decision "Decision_Total" requires "urn:other#InputData_Order", but its DMN file has no dmn:import of '
     'namespace "urn:other"; add one'),
])
def test_what_seams_cannot_read_is_one_line_naming_the_decision(tmp_path, old, new, line):
    root = project(tmp_path, _broken(DMN.read_text(encoding="utf-8"), old, new))
    model = load_model(load_project(root))
    lines = [f.line() for f in decision_findings(model)]
    assert any(line in text and "dec:payloadElement" in text for text in lines), lines
    assert all("\n" not in text for text in lines)
    with pytest.raises(GeneratorError):
        decisions_source(model)


def test_a_dec_input_that_is_no_input_data_and_a_wrong_output_are_findings(tmp_path):
    root = project(tmp_path)
    trig = root / "model" / "model.trig"
    text = trig.read_text(encoding="utf-8")
    text = text.replace('dec:input [ dec:variable "Customer Tier" ; dec:fromPath ex:tier ] ;\n  dec:output '
                        '[ dec:variable "Discount"', 'dec:input [ dec:variable "Tier" ; dec:fromPath ex:tier ] ;\n  '
                        'dec:output [ dec:variable "Rebate"')
    trig.write_text(text, encoding="utf-8")
    lines = [f.line() for f in decision_findings(load_model(load_project(root)))]
    assert 'decision ex:Discount dec:input: dec:variable "Tier" is no input data of decision "Decision_Discount" ' \
           "(invocation) (its input data: Customer Tier)" in lines
    assert 'decision ex:Discount dec:output: dec:variable "Rebate" is not the output of decision ' \
           '"Decision_Discount" (invocation), which is named "Discount"' in lines


def test_decide_by_id_is_the_interpreter_on_the_text():
    text = DMN.read_text(encoding="utf-8")
    order = {"items": [{"price": 4, "quantity": 3}]}
    assert decide_by_id(text, "Decision_Total", {"order": order}) == Decimal(12)
    assert decide_by_id(text, "Decision_Discount", {"Customer Tier": "gold"}) == Decimal("0.1")

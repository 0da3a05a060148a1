"""Decisions the generator cannot write as Python: a table that invokes a business knowledge model, and
decisions that require elements of an imported model (another DMN file of the project).

tests/fixtures/dmn_imports/ is written for seams in the shape of the DMN TCK's BKM and imported-model
cases: shop.dmn imports rates.dmn (``rates``) and has a FIRST table invoking its BKM ``rebate`` (positional
and named arguments), a UNIQUE table over the imported decision ``rates.Loyalty`` and a literal expression
invoking the imported BKM ``rates.fee``. The check is clean, and the generated module gives the
interpreter's values; an import the project lacks stays one finding naming the decision and the namespace.
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
from seams.lang.dmn_eval import DmnInterpreter, DmnModel
from seams.lang.dmn_expression import needs_interpreter, read_expression_decision
from seams.model.dmn_imports import imported_payloads
from seams.model.loading import load_model
from seams.project.layout import load_project

FIXTURES = Path(__file__).parent / "fixtures" / "dmn_imports"
DECISIONS = {
    "Price": ("Decision_Price", ['dec:input [ dec:variable "Amount" ; dec:fromPath ex:amount ]']),
    "Offer": ("Decision_Offer", ['dec:input [ dec:variable "Amount" ; dec:fromPath ex:amount ]',
                                 'dec:input [ dec:variable "rates.Years" ; dec:fromPath ex:years ]']),
    "Fee": ("Decision_Fee", ['dec:input [ dec:variable "Amount" ; dec:fromPath ex:amount ]']),
}
AMOUNTS = [Decimal(20), Decimal(50), Decimal("100.5"), Decimal(200), None]
YEARS = [Decimal(1), Decimal(5), Decimal(9), None]


def project(tmp_path: Path, *, with_rates: bool = True, rates_dir: str = "") -> Path:
    root = tmp_path / "p"
    (root / "model" / "lib").mkdir(parents=True)
    (root / "seams.toml").write_text('[project]\nbase = "https://example.org/t/"\n', encoding="utf-8")
    shutil.copy(FIXTURES / "shop.dmn", root / "model" / "shop.dmn")
    rates_path = f"{rates_dir}rates.dmn"
    if with_rates:
        shutil.copy(FIXTURES / "rates.dmn", root / "model" / rates_path)
    parts = ["@prefix seam: <https://w3id.org/seams/seam#> .", "@prefix dec: <https://w3id.org/seams/dec#> .",
             "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .", "@prefix ex: <https://example.org/t/> .",
             "ex:graph\\/seams {", 'ex:shop a seam:Payload ; seam:path "shop.dmn" ; seam:format "dmn" .',
             'ex:amount a seam:Variable ; seam:name "amount" .', 'ex:years a seam:Variable ; seam:name "years" .']
    if with_rates:
        parts.append(f'ex:rates a seam:Payload ; seam:path "{rates_path}" ; seam:format "dmn" .')
    for label, (element, inputs) in DECISIONS.items():
        parts.append(f'ex:{label} a dec:Decision ; rdfs:label "{label}" ; seam:payload ex:shop ; '
                     f'dec:payloadElement "{element}" ;\n  ' + " ;\n  ".join(inputs)
                     + f' ;\n  dec:output [ dec:variable "{label}" ; dec:processVariable ex:out_{label} ] .')
        parts.append(f'ex:out_{label} a seam:Variable ; seam:name "out_{label.lower()}" .')
    parts.append("}")
    (root / "model" / "model.trig").write_text("\n".join(parts) + "\n", encoding="utf-8")
    return root


def test_tables_with_a_bkm_or_an_imported_requirement_go_to_the_interpreter():
    root = etree.parse(str(FIXTURES / "shop.dmn")).getroot()
    routed = {d.get("id"): needs_interpreter(d) for d in root.iter("{*}decision")}
    assert routed == {"Decision_Price": True, "Decision_Offer": True, "Decision_Fee": True}
    plain = etree.fromstring('<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/"><decision id="d">'
                             '<informationRequirement><requiredInput href="#i"/></informationRequirement>'
                             '<decisionTable/></decision></definitions>')
    assert needs_interpreter(plain[0]) is False
    rates = etree.parse(str(FIXTURES / "rates.dmn")).getroot()
    offer, fee = (read_expression_decision(d, {"urn:seams:test:rates": rates})[0] for d in root.iter("{*}decision")
                  if d.get("id") in ("Decision_Offer", "Decision_Fee"))
    assert (offer.required, offer.inputs, fee.knowledge) == (("rates.Loyalty",), ("Amount", "rates.Years"), ("rates.fee",))


def test_the_check_is_clean_and_the_module_gives_the_interpreters_values(tmp_path):
    model = load_model(load_project(project(tmp_path)))
    assert [f.line() for f in decision_findings(model)] == []
    source = decisions_source(model) or ""
    assert source == decisions_source(model)  # deterministic
    assert source.count("_DMN_1 = ") == 1 and source.count("_DMN_2 = ") == 1 and "_DMN_3" not in source
    assert "imports=(_DMN_2,)" in source
    namespace: dict = {}
    exec(compile(source, "decisions.py", "exec"), namespace)
    interpreter = DmnInterpreter(DmnModel(etree.parse(str(FIXTURES / "shop.dmn")).getroot()),
                                 {"rates": DmnModel(etree.parse(str(FIXTURES / "rates.dmn")).getroot())})
    for amount in AMOUNTS:
        assert namespace["price"](amount=amount) == interpreter.decide("Price", {"Amount": amount})
        assert namespace["fee"](amount=amount) == interpreter.decide("Fee", {"Amount": amount})
        for years in YEARS:
            assert namespace["offer"](amount=amount, years=years) == interpreter.decide(
                "Offer", {"Amount": amount, "rates": {"Years": years}})
    assert namespace["price"](amount=Decimal(200)) == Decimal(180)  # rebate(Amount, "gold")
    assert namespace["price"](amount=Decimal(20)) == Decimal(20)  # rebate(tier: "silver", amount: Amount)
    assert [namespace["offer"](amount=Decimal(a), years=Decimal(y)) for a, y in ((80, 7), (20, 7), (80, 1))] == [
        "discount", "thanks", "none"]
    assert namespace["fee"](amount=Decimal(50)) == Decimal("1.00")
    calls = {call.function: (call.parameters, call.outputs, call.hit_policy) for call in decision_calls(model).values()}
    assert calls == {"price": (("amount",), ("Price",), "decision table"),
                     "offer": (("amount", "years"), ("Offer",), "decision table"),
                     "fee": (("amount",), ("Fee",), "literal expression")}


def test_the_import_is_found_at_its_location_uri_or_by_namespace(tmp_path):
    model = load_model(load_project(project(tmp_path, rates_dir="lib/")))  # not at locationURI: by namespace
    shop = next(p for p in model.payloads.values() if p.relpath == "shop.dmn")
    assert [p.relpath for p in imported_payloads(model, shop).values()] == ["lib/rates.dmn"]
    assert [f.line() for f in decision_findings(model)] == []


def test_the_file_at_the_location_uri_wins_over_another_of_the_same_namespace(tmp_path):
    root = project(tmp_path)
    shutil.copy(FIXTURES / "rates.dmn", root / "model" / "lib" / "rates.dmn")
    trig = root / "model" / "model.trig"
    trig.write_text(trig.read_text(encoding="utf-8").replace(
        "ex:graph\\/seams {", 'ex:graph\\/seams {\nex:a-rates a seam:Payload ; seam:path "lib/rates.dmn" ; '
        'seam:format "dmn" .'), encoding="utf-8")
    model = load_model(load_project(root))
    assert len(model.payloads) == 3
    shop = next(p for p in model.payloads.values() if p.relpath == "shop.dmn")
    assert [p.relpath for p in imported_payloads(model, shop).values()] == ["rates.dmn"]


def test_an_import_the_project_lacks_is_one_line_naming_decision_and_namespace(tmp_path):
    model = load_model(load_project(project(tmp_path, with_rates=False)))
    lines = [f.line() for f in decision_findings(model)]
    wanted = ('requires an element of the imported model "urn:seams:test:rates", which is no DMN file of the '
              'project; add the DMN file whose definitions namespace is "urn:seams:test:rates" to the model '
              'directory as a seam:Payload (seam:format "dmn")')
    assert lines == [f'decision ex:Fee dec:payloadElement: DMN decision "Decision_Fee" {wanted}',
                     f'decision ex:Offer dec:payloadElement: DMN decision "Decision_Offer" {wanted}']
    with pytest.raises(GeneratorError, match="urn:seams:test:rates"):
        decisions_source(model)


def test_a_bkm_table_reading_a_name_it_does_not_require_is_one_finding(tmp_path):
    root = project(tmp_path)
    shop = root / "model" / "shop.dmn"
    shop.write_text(shop.read_text(encoding="utf-8").replace('rebate(Amount, "gold")', 'rebate(Amount, tier)'),
                    encoding="utf-8")
    lines = [f.line() for f in decision_findings(load_model(load_project(root)))]
    assert lines == ['decision ex:Price dec:payloadElement: DMN decision "Decision_Price" (decision table) reads '
                     '"tier", which is none of the input data, decisions or knowledge models it requires '
                     "(it requires: Amount, rebate)"]


def test_seams_run_gives_the_interpreters_values_on_a_process_calling_them(tmp_path):
    """`seams init --from` the BPMN and both DMN files, map the imported input data, then `seams run`."""
    import json

    from helpers import run_seams

    done = run_seams("init", "--from", str(FIXTURES / "shop-offer.bpmn"), "--from", str(FIXTURES / "shop.dmn"),
                     "--from", str(FIXTURES / "rates.dmn"), "p", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    root = tmp_path / "p"
    trig = root / "model" / "model.trig"
    text = trig.read_text(encoding="utf-8")
    filled = text.replace('dec:input [ dec:variable "rates.Loyalty" ] ,',
                          'dec:input [ dec:variable "rates.Years" ; dec:fromPath ex:Years ] ,')
    filled = filled.replace("seam:decidedBy ex:Decision_Offer ;\n        seam:reads ex:Amount ;",
                            "seam:decidedBy ex:Decision_Offer ;\n        seam:reads ex:Amount, ex:Years ;")
    assert filled.count("ex:Years") == text.count("ex:Years") + 2, "the import no longer writes what this test fills in"
    trig.write_text(filled, encoding="utf-8")
    lines = run_seams("check", "--no-cache", cwd=root).stdout.splitlines()
    assert [line for line in lines if "dec:payloadElement" in line or "dec:input" in line] == []
    assert run_seams("generate", cwd=root).returncode == 0
    interpreter = DmnInterpreter(DmnModel(etree.parse(str(FIXTURES / "shop.dmn")).getroot()),
                                 {"rates": DmnModel(etree.parse(str(FIXTURES / "rates.dmn")).getroot())})
    for amount, years in ((200, 7), (20, 7), (80, 1)):
        done = run_seams("run", "shop-offer", "--given", json.dumps({"Amount": amount, "Years": years}), cwd=root,
                         timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        out = done.stdout.splitlines()
        assert 'businessRuleTask Task_Offer "Choose the offer": Decision_Offer evaluated (decision table)' in out
        variables = json.loads(out[-1].removeprefix("variables "))
        inputs = {"Amount": Decimal(amount), "rates": {"Years": Decimal(years)}}
        assert variables["price"] == interpreter.decide("Price", inputs)
        assert variables["offer"] == interpreter.decide("Offer", inputs)

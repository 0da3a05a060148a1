"""A Camunda 8 process that is FEEL from end to end, imported, checked and run (issue 33, "done when").

tests/fixtures/engine/pricing-c8 is written for seams in the shape of the camunda-8-examples
processes: input mappings that build a URL with ``string join`` over a path and a context
of headers, a REST-connector-like task whose ``resultExpression`` header maps the response
(``upper case``, paths), output mappings with ``for``, ``context put``, ``sum``, ``count``
and a filter by index, a business-rule task calling a literal-expression decision, and a
gateway whose conditions use ``some``, ``count``, a filter and ``contains(lower case(...))``.
``seams init --from`` imports it; what a person must fill in (datatypes of the JSON
variables, the connector task's reads, writes and example, its handler) is filled in here;
then ``seams check`` is clean and ``seams run`` walks each route to its end event.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_seams

FIXTURE = Path(__file__).parent / "fixtures" / "engine" / "pricing-c8"
HANDLER = '''"""Fetch prices: answers as the REST connector would, the price of each sku in the URL."""

PRICES = {"a": 2.5, "b": 120, "c": 600, "d": 15}


def handle(inputs, bindings):
    skus = inputs["url"].split("ids=", 1)[1].split(",")
    return {"priceResponse": {"status": 200, "body": {"prices": [PRICES[s] for s in skus], "currency": "eur"}}}
'''
FILLED_TASK = '''        seam:handler "io_camunda_http_json_1" ;
        seam:reads ex:url ;
        seam:writes ex:priceResponse ;
        seam:example [
            rdfs:label "two skus priced" ;
            seam:given "{\\"url\\": \\"https://prices.example.org/skus?ids=a,b\\"}"^^rdf:JSON ;
            seam:expect "{\\"priceResponse\\": {\\"status\\": 200, \\"body\\": {\\"prices\\": [2.5, 120], \\"currency\\": \\"eur\\"}}}"^^rdf:JSON
        ] .'''
NEW_VARIABLES = '''    ex:order a seam:Variable, owl:DatatypeProperty ;
        rdfs:label "order" ; seam:name "order" ; seam:datatype rdf:JSON .

    ex:url a seam:Variable, owl:DatatypeProperty ;
        rdfs:label "url" ; seam:name "url" ; seam:datatype xsd:string .

    ex:priceResponse a seam:Variable, owl:DatatypeProperty ;
        rdfs:label "priceResponse" ; seam:name "priceResponse" ; seam:datatype rdf:JSON .

    ex:summary a seam:Variable'''


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("pricing")
    done = run_seams("init", "--from", str(FIXTURE / "order-pricing.bpmn"), "--from",
                     str(FIXTURE / "order-pricing.dmn"), "p", cwd=base)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 decision" in done.stdout  # the literal-expression decision is imported, not left out
    root = base / "p"
    trig = root / "model" / "model.trig"
    text = trig.read_text(encoding="utf-8")
    filled = text.replace('        seam:handler "io_camunda_http_json_1" .', FILLED_TASK)
    for name in ("customer", "pricedItems", "summary"):
        filled = filled.replace(f'        seam:name "{name}" .', f'        seam:name "{name}" ;\n'
                                                                  "        seam:datatype rdf:JSON .")
    filled = filled.replace("    ex:summary a seam:Variable", NEW_VARIABLES, 1)
    assert filled.count("rdf:JSON .") == 5, "the import no longer writes the variables this test fills in"
    trig.write_text(filled, encoding="utf-8")
    (root / "handlers" / "io_camunda_http_json_1.py").write_text(HANDLER, encoding="utf-8")
    (base / "answers.json").write_text(json.dumps({"reviewOrder": {"approved": True, "reviewNote": "ok"}}),
                                       encoding="utf-8")
    assert run_seams("generate", cwd=root).returncode == 0
    return root


def test_what_a_person_fills_in_is_listed_and_then_it_checks_clean(project):
    done = run_seams("check", "--no-cache", cwd=project)
    assert (done.returncode, done.stdout.strip()) == (0, "seams check: no problems"), done.stdout + done.stderr
    module = (project / "generated" / "decisions.py").read_text(encoding="utf-8")
    assert "def discount(summary, customer):" in module and "decide_by_id(_DMN_1, 'Decision_Discount'" in module


def _run(project: Path, order: dict) -> list[str]:
    done = run_seams("run", "order-pricing", "--given", json.dumps({"order": order}), "--answers",
                     str(project.parent / "answers.json"), cwd=project, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def _variables(lines: list[str]) -> dict:
    assert lines[-1].startswith("variables ")
    return json.loads(lines[-1][len("variables "):])


def test_an_expensive_item_goes_to_review_and_the_mappings_compute(project):
    lines = _run(project, {"customer": {"name": "ACME", "tier": "silver"},
                           "items": [{"sku": "a", "qty": 1}, {"sku": "c", "qty": 1}]})
    assert 'exclusiveGateway routeGateway "Route?": took Flow_Review "expensive item"' in lines
    assert 'businessRuleTask computeDiscount "Compute discount": Decision_Discount evaluated (literal expression)' \
        in lines
    assert lines[-2] == 'endEvent EndEvent_Reviewed "Reviewed"'
    variables = _variables(lines)
    assert variables["prices"] == [2.5, 600] and variables["currency"] == "EUR"  # the resultExpression
    assert variables["summary"] == {"count": 2, "total": 602.5}
    assert variables["firstDouble"] == 5.0 and variables["discount"] == 0
    assert variables["pricedItems"][1] == {"price": 600, "qty": 1, "sku": "c"}
    assert "url" not in variables and "headers" not in variables  # the connector's input mappings are local


def test_a_gold_vip_customer_gets_a_discount_and_the_vip_route(project):
    lines = _run(project, {"customer": {"name": "VIP Corp", "tier": "gold"}, "items": [{"sku": "b", "qty": 1}]})
    assert 'exclusiveGateway routeGateway "Route?": took Flow_Vip "VIP"' in lines
    assert _variables(lines)["discount"] == 12.0


def test_three_items_one_over_ten_is_bulk(project):
    lines = _run(project, {"customer": {"name": "Shop", "tier": "gold"},
                           "items": [{"sku": "a"}, {"sku": "d"}, {"sku": "b"}]})
    assert 'exclusiveGateway routeGateway "Route?": took Flow_Bulk "bulk"' in lines
    assert _variables(lines)["discount"] == 13.75


def test_no_condition_holds_and_the_default_flow_is_taken(project):
    lines = _run(project, {"customer": {"name": "Shop", "tier": "silver"}, "items": [{"sku": "a"}]})
    assert 'exclusiveGateway routeGateway "Route?": took Flow_Standard' in lines
    assert lines[-2] == 'endEvent EndEvent_Standard "Standard order"'


def test_a_condition_over_an_unknown_variable_is_a_finding(project, tmp_path):
    import shutil

    copy = tmp_path / "p"
    shutil.copytree(project, copy)
    bpmn = copy / "model" / "order-pricing.bpmn"
    text = bpmn.read_text(encoding="utf-8")
    bpmn.write_text(text.replace("contains(lower case(customer.name)", "contains(lower case(client.name)"),
                    encoding="utf-8")
    done = run_seams("check", "--no-cache", cwd=copy)
    assert done.returncode == 1
    assert any(line.startswith('decision Flow_Vip bpmn:conditionExpression: names "client", which is no variable '
                               "of ex:order-pricing") for line in done.stdout.splitlines()), done.stdout

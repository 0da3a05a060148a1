"""A Camunda 8 process whose mappings are FEEL over contexts, lists and paths with built-in
functions imports, checks clean once its variables are filled in, and runs on the embedded
engine with the one FEEL implementation (seams_runtime.engine.expressions)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_seams

FIXTURE = Path(__file__).parent / "fixtures" / "engine" / "order-summary-c8.bpmn"
ORDER = '{"order": {"items": [{"price": 2.5, "sku": "a"}, {"price": 9, "sku": "b"}]}}'


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    assert run_seams("init", "--from", str(FIXTURE), "p", cwd=tmp_path).returncode == 0
    root = tmp_path / "p"
    trig = root / "model" / "model.trig"
    text = trig.read_text(encoding="utf-8")
    filled = text.replace('''        seam:name "summary" .''', '''        seam:name "summary" ;
        seam:datatype rdf:JSON .

    ex:order a seam:Variable, owl:DatatypeProperty ;
        rdfs:label "order" ;
        seam:name "order" ;
        seam:datatype rdf:JSON .''')
    assert filled != text, "the import no longer writes ex:summary as this test expects"
    trig.write_text(filled, encoding="utf-8")
    return root


def test_it_checks_clean_once_filled_in(project):
    done = run_seams("check", "--no-cache", cwd=project)
    assert (done.returncode, done.stdout.strip()) == (0, "seams check: no problems"), done.stdout + done.stderr


def test_mappings_compute_contexts_lists_and_paths_with_built_ins(project):
    done = run_seams("run", "order-summary", "--given", ORDER, cwd=project)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert 'exclusiveGateway routeGateway "Route?": took Flow_Big "big"' in lines
    assert lines[-1] == ('variables {"expensive": ["b"], "firstDouble": 5.0, "order": {"items": [{"price": 2.5, '
                         '"sku": "a"}, {"price": 9, "sku": "b"}]}, "route": "auto", "skus": ["A", "B"], '
                         '"summary": {"count": 2, "total": 11.5}}')


def test_a_small_order_takes_the_default_flow(project):
    small = '{"order": {"items": [{"price": 1, "sku": "x"}]}}'
    done = run_seams("run", "order-summary", "--given", small, cwd=project)
    assert done.returncode == 0, done.stderr
    assert 'endEvent EndEvent_Small "Small order"' in done.stdout.splitlines()
    assert '"summary": {"count": 1, "total": 1}' in done.stdout

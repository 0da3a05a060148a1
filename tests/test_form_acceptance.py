"""The forms gate's samples and verdicts (seams.suggestions.form_acceptance), on the example's real forms."""

from __future__ import annotations

import json

from helpers import EXAMPLE, copy_example, edit
from rdflib import URIRef

from seams.model.loading import load_model
from seams.project.layout import load_project
from seams.suggestions.form_acceptance import describe, forms_before, forms_of_record, refused, samples_of

EX = "https://example.org/leave/"


def _verdicts(model, shape: str, target: str) -> dict[str, bool]:
    samples = samples_of(model, URIRef(EX + shape))
    no = refused(model.union, model.dataset.graph(model.project.graphs["shapes"]), URIRef(EX + shape),
                 URIRef(EX + target), samples)
    return {describe(model, sample): number not in no for number, sample in enumerate(samples)}


def test_samples_sit_at_each_constraints_boundaries_and_pyshacl_judges_them():
    model = load_model(load_project(EXAMPLE))
    verdicts = _verdicts(model, "LeaveForm", "LeaveRequest")
    base = {"days": 1, "employee": "a", "leave_type": "annual", "start_date": "2026-01-01"}
    expected = {0: False, 1: True, 2: True, 59: True, 60: True, 61: False, "not a value": False, None: False}
    for days, accepted in expected.items():
        assert verdicts[json.dumps({**base, "days": days})] is accepted, days
    assert verdicts[json.dumps({**base, "leave_type": "sick"})] is True
    assert verdicts[json.dumps({**base, "leave_type": "not-listed"})] is False
    assert verdicts[json.dumps({**base, "employee": "a_1"})] is True
    assert verdicts[json.dumps({**base, "employee": "Z"})] is False  # the pattern's probes
    assert verdicts[json.dumps({**base, "employee": None})] is False  # sh:minCount 1


def test_a_changed_constraint_is_a_finding_naming_the_sample(tmp_path):
    root = copy_example(tmp_path)
    model = load_model(load_project(root))
    record = {"suggestion": {"shape": {"iri": EX + "ReviewForm"}, "class": {"iri": EX + "LeaveReview"}},
              "forms_before": forms_before(model, (URIRef(EX + "ReviewForm"),))}
    assert forms_of_record(model, record).findings == []  # the same shape judges as it did
    edit(root / "model" / "model.trig", "sh:maxLength 500", "sh:maxLength 400")
    changed = load_model(load_project(root))
    result = forms_of_record(changed, record)
    assert result.samples == 8
    assert [f.line() for f in result.findings] == [
        'forms ex:ReviewForm: {"approved": true, "review_note": "aaaaaaaa... (500 characters)"} '
        "was accepted before, refused by ex:ReviewForm after",
        'forms ex:ReviewForm: {"approved": false, "review_note": "aaaaaaaa... (500 characters)"} '
        "was accepted before, refused by ex:ReviewForm after",
        'forms ex:ReviewForm: {"approved": true, "review_note": "aaaaaaaa... (499 characters)"} '
        "was accepted before, refused by ex:ReviewForm after",
    ]

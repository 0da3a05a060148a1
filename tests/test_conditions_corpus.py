"""How much of real-shaped Camunda 7 and Camunda 8 gateway conditions seams reads.

tests/fixtures/conditions holds BPMN files written for this test in the
shapes of public Camunda and bpmn-io examples (each names its source in a
comment). At least 90 % of their conditions must parse, and every refusal
must name a construct outside the documented subset (docs/conditions.md).
"""

from __future__ import annotations

from pathlib import Path

from seams.lang.condition_corpus import read_corpus

CORPUS = Path(__file__).parent / "fixtures" / "conditions"

REFUSED = {
    ("c7-customer-rating.bpmn", "Flow_Minor"): 'JUEL method call applicant.prop("age") is not supported',
    ("c7-customer-rating.bpmn", "Flow_Script"): 'script condition (language="groovy") is not analysable',
    ("c8-order-fulfilment.bpmn", "Flow_Repeated"):
        "FEEL matches(parcel.label, \"(\\\\w)\\\\1\"): escape '\\1' at offset 4 of the pattern is not supported",
}


def test_at_least_nine_in_ten_conditions_parse_and_each_refusal_names_its_construct():
    outcomes = read_corpus(CORPUS.glob("*.bpmn"), CORPUS)
    parsed = [o for o in outcomes if o.refusal is None]
    assert len(outcomes) >= 50
    assert len(parsed) / len(outcomes) >= 0.9, f"{len(parsed)} of {len(outcomes)}"
    refused = {(o.path, o.flow): o.refusal for o in outcomes if o.refusal is not None}
    assert refused.keys() == REFUSED.keys()
    for key, message in refused.items():
        assert message.startswith(REFUSED[key]), message


def test_both_engines_are_represented_and_read_in_their_own_dialect():
    outcomes = read_corpus(CORPUS.glob("*.bpmn"), CORPUS)
    dialects = {(o.path.split("-")[0], o.dialect) for o in outcomes if o.dialect}
    assert dialects == {("c7", "juel"), ("c8", "feel")}

"""The sort-and-sweep UNIQUE overlap search gives exactly the pairs the quadratic one did."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from seams.checks.unique_overlaps import overlapping_pairs
from seams.lang.feel import overlaps, parse_unary_tests

# entries of every form a decision-table cell takes, on a small domain so overlaps are common
NUMBERS = st.integers(-3, 3).map(str) | st.sampled_from(["1.5", "0.0", "-2.5"])
STRINGS = st.sampled_from(['"a"', '"b"', '"ab"', '""'])
DATES = st.sampled_from(['date("2024-01-01")', 'date("2024-01-02")'])
SIMPLE = st.one_of(
    NUMBERS, STRINGS, DATES, st.sampled_from(["true", "false", "null"]),
    st.builds(lambda op, n: f"{op} {n}", st.sampled_from(["<", "<=", ">", ">="]), NUMBERS | STRINGS | DATES),
    st.builds(lambda lo, a, b, hi: f"{lo}{a}..{b}{hi}", st.sampled_from("[(]"), NUMBERS, NUMBERS,
              st.sampled_from("])[")),
)
LIST = st.lists(SIMPLE, min_size=1, max_size=3).map(", ".join)
ENTRY = st.one_of(st.just("-"), LIST, LIST.map(lambda text: f"not({text})"))


def quadratic(rows):
    return [(i, j) for i in range(len(rows)) for j in range(i + 1, len(rows))
            if all(overlaps(a, b) for a, b in zip(rows[i], rows[j]))]


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 3).flatmap(lambda width: st.lists(st.lists(ENTRY, min_size=width, max_size=width),
                                                        min_size=0, max_size=12)))
def test_sweep_finds_exactly_the_quadratic_pairs(table):
    rows = [[parse_unary_tests(text, where="test") for text in row] for row in table]
    assert overlapping_pairs(rows) == quadratic(rows)


def test_large_disjoint_table_has_no_pairs_and_overlapping_rules_are_all_found():
    rows = [[parse_unary_tests(f"[{n * 10}..{n * 10 + 10}[", where="t"), parse_unary_tests(f'"{n % 7}"', where="t")]
            for n in range(400)]
    assert overlapping_pairs(rows) == []
    rows.append([parse_unary_tests("[15..25]", where="t"), parse_unary_tests("-", where="t")])
    assert overlapping_pairs(rows) == [(1, 400), (2, 400)]


def test_overlap_findings_are_capped_with_a_count_of_the_rest():
    from lxml import etree

    from seams import vocab as V
    from seams.checks.decisions import MAX_OVERLAP_FINDINGS, _overlap_findings
    from seams.lang.dmn_support import read_decision

    rules = "".join(f'<rule id="R{n}"><inputEntry><text>-</text></inputEntry>'
                    f'<outputEntry><text>"x"</text></outputEntry></rule>' for n in range(8))  # 28 pairs
    decision = etree.fromstring(f'<decision xmlns="{V.DMN_NS}" id="Decision_X"><decisionTable><input>'
                                f'<inputExpression><text>days</text></inputExpression></input><output name="o"/>'
                                f'{rules}</decisionTable></decision>')
    table, problems = read_decision(decision)
    assert table is not None and problems == []
    findings = list(_overlap_findings(table))
    assert len(findings) == MAX_OVERLAP_FINDINGS + 1
    assert findings[0].message.startswith("rules R0 and R1 overlap")
    assert findings[-1].message == (f"{28 - MAX_OVERLAP_FINDINGS} more pairs of rules overlap "
                                    "(only the first 20 are listed)")

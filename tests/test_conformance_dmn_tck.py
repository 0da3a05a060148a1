"""conformance/dmn_tck.py on a small folder in the TCK's layout (tests/fixtures/tck_mini, written for
these tests): one line per result node, passed / failed / out of scope, then the totals per folder, per
label and overall."""

from __future__ import annotations

import subprocess
import sys

from helpers import REPO

SCRIPT = REPO / "conformance" / "dmn_tck.py"
MINI = REPO / "tests" / "fixtures" / "tck_mini"
FILE = "compliance-level-2/0001-mini/0001-mini-test-01.xml"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                          check=False)


BOXED = "compliance-level-3/0002-mini-boxed/0002-mini-boxed-test-01.xml"


def test_each_result_node_is_passed_failed_or_out_of_scope():
    result = run(str(MINI))
    assert result.stdout.splitlines() == [
        f"passed {FILE} 001 Level",  # PRIORITY by outputValues, a dotted path into a context, a name as operand
        f"passed {FILE} 001 Band",  # its required decision Span evaluated first, with a name as interval end
        f"passed {FILE} 001 Double",  # a literal expression
        f"passed {FILE} 002 Band",
        f"failed {FILE} 002 Span: expected Decimal('51'), got Decimal('50')",  # deliberately wrong expectations
        f"failed {FILE} 002 Span: expected None, got Decimal('50')",
        f"passed {BOXED} 001 Totals",  # a boxed context: for, sum, a filter, a BKM invoked with bindings
        f"passed {BOXED} 001 Grade",  # a decision reading another's context entry
        f"out of scope {BOXED} 001 Java Max: a Java function definition",
        f"passed {BOXED} 002 Grade",  # a decision service; "Z" is outside tGrade's allowed values: null
        "folder compliance-level-2/0001-mini: passed 4, failed 2, out of scope 0",
        "folder compliance-level-3/0002-mini-boxed: passed 3, failed 0, out of scope 1",
        "label (none): passed 4, failed 2, out of scope 0",
        "label Boxed Context: passed 3, failed 0, out of scope 1",
        "label Business Knowledge Model: passed 3, failed 0, out of scope 1",
        "out of scope because a Java function definition: 1",
        "generated module cross-checked on 6 passed result nodes (boxed expression 3, decision table 3)",
        "passed 7, failed 2, out of scope 1 (70.0% of 10 result nodes passed)",
    ]
    assert result.returncode == 1 and result.stderr == ""


def test_summary_leaves_out_the_lines_per_node():
    lines = run(str(MINI), "--summary").stdout.splitlines()
    assert lines[0] == "folder compliance-level-2/0001-mini: passed 4, failed 2, out of scope 0"
    assert lines[-1] == "passed 7, failed 2, out of scope 1 (70.0% of 10 result nodes passed)"


def test_a_missing_folder_is_a_usage_error(tmp_path):
    result = run(str(tmp_path / "nope"))
    assert result.returncode == 2 and "not a directory" in result.stderr
    assert run().returncode == 2

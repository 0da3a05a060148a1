"""conformance/dmn_tck.py on a small folder in the TCK's layout (tests/fixtures/tck_mini, written for
these tests): one line per result node, passed / failed / out of scope, then the totals."""

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


def test_each_result_node_is_passed_failed_or_out_of_scope():
    result = run(str(MINI))
    assert result.stdout.splitlines() == [
        f"passed {FILE} 001 Level",  # PRIORITY by outputValues, a dotted path into a context, a name as operand
        f"passed {FILE} 001 Band",  # its required decision Span evaluated first, with a name as interval end
        f"out of scope {FILE} 001 Double: dmn:decisionTable: DMN decision \"d_Double\" is a literal-expression "
        "decision; out of scope (seams evaluates decision tables)",
        f"passed {FILE} 002 Band",
        f"failed {FILE} 002 Span: expected Decimal('51'), got 50",  # the fixture's deliberately wrong expectation
        f"out of scope {FILE} 002 Span: an expected error result",
        "passed 3, failed 1, out of scope 2",
    ]
    assert result.returncode == 1 and result.stderr == ""


def test_a_missing_folder_is_a_usage_error(tmp_path):
    result = run(str(tmp_path / "nope"))
    assert result.returncode == 2 and "not a directory" in result.stderr
    assert run().returncode == 2

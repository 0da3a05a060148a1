"""A fair judge (issue 28): failed lines keep their reason, one input type per datatype,
assumptions, declared BPMN errors, the contract stated in the prompt, and a bounded second try."""

from __future__ import annotations

from seams_cli.verdicts import REASON_LIMIT, keep_reason
from seams_runtime.handler_checks import show_case

# ---------------------------------------------------------------- failed lines keep the reason


def test_a_long_generated_input_is_shortened_in_the_middle_never_the_exception():
    given = {f"field_{i}": "x" * 50 for i in range(6)}
    replies = {"accounting": "TR-00000000"}
    reason = (f"generated input ({show_case(given, replies)}): handle raised ValueError: incident date "
              "2025-01-01 is after today 2024-03-05 (days_since.py:7)")
    kept = keep_reason(reason)
    assert len(kept) <= REASON_LIMIT
    assert kept.startswith("generated input (field_0=")
    assert kept.endswith("handle raised ValueError: incident date 2025-01-01 is after today 2024-03-05 "
                         "(days_since.py:7)")
    assert "…" in kept


def test_a_short_reason_is_kept_as_it_is_and_a_huge_message_keeps_its_start_and_end():
    assert keep_reason("example 'a': output 'x' is 1, expected 2") == "example 'a': output 'x' is 1, expected 2"
    huge = "example 'a': handle raised KeyError: " + "k" * 5000 + " (h.py:3)"
    kept = keep_reason(huge)
    assert "handle raised KeyError: kkk" in kept and kept.endswith("(h.py:3)") and len(kept) < 1100


def test_show_case_shortens_each_value_in_the_middle():
    shown = show_case({"note": "a" * 200}, {})
    assert shown.startswith("note='aaa") and shown.endswith("aaa'") and "…" in shown and len(shown) < 80

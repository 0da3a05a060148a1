"""From a session's item reports to the lines the CLI prints: the one verdict mapper.

Every LLM workflow judges its answer by the item reports of one pytest
session in a scratch copy (docs/architecture.md, D-judge), and each prints
the items that did not pass as lines: ``seams propose`` as ``failed <item>:
<why>``, ``seams draft-generator`` as ``<item>: <why>`` (the command adds
``failed``), ``seams suggest`` per gate as the findings' own lines. They
differ only in wording; which items count, why an item failed (its first
finding, else its text), and how scratch paths are kept out of a line are
decided here, once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from pytest_seams.runner import ItemResult, SessionResult
from seams.errors import GeneratorError
from seams_cli.llm.answer_text import strip_escapes

_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
REASON_LIMIT = 200  # characters of one reason, once the inputs in it are shortened
WHY_LIMIT = 1000  # characters of what was raised or broken (after the inputs): kept whole up to this
LINE_LIMIT = 300  # characters of one scrubbed line
ELLIPSIS = "…"


def scrubber(replacements: Mapping[str, str]) -> Callable[[str], str]:
    """Replace scratch paths (in the mapping's order) by the names a reader knows."""
    def scrub(text: str) -> str:
        for old, new in replacements.items():
            text = text.replace(old, new)
        return text
    return scrub


def root_names(scratch_root: object) -> dict[str, str]:
    """A scratch project's root as ``.`` (a path inside it loses the root and its slash)."""
    return {f"{scratch_root}/": "", str(scratch_root): "."}


def why(item: ItemResult) -> str:
    """Why an item failed, as the item said it: its first finding's message, else its text."""
    return item.findings[0].message if item.findings else (item.text or "")


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def one_line(text: str, *, limit: int = LINE_LIMIT) -> str:
    """Control characters and runs of white space as one space, at most ``limit`` characters."""
    return " ".join(_CONTROL.sub(" ", text).split())[:limit]


def unreported(result: SessionResult, expected: Iterable[str]) -> list[tuple[str, str]]:
    """(name, ``was skipped`` | ``did not run``) of each expected item that neither passed
    nor failed: a draft that skips or never reaches an item does not pass by silence."""
    outcomes = {item.name: item.outcome for item in result.items}
    return [(name, "was skipped" if outcomes.get(name) == "skipped" else "did not run")
            for name in expected if outcomes.get(name) not in ("passed", "failed", "error")]


# --- seams propose ------------------------------------------------------------------------------

def propose_lines(result: SessionResult, expected: list[str], *, scratch_root: object,
                  module: str) -> list[str]:
    """``failed <item>[: <why>]`` for each failed item (in session order), then each
    expected item that did not run; [] when every expected item passed."""
    if result.passed_all(expected):
        return []
    scrub = scrubber(root_names(scratch_root))
    lines = [f"failed {item.name}{_propose_reason(item, scrub)}" for item in result.failures()]
    lines += [f"failed {name}: {status}" for name, status in unreported(result, expected)]
    return lines or [f"failed {module}: {result.error or 'the acceptance session did not pass'}"]


def _propose_reason(item: ItemResult, scrub: Callable[[str], str]) -> str:
    first = next(iter(_lines(scrub(strip_escapes(why(item))))), "")
    line = _CONTROL.sub(" ", first)
    return f": {keep_reason(line)}" if line else ""


def shorten_middle(text: str, limit: int) -> str:
    """``text`` at most ``limit`` characters: its start and its end, the middle an ellipsis."""
    if len(text) <= limit:
        return text
    head = max((limit - 1) // 2, 0)
    return text[:head] + ELLIPSIS + text[len(text) - max(limit - 1 - head, 0):]


def _inputs_end(text: str) -> int:
    """Where the part naming the inputs ends: after ``generated input (...): `` or ``example '...': ``."""
    marker = "): " if text.startswith("generated input (") else ": "
    index = text.find(marker)
    return index + len(marker) if index >= 0 else 0


def keep_reason(text: str, limit: int = REASON_LIMIT) -> str:
    """A reason of at most ``limit`` characters that still says why: the inputs it names are
    shortened in the middle, never what was raised and its message (those are kept whole up
    to :data:`WHY_LIMIT`, then shortened in the middle too, so the file and line at the end stay)."""
    if len(text) <= limit:
        return text
    cut = _inputs_end(text)
    inputs, reason = text[:cut], text[cut:]
    reason = shorten_middle(reason, WHY_LIMIT)
    return shorten_middle(inputs, max(limit - len(reason), 40)) + reason


# --- seams draft-generator ----------------------------------------------------------------------

def golden_lines(result: SessionResult, expected: list[str], *, timeout: float,
                 replacements: Mapping[str, str] | None = None) -> list[str]:
    """``<item>: <why>`` for each expected item that failed or never reported, then any
    other failure, then why the session itself did not pass; [] when all expected passed.
    With ``replacements`` each line is scrubbed of scratch paths and made one line."""
    if result.passed_all(expected):
        return []
    reported = {item.name: item for item in result.items}
    lines = []
    for name in expected:
        item = reported.get(name)
        if item is None:
            lines.append(f"{name}: did not run")
        elif item.outcome != "passed":
            lines.append(f"{name}: {_golden_reason(item)}")
    lines += [f"{item.name}: {_golden_reason(item)}" for item in result.failures() if item.name not in expected]
    if result.timed_out:
        lines.append(f"tests: the golden session timed out after {timeout:g} s")
    elif result.error or not lines:
        lines.append(f"tests: {result.error or 'the golden session did not pass'}")
    if replacements is None:
        return lines
    scrub = scrubber(replacements)
    return [one_line(scrub(line)) for line in lines]


def _golden_reason(item: ItemResult) -> str:
    if item.findings:
        return item.findings[0].message
    return next(iter(_lines(item.text or "")), "") or item.outcome


def first_refusal(result: SessionResult, names: Iterable[str]) -> str | None:
    """The first finding's message of the first of ``names`` (in that order) that failed with
    findings: a rule item refuses with exactly the line its check words."""
    reported = {item.name: item for item in result.items}
    for name in names:
        item = reported.get(name)
        if item is not None and item.outcome != "passed" and item.findings:
            return item.findings[0].message
    return None


# --- seams suggest ------------------------------------------------------------------------------

@dataclass(frozen=True)
class GateVerdict:
    gate: str
    passed: bool
    lines: tuple[str, ...]  # one per finding: ``<kind> <subject> [<predicate>]: <message>``
    facts: Mapping[str, object] = field(default_factory=dict)  # what its items reported besides findings


def gate_verdicts(result: SessionResult, gates: Iterable[str], *, scratch_root: object,
                  what: str = "the scratch check") -> list[GateVerdict]:
    """One verdict per gate: passed when each of its items did; a failed item's findings
    as their lines, an item that failed without findings as ``<gate> <item>: <last line>``.
    A gate with no item at all is a GeneratorError: the session did not judge it."""
    scrub = scrubber({str(scratch_root): "."})
    verdicts = []
    for gate in gates:
        items = [item for item in result.items if item.gate == gate]
        if not items:
            raise GeneratorError(f"{what} ran no {gate} item" + (f": {result.error}" if result.error else ""))
        failed = [item for item in items if item.outcome != "passed"]
        lines = [f.line() for item in failed for f in item.findings]
        lines += [f"{gate} {item.name}: {_last_line(scrub(item.text or ''))}" for item in failed if not item.findings]
        facts = {key: value for item in items for key, value in item.facts.items()}
        verdicts.append(GateVerdict(gate, not failed, tuple(lines), facts))
    return verdicts


def _last_line(text: str) -> str:
    lines = _lines(text)
    return lines[-1][:REASON_LIMIT] if lines else "failed"

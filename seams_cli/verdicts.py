"""From a session's item reports to the lines the CLI prints: the one verdict mapper.

Every LLM workflow judges its answer by the item reports of one pytest
session in a scratch copy (docs/architecture.md, D-judge), and each prints
the items that did not pass as lines: ``seams propose`` as ``failed <item>:
<why>``, ``seams draft-generator`` as ``<item>: <why>`` (the command adds
``failed``), ``seams suggest`` per gate as the findings' own lines. One
function, :func:`verdict_lines`, walks the reports for all three; how each
command words them (prefix, order, what a skipped item is, why an item failed,
what is said of the session) is a row of data, a :class:`Wording`
(:data:`PROPOSE`, :data:`GOLDEN`, :data:`GATE`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

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


Scrub = Callable[[str], str]


@dataclass(frozen=True)
class Wording:
    """How one command words the items that did not pass: everything the three commands differ in."""

    reason: Callable[[ItemResult, Scrub], str]  # why one item failed, on one line ("": no reason shown)
    prefix: str = ""  # before each line ("failed " for propose; draft-generator adds its own)
    expected_first: bool = True  # expected items in their order, then other failures; else failures in
    # session order, then the expected items that never reported
    skipped: str | None = None  # a skipped expected item as this status after the failures (None: a failure)
    finding_lines: bool = False  # items with findings as the findings' own lines, before those without
    gate_label: bool = False  # an item's line names its gate before the item
    session: str | None = None  # the line's end when the session failed with nothing else to say
    session_always: bool = False  # the session's own error is said even after item lines
    timed_out: str | None = None  # a timed-out session's line ({timeout:g}), said instead of its error
    whole_lines: bool = False  # with a scrub, each whole line scrubbed and made one line


def verdict_lines(result: SessionResult, expected: Sequence[str], wording: Wording, *,
                  scrub: Scrub | None = None, subject: str = "", timeout: float = 0.0) -> list[str]:
    """The lines of the items of ``result`` that did not pass, as ``wording`` words them; [] when
    every expected item passed. ``subject`` names the session in its own line (``module``, ``tests``)."""
    if result.passed_all(expected):
        return []
    clean = scrub or _same
    reported = {item.name: item for item in result.items}

    def item_lines(item: ItemResult) -> list[str]:
        if wording.finding_lines and item.findings:
            return [finding.line() for finding in item.findings]
        reason = wording.reason(item, clean)
        label = f"{item.gate} {item.name}" if wording.gate_label else item.name
        return [f"{wording.prefix}{label}{f': {reason}' if reason else ''}"]

    def status(name: str) -> str | None:
        """How an expected item that is not worded by its reason reads, else None."""
        item = reported.get(name)
        if item is None:
            return "did not run"
        return wording.skipped if item.outcome == "skipped" else None

    failing = [item for item in result.items  # a skipped item counts only when it was expected
               if item.outcome != "passed" and (item.outcome != "skipped" or item.name in expected)]
    if wording.finding_lines:  # findings first: the order suggest has always printed
        failing.sort(key=lambda item: not item.findings)
    lines: list[str] = []
    if wording.expected_first:
        for name in expected:
            said = status(name)
            if said is not None:
                lines.append(f"{wording.prefix}{name}: {said}")
            elif reported[name].outcome != "passed":
                lines += item_lines(reported[name])
        lines += [line for item in failing if item.name not in expected and item.outcome != "skipped"
                  for line in item_lines(item)]
    else:
        for item in failing:
            lines += item_lines(item) if status(item.name) is None else []
        lines += [f"{wording.prefix}{name}: {said}" for name in expected if (said := status(name)) is not None]
    lines += _session_lines(result, wording, bool(lines), subject=subject, timeout=timeout)
    if wording.whole_lines and scrub is not None:
        return [one_line(scrub(line)) for line in lines]
    return lines


def _session_lines(result: SessionResult, wording: Wording, said: bool, *, subject: str,
                   timeout: float) -> list[str]:
    if wording.session is None:
        return []
    if wording.timed_out is not None and result.timed_out:
        return [f"{wording.prefix}{subject}: {wording.timed_out.format(timeout=timeout)}"]
    if (wording.session_always and result.error) or not said:
        return [f"{wording.prefix}{subject}: {result.error or wording.session}"]
    return []


def _same(text: str) -> str:
    return text


# --- the three wordings -------------------------------------------------------------------------

def _propose_reason(item: ItemResult, scrub: Scrub) -> str:
    """The first line of why, scrubbed, without escapes or controls, kept to REASON_LIMIT."""
    first = next(iter(_lines(scrub(strip_escapes(why(item))))), "")
    return keep_reason(_CONTROL.sub(" ", first))


def _golden_reason(item: ItemResult, scrub: Scrub) -> str:
    """The first finding's message, else the first line of the text, else the outcome."""
    if item.findings:
        return item.findings[0].message
    return next(iter(_lines(item.text or "")), "") or item.outcome


def _gate_reason(item: ItemResult, scrub: Scrub) -> str:
    """The last line of the text (an assertion's own line), scrubbed, else ``failed``."""
    lines = _lines(scrub(item.text or ""))
    return lines[-1][:REASON_LIMIT] if lines else "failed"


PROPOSE = Wording(_propose_reason, prefix="failed ", expected_first=False, skipped="was skipped",
                  session="the acceptance session did not pass")
GOLDEN = Wording(_golden_reason, session="the golden session did not pass", session_always=True,
                 timed_out="the golden session timed out after {timeout:g} s", whole_lines=True)
GATE = Wording(_gate_reason, expected_first=False, finding_lines=True, gate_label=True)


def propose_lines(result: SessionResult, expected: list[str], *, scratch_root: object,
                  module: str) -> list[str]:
    """``failed <item>[: <why>]`` for each failed item (in session order), then each expected
    item that was skipped or did not run; ``failed <module>: <why>`` when no item says why."""
    return verdict_lines(result, expected, PROPOSE, scrub=scrubber(root_names(scratch_root)), subject=module)


def golden_lines(result: SessionResult, expected: list[str], *, timeout: float,
                 replacements: Mapping[str, str] | None = None) -> list[str]:
    """``<item>: <why>`` for each expected item that failed or never reported, then any
    other failure, then why the session itself did not pass. With ``replacements`` each
    line is scrubbed of scratch paths and made one line."""
    scrub = scrubber(replacements) if replacements is not None else None
    return verdict_lines(result, expected, GOLDEN, scrub=scrub, subject="tests", timeout=timeout)


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


def first_refusal(result: SessionResult, names: Iterable[str]) -> str | None:
    """The first finding's message of the first of ``names`` (in that order) that failed with
    findings: a rule item refuses with exactly the line its check words."""
    reported = {item.name: item for item in result.items}
    for name in names:
        item = reported.get(name)
        if item is not None and item.outcome != "passed" and item.findings:
            return item.findings[0].message
    return None


# --- seams suggest: one verdict per gate ------------------------------------------------------

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
        passed = all(item.outcome == "passed" for item in items)
        lines = [] if passed else verdict_lines(replace(result, items=items), [item.name for item in items],
                                                GATE, scrub=scrub)
        facts = {key: value for item in items for key, value in item.facts.items()}
        verdicts.append(GateVerdict(gate, passed, tuple(lines), facts))
    return verdicts

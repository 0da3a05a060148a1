"""Reading every gateway condition of BPMN files, to measure how many seams understands.

docs/conditions.md reports how much of real Camunda models' conditions the
three dialects cover; the test suite runs this over tests/fixtures/conditions
and ``scripts/condition_corpus.py`` over a local checkout of a public
repository. Each sequence flow's ``conditionExpression`` is parsed with
``parse_condition`` exactly as ``seams check`` does (its ``language``
attribute included), so the figures are the checks' own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from seams import vocab as V
from seams.errors import ExpressionError, ProjectError
from seams.lang.condition import parse_condition
from seams.model.payloads import parse_xml

MAX_FILE = 5_000_000
"""Largest BPMN file read, in bytes."""


@dataclass(frozen=True)
class Outcome:
    path: str
    flow: str
    text: str
    dialect: str | None  # None: refused
    refusal: str | None  # the ExpressionError's text, without the flow id


def conditions_of(data: bytes, source: str) -> Iterable[tuple[str, str, str | None]]:
    """(flow id, condition text, language attribute) of every conditional sequence flow."""
    root = parse_xml(data, source=source).getroot()
    for flow in root.iter(f"{{{V.BPMN_NS}}}sequenceFlow"):
        condition = flow.find(f"{{{V.BPMN_NS}}}conditionExpression")
        if condition is not None and (condition.text or "").strip():
            yield flow.get("id") or "?", condition.text or "", condition.get("language")


def read_corpus(paths: Iterable[Path], root: Path) -> list[Outcome]:
    """The outcome of every condition in the given BPMN files, in path then document order."""
    outcomes = []
    for path in sorted(paths):
        if path.stat().st_size > MAX_FILE:
            continue
        source = path.relative_to(root).as_posix()
        try:
            found = list(conditions_of(path.read_bytes(), source))
        except ProjectError:
            continue  # not a payload seams would load (not XML, a DTD): nothing to count
        for flow, text, language in found:
            try:
                condition = parse_condition(text, where=flow, language=language)
            except ExpressionError as exc:
                message = str(exc)
                outcomes.append(Outcome(source, flow, text.strip(), None, message.removeprefix(f"{flow}: ")))
            else:
                outcomes.append(Outcome(source, flow, condition.text, condition.dialect, None))
    return outcomes

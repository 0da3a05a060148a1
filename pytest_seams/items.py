"""The base of every seams gate item: failures are data.

An item keeps the findings of its gate as a list of :class:`Finding`; the
plugin copies them onto the report so the CLI's session runner maps them
to its lines without parsing text, and ``repr_failure`` renders them for
people.

Every item carries the marker of its kind (:data:`MARKERS`), so a user
selects gates as with any pytest test (``pytest -m seams_model``), and
``reportinfo`` points at the TriG statement of the item's subject where it
has one, so a failure's location is the line to open.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from seams.findings import Finding

MARKERS: dict[str, str] = {
    "seams_model": "a model gate of seams (shapes, decisions, generate, engine-bindings, routing)",
    "seams_acceptance": "an acceptance item of a service task's handler (import, example, contract)",
    "seams_scenario": "a scenario of the model, run on the embedded engine",
    "seams_lock": "a lock gate of seams (--seams-check)",
    "seams_golden": "an item of a generator package's golden file",
}
"""The markers of seams' items (docs/plugin.md, "Selecting gates")."""


class GateFailed(Exception):
    """Raised by ``runtest`` when a gate finds problems."""

    def __init__(self, findings: list[Finding], text: str = ""):
        super().__init__(text or "\n".join(f.line() for f in findings))
        self.findings = list(findings)
        self.text = text


class GateItem(pytest.Item):
    """A gate: ``gate`` names it in reports; ``subject`` is what it checks; ``marker`` is the
    kind of item (:data:`MARKERS`)."""

    gate = "seams"
    marker = "seams_model"

    def __init__(self, *, subject: str = "", marker: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.subject = subject
        self.findings: list[Finding] = []
        self.facts: dict[str, object] = {}  # plain JSON data a gate reports besides findings
        self.add_marker(marker or self.marker)

    def fail_with(self, findings: list[Finding], text: str = "") -> None:
        self.findings = list(findings)
        raise GateFailed(self.findings, text)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, GateFailed):
            failed = excinfo.value
            lines = [f.line() for f in failed.findings]
            if failed.text:
                lines.append(failed.text)
            return "\n".join(lines)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"{self.gate}: {self.name}"

    def subject_location(self) -> tuple[Path, int] | None:
        """(the TriG file, the 0-based line) where the item's subject's statement starts, when
        the collector holds a model and the subject is written there by its prefixed name."""
        model = getattr(self.parent, "model", None) or getattr(getattr(self.parent, "parent", None), "model", None)
        if model is None or not self.subject:
            return None
        line = subject_line(model.trig_bytes, self.subject)
        return (Path(model.trig_path), line) if line is not None else None


_LINES: dict[tuple[int, str], int | None] = {}


def subject_line(trig: bytes, subject: str) -> int | None:
    """The 0-based line of the first statement ``subject`` (a prefixed name) starts in ``trig``."""
    key = (hash(trig), subject)
    if key not in _LINES:
        found = re.search(rb"^[ \t]*" + re.escape(subject.encode("utf-8")) + rb"(?=[ \t\r\n;,])", trig, re.M)
        _LINES[key] = trig.count(b"\n", 0, found.start()) if found else None
    return _LINES[key]

"""The base of every seams gate item: failures are data.

An item keeps the findings of its gate as a list of :class:`Finding`; the
plugin copies them onto the report so the CLI's session runner maps them
to its lines without parsing text, and ``repr_failure`` renders them for
people.
"""

from __future__ import annotations

import pytest

from seams.findings import Finding


class GateFailed(Exception):
    """Raised by ``runtest`` when a gate finds problems."""

    def __init__(self, findings: list[Finding], text: str = ""):
        super().__init__(text or "\n".join(f.line() for f in findings))
        self.findings = list(findings)
        self.text = text


class GateItem(pytest.Item):
    """A gate: ``gate`` names it in reports; ``subject`` is what it checks."""

    gate = "seams"

    def __init__(self, *, subject: str = "", **kwargs):
        super().__init__(**kwargs)
        self.subject = subject
        self.findings: list[Finding] = []
        self.facts: dict[str, object] = {}  # plain JSON data a gate reports besides findings

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

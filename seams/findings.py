"""Findings: what every check reports, as data.

One shape for shapes, decisions, generation and lock problems, so the CLI
prints them with one format and the pytest items carry them unchanged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import total_ordering


@total_ordering
@dataclass(frozen=True)
class Finding:
    kind: str  # shape, decision, generate, generated-stale, generated-hand-edited, draft-stale, ...
    subject: str  # a prefixed name, <IRI>, BPMN/DMN id or project-relative path
    predicate: str | None
    message: str

    def _order(self) -> tuple[str, str, tuple[bool, str], str]:
        # a finding without a predicate sorts before those with one (None and str do not compare)
        return self.kind, self.subject, (self.predicate is not None, self.predicate or ""), self.message

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Finding):
            return NotImplemented
        return self._order() < other._order()

    def line(self) -> str:
        """``<kind> <subject> [<predicate>]: <message>`` (docs/architecture.md, D-finding-line)."""
        predicate = f" {self.predicate}" if self.predicate else ""
        return f"{self.kind} {self.subject}{predicate}: {self.message}"

    def as_dict(self) -> dict[str, str | None]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Finding:
        return cls(kind=data["kind"], subject=data["subject"], predicate=data.get("predicate"),
                   message=data["message"])

"""The model-wide gates: shapes, decisions, generate, and the lock items of ``--seams-check``.

Each gate is one item whose findings come from the function that owns the
check (the same one ``seams check`` calls), so the plugin and the CLI report
the same problems line for line. The lock items never call a provider: they
only compare files and hashes with ``seams.lock``.
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

from pytest_seams.items import GateItem


class Source(NamedTuple):
    module: str
    function: str
    needs_project: bool  # called as f(project, model), else f(model)


MODEL_GATES: dict[str, Source] = {
    "shapes": Source("seams.checks.shapes", "shape_findings", False),
    "decisions": Source("seams.checks.decisions", "decision_findings", False),
    "generate": Source("seams.generators.generate", "generate_findings", True),
}

# the order of seams.checks.LOCK_KINDS, so the items run in the order `seams check` prints
LOCK_GATES: dict[str, Source] = {
    "generated-stale": Source("seams.generators.generate", "generated_findings", True),
    "generated-hand-edited": Source("seams.generators.generate", "generated_findings", True),
    "draft-stale": Source("seams.checks.handler_drafts", "draft_findings", True),
    "draft-hand-edited": Source("seams.checks.handler_drafts", "draft_findings", True),
}


class FindingsItem(GateItem):
    """A gate whose findings come from one check function; a lock gate keeps only its kind."""

    def __init__(self, *, source: Source, only_kind: str | None, **kwargs):
        super().__init__(**kwargs)
        self.gate = self.name  # the gate names are the item names: shapes, draft-stale, ...
        self.source = source
        self.only_kind = only_kind

    def reportinfo(self):
        return self.path, None, f"{self.gate}: {self.subject}"

    def runtest(self) -> None:
        from seams.errors import SeamsError
        from seams.findings import Finding

        try:
            findings = self.parent.findings(self.source)
        except SeamsError as exc:  # an unreadable lock, say: one finding, not a traceback
            self.fail_with([Finding(self.gate, self.subject, None, str(exc))])
        if self.only_kind is not None:
            findings = [f for f in findings if f.kind == self.only_kind]
        if findings:
            self.fail_with(findings)


def gate_items(parent: Any, gates: dict[str, Source], *, lock: bool) -> list[FindingsItem]:
    """One item per gate of ``gates`` (MODEL_GATES or LOCK_GATES) under a SeamsFile."""
    subject = "seams.lock" if lock else parent.project.relative(parent.model.trig_path)
    return [FindingsItem.from_parent(parent, name=name, source=source, subject=subject,
                                     only_kind=name if lock else None)
            for name, source in gates.items()]


def call_source(source: Source, project: Any, model: Any) -> list:
    function = getattr(importlib.import_module(source.module), source.function)
    return list(function(project, model) if source.needs_project else function(model))

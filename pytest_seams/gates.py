"""The model-wide gates as items: shapes, decisions, generate, and the lock items of ``--seams-check``.

The gates themselves (names, check functions, finding kinds) are defined once
in seams.checks.registry; this module only turns each into an item whose
findings come from the function that owns the check (the same one ``seams
check`` calls), so the plugin and the CLI report the same problems line for
line. The lock items never call a provider: they only compare files and
hashes with ``seams.lock``.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

from pytest_seams.items import GateItem
from seams.checks.registry import Gate


class _FindingsOwner(Protocol):
    """The collector of a gate item (collect.SeamsFile): it computes each function's findings once."""

    def findings(self, source: Any) -> list: ...


class FindingsItem(GateItem):
    """A gate whose findings come from one check function; a lock gate keeps only its kind."""

    def __init__(self, *, spec: Gate, **kwargs):
        super().__init__(marker="seams_lock" if spec.lock else "seams_model", **kwargs)
        self.gate = spec.name  # the gate names are the item names: shapes, draft-stale, ...
        self.spec = spec

    def reportinfo(self):
        return self.path, None, f"{self.gate}: {self.subject}"

    def runtest(self) -> None:
        from seams.errors import SeamsError
        from seams.findings import Finding

        try:
            findings = cast(_FindingsOwner, self.parent).findings(self.spec.source)
        except SeamsError as exc:  # an unreadable lock, say: one finding, not a traceback
            self.fail_with([Finding(self.gate, self.subject, None, str(exc))])
        if self.spec.only_kind is not None:
            findings = [f for f in findings if f.kind == self.spec.only_kind]
        if findings:
            self.fail_with(findings)


def gate_items(parent: Any, gates: tuple[Gate, ...]) -> list[FindingsItem]:
    """One item per gate of ``gates`` (the registry's MODEL_GATES or LOCK_GATES) under a SeamsFile."""
    model_subject = parent.project.relative(parent.model.trig_path)
    return [FindingsItem.from_parent(parent, name=g.name, spec=g,
                                     subject="seams.lock" if g.lock else model_subject)
            for g in gates]

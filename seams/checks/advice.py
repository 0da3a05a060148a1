"""Advice ``seams check`` prints after its findings: not problems, so the exit code
does not change, but what a careful modeler would do next.

Held-out examples (docs/model.md): once a task has three examples and none is
held out, every example is in the prompt, and a draft that only returns the
outputs it was shown would pass. Holding one out makes acceptance try an input
the drafter never saw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from seams.model.loading import Model

HOLD_OUT_FROM = 3  # examples a task needs before one should be held out


def advice(model: Model) -> list[str]:
    """``note <subject> <predicate>: <advice>`` lines, sorted."""
    notes = []
    for task in model.view.service_tasks():
        if len(task.examples) >= HOLD_OUT_FROM and not any(e.held_out for e in task.examples):
            notes.append(f"note {model.qname(task.iri)} seam:example: {len(task.examples)} examples and none "
                         "held out; mark one seam:heldOut true so acceptance tries an input no prompt showed")
    return sorted(notes)

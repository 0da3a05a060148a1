"""Measure how many gateway conditions of a local checkout's BPMN files seams parses.

    python scripts/condition_corpus.py PATH [PATH ...]

Every ``*.bpmn`` file under each PATH (a checkout of, say,
camunda/camunda-bpm-examples) is read; each refused condition is printed
with its reason, then the totals. docs/conditions.md quotes the figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

from seams.lang.condition_corpus import read_corpus


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    parsed = refused = 0
    for name in argv:
        root = Path(name).resolve()
        for outcome in read_corpus(root.rglob("*.bpmn"), root):
            if outcome.refusal is None:
                parsed += 1
            else:
                refused += 1
                print(f"{root.name}/{outcome.path} {outcome.flow}: {outcome.refusal}")
    total = parsed + refused
    share = f"{100 * parsed / total:.0f}%" if total else "-"
    print(f"{parsed} of {total} conditions parse ({share}); {refused} refused")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Golden files of generator packages: every non-blank line carries a marker.

``[fixed] <text>`` says the text comes from the template; ``[graph: <what>]
<text>`` says it comes from the model, ``<what>`` naming the subject and
predicate. Blank lines stay blank. The markers are what a reviewer reads to
see which parts of an output the model drives; the golden test compares the
rendered output with the text the markers leave.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MARKER = re.compile(r"^\[(?:fixed|graph: [^\]\n]+)\](?: |$)")


def fixed_golden(text: str) -> str:
    """The golden of an output that is all template: ``[fixed]`` on every non-blank line."""
    return "\n".join(f"[fixed] {line}" if line else "" for line in text.split("\n"))


@dataclass(frozen=True)
class Golden:
    expected: str  # the text the markers leave
    unmarked: tuple[int, ...]  # 1-based numbers of non-blank lines without a marker


def read_golden(golden: str) -> Golden:
    lines, unmarked = [], []
    for number, line in enumerate(golden.split("\n"), start=1):
        found = MARKER.match(line)
        if found:
            lines.append(line[found.end():])
        else:
            if line:
                unmarked.append(number)
            lines.append(line)
    return Golden(expected="\n".join(lines), unmarked=tuple(unmarked))

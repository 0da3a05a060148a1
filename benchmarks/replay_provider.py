"""The benchmark projects' provider: the recorded Record-leave handler for any draft prompt.

The example's recorded provider answers only for ``ex:RecordLeave``; a
synthetic project renames every task (``ex:RecordLeave_7``), so its
``seams propose record_leave_7`` needs a provider that answers whatever
copy the prompt is about. Only the standard library: it runs as
``python3 provider/replay.py`` with whatever Python is on PATH.
"""

from __future__ import annotations

import sys

# the handler body the example's recorded provider replays for ex:RecordLeave
HANDLER = '''"""Record leave: book the approved days in the team calendar and keep the booking reference."""


def handle(inputs, bindings):
    """Book the employee's days off and return the calendar's booking reference."""
    booking_ref = bindings.calendar(inputs["employee"], inputs["leave_type"], inputs["days"])
    return {"booking_ref": str(booking_ref)}
'''


def main() -> int:
    prompt = sys.stdin.read()
    if not prompt.startswith(("seams prompt draft-v1.txt", "seams prompt draft-v2.txt")):
        print("replay.py: only draft-v1 and draft-v2 prompts are answered", file=sys.stderr)
        return 3
    sys.stdout.write(f"```python\n{HANDLER}```\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

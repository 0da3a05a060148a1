"""The undo entry as a journal: an apply or undo cut short by a crash is repaired next time.

``files.apply`` writes its undo entry (the manifest and every file's
previous bytes, synced to disk) *before* the first file is replaced, with
``"state": "applying"``, and marks it ``"applied"`` after the last;
``undo`` marks the entry ``"undoing"`` before it restores the first file and
deletes it after the last. So a crash (a kill, a power cut) between two
renames leaves an entry that says what was under way, and the next seams
command (``seams_cli.main``) calls ``seams_edit.undo.recover``: it brings every file of
an unfinished entry back to its previous bytes (rolling back an apply,
finishing an undo), deletes the entry and says so in one line. A file that
holds neither its previous bytes nor the ones the apply wrote was changed by
someone else since: recovery then stops with one line naming it and touches
nothing. See docs/edit.md.

``SEAMS_CRASH_BEFORE_RENAME=N`` makes the process exit (status 86) just
before its Nth rename, for the crash tests: a real kill at a chosen point.
"""

from __future__ import annotations

import os
from pathlib import Path

from seams.errors import EditError

APPLYING, APPLIED, UNDOING = "applying", "applied", "undoing"
CRASH_ENV = "SEAMS_CRASH_BEFORE_RENAME"
CRASH_STATUS = 86
_renames = 0


def rename_point() -> None:
    """Called before every rename of an apply or undo; the crash tests' hook."""
    global _renames
    wanted = os.environ.get(CRASH_ENV)
    if not wanted:
        return
    _renames += 1
    if str(_renames) == wanted:
        os._exit(CRASH_STATUS)


def sync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (a crash after it keeps it)."""
    descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def check_state(state: object, manifest: Path) -> str:
    if state not in (APPLYING, APPLIED, UNDOING):
        raise EditError(f"{manifest}: unreadable undo manifest: unknown state {state!r}")
    return str(state)

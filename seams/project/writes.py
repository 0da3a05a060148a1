"""Writing several files all or none, for ``seams generate`` and ``seams propose``.

A full disk (ENOSPC), a quota or a read-only directory can fail any write.
One file at a time would leave generated files that disagree with each other
and with ``seams.lock``. So every new content is first written to a
temporary file beside its target and synced (this is where a full disk
fails, and then nothing has changed); only then are they moved into place,
and if a move fails the files already moved get their old bytes back. The
error names the file and why, as one line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from seams.errors import SeamsError
from seams.fs import discard, temporary_beside


class WriteError(SeamsError):
    """A file could not be written; no file was changed (exit 1)."""


def write_all(changes: Mapping[Path, bytes | None], *, shown=lambda path: str(path),
              before_rename: Callable[[], None] | None = None) -> None:
    """Give each path its bytes (None: delete it), every one or none.

    ``shown`` turns a path into what the message prints (project-relative);
    ``before_rename`` is called before each file is moved into place (seams_edit's
    journal counts its renames there, for the crash tests). This is the one
    all-or-none writer: ``seams generate``, ``seams propose`` and seams_edit's
    applies and undos all write through it.
    """
    previous: dict[Path, bytes | None] = {}
    temporaries: dict[Path, Path] = {}
    target = next(iter(changes), Path("."))
    try:
        for target, content in changes.items():
            previous[target] = _read_or_none(target)
            if content is not None:
                temporaries[target] = temporary_beside(target, content)
    except OSError as error:
        discard(temporaries.values())
        raise WriteError(f"{shown(target)}: cannot write: {error.strerror or error}; no file was changed") from None
    done: list[Path] = []
    try:
        for target, content in changes.items():
            if before_rename is not None:
                before_rename()
            if content is None:
                target.unlink(missing_ok=True)
            else:
                os.replace(temporaries[target], target)
                del temporaries[target]
            done.append(target)
    except OSError as error:
        discard(temporaries.values())
        _restore(done, previous)
        raise WriteError(f"{shown(target)}: cannot write: {error.strerror or error}; no file was changed") from None


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _restore(done: list[Path], previous: Mapping[Path, bytes | None]) -> None:
    """Put back the files a failed write already replaced; a file that cannot be put back is
    named (its old bytes are lost only if the disk refuses them twice)."""
    failed: list[Path] = []
    for target in reversed(done):
        before = previous[target]
        try:
            if before is None:
                target.unlink(missing_ok=True)
            else:
                os.replace(temporary_beside(target, before), target)
        except OSError:
            failed.append(target)
    if failed:
        raise WriteError(f"{failed[0]}: could not be restored after a failed write ({len(failed)} file(s))")

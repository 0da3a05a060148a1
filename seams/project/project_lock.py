"""The project lock: one seams command writes a project at a time.

``seams generate`` beside ``seams propose`` used to lose the accepted
draft's record: each read ``seams.lock``, and the last to write it won. So
every command that writes (generate, propose, suggest --accept, undo,
draft-generator, and the recovery of an interrupted apply) holds an
advisory ``fcntl.flock`` on ``.seams/lock`` while it reads what it will
rewrite and writes it. A second writer prints one line saying it waits,
then waits up to ``[limits] lock_timeout`` seconds (default 60) and fails
with one line naming the holder. The lock is released by the kernel when
its holder exits, crash or not, so a killed command never leaves it stuck.
Nested acquisition in one process (recovery, then the command) is counted,
not re-locked. See docs/edit.md.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from seams.errors import ProjectError

LOCK_FILE = "lock"
_POLL_SECONDS = 0.05
_held: dict[Path, int] = {}  # resolved root -> nesting depth in this process


class ProjectLockTimeout(ProjectError):
    """Another seams command held the project lock for longer than the timeout (exit 2)."""


def lock_path(root: Path) -> Path:
    return root / ".seams" / LOCK_FILE


@contextmanager
def project_lock(root: Path, *, timeout: float, command: str = "seams") -> Iterator[None]:
    """Hold the project's write lock for the ``with`` block (see the module docstring)."""
    root = root.resolve()
    if root in _held:
        _held[root] += 1
        try:
            yield
        finally:
            _held[root] -= 1
        return
    descriptor = _open(root)
    try:
        _acquire(descriptor, root, timeout, command)
        _record_holder(descriptor, command)
        _held[root] = 1
        try:
            yield
        finally:
            del _held[root]
    finally:
        os.close(descriptor)  # releases the lock


def _open(root: Path) -> int:
    folder = root / ".seams"
    if folder.is_symlink() or (folder.exists() and not folder.resolve().is_relative_to(root)):
        raise ProjectError(f"{folder}: leads outside the project root {root}; remove the link")
    try:
        folder.mkdir(exist_ok=True)
        try:  # keep .seams out of git, as seams_edit does when it creates the folder
            ignore = os.open(folder / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            pass
        else:
            os.write(ignore, b"*\n")
            os.close(ignore)
        # O_NONBLOCK: a FIFO planted at .seams/lock must not wait for a writer; checked below
        descriptor = os.open(lock_path(root), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK,
                             0o666)
    except OSError as error:
        hint = ("free some space and run it again" if error.errno in (errno.ENOSPC, errno.EDQUOT)
                else "remove it if it is not a regular file")
        raise ProjectError(f"{lock_path(root)}: cannot open the project lock: {error.strerror}; {hint}") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise ProjectError(f"{lock_path(root)}: the project lock must be a regular file; remove it")
    return descriptor


def _record_holder(descriptor: int, command: str) -> None:
    """Write who holds the lock, for a waiting command's message. The record is a courtesy:
    on a full disk (ENOSPC) or a read-only file system the lock is still held, so the
    command goes on and fails, if at all, where it writes its own files, with its own line."""
    try:
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()} {command}\n".encode(), 0)
    except OSError:
        pass


def _acquire(descriptor: int, root: Path, timeout: float, command: str) -> None:
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    holder = _holder(descriptor)
    print(f"{command}: waiting for the project lock .seams/lock (held by {holder}; "
          f"up to {timeout:g} s)", file=sys.stderr, flush=True)
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise ProjectLockTimeout(
                    f"{lock_path(root)}: the project is locked by {holder} for more than {timeout:g} s; "
                    "try again when it ends (or raise limits.lock_timeout in seams.toml)") from None
            time.sleep(_POLL_SECONDS)


def _holder(descriptor: int) -> str:
    """``pid N (seams generate)`` as the holder wrote it, or ``another seams command``."""
    try:
        text = os.pread(descriptor, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    pid, _, command = text.partition(" ")
    return f"pid {pid} ({command})" if pid.isdigit() and command else "another seams command"

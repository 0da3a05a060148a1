"""Ending an untrusted child and everything it started, without hitting a stranger.

A child started with ``start_new_session=True`` leads its own process group,
so one ``killpg`` ends it and whatever it spawned. The group id is the
child's pid, and it stays ours only while the child is not yet reaped: once
reaped, the pid (and so the group id) may be handed to an unrelated process.
Hence the order every caller follows: :func:`wait_unreaped`, then
:func:`kill_group`, then ``proc.wait()`` to reap.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time


def wait_unreaped(proc: subprocess.Popen, timeout: float) -> bool:
    """Wait for ``proc`` to exit without reaping it (WNOWAIT); False at the time limit."""
    deadline = time.monotonic() + timeout
    delay = 0.002
    while os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, 0.05)
    return True


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the process group ``proc`` leads, finished or not; nothing once ``proc`` is
    reaped, since its group id may then belong to someone else."""
    if proc.returncode is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the group is already gone

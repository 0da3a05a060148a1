"""Process groups: wait without reaping, kill the group, and never signal a reaped pid's group.

That the kill ends grandchildren too is tested through its callers
(test_provider.py, test_runner.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from seams.process_groups import kill_group, wait_unreaped


def test_a_finished_child_stays_unreaped_until_waited_for():
    proc = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"], start_new_session=True)
    assert wait_unreaped(proc, 30) is True
    assert proc.returncode is None
    assert os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None  # a zombie, still ours
    kill_group(proc)
    assert proc.wait() == 3


def test_at_the_time_limit_the_child_is_still_running_until_killed():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    started = time.monotonic()
    assert wait_unreaped(proc, 0.2) is False
    assert 0.2 <= time.monotonic() - started < 5
    kill_group(proc)
    assert proc.wait() == -9


def test_a_reaped_child_is_never_signalled(monkeypatch):
    proc = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    proc.wait()
    signalled = []
    monkeypatch.setattr(os, "killpg", lambda *args: signalled.append(args))
    kill_group(proc)
    assert signalled == []
